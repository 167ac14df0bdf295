// moe/block_format.hpp, moe/quantise.hpp and moe/reference.hpp: known points
// from the OCP Microscaling Formats (MX) v1.0 spec and NVIDIA's NVFP4,
// properties of every quantised element on random inputs, the errors on bad
// input, and the grouped reference against a triple loop written here. The
// test decodes elements and scale bytes with its own tables and formulas.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "expect_error.hpp"
#include "fresh_seed.hpp"
#include "tcgen/moe/block_format.hpp"
#include "tcgen/moe/quantise.hpp"
#include "tcgen/moe/reference.hpp"

using namespace tcgen;
using moe::BlockFormat;
using moe::kMxfp4;
using moe::kMxfp8;
using moe::kNvfp4;
using moe::Quantised;

namespace {

// OCP MX v1.0 §5.3.3: E2M1's magnitudes, code 0 .. 7.
constexpr double kE2m1[] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};

// OCP OFP8 E4M3 (bias 7, no infinities, S.1111.111 NaN): magnitude code c < 0x7F.
double e4m3(int c) {
  const int e = c >> 3, m = c & 7;
  return e == 0 ? std::ldexp(m / 8.0, -6) : std::ldexp(1 + m / 8.0, e - 7);
}

double element(const BlockFormat& f, std::uint32_t code) {
  const bool fp4 = f.element == ElementType::e2m1;
  const std::uint32_t sign = fp4 ? code >> 3 : code >> 7, mag = fp4 ? code & 7 : code & 0x7F;
  return (sign ? -1 : 1) * (fp4 ? kE2m1[mag] : e4m3(int(mag)));
}

// UE8M0: 2^(byte - 127) (OCP MX v1.0 §5.4.1); UE4M3: E4M3 without the sign.
double scale(const BlockFormat& f, std::uint8_t byte) { return f.ue8m0 ? std::ldexp(1.0, byte - 127) : e4m3(byte); }

// CUTLASS's blocked layout (sm100_blockscaled_layout.hpp), written out by hand.
std::size_t sf_at(int r, int j, int sf_cols) {
  const int kb = (sf_cols + 3) / 4;
  return std::size_t((r / 128) * kb + j / 4) * 512 + 16 * (r % 32) + 4 * (r / 32 % 4) + j % 4;
}

std::uint32_t code_at(const Quantised& q, int r, int c) {
  const std::size_t i = std::size_t(r) * q.k + c;
  return q.format.element == ElementType::e2m1 ? (q.data[i / 2] >> (i % 2 ? 4 : 0)) & 0xF : q.data[i];
}

// The magnitudes an element can take, ascending.
std::vector<double> grid(const BlockFormat& f) {
  if (f.element == ElementType::e2m1) return {std::begin(kE2m1), std::end(kE2m1)};
  std::vector<double> g;
  for (int c = 0; c < 0x7F; ++c) g.push_back(e4m3(c));
  return g;
}

}  // namespace

TEST_CASE("block formats: names and parsing") {
  CHECK(std::string(moe::name(kMxfp8)) == "mxfp8");
  CHECK(std::string(moe::name(kMxfp4)) == "mxfp4");
  CHECK(std::string(moe::name(kNvfp4)) == "nvfp4");
  for (const BlockFormat f : {kMxfp8, kMxfp4, kNvfp4}) CHECK(moe::parse_block_format(moe::name(f)) == f);
  expect_error([] { moe::parse_block_format("fp4"); }, "block format");
  CHECK(message_of<Error>([] { moe::parse_block_format("fp4"); }).find("mxfp8, mxfp4, nvfp4") != std::string::npos);
}

// OCP MX v1.0 §6.3: X = floor(log2(amax)) - emax_elem, emax_elem 2 for E2M1 (6 = 1.5 · 2^2) and 8 for E4M3
// (448 = 1.75 · 2^8); stored as UE8M0 X + 127.
TEST_CASE("MXFP4: a block whose amax is 6 has X = floor(log2 6) - 2 = 0 and holds E2M1's magnitudes exactly") {
  std::vector<float> x(32, 0.0f);
  for (int i = 0; i < 8; ++i) x[i] = float(kE2m1[i]), x[8 + i] = -float(kE2m1[i]);
  const Quantised q = moe::quantise(x, 1, 32, kMxfp4);
  CHECK(q.scales.size() == 512);
  CHECK(q.scales[0] == 127);
  CHECK(q.global_scale == 1.0f);
  for (int i = 0; i < 8; ++i) {
    CHECK(code_at(q, 0, i) == std::uint32_t(i));
    CHECK(q.value(0, i) == kE2m1[i]);
    CHECK(q.value(0, 8 + i) == -kE2m1[i]);
  }
}

TEST_CASE("MXFP4: ties round to the even code, and magnitudes past 6 · 2^X saturate") {
  // amax 7: X = floor(log2 7) - 2 = 0; 7 saturates to 6. 2.5 lies between 2 (code 4) and 3 (code 5): 2.
  // 5 between 4 (code 6) and 6 (code 7): 4. 0.25 between 0 and 0.5: 0. 0.75 between 0.5 (code 1) and 1 (code 2): 1.
  std::vector<float> x(32, 0.0f);
  const float in[] = {7, 2.5f, 5, 0.25f, 0.75f, -2.5f, 1.25f};
  const double out[] = {6, 2, 4, 0, 1, -2, 1};
  std::copy(std::begin(in), std::end(in), x.begin());
  const Quantised q = moe::quantise(x, 1, 32, kMxfp4);
  CHECK(q.scales[0] == 127);
  for (int i = 0; i < 7; ++i) CHECK(q.value(0, i) == out[i]);
  // Scaled: amax 0.75 gives X = floor(log2 0.75) - 2 = -3, scale 2^-3; 0.75 / 2^-3 = 6.
  std::fill(x.begin(), x.end(), 0.75f);
  CHECK(moe::quantise(x, 1, 32, kMxfp4).scales[0] == 127 - 3);
}

TEST_CASE("MXFP8: E4M3's max 448 has X = 0; a block of ones has X = -8 and stores 256") {
  std::vector<float> x(64, 1.0f);
  x[0] = 448.0f;
  x[1] = 500.0f;  // saturates to 448
  const Quantised q = moe::quantise(x, 1, 64, kMxfp8);
  CHECK(q.scales[0] == 127);
  CHECK(code_at(q, 0, 0) == 0x7E);
  CHECK(q.value(0, 1) == 448.0);
  CHECK(q.scales[1] == 127 - 8);  // second K block
  CHECK(code_at(q, 0, 32) == 0x78);  // 256 = 1.0 · 2^8: exponent field 15, mantissa 0
  CHECK(q.value(0, 32) == 1.0);
}

TEST_CASE("MX: an all-zero block takes the smallest scale, 2^-127") {
  const Quantised q = moe::quantise(std::vector<float>(32, 0.0f), 1, 32, kMxfp8);
  CHECK(q.scales[0] == 0);
  CHECK(q.value(0, 5) == 0.0);
}

// NVFP4: global = amax_tensor / (6 · 448), block scale amax_block / 6 / global in UE4M3.
TEST_CASE("NVFP4: amax_tensor 2688 gives global scale 1; block scales 448 (0x7E) and 1 (0x38)") {
  std::vector<float> x(32, 0.0f);
  x[0] = 2688.0f;  // block 0: amax 2688, scale 2688 / 6 = 448
  x[16] = 6.0f;    // block 1: amax 6, scale 1
  x[17] = -3.0f;
  const Quantised q = moe::quantise(x, 1, 32, kNvfp4);
  CHECK(q.global_scale == 1.0f);
  CHECK(q.scales[0] == 0x7E);
  CHECK(q.scales[1] == 0x38);
  CHECK(q.value(0, 0) == 2688.0);
  CHECK(q.value(0, 16) == 6.0);
  CHECK(q.value(0, 17) == -3.0);
  // Halve everything: global 0.5, the same scale bytes.
  for (float& v : x) v /= 2;
  const Quantised h = moe::quantise(x, 1, 32, kNvfp4);
  CHECK(h.global_scale == 0.5f);
  CHECK(h.scales[0] == 0x7E);
  CHECK(h.value(0, 17) == -1.5);
}

// Exhaustive over the element codes: with the block's amax the element's
// largest value, X = 0, and every representable magnitude comes back exactly.
TEST_CASE("MX: every E4M3 and E2M1 magnitude beside the largest quantises to itself") {
  for (const BlockFormat f : {kMxfp8, kMxfp4}) {
    CAPTURE(moe::name(f));
    const std::vector<double> g = grid(f);
    const int rows = static_cast<int>(g.size());
    std::vector<float> x(std::size_t(rows) * 32, 0.0f);
    for (int r = 0; r < rows; ++r) x[std::size_t(r) * 32] = float(g.back()), x[std::size_t(r) * 32 + 1] = -float(g[r]);
    const Quantised q = moe::quantise(x, rows, 32, f);
    for (int r = 0; r < rows; ++r) {
      CHECK(q.scales[sf_at(r, 0, 1)] == 127);
      CHECK(q.value(r, 1) == -g[r]);
    }
  }
}

// Every element, independently: its scale sits where CUTLASS's layout says;
// MX's scale is the power of two that puts the block's amax in [2^emax, 2^(emax+1));
// NVFP4's is amax_block / 6 / global to UE4M3's precision; and the element is a
// nearest grid point to x / scale, or ± the largest when past it.
TEST_CASE("quantise: random tensors, every element a nearest grid point of x / scale, saturating") {
  const std::uint32_t seed = fresh_seed();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> unit(-1, 1);
  for (const BlockFormat f : {kMxfp8, kMxfp4, kNvfp4}) {
    CAPTURE(moe::name(f));
    // Rows of magnitudes 2^-20 .. 2^20; NVFP4's only 2^-6 .. 2^6, so that
    // every block scale stays a normal UE4M3 under the one global scale.
    const int span = f.ue8m0 ? 20 : 6;
    std::uniform_int_distribution<int> exponent(-span, span);
    const int rows = 130, k = 128, sf_cols = k / f.block;
    std::vector<float> x(std::size_t(rows) * k);
    for (int r = 0; r < rows; ++r) {
      const int e = exponent(rng);  // a magnitude per row
      for (int c = 0; c < k; ++c) x[std::size_t(r) * k + c] = std::ldexp(unit(rng), e);
    }
    const Quantised q = moe::quantise(x, rows, k, f);
    REQUIRE(q.scales.size() == 2 * ((sf_cols + 3) / 4) * 512);
    const std::vector<double> g = grid(f);
    const double emax = f.element == ElementType::e2m1 ? 2 : 8;
    float amax_tensor = 0;
    for (float v : x) amax_tensor = std::max(amax_tensor, std::abs(v));
    if (!f.ue8m0) CHECK(std::abs(double(q.global_scale) * 2688 - amax_tensor) <= 1e-6 * amax_tensor);
    int bad = 0;
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < sf_cols; ++j) {
        const double s = scale(f, q.scales[sf_at(r, j, sf_cols)]) * q.global_scale;
        double amax = 0;
        for (int c = j * f.block; c < (j + 1) * f.block; ++c) amax = std::max(amax, double(std::abs(x[std::size_t(r) * k + c])));
        if (f.ue8m0) {
          CHECK(amax >= std::ldexp(s, int(emax)));
          CHECK(amax < std::ldexp(s, int(emax) + 1));
        } else {
          CHECK(std::abs(6 * s - amax) <= amax / 16);  // E4M3 keeps 3 fraction bits: relative error <= 2^-4
        }
        for (int c = j * f.block; c < (j + 1) * f.block; ++c) {
          const double want = x[std::size_t(r) * k + c] / s, got = element(f, code_at(q, r, c));
          CHECK(q.value(r, c) == got * s);
          double best = 1e300;
          for (double m : g) best = std::min(best, std::abs(std::abs(want) - m));
          const bool nearest = std::abs(std::abs(want) - std::abs(got)) == best;
          const bool saturated = std::abs(want) > g.back() && std::abs(got) == g.back();
          const bool sign_ok = got == 0 || (got < 0) == (want < 0);
          if (!((nearest || saturated) && sign_ok) && ++bad <= 5)
            FAIL_CHECK("row " << r << " col " << c << ": x / scale = " << want << " quantised to " << got);
        }
      }
    CHECK(bad == 0);
  }
}

TEST_CASE("quantise: bad input names the field") {
  const std::vector<float> x(64, 1.0f);
  expect_error([&] { moe::quantise(x, 3, 32, kMxfp4); }, "x.size()");  // 96 values expected
  expect_error([&] { moe::quantise(x, 4, 16, kMxfp4); }, "k");  // not a multiple of 32
  expect_error([&] { moe::quantise(x, 0, 64, kMxfp8); }, "rows");
  expect_error([&] { moe::quantise(std::vector<float>(3, 1.0f), 1, 3, BlockFormat{ElementType::e2m1, 1, true}); },
               "k");  // e2m1 elements come in pairs
  std::vector<float> y = x;
  y[5] = std::nanf("");
  expect_error([&] { moe::quantise(y, 1, 64, kNvfp4); }, "x[5]");
  y[5] = INFINITY;
  expect_error([&] { moe::quantise(y, 1, 64, kNvfp4); }, "x[5]");
  const int counts[] = {1, -1, 2};
  expect_error([&] { moe::quantise_grouped(x, counts, 32, kMxfp8); }, "counts[1]");
}

TEST_CASE("quantise_grouped: each expert's scales in a blocked layout of its own") {
  const int counts[] = {130, 0, 5};
  const int k = 64, sf_cols = 2;
  std::vector<float> x(135 * k);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = float(i % 97) - 48.0f;
  const Quantised g = moe::quantise_grouped(x, counts, k, kMxfp4);
  const Quantised one = moe::quantise(x, 135, k, kMxfp4);
  CHECK(g.data == one.data);
  // Expert 0: 130 rows, two 512-byte blocks; expert 1: none; expert 2 after them.
  CHECK(moe::expert_scale_offset(counts, 0, sf_cols) == 0);
  CHECK(moe::expert_scale_offset(counts, 1, sf_cols) == 1024);
  CHECK(moe::expert_scale_offset(counts, 2, sf_cols) == 1024);
  CHECK(moe::expert_scale_offset(counts, 3, sf_cols) == 1536);
  CHECK(g.scales.size() == 1536);
  for (int r = 0; r < 135; ++r)
    for (int j = 0; j < sf_cols; ++j) {
      const std::size_t at = r < 130 ? sf_at(r, j, sf_cols) : 1024 + sf_at(r - 130, j, sf_cols);
      CHECK(g.scales[at] == one.scales[sf_at(r, j, sf_cols)]);
      CHECK(g.value(r, 32 * j) == one.value(r, 32 * j));
    }
}

// The reference against a triple loop over the test's own decoding of the bytes.
TEST_CASE("grouped_reference equals a direct fp64 triple loop, with and without the fused SwiGLU") {
  const std::uint32_t seed = fresh_seed();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0, 1);
  const std::vector<int> counts = {3, 0, 2};
  const int tokens = 5, experts = 3, n = 256, k = 64;
  for (const BlockFormat f : {kMxfp8, kMxfp4, kNvfp4}) {
    CAPTURE(moe::name(f));
    std::vector<float> xa(tokens * k), xw(experts * n * k);
    for (float& v : xa) v = normal(rng);
    for (float& v : xw) v = normal(rng) / 8;
    const Quantised a = moe::quantise_grouped(xa, counts, k, f);
    const Quantised w = moe::quantise(xw, experts * n, k, f);
    const int sf_cols = k / f.block;
    // a's scales: expert 0's block, then expert 2's (expert 1 has no tokens).
    const auto av = [&](int t, int c) {
      const std::size_t at = t < 3 ? sf_at(t, c / f.block, sf_cols) : 512 + sf_at(t - 3, c / f.block, sf_cols);
      return element(f, code_at(a, t, c)) * scale(f, a.scales[at]) * a.global_scale;
    };
    const auto wv = [&](int r, int c) {
      return element(f, code_at(w, r, c)) * scale(f, w.scales[sf_at(r, c / f.block, sf_cols)]) * w.global_scale;
    };
    const int expert_of[] = {0, 0, 0, 2, 2};
    std::vector<double> d(tokens * n, 0.0);
    for (int t = 0; t < tokens; ++t)
      for (int j = 0; j < n; ++j)
        for (int c = 0; c < k; ++c) d[t * n + j] += av(t, c) * wv(expert_of[t] * n + j, c);
    const std::vector<double> plain = moe::grouped_reference(a, counts, w, n, false);
    REQUIRE(plain.size() == d.size());
    for (std::size_t i = 0; i < d.size(); ++i) CHECK(plain[i] == doctest::Approx(d[i]).epsilon(1e-12));
    const std::vector<double> fused = moe::grouped_reference(a, counts, w, n, true);
    REQUIRE(fused.size() == std::size_t(tokens) * 128);
    // Each 128 columns: 64 gate, then the 64 up columns of the same outputs.
    for (int t = 0; t < tokens; ++t)
      for (int c = 0; c < 128; ++c) {
        const double gate = d[t * n + c / 64 * 128 + c % 64], up = d[t * n + c / 64 * 128 + 64 + c % 64];
        CHECK(fused[t * 128 + c] == doctest::Approx(up * gate / (1 + std::exp(-gate))).epsilon(1e-12));
      }
  }
}

TEST_CASE("grouped_reference: bad shapes name the field") {
  const std::vector<int> counts = {1, 1};
  const Quantised a = moe::quantise_grouped(std::vector<float>(2 * 32, 1.0f), counts, 32, kMxfp8);
  const Quantised w = moe::quantise(std::vector<float>(256 * 32, 1.0f), 256, 32, kMxfp8);
  expect_error([&] { moe::grouped_reference(a, counts, w, 64, true); }, "n");
  expect_error([&] { moe::grouped_reference(a, counts, w, 256, false); }, "w.rows");
  expect_error([&] { moe::grouped_reference(a, std::vector<int>{2}, w, 128, false); }, "a.counts");
  const Quantised w64 = moe::quantise(std::vector<float>(256 * 64, 1.0f), 256, 64, kMxfp4);
  expect_error([&] { moe::grouped_reference(a, counts, w64, 128, false); }, "w.k");
}
