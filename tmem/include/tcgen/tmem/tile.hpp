#pragma once
// Typed Tensor Memory tiles: a TMEM address that carries, in its type, what
// lives there. An MMA atom takes these, so an accumulator of the wrong shape
// or element type, or an A operand of the wrong K, does not compile.
#include <concepts>

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

// Bits one A element takes in a TMEM cell: 6-bit types sit in 8-bit
// containers (PTX #tcgen05-packing-formats-mxf8f6f4-tmem). 4-bit types count
// as packed two per byte, the kind::mxf4 / mxf4nvf4 form; kind::mxf8f6f4 keeps
// them one per byte (tcgen05-facts-2.md §1.1), which this count does not model.
constexpr int tmem_container_bits(ElementType a) { return bits(a) == 6 ? 8 : bits(a); }

// The A operand of a TS-MMA (A from Tensor Memory): M rows in lanes, K
// elements of A packed into 32-bit columns, the lower k in the lower bits
// (PTX #tcgen05-packing-formats; tcgen05-facts-2.md, A operand in TMEM).
template <int M, int K, ElementType A>
struct OperandTile {
  static_assert(M == 64 || M == 128, "a TMEM A operand has 64 or 128 rows per CTA");
  static_assert(K * tmem_container_bits(A) % 32 == 0, "a TMEM A operand fills whole 32-bit columns");
  static constexpr int m = M;
  static constexpr int k = K;
  static constexpr ElementType element = A;
  static constexpr int per_column = 32 / tmem_container_bits(A);  // elements of a row in one 32-bit cell
  static constexpr std::uint32_t columns = K / per_column;

  TmemAddress address;

  // Where MMA K step k reads A: one instruction takes 256 bits of each row,
  // 8 columns (tcgen05-facts-2.md §1.2), as SmemMatrix::kstep is where it
  // reads a shared-memory operand. Both faces issue through it.
  constexpr TCGEN_HD TmemAddress kstep(int k) const { return address.col_offset(8u * static_cast<std::uint32_t>(k)); }
};

// Whether an MMA operand is read from Tensor Memory (an OperandTile, whose
// kstep() is a TmemAddress) rather than through a shared-memory descriptor.
template <class A>
inline constexpr bool is_tmem_operand = requires(const A& a) {
  { a.kstep(0) } -> std::same_as<TmemAddress>;
};

// Cells that only tcgen05.st / ld / cp touch, such as the softmax row
// statistics or scale factors: M rows per CTA in the lanes an M-row
// accumulator uses, one E value per 32-bit cell.
template <int M, int Columns, ElementType E = ElementType::f32>
struct ScratchTile {
  static_assert(M == 64 || M == 128, "a scratch region has 64 or 128 rows per CTA, in an accumulator's lanes");
  static_assert(Columns >= 1 && Columns <= 512, "a scratch region has 1 to 512 columns");
  static constexpr int m = M;
  static constexpr ElementType element = E;
  static constexpr std::uint32_t columns = Columns;

  TmemAddress address;
};

}  // namespace tcgen::tmem
