#include "tcgen/moe/quantise.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <numeric>
#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/moe/scale_layout.hpp"

namespace tcgen::moe {

namespace {

// Largest magnitude code of the element type (0x7E: 448 for E4M3, 0x7: 6 for E2M1).
std::uint32_t max_code(ElementType t) { return detail::float_format(t).max_finite; }

// The element code nearest |x| / s, ties to the even code, saturating at
// max_code (OCP MX v1.0 §6.3: "clamped to the element's largest magnitude").
// Decided by comparing |x| with code values and midpoints times s, all exact
// in fp64 (x has 24 significant bits, s at most 28, a midpoint at most 5), so
// no intermediate quotient is rounded twice.
// The values of the non-negative codes 0 .. max_code, decoded once per type
// (a quantiser of V4's weights rounds billions of elements).
const std::vector<double>& code_values(ElementType t) {
  static const std::vector<double> e4m3 = [] {
    std::vector<double> v(max_code(ElementType::e4m3) + 1);
    for (std::uint32_t c = 0; c < v.size(); ++c) v[c] = decode(ElementType::e4m3, c);
    return v;
  }();
  static const std::vector<double> e2m1 = [] {
    std::vector<double> v(max_code(ElementType::e2m1) + 1);
    for (std::uint32_t c = 0; c < v.size(); ++c) v[c] = decode(ElementType::e2m1, c);
    return v;
  }();
  return t == ElementType::e4m3 ? e4m3 : e2m1;
}

std::uint32_t nearest_code(ElementType t, double ax, double s) {
  const std::vector<double>& value = code_values(t);
  std::uint32_t lo = 0, hi = max_code(t);  // the largest code whose value·s <= ax, by bisection
  if (value[hi] * s <= ax) return hi;
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    (value[mid] * s <= ax ? lo : hi) = mid;
  }
  const double half = (value[lo] + value[hi]) / 2 * s;
  if (ax > half) return hi;
  if (ax < half) return lo;
  return lo % 2 == 0 ? lo : hi;
}

std::uint32_t quantise_element(ElementType t, float x, double s) {
  if (s == 0) return 0;  // a UE4M3 scale that underflowed: the whole block is 0
  const std::uint32_t sign = x < 0 ? 1u << (bits(t) - 1) : 0u;
  return sign | nearest_code(t, std::fabs(double(x)), s);
}

double scale_value(std::uint8_t byte, bool ue8m0) {
  return ue8m0 ? std::ldexp(1.0, int(byte) - 127) : double(decode(ElementType::e4m3, byte));
}

// MX: the UE8M0 byte X + 127, X = floor(log2(amax)) - emax_elem (OCP MX v1.0
// §6.3), clamped to UE8M0's range 2^-127 .. 2^127 (§5.4.1, 0xFF is NaN); an
// all-zero block takes the smallest scale.
std::uint8_t mx_scale(ElementType t, float amax) {
  if (amax == 0) return 0;
  const int emax_elem = std::ilogb(decode(t, max_code(t)));
  const int x = std::ilogb(double(amax)) - emax_elem;
  return static_cast<std::uint8_t>(std::clamp(x, -127, 127) + 127);
}

void check_shape(std::size_t size, int rows, int k, BlockFormat f) {
  if (f.block < 1) fail("block", f.block, "expected a positive block size");
  if (rows < 1) fail("rows", rows, "expected at least one row");
  if (k < 1 || k % f.block != 0)
    fail("k", std::to_string(k), "expected a positive multiple of the " + std::string(name(f)) + " block, " + std::to_string(f.block));
  if (bits(f.element) == 4 && k % 2 != 0) fail("k", k, "expected an even k: two e2m1 elements share a byte");
  if (size != std::size_t(rows) * std::size_t(k))
    fail("x.size()", std::to_string(size), "expected rows × k = " + std::to_string(std::size_t(rows) * std::size_t(k)));
}

}  // namespace

std::uint64_t expert_scale_offset(std::span<const int> counts, int e, int sf_cols) {
  if (e < 0 || e > static_cast<int>(counts.size()))
    fail("expert", e, "expected an expert in [0, counts.size()]");
  std::uint64_t bytes = 0;
  for (int i = 0; i < e; ++i)
    if (counts[i] > 0) bytes += scale_bytes(counts[i], sf_cols);  // an expert without tokens has no block
  return bytes;
}

std::uint64_t Quantised::scale_index(int row, int sf_col) const {
  if (row < 0 || row >= rows) fail("row", row, "expected a row in [0, rows)");
  if (counts.empty()) return scale_offset(row, sf_col, sf_cols());
  int e = 0, first = 0;
  while (row >= first + counts[e]) first += counts[e++];
  return expert_scale_offset(counts, e, sf_cols()) + scale_offset(row - first, sf_col, sf_cols());
}

double Quantised::value(int row, int col) const {
  if (col < 0 || col >= k) fail("col", col, "expected a column in [0, k)");
  const double scale = scale_value(scales[scale_index(row, col / format.block)], format.ue8m0);  // checks row
  const std::size_t i = std::size_t(row) * k + col;
  const std::uint32_t code = bits(format.element) == 4 ? (data[i / 2] >> (4 * (i % 2))) & 0xFu : data[i];
  return double(decode(format.element, code)) * scale * double(global_scale);
}

Quantised quantise(std::span<const float> x, int rows, int k, BlockFormat f) {
  check_shape(x.size(), rows, k, f);
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i]))
      throw Error("x[" + std::to_string(i) + "]", std::to_string(x[i]), "expected a finite value");
  Quantised q;
  q.format = f;
  q.rows = rows;
  q.k = k;
  const int sf_cols = k / f.block, per_byte = bits(f.element) == 4 ? 2 : 1;
  q.data.assign(x.size() / per_byte, 0);
  q.scales.assign(scale_bytes(rows, sf_cols), 0);
  if (!f.ue8m0) {
    // NVFP4's per-tensor scale; kept a normal float (a tensor of all zeros takes 1).
    float amax = 0;
    for (float v : x) amax = std::max(amax, std::abs(v));
    q.global_scale = amax == 0 ? 1.0f : std::max(amax / (6.0f * 448.0f), FLT_MIN);
  }
  const layout::Layout layout = scale_layout(rows, sf_cols);  // built once: scale_offset builds one a call
  for (int r = 0; r < rows; ++r)
    for (int b = 0; b < sf_cols; ++b) {
      const std::span<const float> block = x.subspan(std::size_t(r) * k + std::size_t(b) * f.block, f.block);
      float amax = 0;
      for (float v : block) amax = std::max(amax, std::abs(v));
      // NVFP4: amax_block / 6 / global rounded to UE4M3 (E4M3's positive half, saturating at 448).
      const std::uint8_t byte = f.ue8m0 ? mx_scale(f.element, amax)
                                        : static_cast<std::uint8_t>(encode(ElementType::e4m3, amax / 6.0f / q.global_scale));
      q.scales[static_cast<std::size_t>(layout(r, b))] = byte;
      const double s = scale_value(byte, f.ue8m0) * double(q.global_scale);
      for (int j = 0; j < f.block; ++j) {
        const std::size_t i = std::size_t(r) * k + std::size_t(b) * f.block + j;
        const std::uint32_t code = quantise_element(f.element, block[j], s);
        q.data[i / per_byte] |= static_cast<std::uint8_t>(code << (per_byte == 2 ? 4 * (i % 2) : 0));
      }
    }
  return q;
}

Quantised quantise_grouped(std::span<const float> x, std::span<const int> counts, int k, BlockFormat f) {
  long long rows = 0;
  for (std::size_t e = 0; e < counts.size(); ++e) {
    if (counts[e] < 0) throw Error("counts[" + std::to_string(e) + "]", std::to_string(counts[e]), "expected a token count >= 0");
    rows += counts[e];
  }
  if (rows < 1 || rows > INT32_MAX) fail("total tokens", std::to_string(rows), "expected at least one token and at most 2^31 - 1");
  Quantised q = quantise(x, static_cast<int>(rows), k, f);
  const std::vector<std::uint8_t> one_layout = std::move(q.scales);
  const int sf_cols = q.sf_cols();
  q.counts.assign(counts.begin(), counts.end());
  q.scales.assign(expert_scale_offset(counts, static_cast<int>(counts.size()), sf_cols), 0);
  for (int r = 0; r < q.rows; ++r)
    for (int b = 0; b < sf_cols; ++b) q.scales[q.scale_index(r, b)] = one_layout[scale_offset(r, b, sf_cols)];
  return q;
}

}  // namespace tcgen::moe
