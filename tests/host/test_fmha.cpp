#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "expect_error.hpp"

#include "fresh_seed.hpp"
#include "tcgen/attention/fmha_plan.hpp"
#include "tcgen/attention/fmha_problem.hpp"
#include "tcgen/attention/fmha_reference.hpp"
#include "tcgen/attention/online_softmax.hpp"
#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/core/element_type.hpp"

using namespace tcgen;
using namespace tcgen::attention;

namespace {

std::vector<float> random_bf16(std::size_t n, std::mt19937& g, float amplitude, float mean = 0.0f) {
  std::uniform_real_distribution<float> u(mean - amplitude, mean + amplitude);
  std::vector<float> x(n);
  for (float& e : x) e = round_to(ElementType::bf16, u(g));
  return x;
}

FmhaProblem problem(int seq_q, int seq_k, int d, FmhaMask mask = FmhaMask::none(), int batch = 1, int heads = 1,
                    int heads_kv = 1) {
  return FmhaProblem::make(batch, heads, heads_kv, seq_q, seq_k, d, mask);
}

struct Inputs {
  std::vector<float> q, k, v;
};

// v_mean 0: V in [-1, 1]; v_mean 1: V in [0.25, 1.75] (see below).
Inputs make_inputs(const FmhaProblem& p, std::uint32_t salt, float v_mean) {
  std::mt19937 g(fresh_seed() ^ (salt * 2654435761u));
  Inputs in;
  // Scores of a few units after scaling, so the softmax is neither flat nor one-hot.
  in.q = random_bf16(p.q_elements(), g, 2.0f);
  in.k = random_bf16(p.kv_elements(), g, 2.0f);
  // With zero-mean V, entries of O that average to nearly 0 meet P's bf16
  // rounding (2^-9 per value, as every tcgen05 FMHA rounds P for the TS-MMA)
  // with an absolute error of ~1e-4, far above 1e-2 of their own size and
  // near compare()'s floor of 1e-3·max|O|: the element-wise 1e-2 test uses V
  // in [0.25, 1.75], so that every O is a weighted mean away from 0; the
  // algorithm itself is checked with zero-mean V and P kept in f32.
  in.v = random_bf16(p.kv_elements(), g, v_mean == 0.0f ? 1.0f : 0.75f, v_mean);
  return in;
}

std::uint32_t salt(const FmhaProblem& p) {
  return std::uint32_t(p.seq_q * 7919 + p.seq_k * 31 + p.head_dim + p.heads * 101 + p.mask.left * 13 + p.mask.right);
}

// fmha_blocked against fmha_reference for one problem: O rows (batch·heads·seq_q
// of them) element-wise, and LSE by its absolute error. LSE = ln l + scale·m is
// a logarithm: l's relative error (P rounded to bf16: up to 2^-9) becomes an
// absolute error of LSE, which a relative measure overstates wherever LSE is
// near 0 (rows of a mask that see few keys).
void check_blocked(const FmhaProblem& p, ElementType p_type, float v_mean, double o_tol, double lse_abs_tol) {
  CAPTURE(p.batch);
  CAPTURE(p.heads);
  CAPTURE(p.heads_kv);
  CAPTURE(p.seq_q);
  CAPTURE(p.seq_k);
  CAPTURE(p.head_dim);
  CAPTURE(p.mask.left);
  CAPTURE(p.mask.right);
  const Inputs in = make_inputs(p, salt(p), v_mean);
  const auto got = fmha_blocked(p, in.q, in.k, in.v, kFmhaBlockN, p_type);
  const auto ref = fmha_reference(p, in.q, in.k, in.v);
  const int rows = int(p.lse_elements());
  const CompareReport o = compare(got.o, ref.o, rows, p.head_dim, o_tol);
  CHECK_MESSAGE(o.ok, o.text());
  double lse_error = 0;
  int worst = 0;
  for (int r = 0; r < rows; ++r) {
    const double e = got.lse[r] == ref.lse[r] ? 0.0 : std::abs(got.lse[r] - ref.lse[r]);  // -inf == -inf: 0
    if (!(e <= lse_error)) lse_error = e, worst = r;  // NaN: worst
  }
  CHECK_MESSAGE(lse_error <= lse_abs_tol, "max |LSE − reference| " << lse_error << " at row " << worst << " (got "
                                                                   << got.lse[worst] << ", reference "
                                                                   << ref.lse[worst] << ")");
  if (p_type == ElementType::bf16) MESSAGE("max relative error of O " << o.max_rel_error);
}

}  // namespace

TEST_CASE("the FMHA TMEM plan: two Q tiles (S0/S1, O0/O1) up to head_dim 128, one at 256; P in S's upper half") {
  using P64 = FmhaPlan<64, ElementType::bf16>::Tmem;
  using P128 = FmhaPlan<128, ElementType::fp16>::Tmem;
  using P256 = FmhaPlan<256, ElementType::bf16>::Tmem;
  static_assert(P128::column<"S0"> == 0 && P128::column<"S1"> == 128);
  static_assert(P128::column<"P0"> == 64 && P128::column<"P1"> == 192);  // FA4: tmem_p_offset = S + n_block_size / 2
  static_assert(P128::column<"O0"> == 256 && P128::column<"O1"> == 384);
  static_assert(P128::columns == 512 && P128::allocation == 512);
  static_assert(P64::column<"O0"> == 256 && P64::column<"O1"> == 320);
  static_assert(P64::columns == 384 && P64::allocation == 512);
  // Two tiles of head_dim 256 would need 2 · (128 + 256) = 768 of the 512 columns.
  static_assert(P256::column<"S0"> == 0 && P256::column<"P0"> == 64 && P256::column<"O0"> == 128);
  static_assert(P256::columns == 384 && P256::allocation == 512);
  CHECK(P128::allocation == 512);
}

TEST_CASE("SoftmaxRow over one block is the softmax with the scale folded into exp2") {
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(64);
  const std::vector<float> s = {3.0f, -1.0f, 7.5f, 0.25f, 12.0f, -20.0f};
  std::vector<float> p(s.size());
  SoftmaxRow row;
  CHECK(row.update(s, int(s.size()), scale, p, ElementType::f32) == 1.0f);
  double mx = 12.0, l = 0;
  for (float x : s) l += std::exp(scale.value() * (x - mx));
  for (std::size_t j = 0; j < s.size(); ++j)
    CHECK(p[j] == doctest::Approx(std::exp(scale.value() * (s[j] - mx))).epsilon(1e-6));
  CHECK(row.sum == doctest::Approx(l).epsilon(1e-6));
  CHECK(row.lse(scale) == doctest::Approx(scale.value() * mx + std::log(l)).epsilon(1e-6));
}

TEST_CASE("SoftmaxRow over two blocks rescales when the maximum grows by more than 8 in log2 units") {
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(128);
  const float k = scale.log2e_scaled();
  const std::vector<float> a = {1.0f, 2.0f, -3.0f, 0.5f};
  const std::vector<float> b = {80.0f, 4.0f, 1e30f, -1e30f};  // last two masked (valid = 2)
  REQUIRE(k * (80.0f - 2.0f) > kRescaleThresholdLog2);
  std::vector<float> pa(4), pb(4);
  SoftmaxRow row;
  CHECK(row.update(a, 4, scale, pa, ElementType::f32) == 1.0f);
  const float factor = row.update(b, 2, scale, pb, ElementType::f32);
  CHECK(factor == doctest::Approx(std::exp(scale.value() * (2.0 - 80.0))).epsilon(1e-6));
  CHECK(row.max == 80.0f);
  CHECK(pb[2] == 0.0f);
  CHECK(pb[3] == 0.0f);
  double l = 0;
  for (float x : {1.0f, 2.0f, -3.0f, 0.5f, 80.0f, 4.0f}) l += std::exp(scale.value() * (x - 80.0));
  CHECK(row.sum == doctest::Approx(l).epsilon(1e-6));
  // The blocked sum equals the one-block sum: a's P, times the factor, are relative to the new maximum.
  CHECK(pa[1] * factor == doctest::Approx(std::exp(scale.value() * (2.0 - 80.0))).epsilon(1e-6));
}

TEST_CASE("SoftmaxRow keeps a stale maximum for growth up to 8 in log2 units: factor 1, the same softmax") {
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(128);
  const std::vector<float> a = {1.0f, 2.0f}, b = {9.0f, 4.0f};
  REQUIRE(scale.log2e_scaled() * (9.0f - 2.0f) <= kRescaleThresholdLog2);
  std::vector<float> p(2);
  SoftmaxRow row;
  row.update(a, 2, scale, p, ElementType::f32);
  CHECK(row.update(b, 2, scale, p, ElementType::f32) == 1.0f);
  CHECK(row.max == 2.0f);
  CHECK(p[0] == doctest::Approx(std::exp(scale.value() * (9.0 - 2.0))).epsilon(1e-6));  // P above 1
  double l = 0;
  for (float x : {1.0f, 2.0f, 9.0f, 4.0f}) l += std::exp(scale.value() * x);
  CHECK(row.lse(scale) == doctest::Approx(std::log(l)).epsilon(1e-6));
}

TEST_CASE("SoftmaxRow: -inf scores (fmha_blocked's mask) get P = 0 and stay out of the maximum") {
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(64);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> s = {-inf, 3.0f, -inf, 1.0f};
  std::vector<float> p(4);
  SoftmaxRow row;
  CHECK(row.update(s, 4, scale, p, ElementType::f32) == 1.0f);
  CHECK(row.max == 3.0f);
  CHECK(p[0] == 0.0f);
  CHECK(p[2] == 0.0f);
  CHECK(row.lse(scale) ==
        doctest::Approx(std::log(std::exp(scale.value() * 3.0) + std::exp(scale.value() * 1.0))).epsilon(1e-6));
  SoftmaxRow none;  // a row whose block is all -inf: nothing seen yet
  CHECK(none.update(std::vector<float>(4, -inf), 4, scale, p) == 1.0f);
  CHECK(none.sum == 0.0f);
  CHECK(std::isinf(none.lse(scale)));
}

TEST_CASE("SoftmaxRow: a fully masked block changes nothing; P is rounded to bf16 by default") {
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(64);
  std::vector<float> s = {0.3f, 1.7f, 2.9f}, p(3);
  SoftmaxRow row;
  CHECK(row.update(s, 0, scale, p) == 1.0f);
  CHECK(row.sum == 0.0f);
  CHECK(row.inverse_sum() == 0.0f);
  CHECK(std::isinf(row.lse(scale)));
  row.update(s, 3, scale, p);
  for (float x : p) CHECK(x == round_to(ElementType::bf16, x));
}

namespace {
struct Case { int seq_q, seq_k, d; };
constexpr Case kCases[] = {{128, 128, 64}, {128, 77, 64}, {256, 300, 64}, {128, 1, 64},
                           {128, 128, 128}, {128, 1000, 128}, {256, 200, 128}};

// Masks, GQA and batch, with seq_q above and below seq_k, so rows that see no
// key (causal, seq_q > seq_k), windows that start and end inside a block, and
// blocks the mask hides from some rows all occur.
const FmhaProblem kMasked[] = {
    problem(200, 300, 64, FmhaMask::causal()),
    problem(300, 130, 64, FmhaMask::causal()),
    problem(128, 400, 128, FmhaMask::window(100, 20)),
    problem(256, 256, 64, FmhaMask::window(0, 0)),
    problem(150, 260, 64, FmhaMask::window(-1, 50)),
    problem(100, 333, 64, FmhaMask::window(70, -1)),
    problem(64, 200, 128, FmhaMask::none(), 2, 4, 2),
    problem(96, 96, 64, FmhaMask::causal(), 2, 3, 1),
};
}  // namespace

TEST_CASE("the blocked algorithm with P kept in f32 matches the fp64 reference (O rel 1e-3, LSE 1e-4: f32 only)") {
  INFO("seed " << fresh_seed());
  for (Case c : kCases) check_blocked(problem(c.seq_q, c.seq_k, c.d), ElementType::f32, 0.0f, 1e-3, 1e-4);
}

TEST_CASE("the blocked FMHA algorithm matches the fp64 reference (bf16 inputs and P: O rel 1e-2, LSE 2^-8)") {
  INFO("seed " << fresh_seed());
  for (Case c : kCases) {
    MESSAGE("fmha_blocked seq_q " << c.seq_q << " seq_k " << c.seq_k << " head_dim " << c.d << " scale "
                                  << SoftmaxScale::for_head_dim(c.d).value());
    check_blocked(problem(c.seq_q, c.seq_k, c.d), ElementType::bf16, 1.0f, 1e-2, 4e-3);
  }
}

TEST_CASE("the blocked algorithm matches the reference under causal and window masks, GQA and batch") {
  INFO("seed " << fresh_seed());
  for (const FmhaProblem& p : kMasked) {
    check_blocked(p, ElementType::f32, 0.0f, 1e-3, 1e-4);
    check_blocked(p, ElementType::bf16, 1.0f, 1e-2, 4e-3);
  }
}

TEST_CASE("a softmax-scale mismatch is caught: the reference with another scale fails the comparison") {
  INFO("seed " << fresh_seed());
  const FmhaProblem right = problem(128, 200, 64);
  const Inputs in = make_inputs(right, 17, 1.0f);
  const auto got = fmha_blocked(right, in.q, in.k, in.v);
  // The user's bug: the scale applied on one side only (1 instead of 1/sqrt(d)), and a subtler 2x.
  for (float wrong : {1.0f, 2.0f * right.scale.value(), 0.5f * right.scale.value()}) {
    CAPTURE(wrong);
    FmhaProblem other = right;
    other.scale = SoftmaxScale::explicit_value(wrong);
    const auto ref = fmha_reference(other, in.q, in.k, in.v);
    const CompareReport o = compare(got.o, ref.o, 128, 64, 1e-2);
    CHECK_FALSE(o.ok);
    const CompareReport lse = compare(got.lse, ref.lse, 128, 1, 1e-3);
    CHECK_FALSE(lse.ok);
  }
}

TEST_CASE("bad problems and array sizes are errors naming the field") {
  const FmhaProblem p = problem(4, 4, 64);
  const std::vector<float> x(p.q_elements()), short_x(p.q_elements() - 1);
  FmhaProblem bad = p;
  bad.seq_q = 0;
  expect_error([&] { fmha_reference(bad, x, x, x); }, "seq_q");
  expect_error([&] { fmha_blocked(p, x, short_x, x); }, "k");
  expect_error([&] { fmha_reference(p, short_x, x, x); }, "q");
  expect_error([&] { fmha_blocked(p, x, x, short_x); }, "v");
  expect_error([&] { fmha_blocked(p, x, x, x, 0); }, "block_n");
}
