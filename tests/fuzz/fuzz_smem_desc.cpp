// The shared-memory matrix descriptor decoder (mma/smem_descriptor.hpp), as
// `tcgen desc decode` and the interpreter's tcgen05.mma read a 64-bit word,
// for both forms; and its documented round trip: encode(decode(x)) == x for
// every x decode accepts.
#include <cstring>

#include "fuzz.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/mma/smem_descriptor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tcgen::mma;
  if (size < 9) return 0;
  std::uint64_t word;
  std::memcpy(&word, data, 8);
  const DescriptorArch arch = data[8] & 1 ? DescriptorArch::sm90 : DescriptorArch::sm100;
  SmemDescriptorFields f;
  try {
    f = decode(word, arch);
    (void)describe(word, arch);
  } catch (const tcgen::Error&) {
    return 0;
  }
  if (encode(f, arch) != word) tcgen::fuzz::violated("smem descriptor: encode(decode(x)) == x");
  return 0;
}
