#pragma once
// The grouped block-scaled GEMM of a mixture-of-experts layer, written once
// for sm_100a (exec::DeviceArch) and the host model (exec::HostArch): for
// each expert e, D_e = (A_e · scale_A)(W_e · scale_W)ᵀ over its tokens, with
// A in MXFP8 and W in MXFP4 (kind::mxf8f6f4 .block32: e4m3 × e2m1 with a
// UE8M0 factor per 32 elements of K on each side; PTX #tcgen05-block-scaling,
// #tcgen05-mma-scale-valid-comb-detail), f32 accumulation in Tensor Memory,
// bf16 D. docs/moe.md draws it.
//
// A persistent grid walks (expert, tile) pairs (schedule.hpp) reading the
// token counts from device memory. Each CTA has six warps, as gemm::Gemm's:
//
//   warp 0, one lane   TMA producer: per K block of 128, wait until its stage
//                      is empty, then load A's 128 token rows (e4m3, 128
//                      bytes a row), W's 128 rows (e2m1 packed in global
//                      memory, padded to a byte in shared memory by TMA's
//                      16U4_ALIGN16B type: the .b4x16_p64 form the MMA reads
//                      for kind::mxf8f6f4, PTX #tcgen05-packing-formats), and
//                      the two 512-byte blocks of their scale factors, one
//                      byte a row and K block of 32 (scale_layout.hpp);
//   warp 1, one lane   MMA issuer: per K block, copy both factor blocks to
//                      Tensor Memory with tcgen05.cp.32x128b.warpx4, which
//                      puts row r's four factors in lane r % 32 of all four
//                      lane quarters, column r / 32 (PTX
//                      #tcgen05-mma-scale-factor-a; each quarter's datapath
//                      reads its own copy), then issue the four MMAs of K = 32,
//                      MMA j reading byte j of each word (the idesc's scale
//                      IDs), and commit them to the stage's empty barrier;
//   warps 2-5          epilogue: read the accumulator (lane quarter warp % 4),
//                      store the expert's rows of D as bf16, or with SwiGLU
//                      silu(gate) · up of its two halves.
//
// The factors of each stage have their own Tensor Memory columns: a
// tcgen05.cp is pipelined after the MMAs before it only where it feeds them
// (PTX #tcgen05-memory-consistency-model lists cp → mma, not mma → cp), so
// a copy must not overwrite factors an earlier MMA may still read. Stage s's
// columns are rewritten only after the commit that freed stage s, which
// follows the MMAs that read them.
//
// A tile's rows past its expert's tokens belong to the next expert (or are
// TMA's zeros past the last token): rows of D are independent, so the MMA
// computes them and the epilogue drops them.
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/exec/tmem_lifetime.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/mma/smem_descriptor.hpp"
#include "tcgen/moe/config.hpp"
#include "tcgen/moe/problem.hpp"
#include "tcgen/moe/schedule.hpp"
#include "tcgen/tile/epilogue.hpp"
#include "tcgen/tile/operand.hpp"
#include "tcgen/tile/pipeline.hpp"
#include "tcgen/tile/smem_plan.hpp"
#include "tcgen/tmem/copy.hpp"
#include "tcgen/tmem/plan.hpp"
#include "tcgen/tmem/tile_access.hpp"

namespace tcgen::moe {

template <Config C>
struct GroupedGemm {
  static_assert(C.a == kMxfp8 && C.w == kMxfp4, "the kernel runs MXFP8 tokens against MXFP4 weights (kind::mxf8f6f4)");
  static_assert(C.stages >= 2, "the pipeline needs at least two stages to overlap loads with MMAs");

  static constexpr Config config = C;
  static constexpr int kTileM = 128, kTileN = 128, kStages = C.stages;
  static constexpr unsigned kProducerWarp = 0, kMmaWarp = 1, kFirstEpilogueWarp = 2, kEpilogueWarps = 4;
  static constexpr unsigned kThreads = 32 * (kFirstEpilogueWarp + kEpilogueWarps);
  static constexpr const char* kEntry = "tcgen::moe::grouped_gemm_kernel";

  // MMA j of a K block: M = N = 128, K = 32, its factors byte j of each
  // scale word (a_sf_id = b_sf_id = j, PTX #tcgen05-mma-scale-factor-a, -b).
  template <int J>
  using Atom = mma::Mma<mma::InstrDescriptorSpec{.kind = mma::MmaKind::mxf8f6f4, .a = ElementType::e4m3,
                                                 .b = ElementType::e2m1, .d = ElementType::f32, .m = kTileM,
                                                 .n = kTileN, .scale_type = mma::ScaleType::ue8m0,
                                                 .a_sf_id = J, .b_sf_id = J},
                        1>;
  using A = tile::Operand<ElementType::e4m3, layout::Major::K, kTileM>;
  using W = tile::Operand<ElementType::e2m1, layout::Major::K, kTileN, layout::padded_element(4)>;
  static constexpr int kBlockK = A::kStageK;  // 128: one swizzle row of either operand
  static_assert(W::kStageK == kBlockK && A::Tile::ksteps == 4 && kBlockK == 4 * Atom<0>::k,
                "a stage is four MMAs of K = 32, one scale byte each");

  // A 512-byte factor block: 128 rows × 4 K blocks of 32 (scale_layout.hpp).
  static constexpr std::uint32_t kScaleBlockBytes = 512;
  static constexpr std::uint32_t kStageBytes = A::bytes + W::bytes + 2 * kScaleBlockBytes;
  static constexpr std::uint32_t kStageTransactionBytes =
      A::transaction_bytes + W::transaction_bytes + 2 * kScaleBlockBytes;
  static constexpr std::uint32_t kScaleAOffset = A::bytes + W::bytes, kScaleWOffset = kScaleAOffset + kScaleBlockBytes;

  // Two accumulators (tile i in D(i % 2)), and each stage's factors: 4 columns for A's, 4 for W's.
  static constexpr layout::AccumulatorSpec kAccumulator{kTileM, kTileN, 1};
  using Tmem = tmem::Plan<tmem::accumulator("D", kAccumulator).count(2), tmem::scratch("SFA", 128, 4).count(kStages),
                          tmem::scratch("SFW", 128, 4).count(kStages)>;
  using Accumulator = typename Tmem::template Tile<"D">;
  static constexpr layout::TmemAccess kLd{layout::TmemShape::s32x32b, 32u};
  using Store = tile::Epilogue<ElementType::bf16, Accumulator, kLd>;
  using Walk = tmem::TileAccess<Accumulator, kLd>;

  static constexpr tile::Entry kStagesBuffer = tile::buffer("stages", kStageBytes, 1024, kStages);
  static constexpr tile::Entry kFull = tile::barriers("full", kStages, 1);
  static constexpr tile::Entry kEmpty = tile::barriers("empty", kStages, 1);
  static constexpr tile::Entry kAccFull = tile::barriers("acc_full", 2, 1);
  static constexpr tile::Entry kAccEmpty = tile::barriers("acc_empty", 2, kEpilogueWarps);
  static constexpr tile::Entry kTmemSlot = tile::buffer("tmem_slot", 4, 4);
  using Smem = tile::SmemPlan<kStagesBuffer, kFull, kEmpty, kAccFull, kAccEmpty, kTmemSlot>;
  static_assert(Smem::template stride<"stages"> == kStageBytes, "each stage starts on the swizzle's 1024-byte period");
  static constexpr std::uint32_t kSmemBytes = Smem::bytes;

  template <class Arch>
  struct Params {
    typename Arch::TensorMap a, w, scale_a, scale_w;
    const int* counts = nullptr;  // [experts] tokens an expert, in device memory
    int experts = 0, n = 0, k = 0, tokens = 0;
    std::uint16_t* d = nullptr;   // [tokens, out_columns] bf16
    int ldd = 0;
  };
  // D's columns: n, or n / 2 with SwiGLU.
  static constexpr TCGEN_HD int out_columns(int n) { return C.swiglu ? n / 2 : n; }

  // The parameters of one launch over problem p, for any face: `encode(spec,
  // array)` makes the face's tensor map. A [tokens, k] e4m3; W [experts · n,
  // k] e2m1 packed; each factor array as rows of 128 bytes, a box of four of
  // them one 512-byte block. Throws tcgen::Error for a problem the kernel
  // cannot run (problem.hpp).
  template <class Arch, class Encode>
  static Params<Arch> params(const Problem& p, Encode&& encode) {
    check(p, C);
    const auto u64 = [](std::int64_t x) { return static_cast<std::uint64_t>(x); };
    Params<Arch> out;
    out.a = encode(A::map(u64(p.tokens), u64(p.k), u64(p.k)), p.a);
    out.w = encode(W::map(u64(p.experts) * u64(p.n), u64(p.k), u64(p.k)), p.w);
    out.scale_a = encode(scale_map(a_scale_bytes({p.counts, static_cast<std::size_t>(p.experts)}, p.k)), p.scale_a);
    out.scale_w = encode(scale_map(w_scale_bytes(p.experts, p.n, p.k)), p.scale_w);
    out.counts = p.counts;
    out.experts = p.experts;
    out.n = p.n;
    out.k = p.k;
    out.tokens = p.tokens;
    out.d = p.d;
    out.ldd = p.ldd;
    return out;
  }
  static tma::TensorMapSpec scale_map(std::uint64_t bytes) {
    tma::TensorMapSpec s;
    s.element_bytes = 1;
    s.rank = 2;
    s.global_dims = {128, bytes / 128};
    s.global_strides = {128};
    s.box_dims = {128, 4};
    return s;
  }

  static constexpr TCGEN_HD int n_tiles(int n) { return n / kTileN; }
  static constexpr TCGEN_HD unsigned grid(int tokens, int experts, int n, int ctas) {
    const int most = most_tiles(tokens, experts, n_tiles(n)), limit = ctas > 0 ? ctas : 148;
    return static_cast<unsigned>(most < 1 ? 1 : most < limit ? most : limit);
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void run(Arch& a, const Params<Arch>& p) {
    const std::uint32_t smem = a.smem_base();
    const unsigned warp = a.warp_index();
    exec::allocate_tmem<Tmem>(a, kMmaWarp, Smem::template address<"tmem_slot">(smem));
    if (a.thread_index() == 0) Smem::init_barriers(a, smem);
    const tmem::TmemAddress tmem_base = exec::publish_tmem(a, Smem::template address<"tmem_slot">(smem));
    const Tiles tiles{static_cast<int>(a.block_index().x), static_cast<int>(a.grid_dim().x)};
    const int k_blocks = p.k / kBlockK;
    if (warp == kProducerWarp) {
      if (a.elect_one()) produce(a, p, smem, k_blocks, tiles);
    } else if (warp == kMmaWarp) {
      if (a.elect_one()) multiply(a, p, smem, tmem_base, k_blocks, tiles);
    } else {
      drain(a, p, smem, tmem_base, tiles);
    }
    exec::free_tmem<Tmem>(a, kMmaWarp, tmem_base);
  }

 private:
  struct Tiles {
    int first, step;
  };
  static constexpr TCGEN_HD tile::Pipeline<kStages> stage_pipeline(std::uint32_t smem) {
    return {Smem::template barrier<"full">(smem), Smem::template barrier<"empty">(smem)};
  }
  static constexpr TCGEN_HD tile::Pipeline<2> accumulator_pipeline(std::uint32_t smem) {
    return {Smem::template barrier<"acc_full">(smem), Smem::template barrier<"acc_empty">(smem)};
  }
  template <class Arch>
  static TCGEN_HD ExpertWalk walk(const Params<Arch>& p) {
    return ExpertWalk(p.counts, p.experts, n_tiles(p.n), kTileN);
  }
  // The tile's first row of W. Its factors, like A's, are read a 512-byte
  // block at a time: block (row block, K block kb) is block
  // row_block · k_blocks + kb (scale_layout.hpp numbers a row block's K blocks first).
  template <class Arch>
  static TCGEN_HD int weight_row(const Params<Arch>& p, const ExpertTile& t) {
    return t.expert * p.n + t.n0;
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void produce(Arch& a, const Params<Arch>& p, std::uint32_t smem, int k_blocks, Tiles tiles) {
    tile::Pipeline<kStages> stages = stage_pipeline(smem);
    ExpertWalk experts = walk(p);
    ExpertTile t;
    for (int i = tiles.first; experts.seek(i, t); i += tiles.step) {
      const int w_row = weight_row(p, t);
      for (int kb = 0; kb < k_blocks; ++kb) {
        const tile::Stage s = stages.stage();
        s.acquire(a);
        const std::uint32_t at = Smem::template address<"stages">(smem, stages.slot());
        s.expect_bytes(a, kStageTransactionBytes);
        A::load(a, p.a, at, s.full, t.row0, kb * kBlockK);
        W::load(a, p.w, at + A::bytes, s.full, w_row, kb * kBlockK);
        a.tma_load(p.scale_a, at + kScaleAOffset, s.full, 0, 4 * (t.scale_block * k_blocks + kb));
        a.tma_load(p.scale_w, at + kScaleWOffset, s.full, 0, 4 * (w_row / 128 * k_blocks + kb));
        stages.advance();
      }
    }
  }

  // tcgen05.cp's source: 32 rows of 16 bytes, one after another (K-major,
  // no swizzle: 8-row core matrices 128 bytes apart; PTX
  // #tcgen05-shared-memory-descriptor).
  static constexpr std::uint64_t kScaleDescriptor = mma::encode(mma::SmemDescriptorFields{.lbo = 0, .sbo = 128});
  static TCGEN_HD std::uint64_t scale_descriptor(std::uint32_t address) {
    return kScaleDescriptor | ((address & 0x3FFFFu) >> 4);
  }

  // The four MMAs of a K block, MMA j reading K step j and factor byte j.
  template <exec::KernelArch Arch, int... J>
  static TCGEN_HD void mma_block(Arch& a, const Accumulator& d, const typename A::Tile& ta,
                                 const typename W::Tile& tw, tmem::TmemAddress sfa, tmem::TmemAddress sfw,
                                 bool accumulate, std::integer_sequence<int, J...>) {
    (a.mma(Atom<J>{}, d, ta, tw, J, accumulate || J > 0, sfa, sfw), ...);
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void multiply(Arch& a, const Params<Arch>& p, std::uint32_t smem, tmem::TmemAddress base,
                                int k_blocks, Tiles tiles) {
    tile::Pipeline<kStages> stages = stage_pipeline(smem);
    tile::Pipeline<2> accumulators = accumulator_pipeline(smem);
    ExpertWalk experts = walk(p);
    ExpertTile t;
    for (int i = tiles.first; experts.seek(i, t); i += tiles.step) {
      const tile::Stage acc = accumulators.stage();
      acc.acquire(a);
      a.fence_after_thread_sync();
      const Accumulator d = Tmem::template tile<"D">(base, accumulators.slot());
      for (int kb = 0; kb < k_blocks; ++kb) {
        const tile::Stage s = stages.stage();
        s.wait(a);
        a.fence_after_thread_sync();
        const std::uint32_t at = Smem::template address<"stages">(smem, stages.slot());
        const tmem::TmemAddress sfa = Tmem::template tile<"SFA">(base, stages.slot()).address;
        const tmem::TmemAddress sfw = Tmem::template tile<"SFW">(base, stages.slot()).address;
        a.cp(tmem::CopyShape::s32x128b_warpx4, sfa, scale_descriptor(at + kScaleAOffset), 1);
        a.cp(tmem::CopyShape::s32x128b_warpx4, sfw, scale_descriptor(at + kScaleWOffset), 1);
        mma_block(a, d, typename A::Tile(at), typename W::Tile(at + A::bytes), sfa, sfw, kb > 0,
                  std::make_integer_sequence<int, 4>{});
        s.release(a, Atom<0>{});
        stages.advance();
      }
      acc.commit(a, Atom<0>{});
      accumulators.advance();
    }
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void drain(Arch& a, const Params<Arch>& p, std::uint32_t smem, tmem::TmemAddress base, Tiles tiles) {
    const int quarter = static_cast<int>(a.warp_index() % 4);
    tile::Pipeline<2> accumulators = accumulator_pipeline(smem);
    ExpertWalk experts = walk(p);
    ExpertTile t;
    for (int i = tiles.first; experts.seek(i, t); i += tiles.step) {
      const tile::Stage acc = accumulators.stage();
      acc.wait(a);
      a.fence_after_thread_sync();
      const Accumulator d = Tmem::template tile<"D">(base, accumulators.slot());
      if constexpr (C.swiglu)
        store_swiglu(a, d, quarter, p, t);
      else
        Store::store(a, d, quarter, output(p, t), {0, t.n0});
      a.fence_before_thread_sync();
      if (a.elect_one()) acc.release(a);
      accumulators.advance();
    }
  }

  // The expert's rows of D from the tile's first: the rows it keeps.
  template <class Arch>
  static TCGEN_HD tile::Output<ElementType::bf16> output(const Params<Arch>& p, const ExpertTile& t) {
    tile::Output<ElementType::bf16> o;
    o.d = p.d + static_cast<std::size_t>(t.row0) * p.ldd;
    o.ldd = p.ldd;
    o.m = t.rows;
    o.n = out_columns(p.n);
    o.vector_d = reinterpret_cast<std::uintptr_t>(p.d) % 16 == 0 && p.ldd % 8 == 0;
    return o;
  }

  // SwiGLU: columns [0, 64) of the tile are gate, [64, 128) up, for D's
  // columns n0 / 2 + [0, 64): out = silu(gate) · up, silu(x) = x / (1 + e^−x).
  template <exec::KernelArch Arch>
  static TCGEN_HD void store_swiglu(Arch& a, const Accumulator& d, int quarter, const Params<Arch>& p,
                                    const ExpertTile& t) {
    using Ld = exec::LdSt<kLd>;
    static_assert(Walk::accesses == 4 && Walk::registers == 32, "two accesses of 32 gate columns, two of up");
    const int lane = static_cast<int>(a.lane_index());
    const bool vector = reinterpret_cast<std::uintptr_t>(p.d) % 16 == 0 && p.ldd % 8 == 0;
    for (int s = 0; s < 2; ++s) {
      const typename Ld::Registers gate = a.ld(Ld{}, Walk::address(d, quarter, s));
      const typename Ld::Registers up = a.ld(Ld{}, Walk::address(d, quarter, s + 2));
      a.wait_ld();
      const tmem::Element e = Walk::element(quarter, s, lane, 0);
      if (e.row >= t.rows) continue;
      std::uint16_t* out = p.d + static_cast<std::size_t>(t.row0 + e.row) * p.ldd + t.n0 / 2 + e.col;
      float v[32];
      TCGEN_UNROLL
      for (int j = 0; j < 32; ++j) {
        const float g = std::bit_cast<float>(gate[j]);
        v[j] = g / (1.0f + expf(-g)) * std::bit_cast<float>(up[j]);
      }
      if (vector) {  // four 16-byte stores: the run starts 64 bytes into a 128-byte-aligned row block
        TCGEN_UNROLL
        for (int q = 0; q < 4; ++q) {
          tile::Vec16 w;
          TCGEN_UNROLL
          for (int j = 0; j < 4; ++j) w.w[j] = tile::pack2<ElementType::bf16>(v[8 * q + 2 * j], v[8 * q + 2 * j + 1]);
          tile::store16(out + 8 * q, w);
        }
      } else {
        TCGEN_UNROLL
        for (int j = 0; j < 32; ++j) out[j] = tile::from_f32<ElementType::bf16>(v[j]);
      }
    }
  }
};

}  // namespace tcgen::moe
