#pragma once
// A warp-specialised GEMM with a multi-stage shared-memory pipeline, written
// once for sm_100a and for the host model. Each CTA computes a 128 × 128
// tile of D = A·Bᵀ over K = kKBlocks · 64, with kStages stages in flight:
//
//   warp 0 (one lane)  TMA producer: per K block, wait until its stage is
//                      empty, expect its bytes on full[s], load A and B;
//   warp 1 (one lane)  MMA issuer: wait for full[s], four tcgen05.mma, commit
//                      to empty[s] (the stage is free once they have read
//                      it); after the last block, commit to acc_full;
//   warps 2-5          epilogue: wait for acc_full, fence, tcgen05.ld of the
//                      lane quarter warp % 4 (warps 2, 3, 4, 5 → quarters
//                      2, 3, 0, 1), store D to global memory.
//
// A ring of kStages stages is passed kKBlocks times, so each mbarrier goes
// through several phases: K block kb uses stage kb % kStages in round
// kb / kStages, whose phase has parity round % 2. The producer waits on
// empty[s] for parity (round % 2) ^ 1: in round 0 that is the phase before
// the first, which counts as complete, so a fresh ring starts empty.
//
// `Bug` breaks the kernel on purpose, one mistake at a time, for the host
// tests of the model's and the runtime's errors (tests/host/test_exec_pipeline.cpp).
#include <bit>
#include <cstdint>

#include "gemm_operands.hpp"
#include "tcgen/exec/tmem_lifetime.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/exec/unroll.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/tmem/plan.hpp"
#include "tcgen/tmem/tile_access.hpp"

namespace tcgen::kernels::pipeline {

constexpr int kM = 128, kN = 128;  // per CTA; the grid tiles N
constexpr int kKBlocks = 4, kStages = 2, kK = kKBlocks * kBlockK;
constexpr unsigned kThreads = 192;  // six warps

using Atom = mma::Mma<mma::InstrDescriptorSpec{.m = kM, .n = kN}>;
using ATile = OperandTile<kM>;
using BTile = OperandTile<kN>;
using Tmem = tmem::Plan<tmem::accumulator("D", {kM, kN})>;
using Ld = exec::LdSt<layout::TmemAccess{layout::TmemShape::s32x32b, 32}>;
using Walk = tmem::TileAccess<Tmem::Tile<"D">, Ld::access>;

enum class Bug {
  none,
  missing_commit,  // the MMA warp signals acc_full with mbarrier.arrive instead of tcgen05.commit
  missing_fence,   // the epilogue reads TMEM without tcgen05.fence::after_thread_sync after its wait
  wrong_phase,     // the epilogue waits on acc_full for parity 1: the phase before the first, already complete
  lane_quarter,    // the epilogue reads quarter warp - 2 (its rank among the epilogue warps), not warp % 4
  deadlock,        // the producer waits on empty[s] for parity round % 2: the first phase, which never completes
};

// Shared memory from smem_base(): the stages (1024-byte aligned), then the mbarriers and the TMEM slot.
constexpr std::uint32_t kABytes = ATile::operand.size_bytes(), kBBytes = BTile::operand.size_bytes();
constexpr std::uint32_t kStageBytes = kABytes + kBBytes;
constexpr std::uint32_t kFull = kStages * kStageBytes;  // full[s]: stage s has landed
constexpr std::uint32_t kEmpty = kFull + 8 * kStages;   // empty[s]: the MMAs have read stage s
constexpr std::uint32_t kAccFull = kEmpty + 8 * kStages;
constexpr std::uint32_t kSlot = kAccFull + 8;
constexpr std::uint32_t kSmemBytes = kSlot + 8;

template <class Arch>
struct Params {
  typename Arch::TensorMap a, b;  // operand_map(kM, kK, kM), operand_map(N, kK, kN), N = kN · grid.x
  float* d;                       // kM × N, row-major
  int ldd;                        // N
  Bug bug = Bug::none;
};

template <class Arch>
TCGEN_HD void kernel(Arch& a, const Params<Arch>& p) {
  const std::uint32_t smem = a.smem_base();
  const auto full = [&](int s) { return smem + kFull + 8 * static_cast<std::uint32_t>(s); };
  const auto empty = [&](int s) { return smem + kEmpty + 8 * static_cast<std::uint32_t>(s); };
  const std::uint32_t acc_full = smem + kAccFull;
  const unsigned warp = a.warp_index();
  const int n0 = static_cast<int>(a.block_index().x) * kN;

  exec::allocate_tmem<Tmem>(a, 1, smem + kSlot);
  if (a.thread_index() == 0) {
    for (int s = 0; s < kStages; ++s) {
      a.mbarrier_init(full(s), 1);
      a.mbarrier_init(empty(s), 1);
    }
    a.mbarrier_init(acc_full, 1);
    a.fence_mbarrier_init();
  }
  const auto d = Tmem::tile<"D">(exec::publish_tmem(a, smem + kSlot));

  if (warp == 0 && a.elect_one()) {  // the TMA producer
    for (int kb = 0; kb < kKBlocks; ++kb) {
      const int s = kb % kStages;
      const auto round = static_cast<std::uint32_t>(kb / kStages);
      a.mbarrier_wait(empty(s), p.bug == Bug::deadlock ? round % 2 : (round % 2) ^ 1);
      const std::uint32_t stage = smem + static_cast<std::uint32_t>(s) * kStageBytes;
      a.mbarrier_arrive_expect_tx(full(s), kStageBytes);
      a.tma_load(p.a, stage, full(s), kb * kBlockK, 0);
      a.tma_load(p.b, stage + kABytes, full(s), kb * kBlockK, n0);
    }
  } else if (warp == 1 && a.elect_one()) {  // the MMA issuer
    for (int kb = 0; kb < kKBlocks; ++kb) {
      const int s = kb % kStages;
      a.mbarrier_wait(full(s), static_cast<std::uint32_t>(kb / kStages) % 2);
      const std::uint32_t stage = smem + static_cast<std::uint32_t>(s) * kStageBytes;
      const ATile at(stage);
      const BTile bt(stage + kABytes);
      for (int k = 0; k < ATile::ksteps; ++k) a.mma(Atom{}, d, at, bt, k, kb > 0 || k > 0);
      a.commit(Atom{}, empty(s));
    }
    if (p.bug == Bug::missing_commit)
      a.mbarrier_arrive(acc_full);
    else
      a.commit(Atom{}, acc_full);
  } else if (warp >= 2) {  // the epilogue
    a.mbarrier_wait(acc_full, p.bug == Bug::wrong_phase ? 1 : 0);
    if (p.bug != Bug::missing_fence) a.fence_after_thread_sync();
    const int quarter = static_cast<int>(p.bug == Bug::lane_quarter ? warp - 2 : warp % 4);
    TCGEN_UNROLL
    for (int s = 0; s < Walk::accesses; ++s) {
      const Ld::Registers r = a.ld(Ld{}, Walk::address(d, quarter, s));
      a.wait_ld();
      TCGEN_UNROLL
      for (int i = 0; i < Ld::registers; ++i) {
        const tmem::Element e = Walk::element(quarter, s, static_cast<int>(a.lane_index()), i);
        p.d[e.row * p.ldd + n0 + e.col] = std::bit_cast<float>(r[i]);
      }
    }
  }

  exec::free_tmem<Tmem>(a, 1, d.address);
}

}  // namespace tcgen::kernels::pipeline
