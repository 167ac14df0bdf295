#include "ptx_kernels.hpp"

#include <fstream>

#include "output_file.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::cli {

ptx::Module load_kernels(const Args& a, const std::string& built, const char* verb) {
  if (a.has("ptx")) {
    check_input_file("--ptx", a.text("ptx"));
    return ptx::Module::load(a.text("ptx"));
  }
  if (built.empty())
    fail("--backend", "ptx",
         std::string("expected the kernels' PTX, which this build lacks (nvcc not found at configure time): give --ptx FILE, "
                     "from nvcc -ptx -lineinfo -gencode arch=compute_100a,code=sm_100a of the ") +
             verb + " kernels");
  if (!std::ifstream(built))
    fail("--ptx", built, "expected the PTX this build compiled; rebuild (cmake --build build) or give --ptx FILE");
  return ptx::Module::load(built);
}

}  // namespace tcgen::cli
