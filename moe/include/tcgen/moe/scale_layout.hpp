#pragma once
// Where the scale factors of a block-scaled operand lie in memory: CUTLASS's
// blocked layout (include/cutlass/detail/sm100_blockscaled_layout.hpp,
// Sm1xxBlockScaledBasicChunk and Sm1xxBlockScaledConfig::tile_atom_to_shape_SFA),
// the layout tcgen05.cp .32x128b.warpx4 copies into Tensor Memory as is.
//
// Its atom is one 512-byte block: 128 rows × 4 factors, row r at
// 16·(r % 32) + 4·(r / 32 % 4), factor j of the row at + j, so the 16 bytes
// at 16·i hold rows i, i + 32, i + 64, i + 96 (the four 32-lane quarters of
// one TMEM lane, which warpx4 writes into all four). CUTLASS writes it over
// K elements, Shape<Shape<_32,_4>, Shape<SFVec,_4>> : Stride<Stride<_16,_4>,
// Stride<_0,_1>>, the SFVec mode of stride 0 broadcasting one factor over its
// block; here the coordinate is the factor itself (sf_col = k / block), so
// that mode is dropped. tile_to_shape(atom, (M, K, L), Step<_2,_1,_3>) then
// tiles the atom with the K blocks fastest: block (row / 128, sf_col / 4) is
// the (row / 128 · ceil(sf_cols / 4) + sf_col / 4)-th 512 bytes.
#include <cstdint>

#include "tcgen/core/error.hpp"
#include "tcgen/layout/algebra.hpp"
#include "tcgen/layout/layout.hpp"

namespace tcgen::moe {

inline constexpr int kScaleBlockRows = 128;   // rows of one 512-byte block
inline constexpr int kScaleBlockCols = 4;     // factors per row in one block
inline constexpr int kScaleBlockBytes = 512;

// The atom, (row, factor) -> byte: ((32,4),4):((16,4),1).
inline constexpr layout::Layout kScaleAtom{layout::Mode{{32, 4}, {16, 4}}, layout::Mode{{4}, {1}}};

// The layout of a rows × sf_cols matrix of factors, (row, sf_col) -> byte,
// rows padded to 128 and sf_cols to 4: the atom's blocked product with the
// blocks, K blocks fastest (Step<_2,_1,_3>).
constexpr layout::Layout scale_layout(int rows, int sf_cols) {
  if (rows < 1) fail("rows", rows, "expected at least one row");
  if (sf_cols < 1) fail("sf_cols", sf_cols, "expected at least one scale factor per row");
  const layout::Int row_blocks = (rows + kScaleBlockRows - 1) / kScaleBlockRows;
  const layout::Int col_blocks = (sf_cols + kScaleBlockCols - 1) / kScaleBlockCols;
  const layout::Layout blocks = layout::make_compact<2>({row_blocks, col_blocks}, {1, 0});
  return layout::blocked_product(kScaleAtom, blocks);
}

// Byte offset of factor (row, sf_col) in a matrix of sf_cols factors per row.
constexpr std::uint64_t scale_offset(int row, int sf_col, int sf_cols) {
  if (row < 0) fail("row", row, "expected a row >= 0");
  if (sf_col < 0 || sf_col >= sf_cols) fail("sf_col", sf_col, "expected a factor column in [0, sf_cols)");
  return static_cast<std::uint64_t>(scale_layout(row + 1, sf_cols)(row, sf_col));
}

// Bytes of a rows × sf_cols matrix of factors: whole 512-byte blocks.
constexpr std::uint64_t scale_bytes(int rows, int sf_cols) {
  return static_cast<std::uint64_t>(scale_layout(rows, sf_cols).cosize());
}

}  // namespace tcgen::moe
