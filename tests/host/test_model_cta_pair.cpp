// CTA pairs on the host model: tcgen05 .cta_group::2 across two paired Ctas
// (ranks 0 and 1). The expected placements are PTX's (tcgen05-facts.md §4,
// Layouts A and B; #tcgen05-issue-granularity) and CUTLASS's 2-SM traits
// (CTA v holds rows [v·M/2, (v+1)·M/2) of A and D and rows [v·N/2, (v+1)·N/2)
// of B); the reference is fp64 on values every product keeps exact.
#include <doctest/doctest.h>

#include <array>
#include <string>
#include <vector>

#include "test_model_support.hpp"

namespace {

using namespace model_test;

// Two CTAs of one cluster, paired; warp 0 of each allocates `ncols` with
// cta_group::2 and each has an mbarrier (count 1) at kMbar.
struct Pair {
  static constexpr std::uint32_t kSlot = 0x0, kMbar = 0x8, kA = 0x400, kB = 0x8400;
  std::array<Cta, 2> cta{Cta(CtaConfig{.rank = 0}), Cta(CtaConfig{.rank = 1})};
  std::array<std::uint32_t, 2> tmem{};
  std::uint32_t ncols;

  explicit Pair(std::uint32_t columns = 128) : ncols(columns) {
    cta[0].pair_with(cta[1]);
    for (Cta& c : cta) {
      c.alloc(0, kSlot, ncols, CtaGroup::two);
      c.mbarrier_init({0, 0}, kMbar, 1);
      c.bar_sync();
    }
    for (int v = 0; v < 2; ++v) tmem[v] = cta[v].ld_shared_u32(1, kSlot);
  }
  // The even CTA's thread (1, 0) commits the pair's MMAs to both CTAs' mbarriers (multicast 0b11).
  void commit_both() {
    for (Cta& c : cta) cta[0].commit({1, 0}, kMbar, CtaGroup::two, &c);
  }
  void await_all(std::uint32_t parity) {
    for (Cta& c : cta)
      for (int w = 0; w < 4; ++w) {
        REQUIRE(c.mbarrier_try_wait(w, kMbar, parity));
        c.fence_after_thread_sync(w);
      }
  }
  // Every warp's tcgen05.ld done (wait::ld), then both CTAs free their columns and exit.
  void end() {
    for (Cta& c : cta)
      for (int w = 0; w < 4; ++w) c.wait_ld(w);
    for (int v = 0; v < 2; ++v) {
      cta[v].dealloc(0, tmem[v], ncols, CtaGroup::two);
      cta[v].finish();
    }
  }
};

std::vector<float> rows_of(const std::vector<float>& m, int first, int count, int k) {
  return {m.begin() + std::ptrdiff_t(first) * k, m.begin() + std::ptrdiff_t(first + count) * k};
}

// The fp64 reference's rows [first, first + count).
std::vector<double> ref_rows(const std::vector<double>& d, int first, int count, int n) {
  return {d.begin() + std::ptrdiff_t(first) * n, d.begin() + std::ptrdiff_t(first + count) * n};
}

// Stages each CTA's half of A (rows M/2) and B (rows N/2) for K = k, K-major without swizzle.
void stage_halves(Pair& p, const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k) {
  for (int v = 0; v < 2; ++v) {
    stage(p.cta[v], {Pair::kA, m / 2, k, ElementType::bf16}, rows_of(a, v * m / 2, m / 2, k), 2);
    stage(p.cta[v], {Pair::kB, n / 2, k, ElementType::bf16}, rows_of(b, v * n / 2, n / 2, k), 2);
  }
}

// Each CTA's half of B staged (seeds `seed` + rank), and its A rows, all bf16
// 1.0, stored in its Tensor Memory from column a_col by its four warps, each
// of which then waits (wait::st) and publishes (fence::before_thread_sync).
void stage_ones_a(Pair& p, int n, int k, int a_col, unsigned seed) {
  for (int v = 0; v < 2; ++v) {
    stage(p.cta[v], {Pair::kB, n / 2, k, ElementType::bf16}, small_values(n / 2, k, seed + static_cast<unsigned>(v)), 2);
    for (int w = 0; w < 4; ++w) {
      WarpRegisters regs;
      for (int t = 0; t < 32; ++t) regs[t].assign(static_cast<std::size_t>(k / 2), 0x3F803F80u);  // bf16 1.0 pairs
      p.cta[v].st(w, {LdStShape::s32x32b, k / 2}, p.tmem[v] + taddr(32 * w, a_col), regs);
      p.cta[v].wait_st(w);
      p.cta[v].fence_before_thread_sync(w);
    }
  }
}

}  // namespace

TEST_CASE("a pair MMA with M = 256: each CTA holds 128 rows of A and D and half of B (Layout A)") {
  constexpr int M = 256, N = 64, K = 32;
  Pair p;
  const std::vector<float> a = small_values(M, K, 11), b = small_values(N, K, 12);
  stage_halves(p, a, b, M, N, K);
  const KMajor a_half{Pair::kA, M / 2, K, ElementType::bf16}, b_half{Pair::kB, N / 2, K, ElementType::bf16};
  for (int k0 = 0; k0 < K; k0 += 16)
    p.cta[0].mma_ss({1, 0}, MmaKind::f16, p.tmem[0], a_half.desc(k0), b_half.desc(k0), idesc({.m = M, .n = N}), k0 > 0,
                    CtaGroup::two);
  p.commit_both();
  p.await_all(0);
  const std::vector<double> ref = reference(a, b, M, N, K);
  for (int v = 0; v < 2; ++v) {
    INFO("CTA of rank " << v);
    CHECK(mismatches(read_d(p.cta[v], p.tmem[v], 128, N), ref_rows(ref, 128 * v, 128, N)) == 0);
  }
  // gau-nernst's 2-SM epilogues read rank 1's rows at lanes 128 + 32w: a letter, taken modulo 128.
  const WarpRegisters low = p.cta[1].ld(2, {LdStShape::s32x32b, 4}, p.tmem[1] + taddr(64, 8));
  CHECK(p.cta[1].warnings().count(Rule::tmem_lane_past_127) == 0);
  const WarpRegisters high = p.cta[1].ld(2, {LdStShape::s32x32b, 4}, p.tmem[1] + taddr(128 + 64, 8));
  REQUIRE(p.cta[1].warnings().count(Rule::tmem_lane_past_127) == 1);
  CHECK(p.cta[1].warnings().at(Rule::tmem_lane_past_127).first.find("taddr lane = 192") != std::string::npos);
  CHECK(high == low);
  p.end();
}

TEST_CASE("a pair MMA with M = 128 puts each CTA's 64 rows in Layout B: columns N/2 and up in lanes 64-127") {
  constexpr int M = 128, N = 64, K = 16;
  Pair p;
  const std::vector<float> a = small_values(M, K, 21), b = small_values(N, K, 22);
  stage_halves(p, a, b, M, N, K);
  p.cta[0].mma_ss({1, 0}, MmaKind::f16, p.tmem[0], KMajor{Pair::kA, M / 2, K, ElementType::bf16}.desc(0),
                  KMajor{Pair::kB, N / 2, K, ElementType::bf16}.desc(0), idesc({.m = M, .n = N}), false,
                  CtaGroup::two);
  p.commit_both();
  p.await_all(0);
  const std::vector<double> ref = reference(a, b, M, N, K);
  for (int v = 0; v < 2; ++v) {
    // Lanes 0-63 hold rows 64v.. for columns [0, N/2), lanes 64-127 the same rows for [N/2, N).
    const std::vector<float> cells = read_d(p.cta[v], p.tmem[v], 128, N / 2);
    std::vector<float> got(std::size_t(64) * N);
    for (int lane = 0; lane < 128; ++lane)
      for (int c = 0; c < N / 2; ++c) got[std::size_t(lane % 64) * N + c + (lane / 64) * N / 2] = cells[std::size_t(lane) * N / 2 + c];
    INFO("CTA of rank " << v);
    CHECK(mismatches(got, ref_rows(ref, 64 * v, 64, N)) == 0);
  }
  p.end();
}

TEST_CASE("a pair TS MMA reads each CTA's A rows from its own Tensor Memory, M = 256") {
  constexpr int M = 256, N = 32, K = 16, kAcol = 64;
  Pair p;
  const std::vector<float> a = small_values(M, K, 31), b = small_values(N, K, 32);
  // A as bf16 pairs, K-major: row m at lane m, element k in column kAcol + k/2, the low half for even k.
  for (int v = 0; v < 2; ++v) {
    stage(p.cta[v], {Pair::kB, N / 2, K, ElementType::bf16}, rows_of(b, v * N / 2, N / 2, K), 2);
    for (int w = 0; w < 4; ++w) {
      WarpRegisters regs;
      for (int t = 0; t < 32; ++t)
        for (int c = 0; c < K / 2; ++c) {
          const float* row = a.data() + std::size_t(128 * v + 32 * w + t) * K;
          regs[t].push_back(encode(ElementType::bf16, row[2 * c]) | encode(ElementType::bf16, row[2 * c + 1]) << 16);
        }
      p.cta[v].st(w, {LdStShape::s32x32b, K / 2}, p.tmem[v] + taddr(32 * w, kAcol), regs);
      p.cta[v].wait_st(w);
      p.cta[v].fence_before_thread_sync(w);
      // The stores reach the even CTA's MMA thread through an arrival on its mbarrier.
    }
  }
  // Each warp's stores are ordered before the MMA by a barrier in its own CTA and, for the peer, by
  // its arrival on the even CTA's mbarrier at 0x10 (count 4), which thread (1, 0) waits on.
  p.cta[0].mbarrier_init({0, 0}, 0x10, 4);
  p.cta[0].bar_sync();
  for (int w = 0; w < 4; ++w) p.cta[0].mbarrier_arrive_remote(p.cta[1], w, 0x10, 1);
  REQUIRE(p.cta[0].mbarrier_try_wait(1, 0x10, 0));
  p.cta[0].fence_after_thread_sync(1);
  p.cta[0].mma_ts({1, 0}, MmaKind::f16, p.tmem[0], p.tmem[0] + kAcol, KMajor{Pair::kB, N / 2, K, ElementType::bf16}.desc(0),
                  idesc({.m = M, .n = N}), false, CtaGroup::two);
  p.commit_both();
  p.await_all(0);
  const std::vector<double> ref = reference(a, b, M, N, K);
  for (int v = 0; v < 2; ++v) {
    INFO("CTA of rank " << v);
    CHECK(mismatches(read_d(p.cta[v], p.tmem[v], 128, N), ref_rows(ref, 128 * v, 128, N)) == 0);
  }
  p.end();
}

TEST_CASE("the peer's stores of A are unordered before the pair MMA without the arrival that carries them") {
  constexpr int M = 256, N = 32, K = 16, kAcol = 64;
  Pair p;
  stage_ones_a(p, N, K, kAcol, 40);
  p.cta[0].bar_sync();
  p.cta[0].fence_after_thread_sync(1);
  // Rank 0's own stores are ordered by its bar.sync; rank 1's reach thread (1, 0) of rank 0 by nothing.
  expect_rule(
      [&] {
        p.cta[0].mma_ts({1, 0}, MmaKind::f16, p.tmem[0], p.tmem[0] + kAcol,
                        KMajor{Pair::kB, N / 2, K, ElementType::bf16}.desc(0), idesc({.m = M, .n = N}), false,
                        CtaGroup::two);
      },
      Rule::unordered_tmem_access, {"lane 0, column 64", "tcgen05.st.sync.aligned.32x32b.x8", "warp 0"});
}

TEST_CASE("barrier.cluster carries the peer's stores of A to the pair MMA's issuer") {
  constexpr int M = 256, N = 32, K = 16, kAcol = 64;
  Pair p;
  stage_ones_a(p, N, K, kAcol, 70);
  // barrier.cluster.arrive.release / wait.acquire by every thread of both CTAs, then the issuer's fence.
  Cta* both[] = {&p.cta[0], &p.cta[1]};
  Cta::cluster_barrier(both);
  p.cta[0].fence_after_thread_sync(1);
  p.cta[0].mma_ts({1, 0}, MmaKind::f16, p.tmem[0], p.tmem[0] + kAcol, KMajor{Pair::kB, N / 2, K, ElementType::bf16}.desc(0),
                  idesc({.m = M, .n = N}), false, CtaGroup::two);
  // A second thread's pair MMA into the same accumulator needs the first ordered before it, in both
  // CTAs (the peer's half under the first thread's pair key): fence::before, a barrier, fence::after.
  const auto second = [&] {
    p.cta[0].mma_ss({2, 0}, MmaKind::f16, p.tmem[0], smem_desc(Pair::kA, 128, 128), KMajor{Pair::kB, N / 2, K, ElementType::bf16}.desc(0),
                    idesc({.m = M, .n = N}), true, CtaGroup::two);
  };
  stage_halves(p, small_values(M, K, 72), small_values(N, K, 73), M, N, K);
  p.cta[0].fence_after_thread_sync(2);
  expect_rule(second, Rule::unordered_tmem_access, {"warp 1, lane 0", "another thread"});
  p.cta[0].fence_before_thread_sync(1);
  p.cta[0].bar_sync();
  p.cta[0].fence_after_thread_sync(2);
  second();
  CHECK(p.cta[1].warnings().empty());
}

TEST_CASE("the pair MMA's half in the peer is complete for its warps only through a commit that reaches them") {
  constexpr int M = 256, N = 32, K = 16;
  Pair p;
  stage_halves(p, small_values(M, K, 51), small_values(N, K, 52), M, N, K);
  p.cta[0].mma_ss({1, 0}, MmaKind::f16, p.tmem[0], KMajor{Pair::kA, M / 2, K, ElementType::bf16}.desc(0),
                  KMajor{Pair::kB, N / 2, K, ElementType::bf16}.desc(0), idesc({.m = M, .n = N}), false,
                  CtaGroup::two);
  // Committed to the even CTA's mbarrier only: rank 1's warps know nothing of it.
  p.cta[0].commit({1, 0}, Pair::kMbar, CtaGroup::two);
  REQUIRE(p.cta[0].mbarrier_try_wait(0, Pair::kMbar, 0));
  p.cta[0].fence_after_thread_sync(0);
  CHECK(p.cta[0].ld(0, {LdStShape::s32x32b, 1}, p.tmem[0])[0].size() == 1);
  expect_rule([&] { p.cta[1].ld(0, {LdStShape::s32x32b, 1}, p.tmem[1]); }, Rule::mma_not_complete,
              {"lane 0, column 0", "tcgen05.mma.cta_group::2.kind::f16", "(issued by rank 0)",
               "committed to the mbarrier at 0x8 in its phase 0"});
  // A second commit, multicast to rank 1, completes it there too.
  p.cta[0].commit({1, 0}, Pair::kMbar, CtaGroup::two, &p.cta[1]);
  REQUIRE(p.cta[1].mbarrier_try_wait(0, Pair::kMbar, 0));
  p.cta[1].fence_after_thread_sync(0);
  CHECK(p.cta[1].ld(0, {LdStShape::s32x32b, 1}, p.tmem[1])[0].size() == 1);
}

TEST_CASE("cta_group::2 allocation is collective: the same columns in both CTAs, the same nCols, both executed") {
  {
    Pair p(64);
    CHECK(p.tmem[0] == p.tmem[1]);
    // A second pair allocation lands past the first in both.
    for (Cta& c : p.cta) c.alloc(0, 0x20, 32, CtaGroup::two);
    p.cta[0].bar_sync();
    p.cta[1].bar_sync();
    CHECK(p.cta[0].ld_shared_u32(1, 0x20) == 64u);
    CHECK(p.cta[1].ld_shared_u32(1, 0x20) == 64u);
    for (Cta& c : p.cta) c.dealloc(0, 64, 32, CtaGroup::two);
    p.end();
  }
  {
    std::array<Cta, 2> cta{Cta(CtaConfig{.rank = 0}), Cta(CtaConfig{.rank = 1})};
    cta[0].pair_with(cta[1]);
    cta[0].alloc(0, 0, 128, CtaGroup::two);
    expect_rule([&] { cta[1].alloc(0, 0, 64, CtaGroup::two); }, Rule::pair_alloc_mismatch,
                {"nCols = 64", "rank 0", "took 128 columns"});
    cta[0].dealloc(0, 0, 128, CtaGroup::two);
    expect_rule([&] { cta[1].finish(); }, Rule::pair_alloc_mismatch,
                {"the peer CTA (rank 0) executed tcgen05.alloc.cta_group::2", "never executed"});
  }
  Cta alone(CtaConfig{.rank = 2});
  expect_rule([&] { alone.alloc(0, 0, 32, CtaGroup::two); }, Rule::pair_missing, {"rank 2", "no peer of rank 3"});
}

TEST_CASE("a pair MMA issued by the odd CTA is a convention broken: warned, or an error when letters are errors") {
  constexpr int M = 256, N = 32, K = 16;
  Pair p;
  stage_halves(p, small_values(M, K, 61), small_values(N, K, 62), M, N, K);
  const auto issue_from_rank_1 = [&] {
    p.cta[1].mma_ss({1, 0}, MmaKind::f16, p.tmem[1], KMajor{Pair::kA, M / 2, K, ElementType::bf16}.desc(0),
                    KMajor{Pair::kB, N / 2, K, ElementType::bf16}.desc(0), idesc({.m = M, .n = N}), false,
                    CtaGroup::two);
  };
  issue_from_rank_1();
  REQUIRE(p.cta[1].warnings().count(Rule::pair_mma_by_odd_cta) == 1);
  const std::string& first = p.cta[1].warnings().at(Rule::pair_mma_by_odd_cta).first;
  CHECK(first.find("%cluster_ctarank = 1") != std::string::npos);
  CHECK(first.find("#tcgen05-issue-granularity") != std::string::npos);
  // PTX allows it, and the model computes it as the even CTA's issue would.
  p.cta[1].commit({1, 0}, Pair::kMbar, CtaGroup::two);
  p.cta[1].commit({1, 0}, Pair::kMbar, CtaGroup::two, &p.cta[0]);
  p.await_all(0);
  const std::vector<float> a = small_values(M, K, 61), b = small_values(N, K, 62);
  CHECK(mismatches(read_d(p.cta[0], p.tmem[0], 128, N), ref_rows(reference(a, b, M, N, K), 0, 128, N)) == 0);

  std::array<Cta, 2> strict{Cta(CtaConfig{.rank = 0, .letters_as_errors = true}),
                            Cta(CtaConfig{.rank = 1, .letters_as_errors = true})};
  strict[0].pair_with(strict[1]);
  for (Cta& c : strict) c.alloc(0, 0, 32, CtaGroup::two);
  expect_rule(
      [&] {
        strict[1].mma_ss({1, 0}, MmaKind::f16, 0, smem_desc(0x400, 128, 128), smem_desc(0x400, 128, 128),
                         idesc({.m = M, .n = 32}), false, CtaGroup::two);
      },
      Rule::pair_mma_by_odd_cta, {"its peer, rank 0"});
}

TEST_CASE("pair MMA shapes: M 128 or 256 and N a multiple of 16; no .ws") {
  Pair p;
  const auto mma = [&](int m, int n, MmaVariant v = {}) {
    p.cta[0].mma_ss({1, 0}, MmaKind::f16, p.tmem[0], smem_desc(Pair::kA, 128, 128), smem_desc(Pair::kB, 128, 128),
                    idesc({.m = m, .n = n}), false, CtaGroup::two, v);
  };
  expect_rule([&] { mma(64, 64); }, Rule::idesc_invalid, {"m = 64", "expected M = 128 or 256 for cta_group::2"});
  expect_rule([&] { mma(256, 24); }, Rule::idesc_invalid, {"n = 24", "a multiple of 16 in [16, 256]"});
  expect_rule([&] { mma(128, 64, {.ws = true}); }, Rule::idesc_invalid, {"expected no .ws with cta_group::2"});
  expect_rule([&] { p.cta[0].mma_ss({1, 0}, MmaKind::f16, p.tmem[0] + taddr(16, 0), smem_desc(Pair::kA, 128, 128),
                                    smem_desc(Pair::kB, 128, 128), idesc({.m = 256, .n = 64}), false, CtaGroup::two); },
              Rule::mma_lane_offset, {"d-tmem lane = 16", "Layout A (M = 256) or B (M = 128)"});
  // One kernel, one .cta_group.
  expect_rule([&] { p.cta[0].commit({1, 0}, Pair::kMbar, CtaGroup::one); }, Rule::mixed_cta_group,
              {"tcgen05.alloc.cta_group::2", "used ::2"});
}

TEST_CASE("tcgen05.cp with cta_group::2 copies into both CTAs' Tensor Memory, each from its own shared memory") {
  Pair p;
  // One 128x256b row block: 128 rows of 32 bytes, K-major without swizzle (rows 16 B apart in groups of 8, SBO 128,
  // the second 16-byte chunk LBO = 2048 B on).
  for (int v = 0; v < 2; ++v) {
    Staging s(Pair::kA, 4096);
    for (std::uint32_t i = 0; i < 4096; i += 4) s.put(Pair::kA + i, ElementType::f32, float(v * 10000 + i / 4));
    s.store(p.cta[v], 2);
    p.cta[v].fence_proxy_async(2);
  }
  p.cta[0].cp({1, 0}, CpShape::s128x256b, p.tmem[0], smem_desc(Pair::kA, 2048, 128), CtaGroup::two);
  p.commit_both();
  p.await_all(0);
  for (int v = 0; v < 2; ++v) {
    // Row 9, chunk 0, word 1: byte 16·(9 % 8) + 128·(9 / 8) + 4 of the source.
    const WarpRegisters r = p.cta[v].ld(0, {LdStShape::s32x32b, 2}, p.tmem[v]);
    CHECK(decode(ElementType::f32, r[9][1]) == float(v * 10000 + (16 * 1 + 128 * 1 + 4) / 4));
  }
}

namespace {

// Fake global addresses of row-major K-major tensors A (M × K) and B (N × K), bf16.
constexpr std::uint64_t kGlobalA = 0x100000, kGlobalB = 0x200000;

// Each CTA's staged halves of A and B (stage_halves) given the sources a TMA load of rows
// v·M/2.. of A and v·N/2.. of B would have given them; `stale_k_block1`: rank 1's K block 1
// (columns 16-31) holds the sources of its K block 0, a stage its TMA did not refill.
void mark_sources(Pair& p, int m, int n, int k, bool stale_k_block1 = false) {
  for (int v = 0; v < 2; ++v)
    for (const auto& [op, global] : {std::pair{KMajor{Pair::kA, m / 2, k, ElementType::bf16}, kGlobalA},
                                     std::pair{KMajor{Pair::kB, n / 2, k, ElementType::bf16}, kGlobalB}})
      for (int r = 0; r < op.rows; ++r)
        for (int kk = 0; kk < k; kk += 8) {  // 8 bf16 a chunk
          const int from = v == 1 && stale_k_block1 && kk >= 16 && kk < 32 ? kk - 16 : kk;
          p.cta[v].set_smem_origin(op.addr(r, kk), 16, global + 2 * std::uint64_t((v * op.rows + r) * k + from));
        }
}

}  // namespace

TEST_CASE("a pair MMA's K step advanced half a block: part of a K block added twice, with the step taken") {
  constexpr int M = 256, N = 64, K = 64;
  Pair p;
  const std::vector<float> a = small_values(M, K, 31), b = small_values(N, K, 32);
  stage_halves(p, a, b, M, N, K);
  mark_sources(p, M, N, K);
  const KMajor a_half{Pair::kA, M / 2, K, ElementType::bf16}, b_half{Pair::kB, N / 2, K, ElementType::bf16};
  for (int k0 = 0; k0 < K; k0 += 16)  // the right step: silent
    p.cta[0].mma_ss({1, 0}, MmaKind::f16, p.tmem[0], a_half.desc(k0), b_half.desc(k0), idesc({.m = M, .n = N}),
                    k0 > 0, CtaGroup::two);
  CHECK(p.cta[0].warnings().count(Rule::k_block_read_twice) == 0);
  for (int k0 = 0; k0 < K; k0 += 16)  // a new accumulation stepping 8 of K: columns 8-23 after 0-15
    p.cta[0].mma_ss({1, 0}, MmaKind::f16, p.tmem[0], a_half.desc(k0 / 2), b_half.desc(k0 / 2),
                    idesc({.m = M, .n = N}), k0 > 0, CtaGroup::two);
  REQUIRE(p.cta[0].warnings().count(Rule::k_block_read_twice) == 1);
  CHECK(p.cta[0].warnings().at(Rule::k_block_read_twice).count == 3);
  const std::string w = p.cta[0].warnings().at(Rule::k_block_read_twice).first;
  MESSAGE(w);
  // Without swizzle a K-major operand's chunks along K are core matrices LBO (= rows · 16 bytes here) apart.
  CHECK(w.find("a-desc's start address advanced 2048 bytes (encoded 128) from the previous MMA's, where a K step of "
               "16 bf16 elements is 4096 bytes (encoded 256)") != std::string::npos);
  CHECK(w.find("b-desc's start address advanced 512 bytes (encoded 32) from the previous MMA's, where a K step of "
               "16 bf16 elements is 1024 bytes (encoded 64)") != std::string::npos);
  p.commit_both();
  p.await_all(0);
  p.end();
}

TEST_CASE("a pair MMA whose odd CTA's stage was not refilled: its half's K block is found added twice") {
  constexpr int M = 256, N = 64, K = 64;
  Pair p;
  const std::vector<float> a = small_values(M, K, 33), b = small_values(N, K, 34);
  stage_halves(p, a, b, M, N, K);
  mark_sources(p, M, N, K, true);
  const KMajor a_half{Pair::kA, M / 2, K, ElementType::bf16}, b_half{Pair::kB, N / 2, K, ElementType::bf16};
  for (int k0 = 0; k0 < K; k0 += 16)
    p.cta[0].mma_ss({1, 0}, MmaKind::f16, p.tmem[0], a_half.desc(k0), b_half.desc(k0), idesc({.m = M, .n = N}),
                    k0 > 0, CtaGroup::two);
  REQUIRE(p.cta[0].warnings().count(Rule::k_block_read_twice) == 1);
  CHECK(p.cta[0].warnings().at(Rule::k_block_read_twice).count == 1);  // the second MMA only
  const std::string w = p.cta[0].warnings().at(Rule::k_block_read_twice).first;
  MESSAGE(w);
  // Rank 1 holds rows 128-255 of A and 32-63 of B: the first chunks found read before.
  CHECK(w.find("this MMA reads A(128, 0) and B(32, 0) from where an earlier MMA") != std::string::npos);
  CHECK(w.find("Both descriptors advanced one K step") != std::string::npos);
  p.commit_both();
  p.await_all(0);
  p.end();
}
