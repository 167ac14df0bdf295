// Ordering of asynchronous tcgen05 operations in the host model (PTX
// #tcgen05-memory-consistency-model, tcgen05-facts.md §7): MMA → ld needs
// commit, a wait on that phase and fence::after_thread_sync; st → mma needs
// wait::st; ld → mma needs wait::ld; another thread's MMA needs ordering.
// Each rule broken once, and the canonical sequences pass.
#include "test_model_support.hpp"

using namespace model_test;

namespace {

constexpr std::uint32_t kA = 0x400, kB = 0x8000;
const LdStAccess kX4{LdStShape::s32x32b, 4};

// A kernel with operands staged and one MMA (128 × 32) issued by thread (0, 0) into columns 0-31.
struct MmaIssued : Kernel {
  KMajor A{kA, 128, 16, ElementType::bf16}, B{kB, 32, 16, ElementType::bf16};
  Idesc id;
  explicit MmaIssued(bool letters_as_errors = false) : Kernel(512, 4, letters_as_errors) {
    id.n = 32;
    stage(cta, A, small_values(128, 16, 1), 0);
    stage(cta, B, small_values(32, 16, 2), 0);
    mma({0, 0}, false);
  }
  void mma(Thread t, bool accumulate, std::uint32_t d_column = 0) {
    cta.mma_ss(t, MmaKind::f16, tmem + d_column, A.desc(0), B.desc(0), idesc(id), accumulate);
  }
};

WarpRegisters regs_of(const LdStAccess& a, std::uint32_t value) {
  WarpRegisters r;
  for (auto& v : r) v.assign(std::size_t(registers(a)), value);
  return r;
}

}  // namespace

TEST_CASE("with letters as errors, the wait needs its fence::after_thread_sync") {
  MmaIssued k(true);
  k.cta.commit({0, 0}, Kernel::kMbar);
  CHECK(k.cta.mbarrier_try_wait(1, Kernel::kMbar, 0));
  expect_rule([&] { k.cta.ld(1, kX4, k.tmem + taddr(32, 0)); }, Rule::missing_after_thread_sync,
              {"warp 1 has waited", "tcgen05.fence::after_thread_sync"});
  k.cta.fence_after_thread_sync(1);
  k.cta.ld(1, kX4, k.tmem + taddr(32, 0));
  CHECK(k.cta.warnings().empty());
}

TEST_CASE("mma -> commit -> try_wait -> fence::after_thread_sync -> ld, each step required") {
  MmaIssued k;
  expect_rule([&] { k.cta.ld(1, kX4, k.tmem + taddr(32, 0)); }, Rule::mma_not_complete,
              {"tcgen05.ld.sync.aligned.32x32b.x4.b32 (warp 1)", "cell = lane 32, column 0", "warp 0, lane 0",
               "no tcgen05.commit"});
  k.cta.commit({0, 0}, Kernel::kMbar);
  expect_rule([&] { k.cta.ld(1, kX4, k.tmem + taddr(32, 0)); }, Rule::mma_not_complete,
              {"mbarrier at 0x8 in its phase 0", "try_wait.parity 0"});
  CHECK(k.cta.mbarrier_try_wait(1, Kernel::kMbar, 0));
  // The fence after the wait is a PTX letter (CUTLASS's B200 kernels issue none): counted once, the load goes on.
  expect_letter(k.cta, [&] { k.cta.ld(1, kX4, k.tmem + taddr(32, 0)); }, Rule::missing_after_thread_sync,
                {"warp 1 has waited", "tcgen05.fence::after_thread_sync"});
  k.cta.ld(1, kX4, k.tmem + taddr(32, 0));
  CHECK(k.cta.warnings().at(Rule::missing_after_thread_sync).count == 1);
  // Warp 2 has not waited: its lanes are still pending for it.
  expect_rule([&] { k.cta.ld(2, kX4, k.tmem + taddr(64, 0)); }, Rule::mma_not_complete, {"warp 2"});
  // Nor may a store overwrite the MMA's cells before it is known complete.
  expect_rule([&] { k.cta.st(3, kX4, k.tmem + taddr(96, 0), regs_of(kX4, 0)); }, Rule::mma_not_complete);
}

TEST_CASE("knowledge passes on: a warp that waited can hand the result on through bar.sync") {
  MmaIssued k;
  k.cta.commit({0, 0}, Kernel::kMbar);
  k.await(0, 0);
  k.cta.bar_sync();  // warp 0's fenced knowledge reaches every warp
  k.cta.fence_after_thread_sync(3);
  k.cta.ld(3, kX4, k.tmem + taddr(96, 0));
}

TEST_CASE("a wait passes on through bar.sync before the waiting warp fences (gau-nernst's v7 epilogue)") {
  // Warp 0 alone waits on the phase, then bar.sync, then every reader fences: what the wait observed
  // is ordered before the barrier, and each reader's fence orders its ld after it.
  MmaIssued k(true);
  k.cta.commit({0, 0}, Kernel::kMbar);
  // Without warp 0's wait the barrier passes nothing on.
  k.cta.bar_sync();
  k.cta.fence_after_thread_sync(2);
  expect_rule([&] { k.cta.ld(2, kX4, k.tmem + taddr(64, 0)); }, Rule::mma_not_complete, {"try_wait.parity 0"});
  REQUIRE(k.cta.mbarrier_try_wait(0, Kernel::kMbar, 0));
  k.cta.bar_sync();
  // The reader's own fence is still needed (a PTX letter, an error here).
  expect_rule([&] { k.cta.ld(3, kX4, k.tmem + taddr(96, 0)); }, Rule::missing_after_thread_sync, {"warp 3 has waited"});
  k.cta.fence_after_thread_sync(3);
  CHECK(k.cta.ld(3, kX4, k.tmem + taddr(96, 0))[0].size() == 4);
}

TEST_CASE("a wait passes on through an mbarrier arrival before the waiting warp fences") {
  constexpr std::uint32_t kHandOff = 0x10;  // warp 0 -> warp 3
  MmaIssued k(true);
  k.cta.mbarrier_init({0, 0}, kHandOff, 1);
  k.cta.commit({0, 0}, Kernel::kMbar);
  // Warp 0 arrives before it has seen the phase: nothing to pass on.
  k.cta.mbarrier_arrive({0, 0}, kHandOff);
  REQUIRE(k.cta.mbarrier_try_wait(3, kHandOff, 0));
  k.cta.fence_after_thread_sync(3);
  expect_rule([&] { k.cta.ld(3, kX4, k.tmem + taddr(96, 0)); }, Rule::mma_not_complete, {"try_wait.parity 0"});
  // Warp 0 waits (no fence of its own), then arrives: warp 3's wait and fence carry the completion.
  REQUIRE(k.cta.mbarrier_try_wait(0, Kernel::kMbar, 0));
  k.cta.mbarrier_arrive({0, 0}, kHandOff);
  REQUIRE(k.cta.mbarrier_try_wait(3, kHandOff, 1));
  k.cta.fence_after_thread_sync(3);
  CHECK(k.cta.ld(3, kX4, k.tmem + taddr(96, 0))[0].size() == 4);
}

TEST_CASE("tcgen05.st -> tcgen05.mma needs tcgen05.wait::st (TS A operand)") {
  MmaIssued k;
  const LdStAccess x8{LdStShape::s32x32b, 8};
  for (int w = 0; w < 4; ++w) k.cta.st(w, x8, k.tmem + taddr(32 * w, 256), regs_of(x8, 0x3F803F80u));  // bf16 1.0
  auto mma_ts = [&] {
    k.cta.mma_ts({0, 0}, MmaKind::f16, k.tmem + 64, k.tmem + 256, k.B.desc(0), idesc(k.id), false);
  };
  expect_rule(mma_ts, Rule::st_without_wait, {"tcgen05.mma", "tcgen05.st.sync.aligned.32x32b.x8.b32 of warp 0"});
  for (int w = 0; w < 4; ++w) k.cta.wait_st(w);
  // Waited, but the MMA's thread is in warp 0: warps 1-3 must still sync with it.
  expect_rule(mma_ts, Rule::unordered_tmem_access, {"warp 1"});
  for (int w = 1; w < 4; ++w) k.cta.fence_before_thread_sync(w);
  k.cta.bar_sync();
  k.cta.fence_after_thread_sync(0);
  mma_ts();
}

TEST_CASE("a waited tcgen05.st handed to the MMA warp by an mbarrier without fences: a PTX letter") {
  // CUTLASS's FMHA (77_blackwell_fmha, B200s): the softmax warps store P, wait::st and arrive; the MMA
  // warp waits and reads P in a TS-MMA; no tcgen05.fence on either side.
  for (const bool letters_as_errors : {false, true}) {
    CAPTURE(letters_as_errors);
    MmaIssued k(letters_as_errors);
    constexpr std::uint32_t kP = 0x10;  // softmax warps 1-3 -> the MMA warp 0
    k.cta.mbarrier_init({0, 0}, kP, 3);
    const LdStAccess x8{LdStShape::s32x32b, 8};
    const auto store = [&](int w) { k.cta.st(w, x8, k.tmem + taddr(32 * w, 256), regs_of(x8, 0x3F803F80u)); };
    for (int w : {0, 2, 3}) store(w);
    auto mma_ts = [&] {
      k.cta.mma_ts({0, 0}, MmaKind::f16, k.tmem + 64, k.tmem + 256, k.B.desc(0), idesc(k.id), false);
    };
    k.cta.wait_st(0);
    // The true fault stays one: warp 1 arrives before it stores, so nothing it published covers P.
    k.cta.mbarrier_arrive({1, 0}, kP);
    store(1);
    k.cta.wait_st(1);
    for (int w = 2; w < 4; ++w) {
      k.cta.wait_st(w);
      k.cta.mbarrier_arrive({w, 0}, kP);
    }
    REQUIRE(k.cta.mbarrier_try_wait(0, kP, 0));
    expect_rule(mma_ts, Rule::unordered_tmem_access, {"warp 1", "nothing orders this access after it"});
    // Warp 1 arrives again after its wait (the next phase): P is published, fences missing on both sides.
    k.cta.mbarrier_arrive({1, 0}, kP);
    k.cta.mbarrier_arrive({2, 0}, kP);
    k.cta.mbarrier_arrive({3, 0}, kP);
    REQUIRE(k.cta.mbarrier_try_wait(0, kP, 1));
    if (letters_as_errors) {
      expect_rule(mma_ts, Rule::missing_before_thread_sync, {"tcgen05.fence::before_thread_sync", "warp 1"});
    } else {
      mma_ts();  // counted once for each of the three storing warps, then as if fenced
      REQUIRE(k.cta.warnings().count(Rule::missing_before_thread_sync) == 1);
      const Warning& w = k.cta.warnings().at(Rule::missing_before_thread_sync);
      CHECK(w.count == 3);
      for (const char* word : {"tcgen05.st.sync.aligned.32x32b.x8.b32 of warp 1", "waited for and then published",
                               "no tcgen05.fence::before_thread_sync", "nor has warp 0 run tcgen05.fence::after_thread_sync"})
        CHECK(w.first.find(word) != std::string::npos);
    }
  }
}

TEST_CASE("a tcgen05.st published by an mbarrier arrival before its wait::st: a PTX letter") {
  // CUTLASS's FMHA stores its softmax row statistics and signals its correction warps at once.
  MmaIssued k;
  constexpr std::uint32_t kStats = 0x10;
  k.cta.mbarrier_init({0, 0}, kStats, 1);
  const LdStAccess x8{LdStShape::s32x32b, 8};
  for (int w = 0; w < 4; ++w) k.cta.st(w, x8, k.tmem + taddr(32 * w, 256), regs_of(x8, 0x3F803F80u));
  k.cta.wait_st(0);
  for (int w = 2; w < 4; ++w) k.cta.wait_st(w);
  for (int w = 2; w < 4; ++w) k.cta.fence_before_thread_sync(w);
  k.cta.bar_sync();  // warps 2 and 3 publish theirs waited and fenced; warp 1 has not waited
  auto mma_ts = [&] {
    k.cta.mma_ts({0, 0}, MmaKind::f16, k.tmem + 64, k.tmem + 256, k.B.desc(0), idesc(k.id), false);
  };
  k.cta.fence_after_thread_sync(0);
  // Published by that bar.sync without a wait::st before it: the letter, counted once, then as if waited.
  mma_ts();
  REQUIRE(k.cta.warnings().count(Rule::st_published_unwaited) == 1);
  const Warning& w = k.cta.warnings().at(Rule::st_published_unwaited);
  CHECK(w.count == 1);
  CHECK(w.first.find("tcgen05.st.sync.aligned.32x32b.x8.b32 of warp 1") != std::string::npos);
  CHECK(w.first.find("without tcgen05.wait::st before it") != std::string::npos);
  // A store no barrier or arrival has carried stays the fault (st_without_wait, above).
  k.cta.st(1, x8, k.tmem + taddr(32, 256), regs_of(x8, 0x3F803F80u));
  expect_rule(mma_ts, Rule::st_without_wait, {"of warp 1", "has not executed tcgen05.wait::st"});
}

TEST_CASE("a tcgen05.ld published by an mbarrier arrival before its wait::ld: a PTX letter") {
  // CUTLASS's 77_blackwell_fmha_gen (B200s): the correction warp loads the final row statistics and
  // releases them at once; its wait::ld comes later. The MMA warp learns of it through two mbarriers.
  for (const bool waited_after : {false, true}) {
    CAPTURE(waited_after);
    MmaIssued k;
    constexpr std::uint32_t kFree = 0x10;  // warp 1 -> the MMA warp 0
    k.cta.mbarrier_init({0, 0}, kFree, 1);
    k.cta.commit({0, 0}, Kernel::kMbar);
    k.await(1, 0);
    k.cta.ld(1, kX4, k.tmem + taddr(32, 0));
    k.cta.mbarrier_arrive({1, 0}, kFree);
    if (waited_after) k.cta.wait_ld(1);
    REQUIRE(k.cta.mbarrier_try_wait(0, kFree, 0));
    k.cta.fence_after_thread_sync(0);
    // Counted once for the load's cells, then as if waited: the MMA overwrites them.
    expect_letter(k.cta, [&] { k.mma({0, 0}, false); }, Rule::ld_published_unwaited,
                  {"it is read by tcgen05.ld.sync.aligned.32x32b.x4.b32 of warp 1", "reached warp 0",
                   "without tcgen05.wait::ld before it"});
    CHECK(k.cta.warnings().at(Rule::ld_published_unwaited).count == 1);
    // A load issued after the arrival the MMA warp saw stays the fault, waited for or not.
    k.cta.commit({0, 0}, Kernel::kMbar);
    k.await(1, 1);
    k.cta.ld(1, kX4, k.tmem + taddr(32, 0));
    if (waited_after) {
      k.cta.wait_ld(1);
      expect_rule([&] { k.mma({0, 0}, false); }, Rule::unordered_tmem_access,
                  {"warp 1", "nothing orders this write after that read"});
    } else {
      expect_rule([&] { k.mma({0, 0}, false); }, Rule::ld_without_wait, {"of warp 1", "has not executed tcgen05.wait::ld"});
    }
  }
}

TEST_CASE("tcgen05.ld -> tcgen05.mma into the same cells needs tcgen05.wait::ld") {
  MmaIssued k;
  k.cta.commit({0, 0}, Kernel::kMbar);
  k.await(0, 0);
  k.cta.ld(0, kX4, k.tmem);
  expect_rule([&] { k.mma({0, 0}, false); }, Rule::ld_without_wait, {"it is read by tcgen05.ld", "wait::ld"});
  k.cta.wait_ld(0);
  k.mma({0, 0}, false);
}

TEST_CASE("mma -> mma is pipelined in one thread; another thread must be ordered after it") {
  MmaIssued k;
  k.mma({0, 0}, true);  // same thread, same D: no wait
  expect_rule([&] { k.mma({1, 0}, true); }, Rule::unordered_tmem_access,
              {"(warp 1, lane 0)", "another thread"});
  k.cta.fence_before_thread_sync(0);
  k.cta.bar_sync();
  k.cta.fence_after_thread_sync(1);
  k.mma({1, 0}, true);
}

TEST_CASE("a tcgen05.cp result is read by tcgen05.ld only after commit and wait") {
  Kernel k;
  stage(k.cta, KMajor{kA, 128, 16, ElementType::bf16}, small_values(128, 16, 3), 0);
  k.cta.cp({0, 0}, CpShape::s128x128b, k.tmem + 100, smem_desc(kA, 2048, 128));
  expect_rule([&] { k.cta.ld(0, kX4, k.tmem + 100); }, Rule::mma_not_complete, {"tcgen05.cp.cta_group::1.128x128b"});
  k.cta.commit({0, 0}, Kernel::kMbar);
  k.await(0, 0);
  k.cta.ld(0, kX4, k.tmem + 100);
}

TEST_CASE("tcgen05.cp -> tcgen05.cp into the same cells: a PTX letter in one thread, unordered across threads") {
  // PTX pipelines a cp only after tcgen05.shift; CUTLASS's block-scaled GEMMs recopy each k-block's
  // factors into the columns the previous cp filled, from the one MMA thread, on B200s.
  for (const bool strict : {false, true}) {
    CAPTURE(strict);
    Kernel k(512, 4, strict);
    stage(k.cta, KMajor{kA, 128, 16, ElementType::bf16}, small_values(128, 16, 3), 0);
    k.cta.cp({0, 0}, CpShape::s128x128b, k.tmem + 100, smem_desc(kA, 2048, 128));
    const auto again = [&] { k.cta.cp({0, 0}, CpShape::s128x128b, k.tmem + 100, smem_desc(kA, 2048, 128)); };
    if (strict) {
      expect_rule(again, Rule::cp_not_pipelined, {"the same thread", "lane 0, column 100"});
    } else {
      again();
      REQUIRE(k.cta.warnings().count(Rule::cp_not_pipelined) == 1);
      CHECK(k.cta.warnings().at(Rule::cp_not_pipelined).count == 128 * 4);  // each cell once
      CHECK(k.cta.warnings().at(Rule::cp_not_pipelined).first.find("the same thread") != std::string::npos);
    }
    // Another thread's cp into them stays a fault until the first is ordered before it.
    expect_rule([&] { k.cta.cp({1, 0}, CpShape::s128x128b, k.tmem + 100, smem_desc(kA, 2048, 128)); },
                Rule::unordered_tmem_access, {"(warp 1, lane 0)", "another thread"});
  }
}

TEST_CASE("a ModelError carries the instruction, the warp and lane, the field and value, and the rule") {
  MmaIssued k;
  bool threw = false;
  try {
    k.mma({2, 5}, true);
  } catch (const ModelError& e) {
    threw = true;
    CHECK(e.issue().instruction.rfind("tcgen05.mma.cta_group::1.kind::f16", 0) == 0);
    CHECK(e.issue().warp == 2);
    CHECK(e.issue().lane == 5);
    CHECK(e.rule() == Rule::unordered_tmem_access);
    CHECK(e.field() == "cell");
    CHECK(e.value() == "lane 0, column 0");
    CHECK(e.expected() == sentence(Rule::unordered_tmem_access));
  }
  CHECK(threw);
}
