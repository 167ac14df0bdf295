// Strict mma pipelining (model::CtaConfig::strict_mma_pipelining,
// exec::LaunchOptions::strict_mma_pipelining): PTX orders two tcgen05.mma of
// one thread without a wait only when they have the same accumulator and
// shape (#tcgen05-memory-consistency-model-pipelined-instructions,
// tcgen05-facts.md §7 "Pipelined pairs"). By default the model orders any two
// mma of one thread, as FA4 does; strict mode holds them to PTX's words and
// names Rule::mma_not_pipelined. The FMHA kernel leans on the broader order
// (its S = Q·Kᵀ overwrites the P that the P·V before it reads), which the last
// case documents.
#include <cstdint>

#include "test_model_support.hpp"
#include "tcgen/fmha/check.hpp"
#include "tcgen/fmha/run.hpp"
#include "tcgen/fmha/inputs.hpp"
#include "tcgen/fmha/problem.hpp"
#include "tcgen/exec/launch_options.hpp"

using namespace model_test;

namespace {

constexpr std::uint32_t kA = 0x400, kB = 0x8000;
constexpr std::uint32_t kTmemSlot = 0x0, kMbar = 0x8;
const LdStAccess kX8{LdStShape::s32x32b, 8};

// Kernel (test_model_support.hpp) with the mode chosen: 512 columns
// allocated, an mbarrier at kMbar, A (128 × 16) and B (64 × 16) bf16 staged.
struct Setup {
  Cta cta;
  std::uint32_t tmem = 0;
  KMajor A{kA, 128, 16, ElementType::bf16}, B{kB, 64, 16, ElementType::bf16};

  explicit Setup(bool strict) : cta(CtaConfig{.warps = 4, .strict_mma_pipelining = strict}) {
    cta.alloc(0, kTmemSlot, 512);
    cta.mbarrier_init({0, 0}, kMbar, 1);
    cta.bar_sync();
    tmem = cta.ld_shared_u32(0, kTmemSlot);
    stage(cta, A, small_values(128, 16, 1), 0);
    stage(cta, B, small_values(64, 16, 2), 0);
  }
  // M128 × n, bf16 → f32, SS, by `t` into column d.
  void mma_ss(Thread t, int column, int n, bool accumulate) {
    Idesc id;
    id.n = n;
    cta.mma_ss(t, MmaKind::f16, tmem + std::uint32_t(column), A.desc(0), B.desc(0), idesc(id), accumulate);
  }
  // M128 × 32, A from columns [a, a + 8) (16 bf16 per lane), into column d.
  void mma_ts(Thread t, int column, int a, bool accumulate) {
    Idesc id;
    id.n = 32;
    cta.mma_ts(t, MmaKind::f16, tmem + std::uint32_t(column), tmem + std::uint32_t(a), B.desc(0), idesc(id),
               accumulate);
  }
  // P as the softmax warps leave it: tcgen05.st of bf16 pairs into columns
  // [column, column + 8) of every lane, wait::st, and the hand-off to thread (0, 0).
  void store_p(int column) {
    WarpRegisters r;
    for (auto& v : r) v.assign(8, 0x3F803F80u);  // bf16 1.0, twice
    for (int w = 0; w < 4; ++w) cta.st(w, kX8, tmem + taddr(32 * w, column), r);
    for (int w = 0; w < 4; ++w) {
      cta.wait_st(w);
      cta.fence_before_thread_sync(w);
    }
    cta.bar_sync();
    cta.fence_after_thread_sync(0);
  }
  void end() {
    cta.dealloc(0, tmem, 512);
    cta.finish();
  }
};

}  // namespace

TEST_CASE("same accumulator and shape back to back: pipelined in both modes") {
  for (bool strict : {false, true}) {
    CAPTURE(strict);
    Setup s(strict);
    s.mma_ss({0, 0}, 0, 32, false);
    s.mma_ss({0, 0}, 0, 32, true);
    // TS-MMA chains too: two into one accumulator, reading the same A.
    s.store_p(256);
    s.mma_ts({0, 0}, 64, 256, false);
    s.mma_ts({0, 0}, 64, 256, true);
    s.cta.commit({0, 0}, kMbar);
    REQUIRE(s.cta.mbarrier_try_wait(0, kMbar, 0));
    s.cta.fence_after_thread_sync(0);
    s.end();
  }
}

TEST_CASE("an mma overwriting the TS A cells another accumulator's mma just read: FA4's order, refused when strict") {
  // O += P·V reads P (columns 256-263); S = Q·Kᵀ (columns 256-287) overwrites it next.
  {
    Setup s(false);
    s.store_p(256);
    s.mma_ts({0, 0}, 64, 256, false);
    s.mma_ss({0, 0}, 256, 32, false);
    s.end();
  }
  Setup s(true);
  s.store_p(256);
  s.mma_ts({0, 0}, 64, 256, false);
  auto overwrite = [&] { s.mma_ss({0, 0}, 256, 32, false); };
  expect_rule(overwrite, Rule::mma_not_pipelined,
              {"tcgen05.mma.cta_group::1.kind::f16 [d-tmem], a-desc, b-desc (warp 0, lane 0)",
               "cell = lane 0, column 256", "[d-tmem], [a-tmem], b-desc of the same thread",
               "accumulator lane 0, column 64, M128 N32, kind::f16) read it as its A operand",
               "accumulator lane 0, column 256, M128 N32, kind::f16) overwrites it",
               "no tcgen05.commit by that thread", "strict mode off"});
  // Committed, but the phase not yet observed.
  s.cta.commit({0, 0}, kMbar);
  expect_rule(overwrite, Rule::mma_not_pipelined, {"committed to the mbarrier at 0x8 in its phase 0"});
  // Observed, but no fence after the wait: a PTX letter, counted, and the mma goes on.
  REQUIRE(s.cta.mbarrier_try_wait(0, kMbar, 0));
  expect_letter(s.cta, overwrite, Rule::missing_after_thread_sync, {"tcgen05.fence::after_thread_sync"});
  s.end();
}

TEST_CASE("an mma rewriting an accumulator with another shape: accepted by default, refused when strict") {
  {
    Setup s(false);
    s.mma_ss({0, 0}, 0, 32, false);
    s.mma_ss({0, 0}, 0, 64, false);
    s.end();
  }
  Setup s(true);
  s.mma_ss({0, 0}, 0, 32, false);
  expect_rule([&] { s.mma_ss({0, 0}, 0, 64, false); }, Rule::mma_not_pipelined,
              {"cell = lane 0, column 0", "M128 N32, kind::f16) wrote it;", "M128 N64, kind::f16) overwrites it"});
  s.cta.commit({0, 0}, kMbar);
  REQUIRE(s.cta.mbarrier_try_wait(0, kMbar, 0));
  s.cta.fence_after_thread_sync(0);
  s.mma_ss({0, 0}, 0, 64, false);
  s.end();
}

TEST_CASE("a TS-MMA reading as A the D of another accumulator's mma just before: refused when strict") {
  for (bool strict : {false, true}) {
    CAPTURE(strict);
    Setup s(strict);
    s.mma_ss({0, 0}, 256, 32, false);  // D in columns 256-287, read back as bf16 pairs below
    auto read = [&] { s.mma_ts({0, 0}, 64, 256, false); };
    if (!strict) {
      read();
    } else {
      expect_rule(read, Rule::mma_not_pipelined,
                  {"[d-tmem], [a-tmem], b-desc (warp 0, lane 0)", "M128 N32, kind::f16) wrote it;",
                   "(accumulator lane 0, column 64, M128 N32, kind::f16) reads it as its A operand"});
      s.cta.commit({0, 0}, kMbar);
      REQUIRE(s.cta.mbarrier_try_wait(0, kMbar, 0));
      s.cta.fence_after_thread_sync(0);
      read();
    }
    s.end();
  }
}

TEST_CASE("strict: another thread's mma with another accumulator needs the first complete, not just ordered") {
  for (bool strict : {false, true}) {
    CAPTURE(strict);
    Setup s(strict);
    s.mma_ss({0, 0}, 0, 32, false);
    s.cta.fence_before_thread_sync(0);
    s.cta.bar_sync();
    s.cta.fence_after_thread_sync(1);
    s.mma_ss({1, 0}, 0, 32, true);  // same accumulator and shape: ordered is enough
    s.cta.fence_before_thread_sync(1);
    s.cta.bar_sync();
    s.cta.fence_after_thread_sync(2);
    if (!strict) {
      s.mma_ss({2, 0}, 0, 64, false);
    } else {
      expect_rule([&] { s.mma_ss({2, 0}, 0, 64, false); }, Rule::mma_not_pipelined, {"of warp 1, lane 0 ("});
      s.cta.commit({1, 0}, kMbar);
      REQUIRE(s.cta.mbarrier_try_wait(2, kMbar, 0));
      s.cta.fence_after_thread_sync(2);
      s.mma_ss({2, 0}, 0, 64, false);
    }
    s.end();
  }
}

TEST_CASE("the FMHA kernel leans on FA4's mma → mma order: strict mode refuses its S = Q·Kᵀ after P·V") {
  using namespace tcgen::fmha;
  const FmhaProblem p = FmhaProblem::make(1, 1, 1, 128, 300, 64);
  const FmhaInputs in = random_fmha_inputs(p, 7);
  run(p, in.operands(), {}, tcgen::exec::HostModel{});  // the default: accepted
  tcgen::exec::LaunchOptions strict;
  strict.strict_mma_pipelining = true;
  expect_rule([&] { run(p, in.operands(), {}, tcgen::exec::HostModel{strict}); }, Rule::mma_not_pipelined,
              {"[d-tmem], [a-tmem], b-desc of the same thread", "read it as its A operand", "overwrites it"});
}

TEST_CASE("the FMHA with PReuse::wait_for_pv keeps to PTX's letter: strict mode accepts it, and it is right") {
  using namespace tcgen::fmha;
  for (const FmhaProblem& p : {FmhaProblem::make(1, 2, 1, 200, 300, 64, FmhaMask::causal()),
                        FmhaProblem::make(1, 1, 1, 130, 333, 256, FmhaMask::none(), ElementType::fp16)}) {
    CAPTURE(p.head_dim);
    const FmhaInputs in = random_fmha_inputs(p, 11);
    tcgen::exec::LaunchOptions strict;
    strict.strict_mma_pipelining = true;
    const FmhaCheck check =
        check_fmha(p, in, run(p, in.operands(), FmhaOptions{.p_reuse = PReuse::wait_for_pv}, tcgen::exec::HostModel{strict}).out);
    CHECK_MESSAGE(check.o.ok, check.o.text());
    CHECK_MESSAGE(check.lse.ok, check.lse.text());
  }
}
