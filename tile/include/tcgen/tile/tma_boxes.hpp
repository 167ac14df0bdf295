#pragma once
// How TMA fills a canonical 128-byte-swizzled operand tile: which boxes, and
// where each lands. A tiled load writes its box row after row, one dim-0 run
// per 128-byte swizzle row, swizzled on the absolute address
// (model::tma_load; PTX #tensor-tiled-mode-bounding-box, #tensor-swizzling-modes);
// the MMA reads the tile through the layout of layout::SmemOperand. The boxes
// are derived from that layout and checked against it element by element at
// compile time, so the loads and the descriptors cannot disagree.
//
// A K-major tile (rows × 64 of 16-bit K) is one box of 64 × rows: its rows
// are 128 bytes apart in the layout too. An MN-major tile stacks its 64-wide
// MN blocks before its 8-row K groups (SmemOperand tiles the swizzle atoms
// M/N first, as CuTe's tile_to_shape does), so a box may span only one
// atom: 64 MN × 8 K, (rows / 64) · (K / 8) boxes. A layout that stacked K
// first would take one 64 × 64 box per MN block; layout::SmemOperandSpec
// has no field for that order (docs/gemm.md).
#include "tcgen/layout/smem_operand.hpp"

namespace tcgen::tile {

using layout::Int;

struct TmaBoxes {
  bool ok = false;      // the layout is filled by such boxes (else the fields are meaningless)
  int inner = 0;        // box extent along the contiguous dimension (K for K-major, M/N for MN-major)
  int outer = 0;        // box extent along the other dimension
  int count_inner = 0;  // boxes along each dimension of the tile
  int count_outer = 0;
  Int stride_inner = 0;  // bytes from a box's first element to its neighbour's, along each dimension
  Int stride_outer = 0;
};

namespace detail {

// Byte offset in the tile of the element at (contiguous c, other o).
constexpr Int tile_offset(const layout::SmemOperand& op, Int c, Int o) {
  return op.spec().major == layout::Major::K ? op.offset(o, c) : op.offset(c, o);
}

// Whether boxes of inner × outer fill the tile: each box dense (element (c, o)
// at chunk(c) + o·128 bytes from its first, the swizzle row being 128 bytes,
// chunk(c) = c / T · 16 + (c % T) · bits / 8 for T elements to 16 bytes: a
// padded 4-bit element's byte is its chunk's first 8, as TMA's 16U4_ALIGN16B
// unpacks it), its
// first element on the 1024-byte period of the swizzle, and the boxes' first
// elements linear in the box index. The tile's layout has one mode per
// dimension and its elements whole bytes in shared memory, so an offset is a sum
// F(c) + G(o) of one function per dimension: checking each along its own
// dimension checks every element (and keeps the check within nvcc's
// constexpr budget).
constexpr TmaBoxes try_boxes(const layout::SmemOperand& op, int inner, int outer) {
  const layout::SmemOperandSpec& s = op.spec();
  const Int contiguous = s.major == layout::Major::K ? s.cols : s.rows;
  const Int other = s.major == layout::Major::K ? s.rows : s.cols;
  const Int row = layout::swizzle_bytes(s.swizzle);
  const auto chunk = [&](Int c) { return c / s.element.per_chunk * 16 + c % s.element.per_chunk * s.element.bits / 8; };
  TmaBoxes b;
  if (op.layout().rank() != 2 || contiguous % inner != 0 || other % outer != 0) return b;
  b.inner = inner;
  b.outer = outer;
  b.count_inner = static_cast<int>(contiguous / inner);
  b.count_outer = static_cast<int>(other / outer);
  const Int origin = tile_offset(op, 0, 0);
  b.stride_inner = b.count_inner > 1 ? tile_offset(op, inner, 0) - origin : 0;
  b.stride_outer = b.count_outer > 1 ? tile_offset(op, 0, outer) - origin : 0;
  if (origin != 0 || b.stride_inner % 1024 != 0 || b.stride_outer % 1024 != 0) return b;
  for (Int c = 0; c < contiguous; ++c)
    if (tile_offset(op, c, 0) != c / inner * b.stride_inner + chunk(c % inner)) return b;
  for (Int o = 0; o < other; ++o)
    if (tile_offset(op, 0, o) != o / outer * b.stride_outer + o % outer * row) return b;
  b.ok = true;
  return b;
}

}  // namespace detail

// The largest boxes (up to TMA's 256 elements per dimension) that fill a
// 128-byte-swizzled tile of elements of 2 or 1 bytes in shared memory (16-
// or 8-bit, or 4-bit padded to a byte); ok = false if none do.
constexpr TmaBoxes tma_boxes(const layout::SmemOperand& op) {
  const layout::SmemOperandSpec& s = op.spec();
  if (s.swizzle != layout::SmemSwizzle::b128 || (s.element.per_chunk != 8 && s.element.per_chunk != 16)) return {};
  const int inner = static_cast<int>(layout::swizzle_bytes(s.swizzle) * s.element.per_chunk / 16);  // one swizzle row
  for (int outer = 256; outer >= 1; outer /= 2) {
    const TmaBoxes b = detail::try_boxes(op, inner, outer);
    if (b.ok) return b;
  }
  return {};
}

}  // namespace tcgen::tile
