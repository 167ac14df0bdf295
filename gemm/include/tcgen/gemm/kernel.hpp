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
//                      acc_empty[buffer], then store D (tile/epilogue.hpp).
//
// With two accumulators in Tensor Memory the epilogue of one tile runs while
// the MMAs of the next fill the other.
//
// cta_group = 2: clusters of four CTAs, two CTA pairs (PTX
// #tcgen05-issue-granularity) side by side in N, each pair computing a
// 256 × tile_n tile with tcgen05.mma.cta_group::2 (M = 256). CTA v of a pair
// holds rows [128v, 128v + 128) of the tile's A and D and rows
// [v·tile_n/2, ...) of its B. The pairs share A's rows: pair 0's producers
// load each half of A into both pairs (TMA .cta_group::2 .multicast::cluster),
// each pair's producers their halves of B; all bytes complete on each pair's
// even full[s], which expects them all. Each pair's even CTA issues the MMAs
// and commits to empty[s] of all four CTAs (A's slot is filled across the
// pairs) and to acc_full[b] of its pair; both epilogues of a pair store their
// 128 rows and arrive on the even CTA's acc_empty[b]. Rank 0's seventh warp
// takes further tiles with clusterlaunchcontrol (next_tile). A cluster
// barrier after the mbarriers' init and one before the exit keep any CTA from
// signalling a peer that is not there. Stages and accumulators are pipelines
// (tile/pipeline.hpp) whose mbarrier phases alternate by round; shared memory
// is a compile-time plan (tile/smem_plan.hpp).
//
// Tensor Memory ordering (PTX #tcgen05-memory-consistency-model): the MMA
// issuer reuses an accumulator only after the epilogue's tcgen05.wait::ld,
// tcgen05.fence::before_thread_sync, the mbarrier arrival, its own wait and
// tcgen05.fence::after_thread_sync; the epilogue reads only after
// tcgen05.commit's arrival, its wait and tcgen05.fence::after_thread_sync.
#include <array>
#include <cstdint>
#include <type_traits>

#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/exec/tmem_lifetime.hpp"
#include "tcgen/gemm/config.hpp"
#include "tcgen/gemm/problem.hpp"
#include "tcgen/tile/epilogue.hpp"
#include "tcgen/tile/operand.hpp"
#include "tcgen/tile/mma_tile.hpp"
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
  static_assert(C.cta_group == 1 || C.cta_group == 2,
                "cta_group is 1 (a CTA per 128-row tile) or 2 (a CTA pair per 256-row tile)");

  static constexpr Config config = C;
  static constexpr bool kPair = C.cta_group == 2;
  // The launch's clusters: one CTA, or two pairs side by side in N that share
  // A's rows (multicast): kPairs tiles of 256 × tile_n a cluster.
  static constexpr int kPairs = kPair ? 2 : 1;
  static constexpr int kClusterCtas = cluster_ctas(C.cta_group);
  static_assert(kClusterCtas == kPairs * C.cta_group);
  static constexpr int kTileM = 128 * C.cta_group, kTileN = C.tile_n, kStages = C.stages;
  static constexpr unsigned kProducerWarp = 0, kMmaWarp = 1, kFirstEpilogueWarp = 2, kEpilogueWarps = 4;
  // A pair's seventh warp: the even CTA's asks clusterlaunchcontrol for tiles (next_tile).
  static constexpr unsigned kSchedulerWarp = kFirstEpilogueWarp + kEpilogueWarps;
  static constexpr unsigned kThreads = 32 * (kFirstEpilogueWarp + kEpilogueWarps + (kPair ? 1 : 0));
  // The __global__ that runs it on a device (device_gemm.hpp), instantiated for Gemm<C>.
  static constexpr const char* kEntry = "tcgen::gemm::gemm_kernel";

  // One tcgen05.mma: M = 128 (a pair: 256), N = tile_n, K = 16, f32
  // accumulator; its idesc is computed and checked by the mma library (an
  // illegal N stops here).
  using Atom = mma::Mma<mma::InstrDescriptorSpec{.kind = mma::MmaKind::f16, .a = C.ab, .b = C.ab,
                                                 .d = ElementType::f32, .m = kTileM, .n = kTileN,
                                                 .a_major = C.a_major, .b_major = C.b_major,
                                                 .cta_group = C.cta_group}>;
  // Each CTA's share of the tile: all of it, or its half of a pair's.
  using A = tile::Operand<C.ab, C.a_major, Atom::a_rows>;
  using B = tile::Operand<C.ab, C.b_major, Atom::b_rows>;
  static_assert(A::Tile::ksteps * Atom::k == tile::kBlockK, "one stage is a whole number of MMA K steps");

  // Two accumulators side by side: tile i goes to D(i % 2). A pair's are
  // allocated in both CTAs (tcgen05.alloc.cta_group::2), 128 rows in each.
  static constexpr layout::AccumulatorSpec kAccumulator{kTileM, kTileN, C.cta_group};
  using Tmem = tmem::Plan<tmem::accumulator("D", kAccumulator).count(2)>;
  using Accumulator = typename Tmem::template Tile<"D">;
  // 32x32b: thread t of warp q reads lane 32q + t, `num` columns per access.
  static constexpr layout::TmemAccess kLd{layout::TmemShape::s32x32b, kTileN % 32 == 0 ? 32u : 16u};
  using Store = tile::Epilogue<C.d, Accumulator, kLd>;

  // Shared memory from smem_base() (1024-byte aligned, as the 128-byte
  // swizzle needs): the stages, the mbarriers and the TMEM address slot.
  static constexpr std::uint32_t kStageBytes = A::bytes + B::bytes;
  static constexpr tile::Entry kStagesBuffer = tile::buffer("stages", kStageBytes, 1024, kStages);
  static constexpr tile::Entry kFull = tile::barriers("full", kStages, 1);    // stage s has landed: the expect_tx
  // the MMAs have read it: a commit (a pair's A lands in both pairs: each pair's commit)
  static constexpr tile::Entry kEmpty = tile::barriers("empty", kStages, kPairs);
  static constexpr tile::Entry kAccFull = tile::barriers("acc_full", 2, 1);   // accumulator b is complete: a commit
  // the epilogue has read it: one arrival a warp (a pair's: both CTAs' epilogues)
  static constexpr tile::Entry kAccEmpty = tile::barriers("acc_empty", 2, kEpilogueWarps * C.cta_group);
  static constexpr tile::Entry kTmemSlot = tile::buffer("tmem_slot", 4, 4);  // tcgen05.alloc writes the address
  // A pair cluster's clusterlaunchcontrol responses, two in flight: each
  // lands in all its CTAs (clc_full: its 16 bytes), and every role of each
  // reads it and releases it on rank 0's clc_empty: each CTA's producer and
  // four epilogue warps, each pair's MMA issuer, rank 0's scheduler.
  static constexpr int kResponses = 2;
  static constexpr std::uint32_t kResponseReaders = kClusterCtas * (1 + kEpilogueWarps) + kPairs + 1;
  static constexpr tile::Entry kResponse = tile::buffer("clc_response", 16, 16, kResponses);
  static constexpr tile::Entry kResponseFull = tile::barriers("clc_full", kResponses, 1);
  static constexpr tile::Entry kResponseEmpty = tile::barriers("clc_empty", kResponses, kResponseReaders);
  using Smem = std::conditional_t<
      kPair, tile::SmemPlan<kStagesBuffer, kFull, kEmpty, kAccFull, kAccEmpty, kTmemSlot, kResponse, kResponseFull,
                            kResponseEmpty>,
      tile::SmemPlan<kStagesBuffer, kFull, kEmpty, kAccFull, kAccEmpty, kTmemSlot>>;
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

  // The grid's work: tiles of kTileM × kTileN, a cluster's kPairs of them side by side in N.
  static constexpr TCGEN_HD Schedule schedule_of(int m, int n) { return cluster_schedule(m, n, kTileN, C.cta_group); }
  // The launch's grid over an m × n problem (schedule.hpp: grid_of).
  static constexpr TCGEN_HD unsigned grid(int m, int n, int ctas) {
    return static_cast<unsigned>(grid_of(m, n, kTileN, C.cta_group, ctas));
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void run(Arch& a, const Params<Arch>& p) {
    const std::uint32_t smem = a.smem_base();
    const unsigned warp = a.warp_index();
    exec::allocate_tmem<Tmem>(a, kMmaWarp, Smem::template address<"tmem_slot">(smem));
    if (a.thread_index() == 0) Smem::init_barriers(a, smem);
    if constexpr (kPair) {  // the peer's mbarriers are initialized before anything arrives on them
      if (a.thread_index() == 0) a.fence_mbarrier_init();
      a.cluster_arrive();
      a.cluster_wait();
    }
    const tmem::TmemAddress tmem_base = exec::publish_tmem(a, Smem::template address<"tmem_slot">(smem));

    const Schedule schedule = schedule_of(p.m, p.n);
    const int k_blocks = (p.k + tile::kBlockK - 1) / tile::kBlockK;
    // Tiles go to clusters: a pair takes one tile together.
    const Tiles tiles{static_cast<int>(a.block_index().x) / kClusterCtas,
                      static_cast<int>(a.grid_dim().x) / kClusterCtas, schedule.tiles(), {}};

    if (warp == kProducerWarp) {
      if (a.elect_one()) produce(a, p, smem, schedule, k_blocks, tiles);
    } else if (warp == kMmaWarp) {
      if (a.elect_one() && leads(a)) multiply(a, smem, tmem_base, k_blocks, tiles);
    } else if (warp < kSchedulerWarp) {
      drain(a, p, smem, tmem_base, schedule, tiles);
    } else if constexpr (kPair) {
      if (a.elect_one() && a.cluster_rank() == 0) ask_for_tiles(a, smem);
    }

    if constexpr (kPair) {  // neither CTA leaves while its peer may still signal it or write its TMEM
      a.cluster_arrive();
      a.cluster_wait();
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
    return Tmem::template tile<"D">(base, b);
  }
  // The tiles one role of a CTA walks, from its cluster's own: for a lone
  // CTA the static stride (tile, tile + step, ...); for a pair, tiles taken
  // from the grid's clusters not yet launched (next_tile).
  struct Tiles {
    int tile, step, count;
    tile::Ring<kResponses> responses;
  };
  // Moves to the role's next tile; false when there is none. A pair reads
  // the next clusterlaunchcontrol response (PTX #parallel-synchronization-
  // and-communication-instructions-clusterlaunchcontrol-try-cancel): the
  // canceled cluster's first CTA names its tile; a failed request, the end.
  // `warp`: the caller is a whole warp (the epilogue's), which releases the
  // response once every lane has read it; else one lane, which releases it.
  template <exec::KernelArch Arch>
  static TCGEN_HD bool next_tile(Arch& a, std::uint32_t smem, Tiles& t, bool warp) {
    if constexpr (!kPair) {
      t.tile += t.step;
      return t.tile < t.count;
    } else {
      const tile::Stage s = t.responses.stage(Smem::template barrier<"clc_full">(smem),
                                              Smem::template barrier<"clc_empty">(smem));
      s.wait(a);
      std::array<std::uint32_t, 4> response;
      a.smem_load(Smem::template address<"clc_response">(smem, t.responses.slot), response);
      if (warp) a.sync_warp();  // every lane's read is done before one lane frees the slot
      if (!warp || a.elect_one()) s.release_to(a, 0);
      t.responses.advance();
      const auto got = a.query_cancel(response);
      t.tile = static_cast<int>(got.first_cta.x) / kClusterCtas;
      return got.canceled;
    }
  }
  // Rank 0's scheduler lane: while clusters remain, cancel the next one not
  // yet launched, the response multicast to every CTA of the cluster, each
  // expecting its 16 bytes; it reads each response too, and stops after the
  // first failure (PTX: a try_cancel after an observed failure is undefined).
  template <exec::KernelArch Arch>
  static TCGEN_HD void ask_for_tiles(Arch& a, std::uint32_t smem) {
    Tiles t{0, 0, 0, {}};
    do {
      const tile::Stage s = t.responses.stage(Smem::template barrier<"clc_full">(smem),
                                              Smem::template barrier<"clc_empty">(smem));
      s.acquire(a);
      s.expect_bytes(a, 16);
      for (unsigned rank = 1; rank < kClusterCtas; ++rank)
        a.mbarrier_arrive_expect_tx_cluster(a.map_shared(s.full, rank), 16);
      a.try_cancel(Smem::template address<"clc_response">(smem, t.responses.slot), s.full, true);
    } while (next_tile(a, smem, t, false));
  }

  // A pair's MMAs are issued by its even CTA (as CUTLASS's are: PTX allows either).
  template <exec::KernelArch Arch>
  static TCGEN_HD bool leads(Arch& a) {
    return !kPair || a.cluster_rank() % 2 == 0;
  }
  // This CTA's half of its pair and the pair's place in the cluster (0 for
  // a lone CTA), and the ranks of its pair as a ctaMask.
  template <exec::KernelArch Arch>
  static TCGEN_HD int half(Arch& a) {
    return kPair ? static_cast<int>(a.cluster_rank() % 2) : 0;
  }
  template <exec::KernelArch Arch>
  static TCGEN_HD int pair_index(Arch& a) {
    return kPair ? static_cast<int>(a.cluster_rank() / 2) : 0;
  }
  template <exec::KernelArch Arch>
  static TCGEN_HD std::uint16_t pair_mask(Arch& a) {
    return static_cast<std::uint16_t>(3u << (a.cluster_rank() & ~1u));
  }
  static constexpr std::uint16_t kClusterMask = (1u << kClusterCtas) - 1;

  // Warp 0, one lane: stage after stage, wait until it is empty, expect its
  // bytes, load A's and B's tiles.
  template <exec::KernelArch Arch>
  static TCGEN_HD void produce(Arch& a, const Params<Arch>& p, std::uint32_t smem, const Schedule& schedule,
                               int k_blocks, Tiles tiles) {
    tile::Pipeline<kStages> stages = stage_pipeline(smem);
    const int v = half(a);
    do {
      const TileOrigin o = schedule.origin(tiles.tile);
      const int row0 = o.m0 + v * Atom::a_rows, col0 = o.n0 + pair_index(a) * kTileN + v * Atom::b_rows;
      for (int kb = 0; kb < k_blocks; ++kb) {
        const tile::Stage s = stages.stage();
        s.acquire(a);
        const std::uint32_t at = Smem::template address<"stages">(smem, stages.slot());
        if constexpr (kPair) {
          // Both halves complete on the even CTA's full[s], which expects them
          // both. The pairs share A's rows: pair 0 loads each half of A into
          // both pairs (ranks v and v + 2), each landing on its pair's even CTA.
          if (v == 0) s.expect_bytes(a, 2 * kStageBytes);
          const std::uint32_t full = a.map_shared(s.full, a.cluster_rank() & ~1u);
          if (pair_index(a) == 0)
            A::load_pair(a, p.a, at, full, row0, kb * tile::kBlockK, static_cast<std::uint16_t>(0b101u << v));
          B::load_pair(a, p.b, at + A::bytes, full, col0, kb * tile::kBlockK);
        } else {
          s.expect_bytes(a, kStageBytes);
          A::load(a, p.a, at, s.full, row0, kb * tile::kBlockK);
          B::load(a, p.b, at + A::bytes, s.full, col0, kb * tile::kBlockK);
        }
        stages.advance();
      }
    } while (next_tile(a, smem, tiles, false));
    // A pair's producer tail: its stages are released by the even CTA's
    // commits, which must all have arrived before this CTA may leave (the
    // exit barrier orders only the threads' own instructions).
    if constexpr (kPair)
      for (int s = 0; s < kStages; ++s) {
        stages.stage().acquire(a);
        stages.advance();
      }
  }

  // Warp 1, one lane: per tile, acquire an empty accumulator; per stage, wait
  // until it is full, issue its MMAs and release it when they complete; then
  // commit the accumulator full.
  template <exec::KernelArch Arch>
  static TCGEN_HD void multiply(Arch& a, std::uint32_t smem, tmem::TmemAddress base, int k_blocks, Tiles tiles) {
    tile::Pipeline<kStages> stages = stage_pipeline(smem);
    tile::Pipeline<2> accumulators = accumulator_pipeline(smem);
    do {
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
        tile::mma_tile(a, Atom{}, d, ta, tb, kb > 0);
        if constexpr (kPair)  // every CTA's stage s is free of this pair's reads, and (below) both accumulators full
          s.release(a, Atom{}, kClusterMask);
        else
          s.release(a, Atom{});
        stages.advance();
      }
      if constexpr (kPair)
        acc.commit(a, Atom{}, pair_mask(a));
      else
        acc.commit(a, Atom{});
      accumulators.advance();
    } while (next_tile(a, smem, tiles, false));
  }

  // Warps 2-5: wait until an accumulator is full, store it, release it (one
  // arrival a warp, after the warp's tcgen05.ld have completed).
  template <exec::KernelArch Arch>
  static TCGEN_HD void drain(Arch& a, const Params<Arch>& p, std::uint32_t smem, tmem::TmemAddress base,
                             const Schedule& schedule, Tiles tiles) {
    const int quarter = static_cast<int>(a.warp_index() % 4);
    tile::Pipeline<2> accumulators = accumulator_pipeline(smem);
    do {
      const tile::Stage acc = accumulators.stage();
      acc.wait(a);
      a.fence_after_thread_sync();
      TileOrigin o = schedule.origin(tiles.tile);
      o.m0 += half(a) * 128;  // this CTA's rows of its pair's tile
      o.n0 += pair_index(a) * kTileN;
      // A second pair past N (a cluster tile's last column) computed zeros no column keeps.
      if (!kPair || o.n0 < p.n) Store::store(a, accumulator(base, accumulators.slot()), quarter, p.out, o);
      a.fence_before_thread_sync();
      if (a.elect_one()) {
        if constexpr (kPair)  // the MMA warp of the even CTA waits for both epilogues
          acc.release_to(a, a.cluster_rank() & ~1u);
        else
          acc.release(a);
      }
      accumulators.advance();
    } while (next_tile(a, smem, tiles, true));
  }
};

}  // namespace tcgen::gemm
