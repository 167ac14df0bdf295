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
// the MMAs of the next fill the other. Stages and accumulators are rings
// (ring.hpp) whose mbarrier phases alternate by round.
//
// Tensor Memory ordering (PTX #tcgen05-memory-consistency-model): the MMA
// issuer reuses an accumulator only after the epilogue's tcgen05.wait::ld,
// tcgen05.fence::before_thread_sync, the mbarrier arrival, its own wait and
// tcgen05.fence::after_thread_sync; the epilogue reads only after
// tcgen05.commit's arrival, its wait and tcgen05.fence::after_thread_sync.
#include <cstdint>
#include <type_traits>

#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/exec/tmem_lifetime.hpp"
#include "tcgen/gemm/config.hpp"
#include "tcgen/gemm/epilogue.hpp"
#include "tcgen/tile/operand.hpp"
#include "tcgen/tile/pipeline.hpp"
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
  // swizzle needs): the stages, then the mbarriers and the TMEM address slot.
  static constexpr std::uint32_t kStageBytes = A::bytes + B::bytes;
  static_assert(kStageBytes % 1024 == 0, "each stage starts on the swizzle's 1024-byte period");
  static constexpr std::uint32_t kFull = kStages * kStageBytes;    // full[s]: stage s has landed
  static constexpr std::uint32_t kEmpty = kFull + 8 * kStages;     // empty[s]: the MMAs have read stage s
  static constexpr std::uint32_t kAccFull = kEmpty + 8 * kStages;  // acc_full[b]: accumulator b is complete
  static constexpr std::uint32_t kAccEmpty = kAccFull + 16;        // acc_empty[b]: the epilogue has read it
  static constexpr std::uint32_t kSlot = kAccEmpty + 16;           // tcgen05.alloc writes the TMEM address
  static constexpr std::uint32_t kSmemBytes = kSlot + 8;
  // sm_100's 227 KB per CTA, less the 1 KB exec::device::launch adds to align the base.
  static_assert(kSmemBytes <= exec::kKernelSmemBytes, "the stages do not fit in shared memory: fewer stages or a smaller tile_n");

  template <class Arch>
  struct Params {
    typename Arch::TensorMap a, b;  // A::map(M, K, lda), B::map(N, K, ldb)
    int m = 0, n = 0, k = 0;
    Output<C.d> out;
  };

  template <class Arch>
  static TCGEN_HD void run(Arch& a, const Params<Arch>& p) {
    const std::uint32_t smem = a.smem_base();
    const unsigned warp = a.warp_index();
    exec::allocate_tmem<Tmem>(a, kMmaWarp, smem + kSlot);
    if (a.thread_index() == 0) {
      for (int s = 0; s < kStages; ++s) {
        a.mbarrier_init(full(smem, s), 1);   // the producer's arrive.expect_tx; TMA completes the bytes
        a.mbarrier_init(empty(smem, s), 1);  // one tcgen05.commit
      }
      for (int b = 0; b < 2; ++b) {
        a.mbarrier_init(acc_full(smem, b), 1);                // one tcgen05.commit
        a.mbarrier_init(acc_empty(smem, b), kEpilogueWarps);  // one arrival per epilogue warp
      }
      a.fence_mbarrier_init();
    }
    const tmem::TmemAddress tmem_base = exec::publish_tmem(a, smem + kSlot);

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
  static constexpr TCGEN_HD std::uint32_t full(std::uint32_t smem, int s) { return smem + kFull + 8u * s; }
  static constexpr TCGEN_HD std::uint32_t empty(std::uint32_t smem, int s) { return smem + kEmpty + 8u * s; }
  static constexpr TCGEN_HD std::uint32_t acc_full(std::uint32_t smem, int b) { return smem + kAccFull + 8u * b; }
  static constexpr TCGEN_HD std::uint32_t acc_empty(std::uint32_t smem, int b) { return smem + kAccEmpty + 8u * b; }
  static constexpr TCGEN_HD std::uint32_t stage(std::uint32_t smem, int s) { return smem + kStageBytes * s; }
  static TCGEN_HD Accumulator accumulator(tmem::TmemAddress base, int b) {
    return b == 0 ? Tmem::template tile<"D0">(base) : Tmem::template tile<"D1">(base);
  }

  // Warp 0, one lane.
  template <class Arch>
  static TCGEN_HD void produce(Arch& a, const Params<Arch>& p, std::uint32_t smem, const Schedule& schedule,
                               int k_blocks, int first, int step) {
    tile::Ring<kStages> ring;
    for (int tile = first; tile < schedule.tiles(); tile += step) {
      const TileOrigin o = schedule.origin(tile);
      for (int kb = 0; kb < k_blocks; ++kb) {
        a.mbarrier_wait(empty(smem, ring.slot), ring.empty_parity());
        const std::uint32_t at = stage(smem, ring.slot), bar = full(smem, ring.slot);
        a.mbarrier_arrive_expect_tx(bar, kStageBytes);
        A::load(a, p.a, at, bar, o.m0, kb * tile::kBlockK);
        B::load(a, p.b, at + A::bytes, bar, o.n0, kb * tile::kBlockK);
        ring.advance();
      }
    }
  }

  // Warp 1, one lane.
  template <class Arch>
  static TCGEN_HD void multiply(Arch& a, std::uint32_t smem, tmem::TmemAddress base, const Schedule& schedule,
                                int k_blocks, int first, int step) {
    tile::Ring<kStages> ring;
    tile::Ring<2> acc;
    for (int tile = first; tile < schedule.tiles(); tile += step) {
      a.mbarrier_wait(acc_empty(smem, acc.slot), acc.empty_parity());
      a.fence_after_thread_sync();
      const Accumulator d = accumulator(base, acc.slot);
      for (int kb = 0; kb < k_blocks; ++kb) {
        a.mbarrier_wait(full(smem, ring.slot), ring.full_parity());
        const std::uint32_t at = stage(smem, ring.slot);
        const typename A::Tile ta(at);
        const typename B::Tile tb(at + A::bytes);
        TCGEN_UNROLL
        for (int k = 0; k < A::Tile::ksteps; ++k) a.mma(Atom{}, d, ta, tb, k, kb > 0 || k > 0);
        a.commit(Atom{}, empty(smem, ring.slot));
        ring.advance();
      }
      a.commit(Atom{}, acc_full(smem, acc.slot));
      acc.advance();
    }
  }

  // Warps 2-5.
  template <class Arch>
  static TCGEN_HD void drain(Arch& a, const Params<Arch>& p, std::uint32_t smem, tmem::TmemAddress base,
                             const Schedule& schedule, int first, int step) {
    const int quarter = static_cast<int>(a.warp_index() % 4);
    tile::Ring<2> acc;
    for (int tile = first; tile < schedule.tiles(); tile += step) {
      a.mbarrier_wait(acc_full(smem, acc.slot), acc.full_parity());
      a.fence_after_thread_sync();
      Store::store(a, accumulator(base, acc.slot), quarter, p.out, schedule.origin(tile));
      a.fence_before_thread_sync();
      if (a.elect_one()) a.mbarrier_arrive(acc_empty(smem, acc.slot));
      acc.advance();
    }
  }
};

}  // namespace tcgen::gemm
