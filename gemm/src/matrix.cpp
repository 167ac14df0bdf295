#include "tcgen/gemm/matrix.hpp"

#include <cstring>
#include <limits>
#include <random>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::gemm {

namespace {

int element_bytes(ElementType t) {
  if (t != ElementType::f32 && t != ElementType::bf16 && t != ElementType::fp16)
    fail("type", name(t), "f32, bf16 or fp16");
  return bits(t) / 8;
}

Matrix blank(ElementType t, int rows, int cols) {
  if (rows < 1 || cols < 1) fail("shape", std::to_string(rows) + "x" + std::to_string(cols), "at least 1x1");
  Matrix m;
  m.type = t;
  m.rows = rows;
  m.cols = cols;
  m.ld = padded_ld(t, cols);
  m.bytes.resize(static_cast<std::size_t>(rows) * m.ld * element_bytes(t));
  m.values.resize(static_cast<std::size_t>(rows) * cols);
  // NaN everywhere first: the padding keeps it.
  const std::uint32_t nan = encode(t, std::numeric_limits<float>::quiet_NaN());
  const std::size_t e = static_cast<std::size_t>(element_bytes(t));
  for (std::size_t i = 0; i < m.bytes.size(); i += e) std::memcpy(&m.bytes[i], &nan, e);
  return m;
}

void set(Matrix& m, int row, int col, float x) {
  const std::size_t e = static_cast<std::size_t>(bits(m.type) / 8);
  const std::uint32_t b = encode(m.type, x);
  std::memcpy(&m.bytes[(static_cast<std::size_t>(row) * m.ld + col) * e], &b, e);
  m.values[static_cast<std::size_t>(row) * m.cols + col] = decode(m.type, b);
}

}  // namespace

int padded_ld(ElementType t, int cols) {
  const int per16 = 16 / element_bytes(t);
  return (cols + per16 - 1) / per16 * per16;
}

Matrix make_matrix(ElementType t, int rows, int cols, std::span<const float> values) {
  Matrix m = blank(t, rows, cols);
  if (values.size() != m.values.size())
    fail("values", std::to_string(values.size()), "rows × cols = " + std::to_string(m.values.size()) + " values");
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) set(m, r, c, values[static_cast<std::size_t>(r) * cols + c]);
  return m;
}

Matrix random_matrix(ElementType t, int rows, int cols, std::uint64_t seed) {
  Matrix m = blank(t, rows, cols);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) set(m, r, c, uniform(rng));
  return m;
}

Matrix nan_matrix(ElementType t, int rows, int cols) {
  Matrix m = blank(t, rows, cols);
  for (double& v : m.values) v = std::numeric_limits<double>::quiet_NaN();
  return m;
}

Matrix random_operand(ElementType t, layout::Major major, int rows, int k, std::uint64_t seed) {
  return major == layout::Major::K ? random_matrix(t, rows, k, seed) : random_matrix(t, k, rows, seed);
}

Matrix make_operand(ElementType t, layout::Major major, int rows, int k, std::span<const float> row_major) {
  if (major == layout::Major::K) return make_matrix(t, rows, k, row_major);
  if (row_major.size() != static_cast<std::size_t>(rows) * k)
    fail("values", std::to_string(row_major.size()), "rows × k = " + std::to_string(static_cast<std::size_t>(rows) * k));
  std::vector<float> transposed(row_major.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < k; ++c)
      transposed[static_cast<std::size_t>(c) * rows + r] = row_major[static_cast<std::size_t>(r) * k + c];
  return make_matrix(t, k, rows, transposed);
}

double operand_value(const Matrix& stored, layout::Major major, int row, int k) {
  return major == layout::Major::K ? stored.value(row, k) : stored.value(k, row);
}

std::vector<float> to_floats(const Matrix& m) {
  std::vector<float> out(static_cast<std::size_t>(m.rows) * m.cols);
  const std::size_t e = static_cast<std::size_t>(bits(m.type) / 8);
  for (int r = 0; r < m.rows; ++r)
    for (int c = 0; c < m.cols; ++c) {
      std::uint32_t b = 0;
      std::memcpy(&b, &m.bytes[(static_cast<std::size_t>(r) * m.ld + c) * e], e);
      out[static_cast<std::size_t>(r) * m.cols + c] = decode(m.type, b);
    }
  return out;
}

}  // namespace tcgen::gemm
