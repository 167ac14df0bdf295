#pragma once
// The GEMM kernel, written once for sm_100a (exec::DeviceArch) and the host
// model (exec::HostArch): D = A·Bᵀ (+ C) for any M, N, K, with Config's
// types, majors and tile (config.hpp). docs/gemm.md draws it.
//
// A persistent grid walks 128 × tile_n output tiles (schedule.hpp). Each
// CTA has six warps with one job each:
//
//   warp 0, one lane   TMA producer: per K block of 64, wait until its stage
//                      is empty, expect its bytes on full[s], load A's and
//                      B's tiles (operand.hpp; zeros past M, N and K);
//   warp 1, one lane   MMA issuer: per tile, wait until its accumulator
//                      (D0 or D1, alternating) is empty; per K block, wait
//                      for full[s], issue the four tcgen05.mma K steps and
//                      commit them to empty[s] (the stage is free once they
//                      have read it); after the last block commit to
//                      acc_full[buffer]. Warp 1 also allocates and frees
//                      Tensor Memory;
//   warps 2-5          epilogue: wait for acc_full[buffer], read the
//                      accumulator (lane quarter warp % 4), release it on
//                      acc_empty[buffer], then store D (epilogue.hpp).
//
// With two accumulators in Tensor Memory the epilogue of one tile runs while
// the MMAs of the next fill the other. Stages and accumulators are pipelines
// (tile/pipeline.hpp) whose mbarrier phases alternate by round; shared memory
// is a compile-time plan (tile/smem_plan.hpp).
//
// Tensor Memory ordering (PTX #tcgen05-memory-consistency-model): the MMA
// issuer reuses an accumulator only after the epilogue's tcgen05.wait::ld,
// tcgen05.fence::before_thread_sync, the mbarrier arrival, its own wait and
// tcgen05.fence::after_thread_sync; the epilogue reads only after
// tcgen05.commit's arrival, its wait and tcgen05.fence::after_thread_sync.
#include <cstdint>
#include <type_traits>

#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/exec/tmem_lifetime.hpp"
#include "tcgen/gemm/config.hpp"
#include "tcgen/gemm/epilogue.hpp"
#include "tcgen/gemm/problem.hpp"
#include "tcgen/tile/operand.hpp"
#include "tcgen/tile/pipeline.hpp"
#include "tcgen/tile/smem_plan.hpp"
#include "tcgen/gemm/schedule.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/tmem/plan.hpp"

namespace tcgen::gemm {

template <Config C>
struct Gemm {
  static_assert(C.ab == ElementType::bf16 || C.ab == ElementType::fp16, "A and B are bf16 or fp16 (kind::f16)");
  static_assert(C.d == ElementType::f32 || C.d == ElementType::bf16 || C.d == ElementType::fp16,
                "D is f32, bf16 or fp16");
  static_assert(C.stages >= 2, "the pipeline needs at least two stages to overlap loads with MMAs");

  static constexpr Config config = C;
  static constexpr int kTileM = 128, kTileN = C.tile_n, kStages = C.stages;
  static constexpr unsigned kProducerWarp = 0, kMmaWarp = 1, kFirstEpilogueWarp = 2, kEpilogueWarps = 4;
  static constexpr unsigned kThreads = 32 * (kFirstEpilogueWarp + kEpilogueWarps);

  // One tcgen05.mma: M = 128, N = tile_n, K = 16, f32 accumulator; its idesc
  // is computed and checked by the mma library (an illegal N stops here).
  using Atom = mma::Mma<mma::InstrDescriptorSpec{.kind = mma::MmaKind::f16, .a = C.ab, .b = C.ab,
                                                 .d = ElementType::f32, .m = kTileM, .n = kTileN,
                                                 .a_major = C.a_major, .b_major = C.b_major}>;
  using A = tile::Operand<C.ab, C.a_major, kTileM>;
  using B = tile::Operand<C.ab, C.b_major, kTileN>;
  static_assert(A::Tile::ksteps * Atom::k == tile::kBlockK, "one stage is a whole number of MMA K steps");

  // Two accumulators side by side: tile i goes to D(i % 2).
  using Tmem = tmem::Plan<tmem::accumulator("D0", {kTileM, kTileN}), tmem::accumulator("D1", {kTileM, kTileN})>;
  using Accumulator = typename Tmem::template Tile<"D0">;
  static_assert(std::is_same_v<Accumulator, typename Tmem::template Tile<"D1">>);
  // 32x32b: thread t of warp q reads lane 32q + t, `num` columns per access.
  static constexpr layout::TmemAccess kLd{layout::TmemShape::s32x32b, kTileN % 32 == 0 ? 32u : 16u};
  using Store = Epilogue<C.d, Accumulator, kLd>;

  // Shared memory from smem_base() (1024-byte aligned, as the 128-byte
  // swizzle needs): the stages, the mbarriers and the TMEM address slot.
  static constexpr std::uint32_t kStageBytes = A::bytes + B::bytes;
  using Smem = tile::SmemPlan<tile::buffer("stages", kStageBytes, 1024, kStages),
                              tile::barriers("full", kStages, 1),   // stage s has landed: the producer's expect_tx
                              tile::barriers("empty", kStages, 1),  // the MMAs have read stage s: one tcgen05.commit
                              tile::barriers("acc_full", 2, 1),     // accumulator b is complete: one tcgen05.commit
                              tile::barriers("acc_empty", 2, kEpilogueWarps),  // the epilogue has read it: one arrival a warp
                              tile::buffer("tmem_slot", 4, 4)>;                // tcgen05.alloc writes the TMEM address
  static_assert(Smem::template stride<"stages"> == kStageBytes, "each stage starts on the swizzle's 1024-byte period");
  static constexpr std::uint32_t kSmemBytes = Smem::bytes;

  template <class Arch>
  struct Params {
    typename Arch::TensorMap a, b;  // A::map(M, K, lda), B::map(N, K, ldb)
    int m = 0, n = 0, k = 0;
    Output<C.d> out;
  };

  // The parameters of one launch over problem p, for any face: `encode(spec,
  // tensor)` makes the face's tensor map of A's or B's map over `tensor`
  // (the map spans spec.spanned_bytes() of it). Throws tcgen::Error for a
  // problem TMA cannot read.
  template <class Arch, class Encode>
  static Params<Arch> params(const Problem& p, Encode&& encode) {
    check(p, C);
    const auto u64 = [](int x) { return static_cast<std::uint64_t>(x); };
    Params<Arch> out;
    out.a = encode(A::map(u64(p.m), u64(p.k), u64(p.lda)), p.a);
    out.b = encode(B::map(u64(p.n), u64(p.k), u64(p.ldb)), p.b);
    out.m = p.m;
    out.n = p.n;
    out.k = p.k;
    out.out = output<C.d>(p);
    return out;
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void run(Arch& a, const Params<Arch>& p) {
    const std::uint32_t smem = a.smem_base();
    const unsigned warp = a.warp_index();
    exec::allocate_tmem<Tmem>(a, kMmaWarp, Smem::template address<"tmem_slot">(smem));
    if (a.thread_index() == 0) Smem::init_barriers(a, smem);
    const tmem::TmemAddress tmem_base = exec::publish_tmem(a, Smem::template address<"tmem_slot">(smem));

    const Schedule schedule(p.m, p.n, kTileM, kTileN);
    const int k_blocks = (p.k + tile::kBlockK - 1) / tile::kBlockK;
    const int first = static_cast<int>(a.block_index().x), step = static_cast<int>(a.grid_dim().x);

    if (warp == kProducerWarp) {
      if (a.elect_one()) produce(a, p, smem, schedule, k_blocks, first, step);
    } else if (warp == kMmaWarp) {
      if (a.elect_one()) multiply(a, smem, tmem_base, schedule, k_blocks, first, step);
    } else {
      drain(a, p, smem, tmem_base, schedule, first, step);
    }

    // Every tcgen05.ld has completed (wait::ld) before warp 1 frees the columns.
    exec::free_tmem<Tmem>(a, kMmaWarp, tmem_base);
  }

 private:
  // The stages' ring, and the two accumulators' ring, as one side sees each.
  static constexpr TCGEN_HD tile::Pipeline<kStages> stage_pipeline(std::uint32_t smem) {
    return {Smem::template barrier<"full">(smem), Smem::template barrier<"empty">(smem)};
  }
  static constexpr TCGEN_HD tile::Pipeline<2> accumulator_pipeline(std::uint32_t smem) {
    return {Smem::template barrier<"acc_full">(smem), Smem::template barrier<"acc_empty">(smem)};
  }
  static TCGEN_HD Accumulator accumulator(tmem::TmemAddress base, int b) {
    return b == 0 ? Tmem::template tile<"D0">(base) : Tmem::template tile<"D1">(base);
  }

  // Warp 0, one lane: stage after stage, wait until it is empty, expect its
  // bytes, load A's and B's tiles.
  template <exec::KernelArch Arch>
  static TCGEN_HD void produce(Arch& a, const Params<Arch>& p, std::uint32_t smem, const Schedule& schedule,
                               int k_blocks, int first, int step) {
    tile::Pipeline<kStages> stages = stage_pipeline(smem);
    for (int t = first; t < schedule.tiles(); t += step) {
      const TileOrigin o = schedule.origin(t);
      for (int kb = 0; kb < k_blocks; ++kb) {
        const tile::Stage s = stages.stage();
        s.acquire(a);
        s.expect_bytes(a, kStageBytes);
        const std::uint32_t at = Smem::template address<"stages">(smem, stages.slot());
        A::load(a, p.a, at, s.full, o.m0, kb * tile::kBlockK);
        B::load(a, p.b, at + A::bytes, s.full, o.n0, kb * tile::kBlockK);
        stages.advance();
      }
    }
  }

  // Warp 1, one lane: per tile, acquire an empty accumulator; per stage, wait
  // until it is full, issue its MMAs and release it when they complete; then
  // commit the accumulator full.
  template <exec::KernelArch Arch>
  static TCGEN_HD void multiply(Arch& a, std::uint32_t smem, tmem::TmemAddress base, const Schedule& schedule,
                                int k_blocks, int first, int step) {
    tile::Pipeline<kStages> stages = stage_pipeline(smem);
    tile::Pipeline<2> accumulators = accumulator_pipeline(smem);
    for (int t = first; t < schedule.tiles(); t += step) {
      const tile::Stage acc = accumulators.stage();
      acc.acquire(a);
      a.fence_after_thread_sync();
      const Accumulator d = accumulator(base, accumulators.slot());
      for (int kb = 0; kb < k_blocks; ++kb) {
        const tile::Stage s = stages.stage();
        s.wait(a);
        const std::uint32_t at = Smem::template address<"stages">(smem, stages.slot());
        const typename A::Tile ta(at);
        const typename B::Tile tb(at + A::bytes);
        TCGEN_UNROLL
        for (int k = 0; k < A::Tile::ksteps; ++k) a.mma(Atom{}, d, ta, tb, k, kb > 0 || k > 0);
        s.release(a, Atom{});
        stages.advance();
      }
      acc.commit(a, Atom{});
      accumulators.advance();
    }
  }

  // Warps 2-5: wait until an accumulator is full, store it, release it (one
  // arrival a warp, after the warp's tcgen05.ld have completed).
  template <exec::KernelArch Arch>
  static TCGEN_HD void drain(Arch& a, const Params<Arch>& p, std::uint32_t smem, tmem::TmemAddress base,
                             const Schedule& schedule, int first, int step) {
    const int quarter = static_cast<int>(a.warp_index() % 4);
    tile::Pipeline<2> accumulators = accumulator_pipeline(smem);
    for (int t = first; t < schedule.tiles(); t += step) {
      const tile::Stage acc = accumulators.stage();
      acc.wait(a);
      a.fence_after_thread_sync();
      Store::store(a, accumulator(base, accumulators.slot()), quarter, p.out, schedule.origin(t));
      a.fence_before_thread_sync();
      if (a.elect_one()) acc.release(a);
      accumulators.advance();
    }
  }
};

}  // namespace tcgen::gemm
