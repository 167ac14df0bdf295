#pragma once
// What the test GEMM kernels share, host and device alike: bf16 operands
// stored row-major with K contiguous (A: M × K, B: N × K, D = A·Bᵀ), loaded by
// TMA one 128-byte-swizzled box at a time, which is exactly the canonical
// K-major SW128 tile an SmemMatrix describes (tcgen05-facts.md §2.3).
#include <cstdint>

#include "tcgen/layout/smem_operand.hpp"
#include "tcgen/mma/smem_matrix.hpp"
#include "tcgen/tma/tensor_map.hpp"

namespace tcgen::kernels {

constexpr int kBlockK = 64;  // bf16 per 128-byte swizzle row: one box and one tile span K = 64

template <int Rows>
using OperandTile = mma::SmemMatrix<layout::SmemOperandSpec{layout::dense_element(16), layout::Major::K,
                                                            layout::SmemSwizzle::b128, Rows, kBlockK}>;

// The tensor map of a rows × k bf16 matrix, K contiguous, whose box is one
// box_rows × 64 tile: the one description both the host (HostTensorMap) and
// the device (cuTensorMapEncodeTiled) are built from.
inline tma::TensorMapSpec operand_map(std::uint64_t rows, std::uint64_t k, std::uint32_t box_rows) {
  tma::TensorMapSpec s;
  s.element_bytes = 2;
  s.rank = 2;
  s.global_dims = {k, rows};
  s.global_strides = {2 * k};
  s.box_dims = {kBlockK, box_rows};
  s.swizzle = tma::TmaSwizzle::b128;
  return s;
}

}  // namespace tcgen::kernels
