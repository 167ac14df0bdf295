// Two bugs of a raw-PTX DeepSeek-V4 FMHA (its author's log: ../shared/seed/README.md;
// tcgen05-facts.md §8): a 4x-scaled QK^T and a second tcgen05.st at the wrong
// lanes, run through the host model.
//  1. "The MMA output is exactly 4x the reference" in QK^T at head_dim 16: the
//     model's tcgen05.mma returns the raw Q·K^T; a reference that applies the
//     softmax scale 1/sqrt(head_dim) is sqrt(head_dim) below it in every row,
//     and the checker says so, at head_dim 16 (4x) and 64 (8x).
//  2. "tcgen05.st.16x256b.x1 works once, then the second store fails": the
//     second store used column + 16 instead of lane + 16. The model names it.
#include <cmath>
#include <random>

#include "tcgen/core/compare.hpp"
#include "test_model_support.hpp"

using namespace model_test;

namespace {

// Q (128 × hd) and K (n × hd) bf16 in the user's SMEM layout (K-major, no
// swizzle, core matrices column-major: LBO = rows·16 B, SBO = 128 B), S = Q·K^T
// by hd/16 MMAs, committed, awaited and read by warps 0-3.
struct QkT {
  int hd, n = 128;
  std::vector<float> q, k, s;

  explicit QkT(int head_dim) : hd(head_dim) {
    std::mt19937 rng{unsigned(head_dim)};
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int i = 0; i < 128 * hd; ++i) q.push_back(round_to(ElementType::bf16, normal(rng)));
    for (int i = 0; i < n * hd; ++i) k.push_back(round_to(ElementType::bf16, normal(rng)));
    Kernel kn;
    const KMajor Q{0x400, 128, hd, ElementType::bf16}, K{0x8000, n, hd, ElementType::bf16};
    stage(kn.cta, Q, q, 1);
    stage(kn.cta, K, k, 2);
    kn.cta.bar_sync();
    Idesc id;
    id.n = n;
    for (int step = 0; step < hd / 16; ++step)  // K advances 16 elements = two 16-byte chunks = 2·LBO
      kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem, Q.desc(16 * step), K.desc(16 * step), idesc(id), step > 0);
    kn.cta.commit({0, 0}, Kernel::kMbar);
    for (int w = 0; w < 4; ++w) kn.await(w, 0);
    s = read_d(kn.cta, kn.tmem, 128, n);
    kn.release_d();
    kn.end();
  }
  std::vector<double> reference(double scale) const {
    std::vector<double> r = model_test::reference(q, k, 128, n, hd);
    for (double& x : r) x *= scale;
    return r;
  }
};

}  // namespace

TEST_CASE("bug 1: the model's QK^T is the raw product; a softmax-scaled reference reads as sqrt(head_dim)") {
  for (int hd : {16, 64}) {
    CAPTURE(hd);
    const QkT run(hd);
    // fp32 sums of exact bf16 products against fp64.
    const tcgen::CompareReport raw = tcgen::compare(run.s, run.reference(1.0), 128, run.n, 1e-4);
    CHECK(raw.ok);
    CHECK(raw.diagnosis.empty());

    // The reference the user had: scores scaled by 1/sqrt(head_dim).
    const double scale = 1.0 / std::sqrt(double(hd));
    const tcgen::CompareReport scaled = tcgen::compare(run.s, run.reference(scale), 128, run.n, 1e-4);
    CHECK_FALSE(scaled.ok);
    for (int r = 0; r < 128; ++r) {
      CHECK(scaled.ratio[r] == doctest::Approx(std::sqrt(double(hd))).epsilon(1e-5));
      CHECK(scaled.cosine[r] == doctest::Approx(1.0).epsilon(1e-6));
    }
    const std::string root = std::to_string(hd);
    CHECK_MESSAGE(scaled.diagnosis.find("every row is " + std::string(hd == 16 ? "4.000" : "8.000") +
                                        "× the reference = sqrt(" + root + ")") != std::string::npos,
                  scaled.diagnosis);
    CHECK(scaled.diagnosis.find("softmax scale 1/sqrt(head_dim) applied on one side only") != std::string::npos);
    CHECK(scaled.text().find("diagnosis: every row is") != std::string::npos);
  }
}

namespace {

// A 32 × 8 fp32 tile for lanes 0-31 (one warp's quarter), stored with
// 16x256b.x1: each store covers 16 lanes × 8 columns.
float tile(int lane, int col) { return float(lane * 8 + col) + 0.5f; }

WarpRegisters tile_regs(int lane_base) {
  const LdStAccess s256{LdStShape::s16x256b, 1};
  WarpRegisters r;
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < 4; ++i) {
      const CellOffset o = cell_offset(s256, t, i, 0);
      r[t].push_back(encode(ElementType::f32, tile(lane_base + o.lane, o.column)));
    }
  return r;
}

}  // namespace

TEST_CASE("bug 2: a second 16x256b store at column + 16 leaves lanes 16-31 unwritten, and the model says why") {
  const LdStAccess s256{LdStShape::s16x256b, 1}, x8{LdStShape::s32x32b, 8};
  Kernel kn(32);
  kn.cta.st(0, s256, kn.tmem, tile_regs(0));
  kn.cta.st(0, s256, kn.tmem + 16, tile_regs(16));  // meant: the next 16 lanes
  kn.cta.wait_st(0);
  expect_rule([&] { kn.cta.ld(0, x8, kn.tmem); }, Rule::uninitialized_tmem,
              {"cell = lane 16, column 0", "never written", "lane 0, column 16 was written",
               "tcgen05.st.sync.aligned.16x256b.x1.b32", "covers 16 lanes", "taddr + (16 << 16) (lane + 16)",
               "not taddr + 16 (column + 16)"});
}

TEST_CASE("bug 2, as the user saw it: with .x4 the column + 16 store runs past the allocation") {
  const LdStAccess s256x4{LdStShape::s16x256b, 4};  // 16 lanes × 32 columns
  WarpRegisters r;
  for (auto& v : r) v.assign(16, 0);
  Kernel kn(32);
  kn.cta.st(0, s256x4, kn.tmem, r);  // the first store works
  expect_rule([&] { kn.cta.st(0, s256x4, kn.tmem + 16, r); }, Rule::tmem_outside_allocation,
              {"column = 32", "columns 16 to 47", "[0, 32)"});
}

TEST_CASE("bug 2, fixed: the second 16x256b store at lane + 16 fills the warp's 32 lanes") {
  const LdStAccess s256{LdStShape::s16x256b, 1}, x8{LdStShape::s32x32b, 8};
  Kernel kn(32);
  kn.cta.st(0, s256, kn.tmem, tile_regs(0));
  kn.cta.st(0, s256, kn.tmem + taddr(16, 0), tile_regs(16));
  kn.cta.wait_st(0);
  const WarpRegisters got = kn.cta.ld(0, x8, kn.tmem);  // 32x32b: thread t = lane t, register i = column i
  kn.cta.wait_ld(0);
  int wrong = 0;
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < 8; ++i) wrong += decode(ElementType::f32, got[t][i]) != tile(t, i);
  CHECK(wrong == 0);
  kn.end();
}
