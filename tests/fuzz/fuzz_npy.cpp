// The .npy reader of the CLI's --a/--b/--q/--k/--v inputs (tools/tcgen/npy.hpp),
// in its three forms. It reads files by name, so each input is written to a
// file of this process first (under TMPDIR, /tmp when unset).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "../../tools/tcgen/npy.hpp"
#include "fuzz.hpp"
#include "tcgen/core/error.hpp"

namespace {

const std::string& scratch() {
  static const std::string path = [] {
    const char* dir = std::getenv("TMPDIR");
    return std::string(dir && *dir ? dir : "/tmp") + "/tcgen_fuzz_npy_" + std::to_string(::getpid()) + ".npy";
  }();
  return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::FILE* f = std::fopen(scratch().c_str(), "wb");
  if (!f) std::abort();  // the harness's own failure, not the reader's
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  using namespace tcgen::cli;
  try {
    (void)read_npy(scratch());
  } catch (const tcgen::Error&) {
  }
  try {
    (void)read_npy_int32(scratch());
  } catch (const tcgen::Error&) {
  }
  try {
    (void)read_npy_uint8(scratch());
  } catch (const tcgen::Error&) {
  }
  return 0;
}
