#pragma once
// The TMA cases shared by the host test (tests/host/test_model_tma.cpp) and
// the H200 test (tests/device/tma_sm90.cu): a random matrix in global memory,
// the canonical operand tiles TMA can fill, the box that loads each, and the
// image the layout library says the load must produce.
#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "tcgen/layout/smem_operand.hpp"
#include "tcgen/tma/tensor_map.hpp"

namespace tcgen::test_tma {

using layout::Int;
using layout::Major;
using layout::SmemSwizzle;
using tma::TensorMapSpec;
using tma::TmaSwizzle;

// A matrix in global memory: `contig` elements of `e` bytes along its
// contiguous dimension (K for K-major, M/N for MN-major), `strided` runs of
// them `pitch` bytes apart, random non-zero bytes (a zero-filled element stands out).
struct Matrix {
  std::uint32_t e;
  Int contig, strided, pitch;
  std::vector<std::uint8_t> bytes;
};
inline Matrix random_matrix(std::uint32_t e, Int contig, Int strided, std::mt19937& rng) {
  Matrix m{e, contig, strided, contig * e, {}};
  m.bytes.resize(static_cast<std::size_t>(m.pitch * strided));
  for (auto& b : m.bytes) b = static_cast<std::uint8_t>(1 + rng() % 255);
  return m;
}

// An operand tile (rows = M/N, cols = K) and the TMA swizzle that should lay it out.
struct Tile {
  Major major;
  SmemSwizzle swizzle;
  TmaSwizzle tma;
  std::uint32_t e;  // element bytes
  Int rows, cols;
  layout::SmemOperand operand() const {
    return layout::SmemOperand(layout::SmemOperandSpec{layout::dense_element(8 * static_cast<int>(e)), major, swizzle, rows, cols});
  }
};

// The box that loads the tile whose element (0, 0) is the matrix element at
// (contiguous c0, strided s0). Swizzled: a 2D box, inner dim = the swizzle
// span. No swizzle: views that make the box the core-matrix layout —
// K-major, 3D {T, rows, K/T} over strides {pitch, 16 B} (LBO = rows·16,
// SBO = 128); MN-major, 4D {T, 8, MN/T, K/8} over {pitch, 16 B, 8·pitch}
// (SBO = 128, LBO = MN/T·128).
inline TensorMapSpec box_map(const Matrix& m, const Tile& t, Int c0, Int s0, std::array<std::int32_t, 5>& coords) {
  TensorMapSpec s;
  s.element_bytes = m.e;
  s.swizzle = t.tma;
  const auto u = [](Int x) { return static_cast<std::uint64_t>(x); };
  const auto b = [](Int x) { return static_cast<std::uint32_t>(x); };
  const auto c = [](Int x) { return static_cast<std::int32_t>(x); };
  const Int T = 16 / m.e;
  if (t.tma != TmaSwizzle::none) {
    s.rank = 2;
    s.global_dims = {u(m.contig), u(m.strided), 1, 1, 1};
    s.global_strides = {u(m.pitch), 0, 0, 0};
    s.box_dims = t.major == Major::K ? std::array<std::uint32_t, 5>{b(t.cols), b(t.rows), 1, 1, 1}
                                     : std::array<std::uint32_t, 5>{b(t.rows), b(t.cols), 1, 1, 1};
    coords = {c(c0), c(s0), 0, 0, 0};
  } else if (t.major == Major::K) {
    s.rank = 3;
    s.global_dims = {u(T), u(m.strided), u(m.contig / T), 1, 1};
    s.global_strides = {u(m.pitch), 16, 0, 0};
    s.box_dims = {b(T), b(t.rows), b(t.cols / T), 1, 1};
    coords = {0, c(s0), c(c0 / T), 0, 0};
  } else {
    s.rank = 4;
    s.global_dims = {u(T), 8, u(m.contig / T), u(m.strided / 8), 1};
    s.global_strides = {u(m.pitch), 16, u(8 * m.pitch), 0};
    s.box_dims = {b(T), 8, b(t.rows / T), b(t.cols / 8), 1};
    coords = {0, 0, c(c0 / T), c(s0 / 8), 0};
  }
  return s;
}

// The image the layout library describes: shared memory [image_base,
// image_base + image_bytes) filled with `untouched`, then element (r, k) of
// the tile at operand.address(dst, r, k, anchor), zero where it lies outside the matrix.
inline std::vector<std::uint8_t> layout_image(const Matrix& m, const Tile& t, const layout::SmemOperand& operand, Int c0,
                                              Int s0, Int image_base, Int image_bytes, Int dst,
                                              layout::SwizzleAnchor anchor, std::uint8_t untouched) {
  std::vector<std::uint8_t> image(static_cast<std::size_t>(image_bytes), untouched);
  for (Int r = 0; r < t.rows; ++r)
    for (Int k = 0; k < t.cols; ++k) {
      const Int c = c0 + (t.major == Major::K ? k : r), s = s0 + (t.major == Major::K ? r : k);
      const bool inside = c >= 0 && c < m.contig && s >= 0 && s < m.strided;
      const Int at = operand.address(dst, r, k, anchor) - image_base;
      for (Int i = 0; i < m.e; ++i)
        image.at(static_cast<std::size_t>(at + i)) = inside ? m.bytes[static_cast<std::size_t>(s * m.pitch + c * m.e + i)] : 0;
    }
  return image;
}

}  // namespace tcgen::test_tma
