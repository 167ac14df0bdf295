// The DeepSeek-V4 sparse decode kernel (tcgen/sparse_decode/kernel.hpp) on the host
// model, every tcgen05, mbarrier and TMA rule checked, against the fp64
// reference of the dequantised cache (tcgen/sparse_decode/reference.hpp), within
// check_sparse_decode's bounds: O per row 1e-2 in the 2-norm, LSE 1e-3
// relative, and every PTX-letter rule an error. Fresh random inputs each run (the seed is printed). The cases
// are the issue's: heads 64 and 128, s_q 1 and 2, topk from 1 to 2048 (not
// multiples of 64 too), topk_length 0 / 1 / partial / full, rows without a
// valid key, duplicate indices, the extra cache, sinks (a very large one
// too), split-KV against no split, indices into the last, padded block, rows
// whose maximum grows past the rescale threshold; then the same kernel's PTX
// through the interpreter.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "expect_error.hpp"
#include "fresh_seed.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/ptx/backend.hpp"
#include "tcgen/ptx/module.hpp"
#include "tcgen/sparse_decode/check.hpp"
#include "tcgen/sparse_decode/combine.hpp"
#include "tcgen/sparse_decode/inputs.hpp"
#include "tcgen/sparse_decode/kernel.hpp"
#include "tcgen/sparse_decode/run.hpp"
#include "tcgen/tile/convert.hpp"

using namespace tcgen;
using namespace tcgen::sparse_decode;
using tcgen::attention::SoftmaxScale;

namespace {

constexpr int D = Model1Layout::kDim;
const SoftmaxScale kScale = SoftmaxScale::explicit_value(0.044194173824159216f);  // 1/sqrt(512)

// Our own kernel keeps the PTX letter too: its rules are errors here.
SparseDecodeRun run_host(const SparseDecodeInputs& in, int splits = 1, SoftmaxScale scale = kScale) {
  exec::LaunchOptions strict;
  strict.letters_as_errors = true;
  return run(in.problem(scale, splits), in.q_bits, exec::HostModel{strict});
}

// The kernel's run against the reference, both bounds.
void check_against_reference(const SparseDecodeInputs& in, const SparseDecodeRun& r, SoftmaxScale scale = kScale) {
  const SparseDecodeCheck c = check_sparse_decode(sparse_decode_reference(in.problem(scale), in.q), r.out);
  CHECK_MESSAGE(c.o.ok, "O max row error " << c.o.max_rel_error << " (bound " << kSparseOBound << ")");
  CHECK_MESSAGE(c.lse.ok, "LSE max error " << c.lse.max_rel_error << " (bound " << kSparseLseBound << ")");
}

// Row (b, s, h)'s 512 values of O, as floats.
std::vector<float> o_row(const SparseDecodeOutput& out, std::size_t row) {
  std::vector<float> v(D);
  for (int d = 0; d < D; ++d) v[d] = decode(ElementType::bf16, out.o[row * D + d]);
  return v;
}

SparseDecodeExample plain(int heads, int s_q, int topk) {
  SparseDecodeExample e;
  e.batch = 1;
  e.s_q = s_q;
  e.heads = heads;
  e.topk = topk;
  e.extra_topk = 0;
  e.lengths = false;
  e.sink = false;
  return e;
}

}  // namespace

TEST_CASE("dequantisation: e4m3 pairs and UE8M0 scales convert exactly") {
  for (std::uint32_t two = 0; two < 0x10000; ++two) {
    float lo, hi;
    tile::e4m3x2_to_f32(static_cast<std::uint16_t>(two), lo, hi);
    const float want_lo = decode(ElementType::e4m3, two & 0xFF), want_hi = decode(ElementType::e4m3, two >> 8);
    if (std::isnan(want_lo) || std::isnan(want_hi)) {
      REQUIRE((std::isnan(lo) == std::isnan(want_lo) && std::isnan(hi) == std::isnan(want_hi)));
      continue;
    }
    REQUIRE(lo == want_lo);
    REQUIRE(hi == want_hi);
  }
  for (int byte = 0; byte < 255; ++byte) REQUIRE(tile::ue8m0_to_f32(static_cast<std::uint8_t>(byte)) == std::ldexp(1.0f, byte - 127));
  CHECK(std::isnan(tile::ue8m0_to_f32(0xFF)));  // OCP MX: UE8M0 0xFF is NaN
}

TEST_CASE("heads 64 and 128, s_q 1 and 2, topk 1 to 2048, with and without lengths and the extra cache") {
  INFO("seed " << fresh_seed());
  struct Shape {
    int heads, s_q, topk, extra_topk;
    bool lengths;
  };
  for (const Shape& s : {Shape{64, 1, 64, 0, false}, Shape{128, 2, 100, 0, false}, Shape{64, 2, 2048, 0, true},
                         Shape{128, 1, 333, 64, true}, Shape{64, 1, 1, 0, false}, Shape{64, 2, 129, 200, false},
                         Shape{128, 2, 2048, 128, true}}) {
    INFO("heads " << s.heads << ", s_q " << s.s_q << ", topk " << s.topk << ", extra topk " << s.extra_topk
                  << (s.lengths ? ", random topk_length" : ""));
    SparseDecodeExample e = plain(s.heads, s.s_q, s.topk);
    e.batch = 2;
    e.extra_topk = s.extra_topk;
    e.lengths = s.lengths;
    const SparseDecodeInputs in = random_sparse_decode_inputs(e, fresh_seed() + s.topk);
    check_against_reference(in, run_host(in));
  }
}

TEST_CASE("topk_length 0, 1, partial and full; a row with no valid key has O = 0 and LSE = +inf, split or not") {
  INFO("seed " << fresh_seed());
  SparseDecodeExample e = plain(64, 2, 150);
  e.batch = 5;
  SparseDecodeInputs in = random_sparse_decode_inputs(e, fresh_seed());
  in.keys.lengths = {0, 1, 37, 150, 150};
  // Batch entry 4: every index −1, so no key, though all count.
  for (int j = 0; j < 2 * 150; ++j) in.keys.indices[4 * 2 * 150 + j] = -1;
  in.keys.indices[1 * 2 * 150] = 3;  // batch 1's one counted key is a valid one
  // Split 5 ways, rows of 0 and 1 blocks leave CTAs with no block, and the
  // combine step meets rows whose every split saw no key.
  const auto empty_rows_hold = [&](const SparseDecodeRun& r) {
    for (int b : {0, 4})
      for (std::size_t row = b * 2 * 64; row < std::size_t(b + 1) * 2 * 64; ++row) {
        REQUIRE(r.out.lse[row] == std::numeric_limits<float>::infinity());
        for (float x : o_row(r.out, row)) REQUIRE(x == 0.0f);
      }
    CHECK(std::isfinite(r.out.lse[1 * 2 * 64]));
  };
  for (int splits : {1, 5}) {
    INFO("splits " << splits);
    const SparseDecodeRun r = run_host(in, splits);
    CHECK(r.splits == splits);
    check_against_reference(in, r);
    empty_rows_hold(r);
#if defined(TCGEN_SPARSE_DECODE_PTX)
    const ptx::Module module = ptx::Module::load(TCGEN_SPARSE_DECODE_PTX);
    const SparseDecodeRun through_ptx = run(in.problem(kScale, splits), in.q_bits, ptx::Interpreter{module});
    check_against_reference(in, through_ptx);
    empty_rows_hold(through_ptx);
#endif
  }
}

TEST_CASE("duplicate indices count twice, as in the reference") {
  INFO("seed " << fresh_seed());
  SparseDecodeInputs in = random_sparse_decode_inputs(plain(64, 1, 96), fresh_seed());
  for (int j = 48; j < 96; ++j) in.keys.indices[j] = in.keys.indices[j - 48] < 0 ? 5 : in.keys.indices[j - 48];
  const SparseDecodeRun r = run_host(in);
  check_against_reference(in, r);
  // One key written twice: LSE = ln 2 + its logit, O = its V.
  SparseDecodeInputs twice = in;
  twice.keys.indices.assign(96, -1);
  twice.keys.indices[0] = twice.keys.indices[70] = 11;
  SparseDecodeInputs once = twice;
  once.keys.indices[70] = -1;
  const SparseDecodeRun r2 = run_host(twice), r1 = run_host(once);
  for (std::size_t row = 0; row < 64; ++row) {
    REQUIRE(r2.out.lse[row] == doctest::Approx(r1.out.lse[row] + std::log(2.0)).epsilon(1e-5));
    REQUIRE(o_row(r2.out, row) == o_row(r1.out, row));
  }
}

TEST_CASE("the extra cache joins the same softmax; sinks scale O and leave LSE; a very large sink leaves O = 0") {
  INFO("seed " << fresh_seed());
  SparseDecodeExample e = plain(128, 2, 200);
  e.extra_topk = 100;
  e.sink = true;
  e.lengths = true;
  const SparseDecodeInputs in = random_sparse_decode_inputs(e, fresh_seed());
  const SparseDecodeRun with = run_host(in);
  check_against_reference(in, with);
  SparseDecodeInputs no_sink = in;
  no_sink.sink.clear();
  const SparseDecodeRun without = run_host(no_sink);
  check_against_reference(no_sink, without);
  CHECK(with.out.lse == without.out.lse);  // the sink is not in LSE
  SparseDecodeInputs huge = in;
  huge.sink.assign(128, 1e4f);
  const SparseDecodeRun swamped = run_host(huge);
  check_against_reference(huge, swamped);
  CHECK(swamped.out.lse == without.out.lse);
  for (std::uint16_t x : swamped.out.o) REQUIRE(decode(ElementType::bf16, x) == 0.0f);
  SparseDecodeInputs no_extra = in;
  no_extra.extra = {};
  check_against_reference(no_extra, run_host(no_extra));
}

TEST_CASE("split-KV: 2, 5 and the scheduler's splits agree with one split and with the reference") {
  INFO("seed " << fresh_seed());
  SparseDecodeExample e = plain(64, 2, 700);
  e.extra_topk = 90;
  e.lengths = true;
  e.sink = true;
  const SparseDecodeInputs in = random_sparse_decode_inputs(e, fresh_seed());
  const SparseDecodeRun one = run_host(in, 1);
  check_against_reference(in, one);
  const SparseDecodeProblem p = in.problem(kScale);
  CHECK(p.split_count() == sparse_decode_splits(1, 2, 64, 11 + 2));
  for (int splits : {2, 5, 0}) {
    INFO("splits " << splits);
    const SparseDecodeRun r = run_host(in, splits);
    CHECK(r.splits == (splits == 0 ? p.split_count() : splits));
    check_against_reference(in, r);
    // Against the unsplit run as the reference: the same bounds.
    SparseDecodeResult as_ref{std::vector<double>(one.out.o.size()), std::vector<double>(one.out.lse.begin(), one.out.lse.end())};
    for (std::size_t i = 0; i < one.out.o.size(); ++i) as_ref.o[i] = decode(ElementType::bf16, one.out.o[i]);
    CHECK(check_sparse_decode(as_ref, r.out).ok());
  }
}

TEST_CASE("the scheduler fills 148 SMs with at least two key blocks a split") {
  CHECK(sparse_decode_splits(1, 1, 64, 32) == 16);    // 1 CTA: 148 wanted, 16 at two blocks each
  CHECK(sparse_decode_splits(1, 1, 128, 400) == 74);  // 2 CTAs of heads: 74 each fill 148
  CHECK(sparse_decode_splits(148, 1, 64, 32) == 1);   // the grid is full already
  CHECK(sparse_decode_splits(64, 2, 128, 32) == 1);
  CHECK(sparse_decode_splits(2, 1, 64, 1) == 1);      // one block: nothing to split
}

TEST_CASE("indices into the last, padded block of a cache") {
  INFO("seed " << fresh_seed());
  SparseDecodeExample e = plain(64, 1, 80);
  e.block_size = 5;  // 5 · 584 = 2920 bytes, padded to 3456 (6 · 576)
  e.num_blocks = 3;
  SparseDecodeInputs in = random_sparse_decode_inputs(e, fresh_seed());
  REQUIRE(in.keys.layout.block_bytes() == 3456);
  for (int j = 0; j < 80; ++j) in.keys.indices[j] = 2 * 5 + j % 5;  // block 2, slots 0-4
  check_against_reference(in, run_host(in));
}

TEST_CASE("rows whose maximum grows past the rescale threshold: O rescaled in TMEM") {
  INFO("seed " << fresh_seed());
  // Scale 1: logits spread over tens, so later blocks raise a row's maximum by
  // more than 8 (log2) and O is rescaled (tcgen/attention/online_softmax.hpp).
  SparseDecodeInputs in = random_sparse_decode_inputs(plain(64, 1, 640), fresh_seed());
  const SoftmaxScale big = SoftmaxScale::explicit_value(1.0f);
  check_against_reference(in, run_host(in, 1, big), big);
  check_against_reference(in, run_host(in, 3, big), big);
}

TEST_CASE("shuffled schedules and PTX's strict mma pipelining: the same results, no rule broken") {
  // Every call into the model a scheduling point, threads drawn at random:
  // a missing wait or fence shows as a broken rule or a changed O.
  INFO("seed " << fresh_seed());
  SparseDecodeExample e = plain(64, 2, 300);
  e.extra_topk = 64;
  e.lengths = true;
  e.sink = true;
  const SparseDecodeInputs in = random_sparse_decode_inputs(e, fresh_seed());
  const SparseDecodeRun plain_run = run_host(in, 3);
  for (std::uint64_t shuffle : {1u, 2u, 3u}) {
    INFO("shuffle seed " << shuffle + fresh_seed());
    exec::LaunchOptions o;
    o.letters_as_errors = true;
    o.strict_mma_pipelining = true;
    o.shuffle_seed = shuffle + fresh_seed();
    const SparseDecodeRun r = run(in.problem(kScale, 3), in.q_bits, exec::HostModel{o});
    CHECK(r.out.o == plain_run.out.o);
    CHECK(r.out.lse == plain_run.out.lse);
  }
}

TEST_CASE("bad problems name the field") {
  SparseDecodeInputs in = random_sparse_decode_inputs(plain(64, 1, 64), 1);
  const auto refused = [&](SparseDecodeProblem p, const char* field) {
    INFO("field " << field);
    expect_error([&] { (void)run(p, in.q_bits, exec::HostModel{}); }, field);
  };
  SparseDecodeProblem p = in.problem(kScale);
  p.heads = 96;
  refused(p, "heads");
  p = in.problem(kScale, kSparseMaxSplits + 1);
  refused(p, "splits");
  std::vector<std::int32_t> bad = in.keys.indices;
  bad[7] = static_cast<std::int32_t>(in.keys.layout.block_size * 8);  // one past the last token
  p = in.problem(kScale);
  p.keys.indices = bad;
  refused(p, "keys.indices");
  const std::vector<std::int32_t> too_long{65};
  p = in.problem(kScale);
  p.keys.lengths = too_long;
  refused(p, "keys.lengths");
  const std::vector<float> sink(3, 0.0f);
  p = in.problem(kScale);
  p.sink = sink;
  refused(p, "sink");
  expect_error([&] { (void)run(in.problem(kScale), std::span(in.q_bits).first(100), exec::HostModel{}); }, "q");
}

#if defined(TCGEN_SPARSE_DECODE_PTX)
TEST_CASE("the kernel's sm_100a PTX through the interpreter: the same results within the bounds") {
  INFO("seed " << fresh_seed());
  const ptx::Module module = ptx::Module::load(TCGEN_SPARSE_DECODE_PTX);
  SparseDecodeExample e = plain(128, 2, 150);
  e.extra_topk = 64;
  e.lengths = true;
  e.sink = true;
  const SparseDecodeInputs in = random_sparse_decode_inputs(e, fresh_seed());
  for (int splits : {1, 3}) {
    INFO("splits " << splits);
    const SparseDecodeProblem problem = in.problem(kScale, splits);
    ptx::LaunchStats counts;
    const SparseDecodeRun r = run(problem, in.q_bits, ptx::Interpreter{.module = module, .stats = &counts});
    check_against_reference(in, r);
    CHECK(counts.instructions > 0);
    CHECK(counts.warnings.empty());
    // The combine step's launch, where the keys are split, adds its CTAs to the kernel's.
    CHECK(counts.ctas == SparseDecode::grid(problem).count() +
                             (r.splits > 1 ? SparseDecodeCombine::grid(problem.rows()).count() : 0));
  }
}
#endif
