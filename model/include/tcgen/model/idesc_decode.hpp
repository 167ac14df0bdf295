#pragma once
// The model's reading of the 32-bit instruction descriptor of tcgen05.mma
// with cta_group::1, for every kind, with and without .ws (PTX
// #tcgen05-instruction-descriptor Tables 42-44, #tcgen05-kind-shapes Table
// 39; facts §3, facts-2 §3 and §6). Written from the tables, independently
// of tcgen::mma.
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
  // Bits 0-1 of kind::f16 and tf32 with sparsity: which metadata sub-column
  // the instruction reads (PTX #tcgen05-sparse-matrices-sparsity-selector).
  int sparse_selector = 0;
  // Block-scaled kinds (Tables 43, 44): the scale factors' type (bit 23:
  // UE8M0 = 1, UE4M3 = 0) and the sub-column IDs of scale_A and scale_B.
  bool ue8m0 = true;
  int a_sf_id = 0, b_sf_id = 0;
};

// Throws tcgen::Error naming the field ("reserved bit 23", "a", "d", "m", "n",
// ...) for a set reserved bit, a type code the kind does not define, a type
// combination Table 39 does not list, or a shape that cta_group::1 does not
// allow: M 64 or 128 (block-scaled kinds: 128); N 8..256 step 8 (kind::i8: 8,
// 16, 24, 32, then step 16; an MN-major 8-bit B: step 16); with .ws (kinds
// f16, tf32, f8f6f4, i8 only) M 32, 64 or 128 and N 64, 128 or 256.
// cta_group::2: M 128 or 256 (sparse block-scaled kinds: 256) and N 16..256
// step 16 (kind::i8: step 32; an MN-major 8-bit B: step 32); no .ws.
InstrDescriptorFields decode_instr_descriptor(std::uint32_t idesc, MmaKind kind, bool ws = false,
                                              CtaGroup group = CtaGroup::one);

}  // namespace tcgen::model
