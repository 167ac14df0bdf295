// The fp64 FMHA reference and FmhaProblem themselves, at points whose answer
// is known without the formula: the rows a mask reduces to one key, GQA as
// repeated K/V heads, rows that see no key, the FLOP count against pair
// counting, and validate()'s errors.
#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "expect_error.hpp"

#include "fresh_seed.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/fmha/problem.hpp"
#include "tcgen/fmha/reference.hpp"

using namespace tcgen;
using namespace tcgen::fmha;

namespace {

std::vector<float> random_bf16(std::size_t n, std::uint32_t salt) {
  std::mt19937 g(fresh_seed() ^ (salt * 2654435761u));
  std::uniform_real_distribution<float> u(-2.0f, 2.0f);
  std::vector<float> x(n);
  for (float& e : x) e = round_to(ElementType::bf16, u(g));
  return x;
}

FmhaProblem problem(int seq_q, int seq_k, FmhaMask mask, int batch = 1, int heads = 1, int heads_kv = 1) {
  return FmhaProblem::make(batch, heads, heads_kv, seq_q, seq_k, 64, mask);
}

struct Run {
  std::vector<float> q, k, v;
  FmhaResult<double> r;
};

Run run(const FmhaProblem& p) {
  Run x{random_bf16(p.q_elements(), 1), random_bf16(p.kv_elements(), 2), random_bf16(p.kv_elements(), 3), {}};
  x.r = fmha_reference(p, x.q, x.k, x.v);
  return x;
}

// Row `row` of head (b, h) of Q/O and of K/V head (b, hk).
std::size_t q_row(const FmhaProblem& p, int b, int h, int row) {
  return ((std::size_t(b) * p.heads + h) * p.seq_q + row) * p.head_dim;
}
std::size_t kv_row(const FmhaProblem& p, int b, int hk, int row) {
  return ((std::size_t(b) * p.heads_kv + hk) * p.seq_k + row) * p.head_dim;
}

// O row equals V row exactly: one visible key gives P = exp(0) = 1 and l = 1.
void check_o_is_v(const FmhaProblem& p, const Run& x, int b, int h, int row, int key) {
  CAPTURE(b);
  CAPTURE(h);
  CAPTURE(row);
  CAPTURE(key);
  const int hk = h / (p.heads / p.heads_kv);
  for (int c = 0; c < p.head_dim; ++c)
    REQUIRE(x.r.o[q_row(p, b, h, row) + c] == double(x.v[kv_row(p, b, hk, key) + c]));
}

void check_no_key(const FmhaProblem& p, const Run& x, int b, int h, int row) {
  CAPTURE(row);
  for (int c = 0; c < p.head_dim; ++c) REQUIRE(x.r.o[q_row(p, b, h, row) + c] == 0.0);
  const double lse = x.r.lse[(std::size_t(b) * p.heads + h) * p.seq_q + row];
  CHECK(lse == -std::numeric_limits<double>::infinity());
}

}  // namespace

TEST_CASE("causal at seq_q == seq_k: row 0 sees key 0 only, so O = V row 0 and LSE = scale · q0·k0") {
  INFO("seed " << fresh_seed());
  const FmhaProblem p = problem(40, 40, FmhaMask::causal(), 2, 2, 2);
  const Run x = run(p);
  for (int b = 0; b < p.batch; ++b)
    for (int h = 0; h < p.heads; ++h) {
      check_o_is_v(p, x, b, h, 0, 0);
      double dot = 0;
      for (int c = 0; c < p.head_dim; ++c) dot += double(x.q[q_row(p, b, h, 0) + c]) * x.k[kv_row(p, b, h, 0) + c];
      CHECK(x.r.lse[(std::size_t(b) * p.heads + h) * p.seq_q] ==
            doctest::Approx(p.scale.value() * dot).epsilon(1e-12));
    }
}

TEST_CASE("window(0, 0): query i sees only key i + seq_k - seq_q, so O row i = that V row") {
  INFO("seed " << fresh_seed());
  const FmhaProblem longer_k = problem(50, 80, FmhaMask::window(0, 0));
  const Run a = run(longer_k);
  for (int i = 0; i < longer_k.seq_q; ++i) check_o_is_v(longer_k, a, 0, 0, i, i + 30);
  // seq_q > seq_k: the first seq_q - seq_k rows' diagonal is before key 0.
  const FmhaProblem longer_q = problem(30, 20, FmhaMask::window(0, 0));
  const Run b = run(longer_q);
  for (int i = 0; i < 10; ++i) check_no_key(longer_q, b, 0, 0, i);
  for (int i = 10; i < longer_q.seq_q; ++i) check_o_is_v(longer_q, b, 0, 0, i, i - 10);
}

TEST_CASE("seq_q 5, seq_k 3, causal: rows 0 and 1 see no key (O = 0, LSE = -inf), row 2 sees key 0") {
  INFO("seed " << fresh_seed());
  const FmhaProblem p = problem(5, 3, FmhaMask::causal());
  const Run x = run(p);
  check_no_key(p, x, 0, 0, 0);
  check_no_key(p, x, 0, 0, 1);
  check_o_is_v(p, x, 0, 0, 2, 0);
  for (int i = 3; i < 5; ++i) CHECK(std::isfinite(x.r.lse[std::size_t(i)]));
}

TEST_CASE("top-left causal (PyTorch's is_causal=True): query i sees keys 0..i whatever seq_k") {
  INFO("seed " << fresh_seed());
  // seq_k > seq_q: bottom-right would let row 0 see keys 0..20; top-left only key 0.
  const FmhaProblem longer_k = problem(30, 50, FmhaMask::causal(MaskCorner::top_left));
  const Run a = run(longer_k);
  check_o_is_v(longer_k, a, 0, 0, 0, 0);
  // seq_q > seq_k: every row sees key 0, none is empty (bottom-right empties the first 10).
  const FmhaProblem longer_q = problem(30, 20, FmhaMask::causal(MaskCorner::top_left));
  const Run b = run(longer_q);
  check_o_is_v(longer_q, b, 0, 0, 0, 0);
  for (int i = 0; i < longer_q.seq_q; ++i) CHECK(std::isfinite(b.r.lse[std::size_t(i)]));
  // Rows past seq_k see every key: the same O as no mask.
  const Run unmasked = [&] {
    Run x = b;
    x.r = fmha_reference(problem(30, 20, FmhaMask::none()), x.q, x.k, x.v);
    return x;
  }();
  for (int i = 19; i < 30; ++i)
    for (int c = 0; c < 64; ++c) REQUIRE(b.r.o[q_row(longer_q, 0, 0, i) + c] == unmasked.r.o[q_row(longer_q, 0, 0, i) + c]);
}

TEST_CASE("top-left window(0, 0): O row i = V row i, and rows from seq_k on see no key") {
  INFO("seed " << fresh_seed());
  const FmhaProblem p = problem(30, 20, FmhaMask::window(0, 0, MaskCorner::top_left));
  const Run x = run(p);
  for (int i = 0; i < 20; ++i) check_o_is_v(p, x, 0, 0, i, i);
  for (int i = 20; i < 30; ++i) check_no_key(p, x, 0, 0, i);
}

TEST_CASE("GQA: heads 4 over heads_kv 2 equals heads 4 with K/V head h / 2 repeated") {
  INFO("seed " << fresh_seed());
  for (FmhaMask mask : {FmhaMask::none(), FmhaMask::causal()}) {
    CAPTURE(mask.right);
    const FmhaProblem gqa = problem(33, 45, mask, 2, 4, 2);
    const Run x = run(gqa);
    FmhaProblem mha = gqa;
    mha.heads_kv = 4;
    std::vector<float> k(mha.kv_elements()), v(mha.kv_elements());
    for (int b = 0; b < 2; ++b)
      for (int h = 0; h < 4; ++h)
        for (int j = 0; j < gqa.seq_k; ++j)
          for (int c = 0; c < gqa.head_dim; ++c) {
            k[kv_row(mha, b, h, j) + c] = x.k[kv_row(gqa, b, h / 2, j) + c];
            v[kv_row(mha, b, h, j) + c] = x.v[kv_row(gqa, b, h / 2, j) + c];
          }
    const auto want = fmha_reference(mha, x.q, k, v);
    CHECK(x.r.o == want.o);  // the same arithmetic in the same order: bit-identical
    CHECK(x.r.lse == want.lse);
  }
}

TEST_CASE("flops() is 4 · head_dim · the (row, key) pairs the mask lets through, over batch · heads") {
  struct Case { int seq_q, seq_k; FmhaMask mask; };
  const Case cases[] = {{100, 100, FmhaMask::none()},       {100, 100, FmhaMask::causal()},
                        {70, 130, FmhaMask::causal()},      {130, 70, FmhaMask::causal()},
                        {90, 200, FmhaMask::window(20, 5)}, {200, 90, FmhaMask::window(0, 0)},
                        {64, 64, FmhaMask::window(-1, 7)},  {64, 300, FmhaMask::window(31, -1)},
                        {50, 60, FmhaMask::window(INT_MAX, INT_MAX)},
                        {70, 130, FmhaMask::causal(MaskCorner::top_left)},
                        {130, 70, FmhaMask::causal(MaskCorner::top_left)},
                        {90, 200, FmhaMask::window(20, 5, MaskCorner::top_left)}};
  for (const Case& c : cases) {
    CAPTURE(c.seq_q);
    CAPTURE(c.seq_k);
    CAPTURE(c.mask.left);
    CAPTURE(c.mask.right);
    const bool top_left = c.mask.corner == MaskCorner::top_left;
    CAPTURE(top_left);
    const FmhaProblem p = problem(c.seq_q, c.seq_k, c.mask, 3, 4, 2);
    std::int64_t pairs = 0;  // brute force over every (row, key)
    for (std::int64_t i = 0; i < c.seq_q; ++i)
      for (std::int64_t j = 0; j < c.seq_k; ++j) {
        const std::int64_t diagonal = top_left ? i : i + c.seq_k - c.seq_q;
        pairs += (c.mask.right < 0 || j <= diagonal + c.mask.right) && (c.mask.left < 0 || j >= diagonal - c.mask.left);
      }
    CHECK(p.flops() == 4.0 * 64 * double(pairs) * 3 * 4);
  }
  CHECK(problem(100, 100, FmhaMask::causal()).flops() == 4.0 * 64 * (100 * 101 / 2));
  CHECK(problem(100, 100, FmhaMask::none()).flops() == 4.0 * 64 * 100 * 100);
  // PyTorch's is_causal=True at 2 x 3 keeps tril(ones(2, 3)): 1 + 2 pairs.
  CHECK(problem(2, 3, FmhaMask::causal(MaskCorner::top_left)).flops() == 4.0 * 64 * 3);
  CHECK(problem(2, 3, FmhaMask::causal()).flops() == 4.0 * 64 * (2 + 3));
}

TEST_CASE("element counts follow the array shapes") {
  const FmhaProblem p = problem(7, 11, FmhaMask::none(), 2, 6, 3);
  CHECK(p.q_elements() == 2u * 6 * 7 * 64);
  CHECK(p.kv_elements() == 2u * 3 * 11 * 64);
  CHECK(p.lse_elements() == 2u * 6 * 7);
}

TEST_CASE("validate() names the field that is wrong") {
  const FmhaProblem good = problem(8, 8, FmhaMask::causal(), 1, 4, 2);
  good.validate();
  const auto with = [&](auto change) {
    FmhaProblem p = good;
    change(p);
    return [p] { p.validate(); };
  };
  expect_error(with([](FmhaProblem& p) { p.batch = 0; }), "batch");
  expect_error(with([](FmhaProblem& p) { p.heads = -1; }), "heads");
  expect_error(with([](FmhaProblem& p) { p.batch = 65536; }), "batch");  // the grid's z
  expect_error(with([](FmhaProblem& p) { p.heads = p.heads_kv = 65536; }), "heads");  // the grid's y
  expect_error(with([](FmhaProblem& p) { p.heads_kv = 3; }), "heads_kv");  // 3 does not divide 4
  expect_error(with([](FmhaProblem& p) { p.heads_kv = 0; }), "heads_kv");
  expect_error(with([](FmhaProblem& p) { p.seq_q = 0; }), "seq_q");
  expect_error(with([](FmhaProblem& p) { p.seq_k = -5; }), "seq_k");
  expect_error(with([](FmhaProblem& p) { p.head_dim = 96; }), "head_dim");
  expect_error(with([](FmhaProblem& p) { p.dtype = ElementType::f32; }), "dtype");
  expect_error(with([](FmhaProblem& p) { p.mask.left = -2; }), "mask.left");
  expect_error(with([](FmhaProblem& p) { p.mask.right = -7; }), "mask.right");
  for (int d : {64, 128, 256}) with([d](FmhaProblem& p) { p.head_dim = d; })();
  with([](FmhaProblem& p) { p.dtype = ElementType::fp16; })();
}
