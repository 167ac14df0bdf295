#pragma once
// The FMHA forward kernel, written once for sm_100a (exec::DeviceArch) and
// the host model (exec::HostArch), first stage of issue 9: bf16 Q, K, V, O,
// head_dim 64 or 128, non-causal, seq_q a multiple of 128, any seq_k (the
// partial last K block is masked), one head per launch, one CTA per 128-row
// Q tile. Roles after FA4 / CUTLASS example 77, simplified (docs/fmha.md):
//
//   warp 0, one lane   load: Q once, then per K block K_j and V_j by TMA
//                      (one stage each; zeros past seq_k);
//   warp 1, one lane   MMA: S = Q·Kᵀ into TMEM (SS), commit to s_full and
//                      k_empty; after the softmax's p_full, O += P·V as a
//                      TS-MMA with P read from TMEM (aliased in S), commit to
//                      o_done and v_empty. Warp 1 also allocates TMEM;
//   warps 2-5          softmax, correction and epilogue, one thread per row
//                      (lane quarter warp % 4): read S by 32x32b atoms, the
//                      online softmax (SoftmaxRow: exp2 with the scale folded
//                      in), rescale O in TMEM on every block after the
//                      previous P·V is done, write P as bf16 into S's upper
//                      half, arrive on p_full; at the end O/l as bf16 and LSE.
//
// Simplifications of this stage: one Q tile in flight (no S0/S1 ping-pong),
// O rescaled on every block, the correction done by the softmax warps, one
// K/V stage. The TMEM plan is FmhaPlan<HeadDim> (fmha_plan.hpp).
#include <bit>
#include <cstdint>
#include <span>

#include "tcgen/exec/tmem_lifetime.hpp"
#include "tcgen/attention/fmha_plan.hpp"
#include "tcgen/attention/online_softmax.hpp"
#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/exec/unroll.hpp"
#include "tcgen/gemm/convert.hpp"
#include "tcgen/gemm/operand.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/tmem/tile_access.hpp"

namespace tcgen::attention {

template <int HeadDim>
struct Fmha {
  static constexpr int kD = HeadDim, kM = kFmhaBlockM, kN = kFmhaBlockN;
  static constexpr int kChunks = kD / gemm::kBlockK;   // Q and K: head_dim in 64-element swizzle rows
  static constexpr int kVChunks = kN / gemm::kBlockK;  // V: the K block's 128 keys in two 64-key tiles
  static constexpr unsigned kLoadWarp = 0, kMmaWarp = 1, kFirstSoftmaxWarp = 2, kSoftmaxWarps = 4;
  static constexpr unsigned kThreads = 32 * (kFirstSoftmaxWarp + kSoftmaxWarps);

  using Tmem = typename FmhaPlan<kD>::Tmem;
  using STile = typename Tmem::template Tile<"S">;
  using OTile = typename Tmem::template Tile<"O">;
  using PTile = typename Tmem::template Tile<"P">;
  using PHalf = tmem::OperandTile<kM, gemm::kBlockK, ElementType::bf16>;  // the P columns one V tile multiplies

  using Q = gemm::Operand<ElementType::bf16, layout::Major::K, kM>;
  using K = gemm::Operand<ElementType::bf16, layout::Major::K, kN>;
  using V = gemm::Operand<ElementType::bf16, layout::Major::MN, kD>;  // V is keys × head_dim, head_dim contiguous

  using SAtom = mma::Mma<mma::InstrDescriptorSpec{.kind = mma::MmaKind::f16, .a = ElementType::bf16,
                                                  .b = ElementType::bf16, .d = ElementType::f32, .m = kM, .n = kN,
                                                  .a_major = layout::Major::K, .b_major = layout::Major::K}>;
  using PvAtom = mma::Mma<mma::InstrDescriptorSpec{.kind = mma::MmaKind::f16, .a = ElementType::bf16,
                                                   .b = ElementType::bf16, .d = ElementType::f32, .m = kM, .n = kD,
                                                   .a_major = layout::Major::K, .b_major = layout::Major::MN}>;

  static constexpr layout::TmemAccess kLd{layout::TmemShape::s32x32b, 32u};
  using Ld = exec::LdSt<kLd>;
  using SWalk = tmem::TileAccess<STile, kLd>;
  using OWalk = tmem::TileAccess<OTile, kLd>;
  using PWalk = tmem::TileAccess<PTile, kLd>;

  // Shared memory: Q, K, V tiles, then the mbarriers and the TMEM address slot.
  static constexpr std::uint32_t kQBytes = kChunks * Q::bytes, kKBytes = kChunks * K::bytes,
                                 kVBytes = kVChunks * V::bytes;
  static constexpr std::uint32_t kQ = 0, kK = kQ + kQBytes, kV = kK + kKBytes, kBars = kV + kVBytes;
  enum Bar : std::uint32_t { q_full, k_full, k_empty, v_full, v_empty, s_full, p_full, o_done, kBarCount };
  static constexpr std::uint32_t kSlot = kBars + 8 * kBarCount;
  static constexpr std::uint32_t kSmemBytes = kSlot + 8;
  static_assert(kSmemBytes + 1024 <= 232448, "the tiles do not fit in shared memory");

  template <class Arch>
  struct Params {
    typename Arch::TensorMap q, k, v;  // Q::map(seq_q, d, d), K::map(seq_k, d, d), V::map(d, seq_k, d)
    int seq_q = 0, seq_k = 0;
    SoftmaxScale scale = SoftmaxScale::for_head_dim(HeadDim);
    std::uint16_t* o = nullptr;  // seq_q × head_dim bf16
    float* lse = nullptr;        // seq_q
  };

  template <class Arch>
  static TCGEN_HD void run(Arch& a, const Params<Arch>& p) {
    const std::uint32_t smem = a.smem_base();
    const unsigned warp = a.warp_index();
    exec::allocate_tmem<Tmem>(a, kMmaWarp, smem + kSlot);
    if (a.thread_index() == 0) {
      for (std::uint32_t b = 0; b < kBarCount; ++b) a.mbarrier_init(bar(smem, b), b == p_full ? kSoftmaxWarps : 1);
      a.fence_mbarrier_init();
    }
    const tmem::TmemAddress base = exec::publish_tmem(a, smem + kSlot);
    const int blocks = (p.seq_k + kN - 1) / kN;
    const int m0 = static_cast<int>(a.block_index().x) * kM;

    if (warp == kLoadWarp) {
      if (a.elect_one()) load(a, p, smem, blocks, m0);
    } else if (warp == kMmaWarp) {
      if (a.elect_one()) multiply(a, smem, base, blocks);
    } else {
      softmax(a, p, smem, base, blocks, m0);
    }

    exec::free_tmem<Tmem>(a, kMmaWarp, base);
  }

 private:
  static constexpr TCGEN_HD std::uint32_t bar(std::uint32_t smem, std::uint32_t b) { return smem + kBars + 8u * b; }
  static constexpr TCGEN_HD std::uint32_t parity(int use) { return static_cast<std::uint32_t>(use) & 1u; }

  template <class Arch>
  static TCGEN_HD void load(Arch& a, const Params<Arch>& p, std::uint32_t smem, int blocks, int m0) {
    a.mbarrier_arrive_expect_tx(bar(smem, q_full), kQBytes);
    for (int c = 0; c < kChunks; ++c) Q::load(a, p.q, smem + kQ + c * Q::bytes, bar(smem, q_full), m0, c * gemm::kBlockK);
    for (int j = 0; j < blocks; ++j) {
      if (j > 0) a.mbarrier_wait(bar(smem, k_empty), parity(j - 1));
      a.mbarrier_arrive_expect_tx(bar(smem, k_full), kKBytes);
      for (int c = 0; c < kChunks; ++c)
        K::load(a, p.k, smem + kK + c * K::bytes, bar(smem, k_full), j * kN, c * gemm::kBlockK);
      if (j > 0) a.mbarrier_wait(bar(smem, v_empty), parity(j - 1));
      a.mbarrier_arrive_expect_tx(bar(smem, v_full), kVBytes);
      for (int c = 0; c < kVChunks; ++c)
        V::load(a, p.v, smem + kV + c * V::bytes, bar(smem, v_full), 0, j * kN + c * gemm::kBlockK);
    }
  }

  template <class Arch>
  static TCGEN_HD void multiply(Arch& a, std::uint32_t smem, tmem::TmemAddress base, int blocks) {
    const STile s = Tmem::template tile<"S">(base);
    const OTile o = Tmem::template tile<"O">(base);
    const PTile pt = Tmem::template tile<"P">(base);
    a.mbarrier_wait(bar(smem, q_full), 0);
    for (int j = 0; j < blocks; ++j) {
      // S = Q·Kᵀ. S_j overwrites P_{j-1}: the P·V that read it was issued
      // before by this thread, and tcgen05.mma of one thread execute in order.
      a.mbarrier_wait(bar(smem, k_full), parity(j));
      a.fence_after_thread_sync();
      for (int c = 0; c < kChunks; ++c) {
        const typename Q::Tile tq(smem + kQ + c * Q::bytes);
        const typename K::Tile tk(smem + kK + c * K::bytes);
        TCGEN_UNROLL
        for (int k = 0; k < Q::Tile::ksteps; ++k) a.mma(SAtom{}, s, tq, tk, k, c > 0 || k > 0);
      }
      a.commit(SAtom{}, bar(smem, k_empty));
      a.commit(SAtom{}, bar(smem, s_full));
      // O += P·V once the softmax has written P (and rescaled O).
      a.mbarrier_wait(bar(smem, p_full), parity(j));
      a.mbarrier_wait(bar(smem, v_full), parity(j));
      a.fence_after_thread_sync();
      for (int c = 0; c < kVChunks; ++c) {
        const PHalf ph{pt.address.col_offset(static_cast<std::uint32_t>(c) * PHalf::columns)};
        const typename V::Tile tv(smem + kV + c * V::bytes);
        TCGEN_UNROLL
        for (int k = 0; k < V::Tile::ksteps; ++k) a.mma(PvAtom{}, o, ph, tv, k, j > 0 || c > 0 || k > 0);
      }
      a.commit(PvAtom{}, bar(smem, v_empty));
      a.commit(PvAtom{}, bar(smem, o_done));
    }
  }

  template <class Arch>
  static TCGEN_HD void softmax(Arch& a, const Params<Arch>& p, std::uint32_t smem, tmem::TmemAddress base, int blocks,
                               int m0) {
    const int quarter = static_cast<int>(a.warp_index() % 4);
    const int lane = static_cast<int>(a.lane_index());
    const STile s = Tmem::template tile<"S">(base);
    const OTile o = Tmem::template tile<"O">(base);
    const PTile pt = Tmem::template tile<"P">(base);
    SoftmaxRow row;
    float sv[kN], pv[kN];
    for (int j = 0; j < blocks; ++j) {
      a.mbarrier_wait(bar(smem, s_full), parity(j));
      a.fence_after_thread_sync();
      for (int acc = 0; acc < SWalk::accesses; ++acc) {
        const typename Ld::Registers r = a.ld(Ld{}, SWalk::address(s, quarter, acc));
        a.wait_ld();
        for (int i = 0; i < SWalk::registers; ++i) sv[SWalk::element(quarter, acc, lane, i).col] = bit_cast_f32(r[i]);
      }
      const int valid = p.seq_k - j * kN < kN ? p.seq_k - j * kN : kN;
      const float factor = row.update(std::span<const float>(sv, kN), valid, p.scale, std::span<float>(pv, kN));
      if (j > 0) {  // the previous P·V is done: rescale O in place
        a.mbarrier_wait(bar(smem, o_done), parity(j - 1));
        a.fence_after_thread_sync();
        scale_o(a, o, quarter, factor);
      }
      // P over S's upper half, two bf16 per column.
      for (int acc = 0; acc < PWalk::accesses; ++acc) {
        typename Ld::Registers r;
        for (int i = 0; i < PWalk::registers; ++i) {
          const int k = PWalk::element(quarter, acc, lane, i).col;
          r[i] = gemm::pack2<ElementType::bf16>(pv[k], pv[k + 1]);
        }
        a.st(Ld{}, PWalk::address(pt, quarter, acc), r);
      }
      a.wait_st();
      a.fence_before_thread_sync();
      a.sync_warp();
      if (a.elect_one()) a.mbarrier_arrive(bar(smem, p_full));
    }
    a.mbarrier_wait(bar(smem, o_done), parity(blocks - 1));
    a.fence_after_thread_sync();
    const float inv = row.inverse_sum();
    for (int acc = 0; acc < OWalk::accesses; ++acc) {
      const typename Ld::Registers r = a.ld(Ld{}, OWalk::address(o, quarter, acc));
      a.wait_ld();
      for (int i = 0; i < OWalk::registers; ++i) {
        const tmem::Element e = OWalk::element(quarter, acc, lane, i);
        const int m = m0 + e.row;
        if (m < p.seq_q)
          p.o[static_cast<std::size_t>(m) * kD + e.col] = gemm::from_f32<ElementType::bf16>(bit_cast_f32(r[i]) * inv);
      }
    }
    const int m = m0 + SWalk::element(quarter, 0, lane, 0).row;
    if (m < p.seq_q) p.lse[m] = row.lse(p.scale);
  }

  template <class Arch>
  static TCGEN_HD void scale_o(Arch& a, const OTile& o, int quarter, float factor) {
    for (int acc = 0; acc < OWalk::accesses; ++acc) {
      typename Ld::Registers r = a.ld(Ld{}, OWalk::address(o, quarter, acc));
      a.wait_ld();
      for (int i = 0; i < OWalk::registers; ++i) r[i] = bit_cast_u32(bit_cast_f32(r[i]) * factor);
      a.st(Ld{}, OWalk::address(o, quarter, acc), r);
    }
    a.wait_st();
  }

  static TCGEN_HD float bit_cast_f32(std::uint32_t u) { return std::bit_cast<float>(u); }
  static TCGEN_HD std::uint32_t bit_cast_u32(float f) { return std::bit_cast<std::uint32_t>(f); }
};

}  // namespace tcgen::attention
