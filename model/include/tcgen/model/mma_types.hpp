#pragma once
// The two value types the model's arithmetic passes between its steps: which
// tcgen05.mma kind runs, and an operand decoded out of shared memory.
#include <cstdint>
#include <optional>
#include <vector>

namespace tcgen::model {

// .cta_group::1 (one CTA) or ::2 (a CTA pair, PTX #tcgen05-issue-granularity).
enum class CtaGroup { one = 1, two = 2 };

// The kinds of tcgen05.mma (PTX #tcgen05-mma, #tcgen05-kind-shapes); the
// last three are block-scaled (PTX #tcgen05-block-scaling).
enum class MmaKind : std::uint8_t { f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4 };

constexpr const char* name(MmaKind k) {
  switch (k) {
    case MmaKind::f16: return "f16";
    case MmaKind::tf32: return "tf32";
    case MmaKind::f8f6f4: return "f8f6f4";
    case MmaKind::i8: return "i8";
    case MmaKind::mxf8f6f4: return "mxf8f6f4";
    case MmaKind::mxf4: return "mxf4";
    case MmaKind::mxf4nvf4: return "mxf4nvf4";
  }
  return "?";
}

constexpr bool block_scaled(MmaKind k) {
  return k == MmaKind::mxf8f6f4 || k == MmaKind::mxf4 || k == MmaKind::mxf4nvf4;
}

// K of one instruction: "K cannot be explicitly specified but is implicitly
// determined by the MMA-kind and the sparsity" (PTX #tcgen05-kind-shapes
// Table 39). Dense: 256 bits of K, i.e. 16 16-bit, 8 tf32, 32 8-bit (or
// padded 6/4-bit) values, or 64 packed 4-bit values for kind::mxf4 and
// mxf4nvf4 (sm_100a: the K = 96 form is sm_103a's). Sparse (tcgen05.mma.sp)
// doubles K; A keeps the dense K's worth of values, half of each row
// (PTX #tcgen05-sparse-matrices).
constexpr int k_per_instruction(MmaKind k, bool sparse = false) {
  const int twice = sparse ? 2 : 1;
  switch (k) {
    case MmaKind::f16: return 16 * twice;
    case MmaKind::tf32: return 8 * twice;
    case MmaKind::f8f6f4: return 32 * twice;
    case MmaKind::i8: return 32 * twice;
    case MmaKind::mxf8f6f4: return 32 * twice;
    case MmaKind::mxf4: return 64 * twice;
    case MmaKind::mxf4nvf4: return 64 * twice;
  }
  return 0;
}

// Whether the kind's 4-bit operands are packed two to a byte in shared
// memory (kind::mxf4, mxf4nvf4) rather than padded to a byte each
// (kind::f8f6f4, mxf8f6f4) (PTX #tcgen05-packing-formats).
constexpr bool packs_fp4(MmaKind k) { return k == MmaKind::mxf4 || k == MmaKind::mxf4nvf4; }

// What an instruction's spelling adds to its kind and operands.
struct MmaVariant {
  // tcgen05.mma.ws (cta_group::1): M = 32, 64 or 128, N = 64, 128 or 256, D
  // in Layout G, E or D (PTX #tcgen05-data-path-layout-organization).
  bool ws = false;
  // .block_scale.scale_vec::VX of the block-scaled kinds: V scale factors
  // per row of A (column of B) and instruction, 1, 2 or 4 (.block32 and
  // .block16 name the same); 0 for the other kinds.
  int scale_vec = 0;
  std::uint32_t scale_a_tmem = 0, scale_b_tmem = 0;  // [scale-A-tmem], [scale-B-tmem]
  // The immediate scale-input-d of kind::f16 and tf32: D = A*B + D * 2^-s, s in [0, 15].
  int scale_input_d = 0;
  // tcgen05.mma.sp: [sp-meta-tmem], where the sparsity metadata of A lies
  // in Tensor Memory (PTX #tcgen05-mma-instructions-mma-sp); none for the
  // dense tcgen05.mma.
  std::optional<std::uint32_t> sp_meta_tmem = std::nullopt;
};

// One MMA operand as exact element values: A (rows = M) or B (rows = N),
// row-major rows × k, whatever its major-ness in shared memory was.
struct Operand {
  int rows = 0, k = 0;
  std::vector<float> values;

  float at(int row, int kk) const { return values[static_cast<std::size_t>(row) * k + kk]; }
};

}  // namespace tcgen::model
