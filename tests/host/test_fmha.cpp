#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "expect_error.hpp"
#include "fresh_seed.hpp"
#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/fmha/check.hpp"
#include "tcgen/fmha/inputs.hpp"
#include "tcgen/fmha/plan.hpp"
#include "tcgen/fmha/problem.hpp"
#include "tcgen/fmha/reference.hpp"

using namespace tcgen;
using namespace tcgen::fmha;
using tcgen::attention::SoftmaxScale;

namespace {

FmhaProblem problem(int seq_q, int seq_k, int d, FmhaMask mask = FmhaMask::none(), int batch = 1, int heads = 1,
                    int heads_kv = 1) {
  return FmhaProblem::make(batch, heads, heads_kv, seq_q, seq_k, d, mask);
}

FmhaInputs inputs(const FmhaProblem& p) {
  const std::uint64_t salt = std::uint64_t(p.seq_q) * 7919 + p.seq_k * 31 + p.head_dim + p.heads * 101 +
                             std::uint64_t(p.mask.left + 1) * 13 + std::uint64_t(p.mask.right + 1);
  return random_fmha_inputs(p, fresh_seed() ^ (salt * 2654435761u));
}

// fmha_blocked against fmha_reference for one problem, measured as the kernel
// tests measure it (tcgen/fmha/check.hpp): O per row in the 2-norm, LSE per element.
// With P kept in f32 the algorithm alone is checked, 100x tighter for O.
void check_blocked(const FmhaProblem& p, ElementType p_type, double o_tol, double lse_tol) {
  CAPTURE(p.batch);
  CAPTURE(p.heads);
  CAPTURE(p.heads_kv);
  CAPTURE(p.seq_q);
  CAPTURE(p.seq_k);
  CAPTURE(p.head_dim);
  CAPTURE(p.mask.left);
  CAPTURE(p.mask.right);
  const FmhaInputs in = inputs(p);
  const auto got = fmha_blocked(p, in.q, in.k, in.v, kFmhaBlockN, p_type);
  const auto ref = fmha_reference(p, in.q, in.k, in.v);
  const int rows = int(p.lse_elements());
  const CompareReport o = compare(got.o, ref.o, rows, p.head_dim, o_tol, ErrorMeasure::row_norm);
  CHECK_MESSAGE(o.ok, o.text());
  const CompareReport lse = compare(got.lse, ref.lse, rows, 1, lse_tol);
  CHECK_MESSAGE(lse.ok, lse.text());
  if (p_type == ElementType::bf16) MESSAGE("max row relative error of O " << o.max_rel_error);
}

}  // namespace

TEST_CASE("the FMHA TMEM plan: two Q tiles (S0/S1, O0/O1) up to head_dim 128, one at 256; P in S's upper half") {
  using P64 = FmhaPlan<64, ElementType::bf16>::Tmem;
  using P128 = FmhaPlan<128, ElementType::fp16>::Tmem;
  using P256 = FmhaPlan<256, ElementType::bf16>::Tmem;
  // Tile t's region is copy t: S0 = copy 0 of S, S1 = copy 1, and so on.
  static_assert(P128::column<"S"> == 0 && P128::column<"S"> + P128::stride<"S"> == 128);
  static_assert(P128::column<"P"> == 64 &&
                P128::column<"P"> + P128::stride<"P"> == 192);  // FA4: tmem_p_offset = S + n_block_size / 2
  static_assert(P128::column<"O"> == 256 && P128::column<"O"> + P128::stride<"O"> == 384);
  static_assert(P128::columns == 512 && P128::allocation == 512);
  static_assert(P64::column<"O"> == 256 && P64::column<"O"> + P64::stride<"O"> == 320);
  static_assert(P64::columns == 384 && P64::allocation == 512);
  // Two tiles of head_dim 256 would need 2 · (128 + 256) = 768 of the 512 columns.
  static_assert(P256::copies<"S"> == 1 && P256::column<"S"> == 0 && P256::column<"P"> == 64 && P256::column<"O"> == 128);
  static_assert(P256::columns == 384 && P256::allocation == 512);
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

TEST_CASE("the blocked algorithm with P kept in f32 matches the fp64 reference (O rows 1e-4, LSE 1e-4)") {
  INFO("seed " << fresh_seed());
  for (Case c : kCases) check_blocked(problem(c.seq_q, c.seq_k, c.d), ElementType::f32, 1e-4, 1e-4);
}

TEST_CASE("the blocked FMHA algorithm matches the fp64 reference (bf16 inputs and P: O rows 1e-2, LSE 1e-3)") {
  INFO("seed " << fresh_seed());
  for (Case c : kCases) {
    MESSAGE("fmha_blocked seq_q " << c.seq_q << " seq_k " << c.seq_k << " head_dim " << c.d << " scale "
                                  << SoftmaxScale::for_head_dim(c.d).value());
    check_blocked(problem(c.seq_q, c.seq_k, c.d), ElementType::bf16, kFmhaOBound, kFmhaLseBound);
  }
}

TEST_CASE("the blocked algorithm matches the reference under causal and window masks, GQA and batch") {
  INFO("seed " << fresh_seed());
  for (const FmhaProblem& p : kMasked) {
    check_blocked(p, ElementType::f32, 1e-4, 1e-4);
    check_blocked(p, ElementType::bf16, kFmhaOBound, kFmhaLseBound);
  }
}

TEST_CASE("a softmax-scale mismatch is caught: the reference with another scale fails the comparison") {
  INFO("seed " << fresh_seed());
  const FmhaProblem right = problem(128, 200, 64);
  const FmhaInputs in = inputs(right);
  const auto got = fmha_blocked(right, in.q, in.k, in.v);
  // The user's bug: the scale applied on one side only (1 instead of 1/sqrt(d)), and a subtler 2x.
  for (float wrong : {1.0f, 2.0f * right.scale.value(), 0.5f * right.scale.value()}) {
    CAPTURE(wrong);
    FmhaProblem other = right;
    other.scale = SoftmaxScale::explicit_value(wrong);
    const auto ref = fmha_reference(other, in.q, in.k, in.v);
    const CompareReport o = compare(got.o, ref.o, 128, 64, kFmhaOBound, ErrorMeasure::row_norm);
    CHECK_FALSE(o.ok);
    const CompareReport lse = compare(got.lse, ref.lse, 128, 1, kFmhaLseBound);
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
