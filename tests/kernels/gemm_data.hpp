#pragma once
// Host side of the test GEMMs: random bf16 operands and the fp64 reference,
// for the host tests and the device test alike.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tcgen/core/element_type.hpp"

namespace tcgen::kernels {

// A rows × cols bf16 matrix, row-major: its bytes and its exact values.
struct Bf16Matrix {
  int rows = 0, cols = 0;
  std::vector<std::uint8_t> bytes;
  std::vector<double> values;
};

// Values uniform in [-1, 1), rounded to bf16.
inline Bf16Matrix random_bf16(int rows, int cols, std::uint32_t seed) {
  Bf16Matrix m{rows, cols, std::vector<std::uint8_t>(2 * static_cast<std::size_t>(rows) * cols),
               std::vector<double>(static_cast<std::size_t>(rows) * cols)};
  std::mt19937 rng(seed);
  for (std::size_t i = 0; i < m.values.size(); ++i) {
    const float x = static_cast<float>(rng() % 65536) / 32768.0f - 1.0f;
    const auto bits = static_cast<std::uint16_t>(encode(ElementType::bf16, x));
    std::memcpy(&m.bytes[2 * i], &bits, 2);
    m.values[i] = decode(ElementType::bf16, bits);
  }
  return m;
}

// D = A·Bᵀ in fp64: A is M × K, B is N × K; D is M × N, row-major.
inline std::vector<double> reference_abt(const Bf16Matrix& a, const Bf16Matrix& b) {
  std::vector<double> d(static_cast<std::size_t>(a.rows) * b.rows);
  for (int m = 0; m < a.rows; ++m)
    for (int n = 0; n < b.rows; ++n) {
      double s = 0;
      for (int k = 0; k < a.cols; ++k)
        s += a.values[static_cast<std::size_t>(m) * a.cols + k] * b.values[static_cast<std::size_t>(n) * b.cols + k];
      d[static_cast<std::size_t>(m) * b.rows + n] = s;
    }
  return d;
}

// The elements of got (M × N, row-major) farther from D = A·Bᵀ than an f32
// sum of the K exact bf16 products can be, in any order: |Σ̂ − Σ| ≤ γ_K Σ|a·b|,
// γ_K = K·u / (1 − K·u), u = 2⁻²⁴ (Higham, Accuracy and Stability of
// Numerical Algorithms, §3.1). "" when there are none; else the first few.
inline std::string beyond_f32_bound(const std::vector<float>& got, const Bf16Matrix& a, const Bf16Matrix& b) {
  const double u = std::ldexp(1.0, -24), gamma = a.cols * u / (1 - a.cols * u);
  std::string out;
  int bad = 0;
  for (int m = 0; m < a.rows; ++m)
    for (int n = 0; n < b.rows; ++n) {
      double sum = 0, magnitude = 0;
      for (int k = 0; k < a.cols; ++k) {
        const double p =
            a.values[static_cast<std::size_t>(m) * a.cols + k] * b.values[static_cast<std::size_t>(n) * b.cols + k];
        sum += p;
        magnitude += std::fabs(p);
      }
      const double g = got[static_cast<std::size_t>(m) * b.rows + n];
      if (std::fabs(g - sum) <= gamma * magnitude) continue;
      if (bad++ < 4)
        out += "D[" + std::to_string(m) + "][" + std::to_string(n) + "] = " + std::to_string(g) + ", expected " +
               std::to_string(sum) + " within " + std::to_string(gamma * magnitude) + "\n";
    }
  if (bad > 4) out += "... " + std::to_string(bad) + " elements in all\n";
  return out;
}

}  // namespace tcgen::kernels
