// The instruction descriptor decoder (mma/instr_descriptor.hpp), as `tcgen
// idesc decode` and the interpreter's tcgen05.mma read the 32-bit word, for
// every kind, both CTA groups and .ws; then what is printed of a decoded one.
#include <cstring>

#include "fuzz.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/mma/instr_descriptor.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tcgen::mma;
  if (size < 5) return 0;
  std::uint32_t word;
  std::memcpy(&word, data, 4);
  const MmaKind kind = all_mma_kinds[data[4] % std::size(all_mma_kinds)];
  const int cta_group = data[4] & 0x80 ? 2 : 1;
  const bool ws = data[4] & 0x40;
  try {
    const InstrDescriptorSpec spec = decode(word, kind, cta_group, ws);
    (void)describe(spec);
    (void)make_instr_descriptor(spec);
  } catch (const tcgen::Error&) {
  }
  return 0;
}
