// The grouped block-scaled GEMM of moe/include/tcgen/moe/kernel.hpp — the
// source the sm_100a build compiles — on the host model (every tcgen05,
// mbarrier and TMA rule checked) and, where nvcc built its PTX, through the
// PTX interpreter, against the fp64 reference of the dequantised inputs
// (moe/reference.hpp). The routings leave experts empty, give one expert
// every token, and make counts that are not multiples of 128. Each element
// of D is bf16 rounded once (unit roundoff 2⁻⁸ ≈ 3.9e-3) from an f32
// accumulation of exact products (and, with SwiGLU, f32's silu), so a row's
// relative 2-norm error is at most 2⁻⁸ plus the f32 sums' K·2⁻²⁴ relative to
// Σ|a·w|: the bound is 5e-3. On failure each bad row prints its ratio
// ||D||/||ref|| and cosine.
//
// The check is also shown to catch the three ways scale factors go wrong in
// such kernels: factors in the wrong layout (row-major instead of blocked),
// the four factors of a word in the wrong order (the scale IDs swapped), and
// each factor moved to the next K block.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "tcgen/moe/quantise.hpp"
#include "tcgen/moe/reference.hpp"
#include "tcgen/moe/run.hpp"
#include "tcgen/moe/scale_layout.hpp"
#if defined(TCGEN_MOE_PTX)
#include "tcgen/ptx/backend.hpp"
#endif

using namespace tcgen;

namespace {

std::uint64_t run_seed() {
  static const std::uint64_t seed = [] {
    const char* env = std::getenv("TCGEN_SEED");
    const std::uint64_t s = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    std::printf("test_moe: seed %llu (TCGEN_SEED=%llu repeats this run)\n", static_cast<unsigned long long>(s),
                static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

constexpr double kRowBound = 5e-3;

// One layer's inputs: random tokens and weights of magnitudes 2^-4 .. 2^4
// (so that the blocks' factors differ), quantised by moe/quantise.hpp.
struct Layer {
  int experts, n, k, tokens;
  std::vector<std::int32_t> counts;
  moe::Quantised a, w;

  Layer(std::vector<std::int32_t> c, int n_, int k_, std::uint64_t seed)
      : experts(static_cast<int>(c.size())), n(n_), k(k_), tokens(std::accumulate(c.begin(), c.end(), 0)),
        counts(std::move(c)) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::uniform_int_distribution<int> e(-4, 4);
    const auto draw = [&](std::size_t rows) {
      std::vector<float> x(rows * static_cast<std::size_t>(k));
      for (std::size_t i = 0; i < x.size(); i += 32) {
        const float scale = std::ldexp(1.0f, e(rng));
        for (std::size_t j = i; j < i + 32; ++j) x[j] = u(rng) * scale;
      }
      return x;
    };
    const std::vector<float> xa = draw(static_cast<std::size_t>(tokens));
    const std::vector<float> xw = draw(static_cast<std::size_t>(experts) * n);
    a = moe::quantise_grouped(xa, counts, k, moe::kMxfp8);
    w = moe::quantise(xw, experts * n, k, moe::kMxfp4);
  }
};

// D packed (its rows cols apart), run with a leading dimension of cols + pad.
template <moe::Config C, class Backend>
std::vector<std::uint16_t> run(const Layer& l, const Backend& backend, std::span<const std::uint8_t> scale_a, int pad = 0) {
  const int cols = C.swiglu ? l.n / 2 : l.n, ldd = cols + pad;
  std::vector<std::uint16_t> d(static_cast<std::size_t>(l.tokens) * ldd, 0xFFFF);
  moe::Problem p{.experts = l.experts, .n = l.n, .k = l.k, .tokens = l.tokens, .counts = l.counts.data(),
                 .a = l.a.data.data(), .scale_a = scale_a.data(), .w = l.w.data.data(), .scale_w = l.w.scales.data(),
                 .d = d.data(), .ldd = ldd};
  moe::run<C>(p, {}, backend);
  std::vector<std::uint16_t> packed(static_cast<std::size_t>(l.tokens) * cols);
  int pads_written = 0;  // the columns past D's, which the kernel must leave alone
  for (int r = 0; r < l.tokens; ++r) {
    std::copy_n(d.begin() + static_cast<std::ptrdiff_t>(r) * ldd, cols, packed.begin() + static_cast<std::ptrdiff_t>(r) * cols);
    for (int c = cols; c < ldd; ++c) pads_written += d[static_cast<std::size_t>(r) * ldd + c] != 0xFFFF;
  }
  CHECK(pads_written == 0);
  return packed;
}

// Rows beyond the bound, each printed with its ratio and cosine.
int bad_rows(const std::vector<std::uint16_t>& d, const std::vector<double>& ref, int cols, bool print) {
  int bad = 0;
  for (std::size_t r = 0; r < d.size() / cols; ++r) {
    double err = 0, norm = 0, dot = 0, dn = 0;
    for (int c = 0; c < cols; ++c) {
      const double x = decode(ElementType::bf16, d[r * cols + c]), y = ref[r * cols + c];
      err += (x - y) * (x - y);
      norm += y * y;
      dot += x * y;
      dn += x * x;
    }
    if (!(std::sqrt(err) <= kRowBound * std::sqrt(norm))) {
      if (print && bad < 8)
        std::printf("  row %zu: error %.3g, ratio %.6f, cosine %.6f\n", r, std::sqrt(err / norm), std::sqrt(dn / norm),
                    dot / std::sqrt(dn * norm));
      ++bad;
    }
  }
  return bad;
}

template <moe::Config C, class Backend>
void check_layer(const Layer& l, const Backend& backend, int pad = 0) {
  const std::vector<std::uint16_t> d = run<C>(l, backend, l.a.scales, pad);
  const std::vector<double> ref = moe::grouped_reference(l.a, l.counts, l.w, l.n, C.swiglu);
  CHECK(bad_rows(d, ref, C.swiglu ? l.n / 2 : l.n, true) == 0);
}

// The routings: some experts empty, one expert with every token, counts not a multiple of 128.
const std::vector<std::vector<std::int32_t>> kRoutings = {{37, 0, 200, 5, 0, 130}, {0, 0, 300, 0}, {129, 1, 127, 256}};

}  // namespace

TEST_CASE("the grouped MXFP8 × MXFP4 GEMM equals fp64 on the host model at several routings") {
  int seed_offset = 0;
  for (const auto& counts : kRoutings) {
    CAPTURE(seed_offset);
    const Layer l(counts, 256, 256, run_seed() + seed_offset++);
    check_layer<moe::Config{}>(l, exec::HostModel{});
  }
}

TEST_CASE("the fused SwiGLU epilogue equals silu(gate)·up of the fp64 reference") {
  const Layer l({70, 0, 150}, 256, 128, run_seed() + 10);
  check_layer<moe::Config{.swiglu = true}>(l, exec::HostModel{});
  // A leading dimension that is not a multiple of 8: the epilogue's 2-byte stores instead of 16-byte ones.
  check_layer<moe::Config{.swiglu = true}>(l, exec::HostModel{}, 3);
  check_layer<moe::Config{}>(l, exec::HostModel{}, 3);
}

TEST_CASE("the check catches factors in the wrong layout, the wrong order, or the wrong K block") {
  const Layer l({100, 60}, 128, 256, run_seed() + 20);
  const std::vector<double> ref = moe::grouped_reference(l.a, l.counts, l.w, l.n, false);
  const int sf_cols = l.k / 32;
  // Row-major factors (row r's K blocks one after another), as a kernel that skipped the blocked layout would read.
  std::vector<std::uint8_t> row_major(l.a.scales.size(), 0);
  // The four bytes of each word reversed: MMA j reading the factor of K block 3 - j (the scale IDs swapped).
  std::vector<std::uint8_t> swapped(l.a.scales);
  // Each factor one K block later: a stage's factors staged for the block after it.
  std::vector<std::uint8_t> shifted(l.a.scales);
  std::size_t offset = 0;
  for (const std::int32_t count : l.counts) {
    const int padded = (count + 127) / 128 * 128;
    for (int r = 0; r < padded; ++r)
      for (int j = 0; j < sf_cols; ++j) {
        const std::uint64_t at = offset + moe::scale_offset(r, j, sf_cols);
        if (r < count) row_major[offset + static_cast<std::size_t>(r) * sf_cols + j] = l.a.scales[at];
        swapped[at] = l.a.scales[offset + moe::scale_offset(r, j / 4 * 4 + 3 - j % 4, sf_cols)];
        shifted[at] = l.a.scales[offset + moe::scale_offset(r, (j + 1) % sf_cols, sf_cols)];
      }
    offset += moe::scale_bytes(padded, sf_cols);
  }
  for (const auto* planted : {&row_major, &swapped, &shifted}) {
    const std::vector<std::uint16_t> d = run<moe::Config{}>(l, exec::HostModel{}, *planted);
    CHECK(bad_rows(d, ref, l.n, false) > l.tokens / 2);
  }
}

#if defined(TCGEN_MOE_PTX)
TEST_CASE("the grouped GEMM's sm_100a PTX equals fp64 and the host model's bits through the PTX interpreter") {
  const ptx::Module module = ptx::Module::load(TCGEN_MOE_PTX);
  const Layer l(kRoutings[0], 256, 128, run_seed() + 30);
  const std::vector<std::uint16_t> host = run<moe::Config{}>(l, exec::HostModel{}, l.a.scales);
  const std::vector<std::uint16_t> via_ptx = run<moe::Config{}>(l, ptx::Interpreter{.module = module}, l.a.scales);
  CHECK(bad_rows(via_ptx, moe::grouped_reference(l.a, l.counts, l.w, l.n, false), l.n, true) == 0);
  CHECK(via_ptx == host);
}
#else
TEST_CASE("the grouped GEMM's PTX needs nvcc to be built" * doctest::skip()) {}
#endif
