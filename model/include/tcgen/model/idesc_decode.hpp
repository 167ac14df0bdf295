#pragma once
// The model's reading of the 32-bit instruction descriptor of tcgen05.mma for
// kinds f16, tf32, f8f6f4 and i8 with cta_group::1 and no .ws (PTX
// #tcgen05-instruction-descriptor Table 42, #tcgen05-kind-shapes Table 39;
// facts §3). Written from the tables, independently of tcgen::mma.
#include <cstdint>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/mma_types.hpp"

namespace tcgen::model {

struct InstrDescriptorFields {
  MmaKind kind = MmaKind::f16;
  ElementType a = ElementType::bf16, b = ElementType::bf16, d = ElementType::f32;
  int m = 0, n = 0;
  bool a_mn_major = false, b_mn_major = false;  // the "transpose" bits: false = K-major
  bool negate_a = false, negate_b = false;
  bool sparse = false;
};

// Throws tcgen::Error naming the field ("reserved bit 23", "a", "d", "m", "n",
// ...) for a set reserved bit, a type code the kind does not define, a type
// combination Table 39 does not list, or a shape that cta_group::1 does not
// allow: M 64 or 128; N 8..256 step 8 (kind::i8: 8, 16, 24, 32, then step 16;
// an MN-major 8-bit B: step 16).
InstrDescriptorFields decode_instr_descriptor(std::uint32_t idesc, MmaKind kind);

}  // namespace tcgen::model
