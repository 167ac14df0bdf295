#pragma once
// The FMHA forward kernel, written once for sm_100a (exec::DeviceArch) and
// the host model (exec::HostArch): Q, K, V, O in bf16 or fp16, head_dim 64,
// 128 or 256, any seq_q and seq_k, batch, heads and grouped-query attention
// in one launch (grid: Q tile pairs × heads × batch), causal and sliding-window
// masks (problem.hpp). Roles after FA4 / CUTLASS example 77
// (docs/fmha.md has the picture):
//
//   warp 0, one lane    load: the CTA's Q tiles once, then per K block K_j
//                       and V_j by TMA into a ring of kStages stages (zeros
//                       past seq_k, and past seq_q for Q);
//   warp 1, one lane    MMA, in FA4's order: for each block j and tile t,
//                       O_t += P_t(j-1)·V(j-1) (TS-MMA, P from TMEM) then
//                       S_t = Q_t·K_jᵀ (SS-MMA), so the tensor core works on
//                       one tile while the softmax works on the other. Warp 1
//                       also allocates TMEM;
//   warps 2 .. 2+4T-1   softmax, one warpgroup per Q tile, one thread per row
//                       (lane quarter warp % 4): the row's maximum over the
//                       keys its mask lets through, the rescale factor to the
//                       correction warps, P = exp2(scale·log2e·(s - max)) as
//                       bf16/fp16 over S's upper half, the row sum; at the end
//                       1/l to the correction warps and LSE to global memory;
//   last 4 warps        correction and epilogue: O_t *= factor in TMEM, only
//                       where a row's maximum grew (tcgen/attention/online_softmax.hpp), then
//                       O/l to global memory.
//
// Blocks of keys that no row of the CTA sees (causal, window) are skipped;
// a block the row's key range cuts is masked per element, the others not at
// all. The TMEM plan is FmhaPlan (plan.hpp), two Q tiles in flight for
// head_dim 64 and 128, one for 256.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/attention/online_softmax.hpp"
#include "tcgen/fmha/plan.hpp"
#include "tcgen/fmha/problem.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/exec/tmem_lifetime.hpp"
#include "tcgen/exec/unroll.hpp"
#include "tcgen/tile/convert.hpp"
#include "tcgen/tile/global_io.hpp"
#include "tcgen/tile/operand.hpp"
#include "tcgen/tile/mma_tile.hpp"
#include "tcgen/tile/pipeline.hpp"
#include "tcgen/tile/signal.hpp"
#include "tcgen/tile/tmem_scale.hpp"
#include "tcgen/tile/smem_plan.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/tmem/tile_access.hpp"

namespace tcgen::fmha {

template <ElementType E, int HeadDim>
struct Fmha {
  static_assert(E == ElementType::bf16 || E == ElementType::fp16, "the FMHA's Q, K, V and O are bf16 or fp16");
  static_assert(HeadDim == 64 || HeadDim == 128 || HeadDim == 256, "the FMHA supports head_dim 64, 128 and 256");
  static constexpr int kD = HeadDim, kM = kFmhaBlockM, kN = kFmhaBlockN;
  static constexpr int kQTiles = fmha_q_tiles(kD);
  static constexpr int kChunks = kD / tile::kBlockK;   // Q and K: head_dim in 64-element swizzle rows
  static constexpr int kVChunks = kN / tile::kBlockK;  // V: the block's 128 keys in two 64-key tiles
  static constexpr unsigned kLoadWarp = 0, kMmaWarp = 1, kFirstSoftmaxWarp = 2;
  static constexpr unsigned kFirstCorrectionWarp = kFirstSoftmaxWarp + 4 * kQTiles;
  static constexpr unsigned kThreads = 32 * (kFirstCorrectionWarp + 4);
  // The __global__ that runs it on a device (device_fmha.hpp), instantiated for this Fmha.
  static constexpr const char* kEntry = "tcgen::fmha::fmha_kernel";

  using Plan = FmhaPlan<kD, E>;
  using Tmem = typename Plan::Tmem;
  using STile = typename Tmem::template Tile<"S">;
  using OTile = typename Tmem::template Tile<"O">;
  using PTile = typename Tmem::template Tile<"P">;
  using PHalf = tmem::OperandTile<kM, tile::kBlockK, E>;  // the P columns one V tile multiplies
  using Out = tile::Storage<E>;

  using Q = tile::Operand<E, layout::Major::K, kM>;
  using K = tile::Operand<E, layout::Major::K, kN>;
  using V = tile::Operand<E, layout::Major::MN, kD>;  // V is keys × head_dim, head_dim contiguous

  using SAtom = mma::Mma<mma::InstrDescriptorSpec{.kind = mma::MmaKind::f16, .a = E, .b = E, .d = ElementType::f32,
                                                  .m = kM, .n = kN, .a_major = layout::Major::K,
                                                  .b_major = layout::Major::K}>;
  using PvAtom = mma::Mma<mma::InstrDescriptorSpec{.kind = mma::MmaKind::f16, .a = E, .b = E, .d = ElementType::f32,
                                                   .m = kM, .n = kD, .a_major = layout::Major::K,
                                                   .b_major = layout::Major::MN}>;

  // S and O are read, O written, 32 columns at a time; P written 16 columns
  // (32 values) at a time, so P chunk c holds the values of S chunk c.
  static constexpr layout::TmemAccess kRow32{layout::TmemShape::s32x32b, 32u};
  static constexpr layout::TmemAccess kRow16{layout::TmemShape::s32x32b, 16u};
  using Ld = exec::LdSt<kRow32>;
  using PSt = exec::LdSt<kRow16>;
  using SWalk = tmem::TileAccess<STile, kRow32>;
  using OWalk = tmem::TileAccess<OTile, kRow32>;
  using PWalk = tmem::TileAccess<PTile, kRow16>;
  static_assert(SWalk::one_row_per_thread && OWalk::one_row_per_thread && PWalk::one_row_per_thread,
                "the softmax and correction threads each own one row of S, P and O");
  static_assert(SWalk::accesses == PWalk::accesses && PWalk::registers * 2 == SWalk::registers &&
                    PWalk::column(1, 0) == SWalk::column(1, 0),
                "P access c must hold the 32 values of S access c, two per register");

  // Shared memory: Q tiles, the K and V rings, the rows' factors and 1/l,
  // then the mbarriers and the TMEM address slot.
  static constexpr std::uint32_t kQBytes = kChunks * Q::bytes, kKBytes = kChunks * K::bytes,
                                 kVBytes = kVChunks * V::bytes;
  static constexpr std::uint32_t kRowsBytes = kQTiles * kM * 4;  // one float per row of each tile

  // Arrivals per phase. p_full and o_ready hand TMEM written by tcgen05.st
  // to the MMA: every thread arrives after its own wait::st and
  // fence::before_thread_sync (PTX #tcgen05-memory-consistency-model, the
  // pattern of tcgen05-facts.md §7.4), so 128 (a warpgroup: one thread per
  // row). stats and done hand shared memory, ordered by __syncwarp and the
  // release of one arrive per warp: 4. TMA transactions and tcgen05.commit: 1.
  static constexpr auto kSmemEntries = [](int stages) {
    return std::array{tile::buffer("q", kQBytes, 1024, kQTiles),  // Q tile t: kChunks swizzled 64-column tiles
                      tile::buffer("k", kKBytes, 1024, stages),   // the K ring
                      tile::buffer("v", kVBytes, 1024, stages),   // the V ring
                      tile::buffer("factor", kRowsBytes),         // each row's rescale factor, per tile
                      tile::buffer("inverse", kRowsBytes),        // each row's 1/l, per tile
                      tile::barriers("q_full", 1, 1), tile::barriers("k_full", stages, 1),
                      tile::barriers("k_empty", stages, 1), tile::barriers("v_full", stages, 1),
                      tile::barriers("v_empty", stages, 1), tile::barriers("s_full", kQTiles, 1),
                      tile::barriers("p_full", kQTiles, kM), tile::barriers("o_done", kQTiles, 1),
                      tile::barriers("o_ready", kQTiles, kM), tile::barriers("stats", kQTiles, kM / 32),
                      tile::barriers("done", kQTiles, kM / 32), tile::buffer("tmem_slot", 4, 4)};
  };
  // As many K/V stages as fit, up to 3: 3 at head_dim 64, 2 at 128, 1 at 256.
  static constexpr int kStages = tile::stages_that_fit(3, kSmemEntries);
  static_assert(kStages >= 1, "one K and one V block must fit beside the Q tiles");
  using Smem = tile::SmemPlanOf<kSmemEntries(kStages)>;
  static constexpr std::uint32_t kSmemBytes = Smem::bytes;

  template <class Arch>
  struct Params {
    typename Arch::TensorMap q, k, v;  // from q_map, k_map, v_map below
    FmhaProblem problem;
    PReuse p_reuse = PReuse::issue_order;
    Out* o = nullptr;      // [batch, heads, seq_q, head_dim], 16-byte aligned
    float* lse = nullptr;  // [batch, heads, seq_q]
  };

  // The parameters of one launch, for any face: `encode(spec, tensor)` makes
  // the face's tensor map of q_map, k_map or v_map over that tensor.
  template <class Arch, class Encode>
  static Params<Arch> params(const CheckedFmhaProblem& problem, const FmhaOptions& options, Encode&& encode,
                             const void* q, const void* k, const void* v, Out* o, float* lse) {
    Params<Arch> p;
    p.q = encode(q_map(problem), q);
    p.k = encode(k_map(problem), k);
    p.v = encode(v_map(problem), v);
    p.problem = problem;
    p.p_reuse = options.p_reuse;
    p.o = o;
    p.lse = lse;
    return p;
  }

  // The three tensor maps: each (batch, head) its own third-dimension index.
  static tma::TensorMapSpec q_map(const FmhaProblem& p) {
    const auto n = static_cast<std::uint64_t>(p.batch) * p.heads, s = static_cast<std::uint64_t>(p.seq_q);
    return Q::map(s, kD, kD, n, s * kD);
  }
  static tma::TensorMapSpec k_map(const FmhaProblem& p) {
    const auto n = static_cast<std::uint64_t>(p.batch) * p.heads_kv, s = static_cast<std::uint64_t>(p.seq_k);
    return K::map(s, kD, kD, n, s * kD);
  }
  static tma::TensorMapSpec v_map(const FmhaProblem& p) {
    const auto n = static_cast<std::uint64_t>(p.batch) * p.heads_kv, s = static_cast<std::uint64_t>(p.seq_k);
    return V::map(kD, s, kD, n, s * kD);
  }
  static exec::Dim3 grid(const FmhaProblem& p) {
    const int rows = kM * kQTiles;
    return {static_cast<unsigned>((p.seq_q + rows - 1) / rows), static_cast<unsigned>(p.heads),
            static_cast<unsigned>(p.batch)};
  }

  // What one CTA works on: its Q rows, its (batch, head), the K blocks any of its rows sees.
  struct Work {
    int m0 = 0, head = 0, kv_head = 0, first_block = 0, blocks = 0;
  };

  template <exec::KernelArch Arch>
  static TCGEN_HD void run(Arch& a, const Params<Arch>& p) {
    const std::uint32_t smem = a.smem_base();
    const unsigned warp = a.warp_index();
    exec::allocate_tmem<Tmem>(a, kMmaWarp, Smem::template address<"tmem_slot">(smem));
    if (a.thread_index() == 0) Smem::init_barriers(a, smem);
    const tmem::TmemAddress base = exec::publish_tmem(a, Smem::template address<"tmem_slot">(smem));
    const Work w = work(p.problem, a.block_index());

    if (warp == kLoadWarp) {
      if (a.elect_one()) load(a, p, smem, w);
    } else if (warp == kMmaWarp) {
      if (a.elect_one()) multiply(a, smem, base, w, p.p_reuse);
    } else if (warp < kFirstCorrectionWarp) {
      softmax(a, p, smem, base, w, static_cast<int>(warp - kFirstSoftmaxWarp) / 4);
    } else {
      correct(a, p, smem, base, w);
    }

    exec::free_tmem<Tmem>(a, kMmaWarp, base);
  }

 private:
  template <tile::EntryName N>
  static constexpr TCGEN_HD std::uint32_t bar(std::uint32_t smem, int i = 0) {
    return Smem::template barrier<N>(smem, i);
  }
  template <tile::EntryName N>
  static constexpr TCGEN_HD std::uint32_t at(std::uint32_t smem, int i = 0) {
    return Smem::template address<N>(smem, i);
  }
  // The hand-offs (tile/signal.hpp): Q's load; per Q tile t, each used once per key block.
  static constexpr TCGEN_HD tile::TmaSignal<> q_full(std::uint32_t smem) { return {{bar<"q_full">(smem)}}; }
  static constexpr TCGEN_HD tile::MmaSignal<> s_full(std::uint32_t smem, int t) { return {{bar<"s_full">(smem, t)}}; }
  static constexpr TCGEN_HD tile::ArrivalSignal<> p_full(std::uint32_t smem, int t) { return {{bar<"p_full">(smem, t)}}; }
  static constexpr TCGEN_HD tile::MmaSignal<> o_done(std::uint32_t smem, int t) { return {{bar<"o_done">(smem, t)}}; }
  static constexpr TCGEN_HD tile::ArrivalSignal<> o_ready(std::uint32_t smem, int t) { return {{bar<"o_ready">(smem, t)}}; }
  static constexpr TCGEN_HD tile::ArrivalSignal<> stats(std::uint32_t smem, int t) { return {{bar<"stats">(smem, t)}}; }
  static constexpr TCGEN_HD tile::ArrivalSignal<> done(std::uint32_t smem, int t) { return {{bar<"done">(smem, t)}}; }
  // K_j and V_j fill and drain as one slot of the K/V ring, each with its own
  // full/empty mbarriers, so that P·V(j - 1) need not wait for K_j's load.
  using KvRing = tile::Ring<kStages>;
  static constexpr TCGEN_HD tile::Stage k_stage(std::uint32_t smem, const KvRing& ring) {
    return ring.stage(bar<"k_full">(smem), bar<"k_empty">(smem));
  }
  static constexpr TCGEN_HD tile::Stage v_stage(std::uint32_t smem, const KvRing& ring) {
    return ring.stage(bar<"v_full">(smem), bar<"v_empty">(smem));
  }
  // Row `row` of tile t in the factor or inverse buffer (region: its address).
  static TCGEN_HD std::uint32_t row_slot(std::uint32_t region, int t, int row) {
    return region + 4u * static_cast<std::uint32_t>(t * kM + row);
  }

  template <class Dim>
  static TCGEN_HD Work work(const FmhaProblem& p, const Dim& block) {
    Work w;
    w.m0 = static_cast<int>(block.x) * kM * kQTiles;
    const int b = static_cast<int>(block.z), h = static_cast<int>(block.y);
    w.head = b * p.heads + h;
    w.kv_head = b * p.heads_kv + p.kv_head(h);
    // Each row's keys start and end no earlier than the row before's (the
    // mask's diagonal moves right by one per row), so the CTA's rows see the
    // keys from its first row's begin to its last row's end.
    const int last = (w.m0 + kM * kQTiles < p.seq_q ? w.m0 + kM * kQTiles : p.seq_q) - 1;
    const KeyRange first_keys = p.mask.keys(w.m0, p.seq_q, p.seq_k), last_keys = p.mask.keys(last, p.seq_q, p.seq_k);
    if (last_keys.end > first_keys.begin) {
      w.first_block = first_keys.begin / kN;
      w.blocks = (last_keys.end + kN - 1) / kN - w.first_block;
    }
    return w;
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void load(Arch& a, const Params<Arch>& p, std::uint32_t smem, const Work& w) {
    if (w.blocks == 0) return;
    q_full(smem).expect_bytes(a, 0, kQTiles * kQBytes);
    for (int t = 0; t < kQTiles; ++t)
      for (int c = 0; c < kChunks; ++c)
        Q::load(a, p.q, at<"q">(smem, t) + c * Q::bytes, q_full(smem).barrier(0), w.m0 + t * kM,
                c * tile::kBlockK, w.head);
    KvRing ring;
    for (int i = 0; i < w.blocks; ++i, ring.advance()) {
      const int key0 = (w.first_block + i) * kN;
      const tile::Stage keys = k_stage(smem, ring), values = v_stage(smem, ring);
      keys.acquire(a);
      keys.expect_bytes(a, kKBytes);
      for (int c = 0; c < kChunks; ++c)
        K::load(a, p.k, at<"k">(smem, ring.slot) + c * K::bytes, keys.full, key0, c * tile::kBlockK, w.kv_head);
      values.acquire(a);
      values.expect_bytes(a, kVBytes);
      for (int c = 0; c < kVChunks; ++c)
        V::load(a, p.v, at<"v">(smem, ring.slot) + c * V::bytes, values.full, 0, key0 + c * tile::kBlockK, w.kv_head);
    }
    // The tail: every stage's last release (a tcgen05.commit arrival) has
    // landed before the CTA exits, as CUTLASS's producer tail does; a stage
    // never filled counts as released.
    for (int i = 0; i < kStages; ++i, ring.advance()) {
      k_stage(smem, ring).acquire(a);
      v_stage(smem, ring).acquire(a);
    }
  }

  // FA4's issue order: for block i, per tile, first the P·V of block i - 1,
  // then S_t = Q_t·K_iᵀ, which overwrites the P that P·V reads; one pass more
  // for the last P·V. UNCONFIRMED beyond PTX: PTX pipelines mma → mma of one
  // thread only for the same accumulator and shape
  // (#tcgen05-memory-consistency-model-pipelined-instructions; here O then
  // S, N = head_dim then 128). FA4 (flash_fwd_sm100.py: "this gemm is
  // scheduled after the PV gemm") and CUTLASS example 77 rely on the same
  // issue order, and the host model accepts it (model/src/cta_order.cpp).
  // PReuse::wait_for_pv (FmhaOptions) waits for that P·V first (problem.hpp).
  //
  // No mbarrier gets two phases ahead of its waiter (a parity wait cannot
  // tell phase n from n + 2): the softmax's arrivals for block i + 1 (stats,
  // p_full) follow s_full(i + 1), issued after P·V(i), which waited for
  // p_full(i) and for o_ready(i - 1), which the correction warps give after
  // consuming stats(i - 1); their o_ready(i) follows o_done(i), committed
  // after that same P·V(i). The final 1/l goes through its own barrier (done).
  template <exec::KernelArch Arch>
  static TCGEN_HD void multiply(Arch& a, std::uint32_t smem, tmem::TmemAddress base, const Work& w, PReuse reuse) {
    if (w.blocks == 0) return;
    q_full(smem).wait(a, 0);
    KvRing ring, previous;
    for (int i = 0; i <= w.blocks; ++i) {
      const tile::Stage keys = k_stage(smem, ring);
      for (int t = 0; t < kQTiles; ++t) {
        if (i > 0) multiply_pv(a, smem, base, t, i - 1, previous);
        if (i < w.blocks) {
          if (t == 0) {  // K_i only now: P·V(i - 1) above need not wait for its load
            keys.wait(a);
            a.fence_after_thread_sync();
          }
          if (i > 0 && reuse == PReuse::wait_for_pv) {  // P·V(i - 1) has read P_t before S_t overwrites it
            o_done(smem, t).wait(a, i - 1);
            a.fence_after_thread_sync();
          }
          for (int c = 0; c < kChunks; ++c) {
            const typename Q::Tile tq(at<"q">(smem, t) + c * Q::bytes);
            const typename K::Tile tk(at<"k">(smem, ring.slot) + c * K::bytes);
            tile::mma_tile(a, SAtom{}, Plan::s(base, t), tq, tk, c > 0);
          }
          s_full(smem, t).commit(a, SAtom{}, i);
        }
      }
      if (i > 0) v_stage(smem, previous).release(a, PvAtom{});
      if (i < w.blocks) keys.release(a, SAtom{});
      previous = ring;
      ring.advance();
    }
  }

  // O_t += P_t·V for block i, once the softmax has written P_t and the
  // correction warps have rescaled O_t (block i ≥ 1).
  template <exec::KernelArch Arch>
  static TCGEN_HD void multiply_pv(Arch& a, std::uint32_t smem, tmem::TmemAddress base, int t, int i,
                                   const KvRing& ring) {
    p_full(smem, t).wait(a, i);
    if (i > 0) o_ready(smem, t).wait(a, i - 1);
    v_stage(smem, ring).wait(a);
    a.fence_after_thread_sync();
    const PTile pt = Plan::p(base, t);
    for (int c = 0; c < kVChunks; ++c) {
      const PHalf ph{pt.address.col_offset(static_cast<std::uint32_t>(c) * PHalf::columns)};
      const typename V::Tile tv(at<"v">(smem, ring.slot) + c * V::bytes);
      tile::mma_tile(a, PvAtom{}, Plan::o(base, t), ph, tv, i > 0 || c > 0);
    }
    o_done(smem, t).commit(a, PvAtom{}, i);
  }

  // Key key0 + col of the block is masked out of the row's range (FmhaMask::keys).
  template <bool kMasked>
  static TCGEN_HD bool visible(KeyRange keys, int key0, int col) {
    return !kMasked || (key0 + col >= keys.begin && key0 + col < keys.end);
  }

  // The row's maximum over the keys it sees in one block of S.
  template <bool kMasked, exec::KernelArch Arch>
  static TCGEN_HD float block_max(Arch& a, const STile& s, int quarter, KeyRange keys, int key0) {
    float m = -std::numeric_limits<float>::infinity();
    TCGEN_KEEP_ROLLED
    for (int c = 0; c < SWalk::accesses; ++c) {
      const typename Ld::Registers v = a.ld(Ld{}, SWalk::address(s, quarter, c));
      a.wait_ld();
      TCGEN_UNROLL
      for (int j = 0; j < SWalk::registers; ++j)
        if (visible<kMasked>(keys, key0, SWalk::column(c, j))) m = m > tile::f32(v[j]) ? m : tile::f32(v[j]);
    }
    return m;
  }

  // P of one block over S's upper half, chunks from last to first (plan.hpp says why); the row sum.
  template <bool kMasked, exec::KernelArch Arch>
  static TCGEN_HD void write_p(Arch& a, const FmhaProblem& pr, const STile& s, const PTile& pt, int quarter,
                               KeyRange keys, int key0, attention::SoftmaxRow& r) {
    TCGEN_KEEP_ROLLED
    for (int c = SWalk::accesses - 1; c >= 0; --c) {
      const typename Ld::Registers v = a.ld(Ld{}, SWalk::address(s, quarter, c));
      a.wait_ld();
      typename PSt::Registers packed;
      TCGEN_UNROLL
      for (int j = 0; j < PWalk::registers; ++j) {
        const int col = PWalk::column(c, j);
        const float p0 = visible<kMasked>(keys, key0, col) ? r.probability(tile::f32(v[2 * j]), pr.scale) : 0.0f;
        const float p1 =
            visible<kMasked>(keys, key0, col + 1) ? r.probability(tile::f32(v[2 * j + 1]), pr.scale) : 0.0f;
        packed[j] = tile::pack2<E>(p0, p1);
        r.add(p0 + p1);
      }
      a.st(PSt{}, PWalk::address(pt, quarter, c), packed);
    }
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void softmax(Arch& a, const Params<Arch>& p, std::uint32_t smem, tmem::TmemAddress base,
                               const Work& w, int t) {
    const FmhaProblem& pr = p.problem;
    const int quarter = static_cast<int>(a.warp_index() % 4);
    const int row = 32 * quarter + static_cast<int>(a.lane_index());  // this thread's row of tile t
    const int m = w.m0 + t * kM + row;
    const KeyRange keys = pr.mask.keys(m, pr.seq_q, pr.seq_k);
    const STile s = Plan::s(base, t);
    const PTile pt = Plan::p(base, t);
    // Only a block the key range of some row of the warp cuts is masked per element, as FA4 masks
    // only its boundary blocks: the test was half the softmax's instructions. The warp decides as one
    // (tcgen05.ld is .sync.aligned): FmhaMask::keys' begin and end rise with the row, so its first row
    // has the lowest end and its last the highest begin.
    const int warp_row = m - static_cast<int>(a.lane_index());
    const int warp_begin = pr.mask.keys(warp_row + 31, pr.seq_q, pr.seq_k).begin;
    const int warp_end = pr.mask.keys(warp_row, pr.seq_q, pr.seq_k).end;
    attention::SoftmaxRow r;
    for (int i = 0; i < w.blocks; ++i) {
      const int key0 = (w.first_block + i) * kN;
      const bool cut = key0 < warp_begin || key0 + kN > warp_end;
      s_full(smem, t).wait(a, i);
      a.fence_after_thread_sync();
      const float factor = r.rescale_to(cut ? block_max<true>(a, s, quarter, keys, key0)
                                            : block_max<false>(a, s, quarter, keys, key0),
                                        pr.scale);
      if (i > 0) {  // the factor to the correction warps
        a.smem_store(row_slot(at<"factor">(smem), t, row), factor);
        stats(smem, t).arrive_warp(a, i - 1);
      }
      if (cut) write_p<true>(a, pr, s, pt, quarter, keys, key0, r);
      else write_p<false>(a, pr, s, pt, quarter, keys, key0, r);
      a.wait_st();
      a.fence_before_thread_sync();
      p_full(smem, t).arrive(a, i);
    }
    a.smem_store(row_slot(at<"inverse">(smem), t, row), r.inverse_sum());
    if (m < pr.seq_q) p.lse[static_cast<std::size_t>(w.head) * pr.seq_q + m] = r.lse(pr.scale);
    done(smem, t).arrive_warp(a, 0);
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void correct(Arch& a, const Params<Arch>& p, std::uint32_t smem, tmem::TmemAddress base,
                               const Work& w) {
    const int quarter = static_cast<int>(a.warp_index() % 4);
    const int row = 32 * quarter + static_cast<int>(a.lane_index());
    for (int i = 1; i < w.blocks; ++i) {
      for (int t = 0; t < kQTiles; ++t) {
        stats(smem, t).wait(a, i - 1);
        float factor = 1.0f;
        a.smem_load(row_slot(at<"factor">(smem), t, row), factor);
        o_done(smem, t).wait(a, i - 1);
        a.fence_after_thread_sync();
        // tcgen05.ld/st are warp-wide: the warp skips O only if none of its rows grew.
        if (a.any_sync(0xFFFFFFFFu, factor != 1.0f)) tile::scale_tmem<Ld, OWalk>(a, Plan::o(base, t), quarter, factor);
        a.fence_before_thread_sync();
        o_ready(smem, t).arrive(a, i - 1);
      }
    }
    // Epilogue: O / l to global memory (zeros for a tile that saw no key).
    const FmhaProblem& pr = p.problem;
    for (int t = 0; t < kQTiles; ++t) {
      done(smem, t).wait(a, 0);
      float inverse = 0.0f;
      a.smem_load(row_slot(at<"inverse">(smem), t, row), inverse);
      const int m = w.m0 + t * kM + row;
      Out* out = p.o + (static_cast<std::size_t>(w.head) * pr.seq_q + m) * kD;
      if (w.blocks > 0) {
        o_done(smem, t).wait(a, w.blocks - 1);
        a.fence_after_thread_sync();
      }
      TCGEN_UNROLL
      for (int c = 0; c < OWalk::accesses; ++c) {
        typename Ld::Registers v{};
        if (w.blocks > 0) {
          v = a.ld(Ld{}, OWalk::address(Plan::o(base, t), quarter, c));
          a.wait_ld();
        }
        if (m < pr.seq_q) {  // 8 values per 16-byte store: the row is contiguous and head_dim · 2 bytes long
          TCGEN_UNROLL
          for (int j = 0; j < OWalk::registers; j += 8) {
            tile::Vec16 packed;
            TCGEN_UNROLL
            for (int k = 0; k < 4; ++k) packed.w[k] = tile::pack2<E>(tile::f32(v[j + 2 * k]) * inverse, tile::f32(v[j + 2 * k + 1]) * inverse);
            tile::store16(out + OWalk::column(c, j), packed);
          }
        }
      }
    }
  }

};

// Calls visit.template operator()<Fmha<E, D>>() for the problem's dtype and
// head_dim: the one place where a problem known at run time picks a compiled
// kernel (the host model's run and the B200 launch); a checked problem is one
// some kernel runs.
template <class Visit>
decltype(auto) visit_fmha(const CheckedFmhaProblem& checked, Visit&& visit) {
  const FmhaProblem& problem = checked;
  const auto for_type = [&]<ElementType E>() -> decltype(auto) {
    if (problem.head_dim == 64) return visit.template operator()<Fmha<E, 64>>();
    if (problem.head_dim == 128) return visit.template operator()<Fmha<E, 128>>();
    return visit.template operator()<Fmha<E, 256>>();  // validate() admits 64, 128 and 256 only
  };
  if (problem.dtype == ElementType::fp16) return for_type.template operator()<ElementType::fp16>();
  return for_type.template operator()<ElementType::bf16>();
}

}  // namespace tcgen::fmha
