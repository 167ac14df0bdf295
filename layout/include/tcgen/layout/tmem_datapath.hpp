#pragma once
// Where tcgen05.mma puts the accumulator D in Tensor Memory: Layouts A-G,
// (row, col) of D -> (CTA, lane, column) relative to the d-tmem address.
//
// PTX #tcgen05-data-path-layout-organization (which layout for which M,
// cta_group, .ws), #tcgen05-matrix-fragments-shape-... (the figures); the
// strides are CUTLASS UMMA::tmem_frg / tmem_frg_ws (tcgen05-facts.md §4).
// D is row-major and f16 D is not packed (one value per 32-bit cell), so the
// map is the same for f16 and f32 D.
#include "tcgen/core/rule_table.hpp"
#include "tcgen/layout/layout.hpp"

namespace tcgen::layout {

inline constexpr Int kTmemLanes = 128;
inline constexpr Int kTmemColumns = 512;

// A Tensor Memory cell as one number: lane + 128·column + 65536·cta. Layouts
// whose codomain is this number express lanes and columns in one algebra.
struct TmemCell {
  Int cta, lane, column;
  friend constexpr bool operator==(const TmemCell&, const TmemCell&) = default;
};
constexpr Int tmem_index(TmemCell c) { return c.lane + kTmemLanes * c.column + kTmemLanes * 512 * c.cta; }
constexpr TmemCell tmem_cell(Int index) {
  return {index / (kTmemLanes * 512), index % kTmemLanes, index / kTmemLanes % 512};
}

enum class DatapathLayout { A, B, C, D, E, F, G };
constexpr char name(DatapathLayout l) { return static_cast<char>('A' + static_cast<int>(l)); }

struct AccumulatorSpec {
  int m = 128;
  int n = 128;
  int cta_group = 1;
  bool ws = false;
  bool sparse = false;  // only distinguishes Layout C (M128, cta_group::2, sparse A)
  friend constexpr bool operator==(const AccumulatorSpec&, const AccumulatorSpec&) = default;
};

// The shape rules the data path depends on (PTX #tcgen05-kind-shapes Table 39,
// kind::f16/tf32/f8f6f4; kind::i8's N set is a subset).
#define TCGEN_ACCUMULATOR_RULES(X)                                                                   \
  X(cta_group, "cta_group", "cta_group must be 1 or 2")                                              \
  X(ws_cta_group, "ws", ".ws is only valid with cta_group::1 (PTX Table 39)")                         \
  X(m_cg1, "m", "M must be 64 or 128 for cta_group::1 (32, 64 or 128 with .ws) (PTX Table 39)")       \
  X(m_cg2, "m", "M must be 128 or 256 for cta_group::2 (PTX Table 39)")                               \
  X(n_cg1, "n", "N must be a multiple of 8 in [8, 256] for cta_group::1 (PTX Table 39)")              \
  X(n_ws, "n", "N must be 64, 128 or 256 with .ws (PTX Table 39)")                                    \
  X(n_cg2, "n", "N must be a multiple of 16 in [16, 256] for cta_group::2 (PTX Table 39)")

TCGEN_RULE_ENUM(AccumulatorRule, TCGEN_ACCUMULATOR_RULES);
TCGEN_RULE_LOOKUPS(AccumulatorRule, TCGEN_ACCUMULATOR_RULES)

constexpr AccumulatorRule check(const AccumulatorSpec& s) {
  if (s.cta_group != 1 && s.cta_group != 2) return AccumulatorRule::cta_group;
  if (s.ws && s.cta_group != 1) return AccumulatorRule::ws_cta_group;
  if (s.cta_group == 1 && !(s.m == 64 || s.m == 128 || (s.ws && s.m == 32))) return AccumulatorRule::m_cg1;
  if (s.cta_group == 2 && !(s.m == 128 || s.m == 256)) return AccumulatorRule::m_cg2;
  if (s.ws) {
    if (!(s.n == 64 || s.n == 128 || s.n == 256)) return AccumulatorRule::n_ws;
  } else if (s.cta_group == 1) {
    if (s.n < 8 || s.n > 256 || s.n % 8 != 0) return AccumulatorRule::n_cg1;
  } else if (s.n < 16 || s.n > 256 || s.n % 16 != 0) {
    return AccumulatorRule::n_cg2;
  }
  return AccumulatorRule::ok;
}

// PTX #tcgen05-data-path-layout-organization, the table of M × cta_group × .ws.
constexpr DatapathLayout datapath_layout(const AccumulatorSpec& s) {
  if (s.cta_group == 2) return s.m == 256 ? DatapathLayout::A : (s.sparse ? DatapathLayout::C : DatapathLayout::B);
  if (s.m == 128) return DatapathLayout::D;
  if (s.m == 32) return DatapathLayout::G;
  return s.ws ? DatapathLayout::E : DatapathLayout::F;
}

// Lane offsets the d-tmem address may carry: the half-datapath layouts F and
// C "must use the same Tensor Memory lane alignment across matrices A, D and
// the sparsity metadata", 0 or 16; every other layout starts at lane 0.
constexpr bool lane_offset_allowed(DatapathLayout l, Int lane) {
  return lane == 0 || ((l == DatapathLayout::F || l == DatapathLayout::C) && lane == 16);
}

// (row, col) of the M×N accumulator -> tmem_index(cta, lane, column), relative
// to d-tmem. For cta_group::2, CTA v of the pair holds rows [v·M/2, (v+1)·M/2).
constexpr Layout accumulator_layout(const AccumulatorSpec& s) {
  const Int N = s.n, cta = kTmemLanes * 512, col = kTmemLanes;
  switch (datapath_layout(s)) {
    case DatapathLayout::D: return Layout{Mode{{128}, {1}}, Mode{{N}, {col}}};
    case DatapathLayout::F: return Layout{Mode{{16, 4}, {1, 32}}, Mode{{N}, {col}}};  // lanes 0-15 of each quarter
    case DatapathLayout::E: return Layout{Mode{{64}, {1}}, Mode{{N / 2, 2}, {col, 64}}};  // right half in lanes 64-127
    case DatapathLayout::G: return Layout{Mode{{32}, {1}}, Mode{{N / 4, 4}, {col, 32}}};  // quarters of N in lane quarters
    case DatapathLayout::A: return Layout{Mode{{128, 2}, {1, cta}}, Mode{{N}, {col}}};
    case DatapathLayout::B: return Layout{Mode{{64, 2}, {1, cta}}, Mode{{N / 2, 2}, {col, 64}}};
    // Layout C: PTX draws a half datapath, 4x1; its figure is unreadable in the
    // text copy and CUTLASS has no atom of its own for it (UNCONFIRMED):
    // modelled as Layout F in each CTA.
    case DatapathLayout::C: return Layout{Mode{{16, 4, 2}, {1, 32, cta}}, Mode{{N}, {col}}};
  }
  return {};
}

// Columns of the allocation the accumulator occupies in each CTA.
constexpr Int accumulator_columns(const AccumulatorSpec& s) {
  switch (datapath_layout(s)) {
    case DatapathLayout::B:
    case DatapathLayout::E: return s.n / 2;
    case DatapathLayout::G: return s.n / 4;
    default: return s.n;
  }
}

// Run-time construction: an illegal spec throws tcgen::Error naming the field.
Layout make_accumulator_layout(const AccumulatorSpec& spec);

template <AccumulatorSpec S>
consteval Layout accumulator_layout() {
  TCGEN_RULE_ASSERTS(AccumulatorRule, TCGEN_ACCUMULATOR_RULES, check(S));
  return accumulator_layout(S);
}

}  // namespace tcgen::layout
