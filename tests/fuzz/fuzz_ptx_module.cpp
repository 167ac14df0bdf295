// The PTX lexer, parser and module loader (ptx::Module::parse): the text of a
// .ptx file, as `tcgen ptx FILE`, `--backend ptx --ptx FILE` and
// cuModuleLoadData hand it over.
#include "fuzz.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/ptx/module.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const tcgen::ptx::Module m = tcgen::ptx::Module::parse(tcgen::fuzz::text(data, size), "fuzz.ptx");
    (void)m;
  } catch (const tcgen::Error&) {  // the clear error bad PTX must get
  }
  return 0;
}
