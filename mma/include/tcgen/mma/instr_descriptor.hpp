#pragma once
// The 32-bit instruction descriptor (idesc) of tcgen05.mma: kind, operand
// types, majors, negation, sparsity and the M x N shape, checked against the
// legal shapes and types of the PTX ISA and packed, never by hand.
//
// PTX anchors: #tcgen05-instruction-descriptor (Table 42
// #tcgen05-instuction-desc-kind-tf32-f16-f8f6f4, Table 43
// #tcgen05-instuction-desc-kind-mxf8f6f4, Table 44
// #tcgen05-instuction-desc-kind-mxf4-mxf4nvf4), #tcgen05-kind-shapes (Table 39,
// legal M, N, K and types), #tcgen05-transpose-negate-mma-kind (Table 51),
// #tcgen05-kind-shapes-8b-transpose-b (Table 52). Facts:
// ../shared/reference/tcgen05-facts.md §3, tcgen05-facts-2.md §3 and §6.
#include "tcgen/core/rule_table.hpp"
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tcgen/core/bitfield.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/layout/smem_operand.hpp"

namespace tcgen::mma {

enum class MmaKind : std::uint8_t { f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4, mxf4nvf4 };
inline constexpr MmaKind all_mma_kinds[] = {MmaKind::f16,      MmaKind::tf32, MmaKind::f8f6f4,  MmaKind::i8,
                                            MmaKind::mxf8f6f4, MmaKind::mxf4, MmaKind::mxf4nvf4};

// Bit 23 of the block-scaled descriptors: the type of scale_A and scale_B.
enum class ScaleType : std::uint8_t { ue4m3 = 0, ue8m0 = 1 };

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
constexpr const char* name(ScaleType t) { return t == ScaleType::ue8m0 ? "ue8m0" : "ue4m3"; }

// The kinds with scale factors in TMEM use the descriptor of Tables 43/44.
constexpr bool block_scaled(MmaKind k) {
  return k == MmaKind::mxf8f6f4 || k == MmaKind::mxf4 || k == MmaKind::mxf4nvf4;
}

// One tcgen05.mma as the descriptor and the instruction's qualifiers see it.
// cta_group and ws are not in the descriptor: they are the instruction's
// .cta_group::N and .ws, and decide which shapes are legal.
struct InstrDescriptorSpec {
  MmaKind kind = MmaKind::f16;
  ElementType a = ElementType::bf16, b = ElementType::bf16, d = ElementType::f32;
  int m = 128, n = 128;
  layout::Major a_major = layout::Major::K, b_major = layout::Major::K;  // MN = the "transpose" bit
  bool negate_a = false, negate_b = false;
  bool sparse = false;      // tcgen05.mma.sp: A is structured-sparse, K doubles
  int sparse_selector = 0;  // which metadata sub-columns (sparse kind::f16 / tf32 only)
  int cta_group = 1;
  bool ws = false;          // tcgen05.mma.ws
  int ws_b_reuse_shift = 0;  // .ws only: largest B-reuse shift, 0 (none), 8, 16 or 32
  bool saturate = false;     // kind::i8 only
  // Block-scaled kinds only (mxf8f6f4, mxf4, mxf4nvf4); the others need the defaults.
  ScaleType scale_type = ScaleType::ue8m0;
  int a_sf_id = 0, b_sf_id = 0;  // which sub-column of the scale-factor TMEM word
  bool k96 = false;              // mxf4/mxf4nvf4 K = 96 (bit 31), sm_103a only
  friend constexpr bool operator==(const InstrDescriptorSpec&, const InstrDescriptorSpec&) = default;
};

// K of one instruction (#tcgen05-kind-shapes Table 39, "K cannot be explicitly
// specified", #tcgen05-specify-matrix-shape): 256 bits of dense K, doubled by sparsity.
constexpr int k_per_instruction(MmaKind kind, bool sparse = false) {
  int k = 32;
  if (kind == MmaKind::f16) k = 16;
  if (kind == MmaKind::tf32) k = 8;
  if (kind == MmaKind::mxf4 || kind == MmaKind::mxf4nvf4) k = 64;
  return sparse ? 2 * k : k;
}
constexpr int k_per_instruction(const InstrDescriptorSpec& s) {
  return s.k96 ? 96 : k_per_instruction(s.kind, s.sparse);
}

// Operand type codes of atype/btype, -1 where the kind does not take the type
// (Table 42; Table 43 as f8f6f4; Table 44: E2M1 = 1).
constexpr int operand_code(MmaKind kind, ElementType t) {
  using T = ElementType;
  switch (kind) {
    case MmaKind::f16: return t == T::fp16 ? 0 : t == T::bf16 ? 1 : -1;
    case MmaKind::tf32: return t == T::tf32 ? 2 : -1;
    case MmaKind::f8f6f4:
    case MmaKind::mxf8f6f4:
      switch (t) {
        case T::e4m3: return 0;
        case T::e5m2: return 1;
        case T::e2m3: return 3;
        case T::e3m2: return 4;
        case T::e2m1: return 5;
        default: return -1;
      }
    case MmaKind::i8: return t == T::u8 ? 0 : t == T::s8 ? 1 : -1;
    case MmaKind::mxf4:
    case MmaKind::mxf4nvf4: return t == T::e2m1 ? 1 : -1;
  }
  return -1;
}

// dtype codes (Table 42 bits 4-5), -1 where the kind does not take the type.
// The block-scaled kinds accumulate in f32 only and have no dtype field.
constexpr int accumulator_code(MmaKind kind, ElementType d) {
  using T = ElementType;
  switch (kind) {
    case MmaKind::f16:
    case MmaKind::f8f6f4: return d == T::fp16 ? 0 : d == T::f32 ? 1 : -1;
    case MmaKind::i8: return d == T::s32 ? 2 : -1;
    default: return d == T::f32 ? 1 : -1;
  }
}

// Table 42 (.kind::f16, tf32, f8f6f4, i8). Bits 6, 23 and 29 are reserved.
namespace idesc {
inline constexpr BitField sparse_selector{"sparse_selector", 0, 2};
inline constexpr BitField sparse{"sparse", 2, 1};
inline constexpr BitField saturate{"saturate", 3, 1};
inline constexpr BitField d{"d", 4, 2};
inline constexpr BitField a{"a", 7, 3};
inline constexpr BitField b{"b", 10, 3};
inline constexpr BitField negate_a{"negate_a", 13, 1};
inline constexpr BitField negate_b{"negate_b", 14, 1};
inline constexpr BitField a_major{"a_major", 15, 1};  // "Transpose A": 0 = K-major
inline constexpr BitField b_major{"b_major", 16, 1};
inline constexpr BitField n{"n", 17, 6};  // N >> 3
inline constexpr BitField m{"m", 24, 5};  // M >> 4
inline constexpr BitField ws_b_reuse_shift{"ws_b_reuse_shift", 30, 2};  // none, 8, 16, 32
inline constexpr std::array fields{sparse_selector, sparse, saturate, d, a, b, negate_a, negate_b,
                                   a_major, b_major, n, m, ws_b_reuse_shift};
}  // namespace idesc

// Tables 43 (.kind::mxf8f6f4) and 44 (.kind::mxf4, mxf4nvf4). Bits 0-1, 3, 6
// and 24-26 are reserved; bit 31 too for mxf8f6f4, bit 12 too for mxf4*.
namespace idesc_mx {
inline constexpr BitField sparse{"sparse", 2, 1};
inline constexpr BitField b_sf_id{"b_sf_id", 4, 2};
inline constexpr BitField a{"a", 7, 3};
inline constexpr BitField b{"b", 10, 3};
inline constexpr BitField b_mxf4{"b", 10, 2};  // mxf4/mxf4nvf4: a 2-bit btype
inline constexpr BitField negate_a{"negate_a", 13, 1};
inline constexpr BitField negate_b{"negate_b", 14, 1};
inline constexpr BitField a_major{"a_major", 15, 1};
inline constexpr BitField b_major{"b_major", 16, 1};
inline constexpr BitField n{"n", 17, 6};  // N >> 3
inline constexpr BitField scale_type{"scale_type", 23, 1};  // UE8M0 = 1, UE4M3 = 0
inline constexpr BitField m{"m", 27, 2};  // M >> 7
inline constexpr BitField a_sf_id{"a_sf_id", 29, 2};
inline constexpr BitField k96{"k96", 31, 1};  // mxf4/mxf4nvf4: 0 = K 64 (128 sparse), 1 = K 96
inline constexpr std::array mxf8f6f4_fields{sparse,   b_sf_id,  a, b,          negate_a, negate_b,
                                            a_major,  b_major,  n, scale_type, m,        a_sf_id};
inline constexpr std::array mxf4_fields{sparse,  b_sf_id, a, b_mxf4,     negate_a, negate_b, a_major,
                                        b_major, n,       scale_type, m, a_sf_id,  k96};
}  // namespace idesc_mx

// The fields of a kind's descriptor, lowest bit first; every other bit is reserved, 0.
constexpr std::span<const BitField> instr_descriptor_fields(MmaKind kind) {
  if (kind == MmaKind::mxf8f6f4) return idesc_mx::mxf8f6f4_fields;
  if (kind == MmaKind::mxf4 || kind == MmaKind::mxf4nvf4) return idesc_mx::mxf4_fields;
  return idesc::fields;
}
constexpr std::uint32_t reserved_bits(MmaKind kind) {
  return static_cast<std::uint32_t>(uncovered_bits(instr_descriptor_fields(kind), 0xFFFFFFFFu));
}

// The rules, one line each: code, field, sentence. Used by the static_asserts
// of instr_descriptor<Spec>() and the run-time errors of make_instr_descriptor()
// and decode(). check() returns the first rule a spec breaks.
#define TCGEN_INSTR_DESCRIPTOR_RULES(X)                                                                               \
  X(kind, "kind", "kind must be f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4 or mxf4nvf4 (PTX #tcgen05-kind-shapes Table 39)") \
  X(cta_group, "cta_group", "cta_group must be 1 or 2 (PTX #tcgen05-kind-shapes Table 39)")                         \
  X(ws_cta_group, "ws", ".ws is invalid with cta_group::2 (PTX #tcgen05-kind-shapes Table 39)")                      \
  X(ws_block_scaled, "ws", ".ws is invalid for kind::mxf8f6f4, mxf4 and mxf4nvf4 (PTX #tcgen05-kind-shapes Table 39)") \
  X(a_type, "a",                                                                                                     \
    "A must be fp16/bf16 (kind::f16), tf32 (kind::tf32), e4m3/e5m2/e2m3/e3m2/e2m1 (kind::f8f6f4, mxf8f6f4), "       \
    "s8/u8 (kind::i8) or e2m1 (kind::mxf4, mxf4nvf4) (PTX #tcgen05-kind-shapes Table 39)")                          \
  X(b_type, "b",                                                                                                     \
    "B must be fp16/bf16 (kind::f16), tf32 (kind::tf32), e4m3/e5m2/e2m3/e3m2/e2m1 (kind::f8f6f4, mxf8f6f4), "       \
    "s8/u8 (kind::i8) or e2m1 (kind::mxf4, mxf4nvf4) (PTX #tcgen05-kind-shapes Table 39)")                          \
  X(f16_mixed, "b",                                                                                                  \
    "kind::f16 takes A and B of one type, both fp16 or both bf16 (PTX #tcgen05-kind-shapes Table 39 lists no mix)") \
  X(d_type, "d",                                                                                                     \
    "D must be fp16 or f32 (kind::f16, f8f6f4), f32 (kind::tf32 and the block-scaled kinds) or s32 (kind::i8) "      \
    "(PTX #tcgen05-kind-shapes Table 39)")                                                                           \
  X(bf16_d, "d", "bf16 A and B need D = f32; D = fp16 only with fp16 A and B (PTX #tcgen05-kind-shapes Table 39)")   \
  X(m_cg1, "m", "M must be 64 or 128 for cta_group::1 (PTX #tcgen05-kind-shapes Table 39)")                          \
  X(m_ws, "m", "M must be 32, 64 or 128 with .ws (PTX #tcgen05-kind-shapes Table 39)")                               \
  X(m_cg2, "m", "M must be 128 or 256 for cta_group::2 (PTX #tcgen05-kind-shapes Table 39)")                         \
  X(m_block_scaled_cg1, "m",                                                                                         \
    "M must be 128 for kind::mxf8f6f4, mxf4 and mxf4nvf4 with cta_group::1 (PTX #tcgen05-kind-shapes Table 39)")     \
  X(m_block_scaled_sparse, "m",                                                                                      \
    "M must be 256 for sparse kind::mxf8f6f4, mxf4 and mxf4nvf4 with cta_group::2 (PTX #tcgen05-kind-shapes Table 39)") \
  X(n_cg1, "n", "N must be a multiple of 8 in [8, 256] for cta_group::1 (PTX #tcgen05-kind-shapes Table 39)")        \
  X(n_i8_cg1, "n",                                                                                                   \
    "N must be 8, 16, 24, 32 or a multiple of 16 in [48, 256] for kind::i8 cta_group::1 "                            \
    "(PTX #tcgen05-kind-shapes Table 39)")                                                                           \
  X(n_cg2, "n", "N must be a multiple of 16 in [16, 256] for cta_group::2 (PTX #tcgen05-kind-shapes Table 39)")      \
  X(n_i8_cg2, "n", "N must be a multiple of 32 in [32, 256] for kind::i8 cta_group::2 (PTX #tcgen05-kind-shapes Table 39)") \
  X(n_ws, "n", "N must be 64, 128 or 256 with .ws (PTX #tcgen05-kind-shapes Table 39)")                              \
  X(n_ws_sparse, "n", "N must be 64 or 128 with sparse .ws (PTX #tcgen05-kind-shapes Table 39)")                     \
  X(n_transpose_b_8bit, "n",                                                                                         \
    "N must be a multiple of 16 in [16, 256] (cta_group::1) or of 32 in [32, 256] (cta_group::2) when an 8-bit B "   \
    "is MN-major (PTX #tcgen05-kind-shapes-8b-transpose-b Table 52)")                                                \
  X(k96, "k96",                                                                                                      \
    "K = 96 needs kind::mxf4 or mxf4nvf4, dense, cta_group::2 and M = 256, and sm_103a "                             \
    "(PTX #tcgen05-kind-shapes Table 39, #tcgen05-matrix-shape-target-isa-note)")                                    \
  X(a_major_mxf4, "a_major",                                                                                         \
    "A must be K-major for kind::mxf4 and mxf4nvf4, which have no transpose (PTX #tcgen05-transpose-negate-mma-kind Table 51)") \
  X(b_major_mxf4, "b_major",                                                                                         \
    "B must be K-major for kind::mxf4 and mxf4nvf4, which have no transpose (PTX #tcgen05-transpose-negate-mma-kind Table 51)") \
  X(a_major_subbyte, "a_major",                                                                                      \
    "MN-major A needs an 8-, 16- or 32-bit type; 6- and 4-bit A (e2m3, e3m2, e2m1) must be K-major "                 \
    "(PTX #tcgen05-matrices-valid-type-size-majorness-swizzle)")                                                     \
  X(b_major_subbyte, "b_major",                                                                                      \
    "MN-major B needs an 8-, 16- or 32-bit type; 6- and 4-bit B (e2m3, e3m2, e2m1) must be K-major "                 \
    "(PTX #tcgen05-matrices-valid-type-size-majorness-swizzle)")                                                     \
  X(negate_a_i8, "negate_a", "kind::i8 cannot negate A (PTX #tcgen05-transpose-negate-mma-kind Table 51)")           \
  X(negate_b_i8, "negate_b", "kind::i8 cannot negate B (PTX #tcgen05-transpose-negate-mma-kind Table 51)")           \
  X(saturate, "saturate", "saturate is only for kind::i8 (PTX #tcgen05-instuction-desc-kind-tf32-f16-f8f6f4 Table 42 bit 3)") \
  X(sparse_selector_range, "sparse_selector",                                                                        \
    "sparse_selector must be 0, 1, 2 or 3 (PTX #tcgen05-instuction-desc-kind-tf32-f16-f8f6f4 Table 42 bits 0-1)")  \
  X(sparse_selector_zero, "sparse_selector",                                                                         \
    "sparse_selector must be 0 unless sparse kind::f16 or tf32: i8 and f8f6f4 need 0 and the block-scaled kinds "    \
    "reserve bits 0-1 (PTX #tcgen05-sparse-matrices-sparsity-selector, Tables 43/44)")                               \
  X(ws_shift_value, "ws_b_reuse_shift",                                                                              \
    "ws_b_reuse_shift must be 0, 8, 16 or 32 (PTX #tcgen05-instuction-desc-kind-tf32-f16-f8f6f4 Table 42 bits 30-31)") \
  X(ws_shift_needs_ws, "ws_b_reuse_shift",                                                                           \
    "ws_b_reuse_shift is the .ws B-reuse limit and must be 0 without .ws "                                           \
    "(PTX #tcgen05-instuction-desc-kind-tf32-f16-f8f6f4 Table 42 bits 30-31)")                                       \
  X(scale_type, "scale_type",                                                                                        \
    "scale_type must be ue8m0 for kind::mxf8f6f4 and mxf4, ue8m0 or ue4m3 for kind::mxf4nvf4, and is left ue8m0 "   \
    "(unused) for the other kinds (PTX #tcgen05-mma-scale-valid-comb-detail Table 57)")                              \
  X(a_sf_id, "a_sf_id",                                                                                              \
    "a_sf_id must be 0 outside the block-scaled kinds; 0-3 for kind::mxf8f6f4; 0 or 2 for kind::mxf4 and mxf4nvf4 " \
    "(0-3 at K = 96 with ue8m0); 0 with ue4m3 scales at K = 64/128 (PTX #tcgen05-mma-scale-factor-a, Tables 43/44)") \
  X(b_sf_id, "b_sf_id",                                                                                              \
    "b_sf_id must be 0 outside the block-scaled kinds; 0-3 for kind::mxf8f6f4; 0 or 2 for kind::mxf4 and mxf4nvf4 " \
    "(0-3 at K = 96 with ue8m0); 0 with ue4m3 scales at K = 64/128 (PTX #tcgen05-mma-scale-factor-b, Tables 43/44)")

TCGEN_RULE_ENUM(InstrDescriptorRule, TCGEN_INSTR_DESCRIPTOR_RULES);
TCGEN_RULE_LOOKUPS(InstrDescriptorRule, TCGEN_INSTR_DESCRIPTOR_RULES)

namespace detail {
// Scale-factor IDs pick the byte (1X), half-word (2X) or whole word (4X) of
// the TMEM scale word (#tcgen05-mma-scale-factor-a/-b). ue4m3 means 4X
// (Table 57), whose ID "must be 0"; K = 96 block32 (3X) uses bytes 0-3.
constexpr bool sf_id_ok(const InstrDescriptorSpec& s, int id) {
  if (!block_scaled(s.kind)) return id == 0;
  if (id < 0 || id > 3) return false;
  if (s.kind == MmaKind::mxf8f6f4) return true;
  if (s.k96) return s.scale_type == ScaleType::ue8m0 || id % 2 == 0;
  if (s.scale_type == ScaleType::ue4m3) return id == 0;
  return id % 2 == 0;
}
}  // namespace detail

constexpr InstrDescriptorRule check(const InstrDescriptorSpec& s) {
  using R = InstrDescriptorRule;
  using T = ElementType;
  using layout::Major;
  if (static_cast<int>(s.kind) > static_cast<int>(MmaKind::mxf4nvf4)) return R::kind;
  const bool bs = block_scaled(s.kind), i8 = s.kind == MmaKind::i8;
  const bool mxf4 = s.kind == MmaKind::mxf4 || s.kind == MmaKind::mxf4nvf4;
  if (s.cta_group != 1 && s.cta_group != 2) return R::cta_group;
  const bool cg1 = s.cta_group == 1;
  if (s.ws && !cg1) return R::ws_cta_group;
  if (s.ws && bs) return R::ws_block_scaled;
  if (operand_code(s.kind, s.a) < 0) return R::a_type;
  if (operand_code(s.kind, s.b) < 0) return R::b_type;
  if (s.kind == MmaKind::f16 && s.a != s.b) return R::f16_mixed;
  if (accumulator_code(s.kind, s.d) < 0) return R::d_type;
  if (s.kind == MmaKind::f16 && s.a == T::bf16 && s.d != T::f32) return R::bf16_d;

  // Table 39, M: the row of kind x .ws x cta_group x sparsity.
  if (s.ws) {
    if (s.m != 32 && s.m != 64 && s.m != 128) return R::m_ws;
  } else if (!cg1) {
    if (s.m != 128 && s.m != 256) return R::m_cg2;
    if (bs && s.sparse && s.m != 256) return R::m_block_scaled_sparse;
  } else if (bs) {
    if (s.m != 128) return R::m_block_scaled_cg1;
  } else if (s.m != 64 && s.m != 128) {
    return R::m_cg1;
  }

  // Table 39, N; then Table 52 for an MN-major ("transposed") 8-bit B.
  const auto step = [&](int st) { return s.n >= st && s.n <= 256 && s.n % st == 0; };
  if (s.ws) {
    if (s.sparse ? !(s.n == 64 || s.n == 128) : !(s.n == 64 || s.n == 128 || s.n == 256))
      return s.sparse ? R::n_ws_sparse : R::n_ws;
  } else if (i8) {
    if (cg1 && !(s.n == 8 || s.n == 24 || step(16))) return R::n_i8_cg1;
    if (!cg1 && !step(32)) return R::n_i8_cg2;
  } else {
    if (cg1 && !step(8)) return R::n_cg1;
    if (!cg1 && !step(16)) return R::n_cg2;
  }
  if (s.b_major == Major::MN && bits(s.b) == 8 && !step(cg1 ? 16 : 32)) return R::n_transpose_b_8bit;
  if (s.k96 && !(mxf4 && !s.sparse && !cg1 && s.m == 256)) return R::k96;

  // Table 51 (transpose, negate) and the type-size x major-ness table. An
  // MN-major tf32 operand is legal here; it needs 128B_base32B swizzle, which
  // the shared-memory layout checks (layout::SmemOperand, mn_major_tf32).
  if (s.a_major == Major::MN && mxf4) return R::a_major_mxf4;
  if (s.b_major == Major::MN && mxf4) return R::b_major_mxf4;
  if (s.a_major == Major::MN && bits(s.a) < 8) return R::a_major_subbyte;
  if (s.b_major == Major::MN && bits(s.b) < 8) return R::b_major_subbyte;
  if (i8 && s.negate_a) return R::negate_a_i8;
  if (i8 && s.negate_b) return R::negate_b_i8;
  if (s.saturate && !i8) return R::saturate;
  if (s.sparse_selector < 0 || s.sparse_selector > 3) return R::sparse_selector_range;
  if (s.sparse_selector != 0 && !(s.sparse && (s.kind == MmaKind::f16 || s.kind == MmaKind::tf32)))
    return R::sparse_selector_zero;
  const int sh = s.ws_b_reuse_shift;
  if (sh != 0 && sh != 8 && sh != 16 && sh != 32) return R::ws_shift_value;
  if (sh != 0 && !s.ws) return R::ws_shift_needs_ws;
  // One spec per descriptor: fields the kind has no bits for keep their defaults.
  if (!(s.scale_type == ScaleType::ue8m0 || (s.kind == MmaKind::mxf4nvf4 && s.scale_type == ScaleType::ue4m3)))
    return R::scale_type;
  if (!detail::sf_id_ok(s, s.a_sf_id)) return R::a_sf_id;
  if (!detail::sf_id_ok(s, s.b_sf_id)) return R::b_sf_id;
  return R::ok;
}

namespace detail {
// Packs a spec that check() accepted (Tables 42-44).
constexpr std::uint32_t pack(const InstrDescriptorSpec& s) {
  const auto u = [](auto v) { return static_cast<std::uint64_t>(v); };
  const bool mn_a = s.a_major == layout::Major::MN, mn_b = s.b_major == layout::Major::MN;
  std::uint64_t w = 0;
  if (!block_scaled(s.kind)) {
    using namespace idesc;
    const int shift_code = s.ws_b_reuse_shift == 0 ? 0 : s.ws_b_reuse_shift == 8 ? 1 : s.ws_b_reuse_shift == 16 ? 2 : 3;
    w = sparse_selector.insert(w, u(s.sparse_selector));
    w = sparse.insert(w, u(s.sparse));
    w = saturate.insert(w, u(s.saturate));
    w = d.insert(w, u(accumulator_code(s.kind, s.d)));
    w = a.insert(w, u(operand_code(s.kind, s.a)));
    w = b.insert(w, u(operand_code(s.kind, s.b)));
    w = negate_a.insert(w, u(s.negate_a));
    w = negate_b.insert(w, u(s.negate_b));
    w = a_major.insert(w, u(mn_a));
    w = b_major.insert(w, u(mn_b));
    w = n.insert(w, u(s.n >> 3));
    w = m.insert(w, u(s.m >> 4));
    w = ws_b_reuse_shift.insert(w, u(shift_code));
    return static_cast<std::uint32_t>(w);
  }
  using namespace idesc_mx;
  const bool mxf4 = s.kind != MmaKind::mxf8f6f4;
  w = sparse.insert(w, u(s.sparse));
  w = b_sf_id.insert(w, u(s.b_sf_id));
  w = a.insert(w, u(operand_code(s.kind, s.a)));
  w = (mxf4 ? b_mxf4 : b).insert(w, u(operand_code(s.kind, s.b)));
  w = negate_a.insert(w, u(s.negate_a));
  w = negate_b.insert(w, u(s.negate_b));
  w = a_major.insert(w, u(mn_a));
  w = b_major.insert(w, u(mn_b));
  w = n.insert(w, u(s.n >> 3));
  w = scale_type.insert(w, u(s.scale_type));
  w = m.insert(w, u(s.m >> 7));
  w = a_sf_id.insert(w, u(s.a_sf_id));
  if (mxf4) w = k96.insert(w, u(s.k96));
  return static_cast<std::uint32_t>(w);
}
}  // namespace detail

// Run-time construction: an illegal spec throws tcgen::Error naming the field,
// the rule and the values that would be legal for the rest of the request.
std::uint32_t make_instr_descriptor(const InstrDescriptorSpec& spec);

// Compile-time construction: an illegal spec stops the compile with the rule's sentence.
template <InstrDescriptorSpec S>
consteval std::uint32_t instr_descriptor() {
  TCGEN_RULE_ASSERTS(InstrDescriptorRule, TCGEN_INSTR_DESCRIPTOR_RULES, check(S));
  return detail::pack(S);
}

// The fields of a descriptor. cta_group and ws come from the instruction
// (.cta_group::N, .ws), not the descriptor. Throws tcgen::Error naming the
// field for a set reserved bit ("reserved bit 23"), a type code the kind does
// not define, or a field combination check() rejects.
InstrDescriptorSpec decode(std::uint32_t word, MmaKind kind, int cta_group = 1, bool ws = false);

// "kind::f16 cta_group::1 M=128 N=256 K=16 A=bf16 (K-major) B=bf16 (K-major) D=f32", for messages.
std::string describe(const InstrDescriptorSpec& spec);
// The values of `field` (m, n, a, b, d, ...) that check() would accept with
// the rest of the spec unchanged, e.g. "8, 16, ..., 256"; empty if none is listed.
std::string legal_values(const InstrDescriptorSpec& spec, std::string_view field);
// The inverse of name(MmaKind); throws Error("kind", text, "one of f16, ...").
MmaKind parse_mma_kind(std::string_view text);

}  // namespace tcgen::mma
