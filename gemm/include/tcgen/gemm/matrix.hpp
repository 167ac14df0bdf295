#pragma once
// Matrices in host memory the way the GEMM reads and writes them: the
// stored bytes (row-major, rows `ld` elements apart) of an element type,
// beside the exact value of every element in fp64 for the reference. Tests,
// the tcgen CLI and the device test and benchmark build their inputs here.
//
// Rows of 16-bit operands are padded to a multiple of 8 elements (TMA's
// 16-byte row stride, problem.hpp); the padding holds NaN, so a load that
// read it would show in D.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tcgen/core/element_type.hpp"
#include "tcgen/layout/smem_operand.hpp"

namespace tcgen::gemm {

static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= 16, "TMA needs 16-byte aligned operands: std::vector's storage is");

struct Matrix {
  ElementType type = ElementType::f32;  // f32, bf16 or fp16
  int rows = 0, cols = 0, ld = 0;       // stored shape
  std::vector<std::uint8_t> bytes;      // rows · ld elements
  std::vector<double> values;           // rows × cols, row-major, exact

  double value(int row, int col) const { return values[static_cast<std::size_t>(row) * cols + col]; }
  const void* data() const { return bytes.data(); }
  void* data() { return bytes.data(); }
};

// ld for a row of `cols` elements of type t: cols rounded up to 16 bytes.
int padded_ld(ElementType t, int cols);

// rows × cols of type t from row-major float values, each rounded to nearest even.
Matrix make_matrix(ElementType t, int rows, int cols, std::span<const float> values);
// Values uniform in [-1, 1), rounded to t, from a std::mt19937_64 seeded with `seed`.
Matrix random_matrix(ElementType t, int rows, int cols, std::uint64_t seed);
// Every element NaN (D before the kernel writes it: an element never written stays NaN).
Matrix nan_matrix(ElementType t, int rows, int cols);

// An operand of rows × k stored by `major` (problem.hpp): the matrix itself
// for Major::K, its transpose (k × rows) for Major::MN.
Matrix random_operand(ElementType t, layout::Major major, int rows, int k, std::uint64_t seed);
Matrix make_operand(ElementType t, layout::Major major, int rows, int k, std::span<const float> row_major);
// Element (row, k) of such an operand.
double operand_value(const Matrix& stored, layout::Major major, int row, int k);

// The stored elements as float, rows × cols row-major (padding dropped).
std::vector<float> to_floats(const Matrix& m);

}  // namespace tcgen::gemm
