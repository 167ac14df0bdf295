#pragma once
// Typed Tensor Memory tiles: a TMEM address that carries, in its type, what
// lives there. An MMA atom takes these, so an accumulator of the wrong shape
// or element type, or an A operand of the wrong K, does not compile.
#include "tcgen/core/element_type.hpp"
#include "tcgen/layout/tmem_datapath.hpp"
#include "tcgen/tmem/address.hpp"

namespace tcgen::tmem {

// The accumulator D of tcgen05.mma: its M, N, cta_group and .ws decide the
// data-path layout (PTX #tcgen05-data-path-layout-organization). D is f32,
// f16 (one value in the low half of each 32-bit cell) or s32.
template <layout::AccumulatorSpec Spec, ElementType D = ElementType::f32>
struct AccumulatorTile {
  static_assert(layout::check(Spec) == layout::AccumulatorRule::ok,
                "the accumulator shape is not a legal tcgen05.mma shape (see layout::check(AccumulatorSpec))");
  static_assert(D == ElementType::f32 || D == ElementType::fp16 || D == ElementType::s32,
                "an accumulator holds f32, f16 or s32 (PTX #tcgen05-instruction-descriptor, dtype)");
  static constexpr layout::AccumulatorSpec spec = Spec;
  static constexpr ElementType element = D;
  static constexpr layout::DatapathLayout datapath = layout::datapath_layout(Spec);
  static constexpr std::uint32_t columns = static_cast<std::uint32_t>(layout::accumulator_columns(Spec));

  TmemAddress address;
};

// The A operand of a TS-MMA (A from Tensor Memory): M rows in lanes, K
// elements of A packed into 32-bit columns, 32/bits(A) per column
// (PTX #tcgen05-packing-formats; tcgen05-facts-2.md, A operand in TMEM).
template <int M, int K, ElementType A>
struct OperandTile {
  static_assert(M == 64 || M == 128, "a TMEM A operand has 64 or 128 rows per CTA");
  static_assert(K * bits(A) % 32 == 0, "a TMEM A operand fills whole 32-bit columns");
  static constexpr int m = M;
  static constexpr int k = K;
  static constexpr ElementType element = A;
  static constexpr std::uint32_t columns = K * bits(A) / 32;

  TmemAddress address;
};

}  // namespace tcgen::tmem
