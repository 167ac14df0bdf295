// The cubin reader of tcgen's driver (run/src/cubin.hpp): the ELF header, section table, symbol
// table and .nv.info records of an image a program loads for queries.
#include "../../run/src/cubin.hpp"
#include "fuzz.hpp"
#include "tcgen/core/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    (void)tcgen::run::read_cubin(std::span<const std::uint8_t>(data, size));
  } catch (const tcgen::Error&) {
  }
  return 0;
}
