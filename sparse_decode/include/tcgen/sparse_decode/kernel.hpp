#pragma once
// DeepSeek-V4 sparse decode attention (FlashMLA's MODEL1 semantics,
// problem.hpp), written once for sm_100a (exec::DeviceArch) and
// the host model (exec::HostArch). One CTA takes 64 heads of one query token
// and one split of its key blocks; grid (splits, heads / 64, batch · s_q).
// docs/sparse_decode.md has the plan and the pipeline picture:
//
//   warps 0-3   dequantise: per block of 64 keys, each thread gathers half
//               of one key's 584 bytes from the cache by its index (16-byte
//               ld.global), turns e4m3 × 2^scale and the bf16 rope dims into
//               bf16, and writes them swizzled into the block's keys tile,
//               K-major SW128 (zeros for an index that is −1 or past
//               topk_length); fence.proxy.async, then the tile is full.
//               Thread 0 first loads Q's 64 × 512 by TMA;
//   warp 8      MMA (one lane; it also owns TMEM): S_i = Q·K_iᵀ (M = 64,
//               N = 64, SS), then O += P_{i-1}·V_{i-1} (M = 64, N = 256, twice:
//               dims 0-255 into O_lo, 256-511 into O_hi, SS), V being the same
//               keys tile read MN-major (layout::AtomOrder::k_first);
//   warps 4-7   softmax and epilogue: thread t of warp quarter q owns head
//               16q + t % 16 and keys 32·(t / 16) … + 31 of each block (a
//               16x32bx2 access of S), the two halves of a head meeting by
//               one shuffle: the row maximum, O rescaled in TMEM only where
//               it grew past the threshold (tcgen/attention/online_softmax.hpp), P as bf16 into
//               shared memory, the row sum; at the end O/l (and the sink)
//               to global memory, or O/l and LSE of the split for the combine
//               step (combine.hpp).
//
// Tensor Memory (SparseDecodePlan): O is 64 heads × 512 dims in f32, two
// M = 64 accumulators in the same 256 columns at lane offsets 0 and 16
// (Layout F, FlashMLA's interleave), and two S buffers of 64 columns beside
// them, so that S_{i+1} is computed while the softmax works on S_i.
//
// Ordering: the keys tile and P are written by generic stores and read by
// tcgen05.mma (the async proxy): each writer fences with
// fence.proxy.async.shared::cta before its mbarrier arrival (PTX
// #proxy-release-acquire... #tcgen05-memory-consistency-model). No mbarrier
// gets two phases ahead of its waiter: S_{i+2} is issued after P_i was waited
// for; P_{i+2} is written after P·V_i completed (pv_done), and P·V_i is
// issued only after P_i was written.
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "tcgen/sparse_decode/model1_cache.hpp"
#include "tcgen/attention/online_softmax.hpp"
#include "tcgen/sparse_decode/problem.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/exec/tmem_lifetime.hpp"
#include "tcgen/exec/unroll.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/tile/convert.hpp"
#include "tcgen/tile/global_io.hpp"
#include "tcgen/tile/operand.hpp"
#include "tcgen/tile/mma_tile.hpp"
#include "tcgen/tile/pipeline.hpp"
#include "tcgen/tile/signal.hpp"
#include "tcgen/tile/tmem_scale.hpp"
#include "tcgen/tile/smem_plan.hpp"
#include "tcgen/tmem/plan.hpp"
#include "tcgen/tmem/tile_access.hpp"

namespace tcgen::sparse_decode {

using SparseDecodePlan = tmem::Plan<tmem::accumulator("O_lo", {64, 256}),                // dims 0-255, lanes 0-15 of each quarter
                                    tmem::accumulator("O_hi", {64, 256}).at(0).at_lane(16),  // dims 256-511, lanes 16-31
                                    tmem::accumulator("S", {64, 64}).count(2)>;  // S of key blocks i and i + 1
static_assert(SparseDecodePlan::column<"S"> == 256 && SparseDecodePlan::stride<"S"> == 64 &&
                  SparseDecodePlan::allocation == 512,
              "O takes columns 0-255 twice over (lanes 0 and 16), S's two copies the 128 columns after it");

// One index list of a query row: its cache, its indices, how many count.
struct SparseKeyList {
  const std::uint8_t* cache = nullptr;
  const std::int32_t* indices = nullptr;  // this row's topk indices
  int length = 0;                         // the first `length` count
  int block_size = 64;
  std::uint32_t block_bytes = 0;
};

// Where dims [d, d + 8) of key (or head) t lie in a 1024-aligned tile of
// 64-dim chunks (K-major SW128 bf16, PTX #tcgen05-shared-memory-descriptor):
// the tile layout's own answer, written out so that device code adds
// constants; chunk_offsets_match() holds it to the layout.
constexpr TCGEN_HD std::uint32_t chunk_offset(int t, int d) {
  return static_cast<std::uint32_t>((d / 64) * 8192 + t * 128 + ((((d % 64) / 8) ^ (t % 8)) * 16));
}
constexpr bool chunk_offsets_match() {
  constexpr layout::SmemOperand keys = layout::smem_operand<layout::SmemOperandSpec{
      layout::dense_element(16), layout::Major::K, layout::SmemSwizzle::b128, kSparseBlockTokens, Model1Layout::kDim}>();
  for (int t = 0; t < kSparseBlockTokens; ++t)
    for (int d = 0; d < Model1Layout::kDim; d += 8)
      if (keys.address(0, t, d) != chunk_offset(t, d)) return false;
  return true;
}

// Whether walk W gives thread t of warp quarter q head 16q + t % 16 and, in
// access s, the 32 columns from 64s + 32·(t / 16).
template <class W>
constexpr bool half_rows() {
  for (int q = 0; q < 4; ++q)
    for (int s = 0; s < W::accesses; ++s)
      for (int t = 0; t < 32; ++t)
        for (int i = 0; i < W::registers; ++i)
          if (W::element(q, s, t, i) != tmem::Element{16 * q + t % 16, 64 * s + 32 * (t / 16) + i}) return false;
  return true;
}

// Where a launch's arrays are, on the face that runs it (host or device
// addresses); the optional ones may be null where the problem has none.
struct SparseDecodeBuffers {
  const void* q = nullptr;
  const std::uint8_t* cache = nullptr;
  const std::int32_t *indices = nullptr, *lengths = nullptr;
  const std::uint8_t* extra_cache = nullptr;
  const std::int32_t *extra_indices = nullptr, *extra_lengths = nullptr;
  const float* sink = nullptr;
  std::uint16_t* o = nullptr;
  float* lse = nullptr;
  float *o_split = nullptr, *lse_split = nullptr;  // [splits, rows, 512] and [splits, rows] where splits > 1
};

struct SparseDecode {
  static constexpr int kD = Model1Layout::kDim, kHeads = kSparseHeadsPerCta, kBlock = kSparseBlockTokens;
  static constexpr int kChunks = kD / tile::kBlockK;  // 64-dim swizzle chunks of Q and of a keys tile
  static constexpr int kStages = 2;
  static constexpr unsigned kFirstSoftmaxWarp = 4, kMmaWarp = 8, kThreads = 32 * 9;
  // The __global__ that runs it on a device (device_sparse_decode.hpp).
  static constexpr const char* kEntry = "tcgen::sparse_decode::sparse_decode_kernel";
  static constexpr ElementType E = ElementType::bf16;

  using Tmem = SparseDecodePlan;
  using OTile = Tmem::Tile<"O_lo">;
  using STile = Tmem::Tile<"S">;
  // 64 × 64 K-major SW128 bf16: a chunk of Q (heads × dims), of a keys tile (keys × dims), and P (heads × keys).
  using Chunk = tile::Operand<E, layout::Major::K, kHeads>;
  using VHalf = mma::SmemMatrix<layout::SmemOperandSpec{layout::dense_element(16), layout::Major::MN,
                                                        layout::SmemSwizzle::b128, 256, kBlock,
                                                        layout::AtomOrder::k_first}>;
  static constexpr std::uint32_t kChunkBytes = Chunk::bytes, kTileBytes = kChunks * kChunkBytes;
  static_assert(kChunkBytes == 8192 && VHalf::operand.size_bytes() == 4 * kChunkBytes,
                "a V half is four of the keys tile's 64-dim chunks");
  static_assert(mma::lbo(VHalf::operand) == kChunkBytes && mma::sbo(VHalf::operand) == 1024,
                "V read MN-major: the next 64 dims are the keys tile's next chunk, the next 8 keys 1024 B on");

  using SAtom = mma::Mma<mma::InstrDescriptorSpec{.kind = mma::MmaKind::f16, .a = E, .b = E, .d = ElementType::f32,
                                                  .m = kHeads, .n = kBlock, .a_major = layout::Major::K,
                                                  .b_major = layout::Major::K}>;
  using PvAtom = mma::Mma<mma::InstrDescriptorSpec{.kind = mma::MmaKind::f16, .a = E, .b = E, .d = ElementType::f32,
                                                   .m = kHeads, .n = 256, .a_major = layout::Major::K,
                                                   .b_major = layout::Major::MN}>;

  // S and O are read 32 columns a half-row: thread t of a quarter takes lane
  // 16q + t % 16 and, from the access's column, columns [32·(t/16), +32).
  static constexpr layout::TmemAccess kHalfRows{layout::TmemShape::s16x32bx2, 32u};
  using Ld = exec::LdSt<kHalfRows>;
  using SWalk = tmem::TileAccess<STile, kHalfRows>;
  using OWalk = tmem::TileAccess<OTile, kHalfRows>;
  static_assert(SWalk::accesses == 1 && half_rows<SWalk>() && OWalk::accesses == 4 && half_rows<OWalk>(),
                "each softmax thread holds 32 consecutive columns of one head's row, the other 32 in lane t ± 16");

  static_assert(chunk_offsets_match(), "chunk_offset must be the K-major SW128 keys tile's layout");

  // Shared memory: Q, the ring of two keys tiles, two P tiles, the mbarriers.
  // kv_full and p_full take one arrival from each writing thread (after its
  // proxy fence); the rest one TMA transaction count or tcgen05.commit.
  using Smem = tile::SmemPlan<tile::buffer("q", kTileBytes, 1024), tile::buffer("kv", kTileBytes, 1024, kStages),
                              tile::buffer("p", kChunkBytes, 1024, 2), tile::barriers("q_full", 1, 1),
                              tile::barriers("kv_full", kStages, 128), tile::barriers("kv_empty", kStages, 1),
                              tile::barriers("s_full", 2, 1), tile::barriers("p_full", 2, 128),
                              tile::barriers("pv_done", 2, 1), tile::buffer("tmem_slot", 4, 4)>;
  static constexpr std::uint32_t kSmemBytes = Smem::bytes;
  static_assert(kSmemBytes <= exec::kKernelSmemBytes, "Q, two keys tiles and two P tiles must fit in shared memory");

  template <class Arch>
  struct Params {
    typename Arch::TensorMap q;  // q_map() over Q
    SparseKeyList keys, extra;   // a row's lists: indices point at row 0's, advanced per row
    int topk = 0, extra_topk = 0;
    const std::int32_t* lengths = nullptr;        // [batch] or null: topk
    const std::int32_t* extra_lengths = nullptr;  // [batch] or null: extra_topk
    const float* sink = nullptr;                  // [heads] or null
    attention::SoftmaxScale scale = attention::SoftmaxScale::explicit_value(1.0f);
    int s_q = 1, heads = 64, splits = 1;
    std::size_t rows = 0;        // batch · s_q · heads
    std::uint16_t* o = nullptr;  // splits == 1: [batch, s_q, heads, 512] bf16
    float* lse = nullptr;        // splits == 1: [batch, s_q, heads]
    float* o_split = nullptr;    // splits > 1: [splits, batch · s_q · heads, 512], O / l of the split
    float* lse_split = nullptr;  // splits > 1: [splits, batch · s_q · heads], −inf for no key
  };

  // The parameters of one launch, for any face: `encode(spec, tensor)` makes
  // the face's tensor map of q_map() over Q; `at` says where every array is.
  template <class Arch, class Encode>
  static Params<Arch> params(const SparseDecodeProblem& pr, Encode&& encode, const SparseDecodeBuffers& at) {
    Params<Arch> p;
    p.q = encode(q_map(pr), at.q);
    const auto list = [](const SparseKeys& c, const std::uint8_t* cache, const std::int32_t* indices) {
      return SparseKeyList{cache, indices, 0, c.layout.block_size, static_cast<std::uint32_t>(c.layout.block_bytes())};
    };
    p.keys = list(pr.keys, at.cache, at.indices);
    p.topk = pr.keys.topk;
    p.lengths = pr.keys.lengths.empty() ? nullptr : at.lengths;
    if (pr.extra) {
      p.extra = list(*pr.extra, at.extra_cache, at.extra_indices);
      p.extra_topk = pr.extra->topk;
      p.extra_lengths = pr.extra->lengths.empty() ? nullptr : at.extra_lengths;
    }
    p.sink = pr.sink.empty() ? nullptr : at.sink;
    p.scale = pr.scale;
    p.s_q = pr.s_q;
    p.heads = pr.heads;
    p.splits = pr.split_count();
    p.rows = pr.rows();
    p.o = at.o;
    p.lse = at.lse;
    p.o_split = at.o_split;
    p.lse_split = at.lse_split;
    return p;
  }

  static tma::TensorMapSpec q_map(const SparseDecodeProblem& p) {
    return Chunk::map(p.rows(), kD, kD);
  }
  static exec::Dim3 grid(const SparseDecodeProblem& p) {
    return {static_cast<unsigned>(p.split_count()), static_cast<unsigned>(p.heads / kHeads),
            static_cast<unsigned>(p.batch * p.s_q)};
  }

  // What one CTA works on: its query row, its heads, its blocks of the row's keys.
  struct Work {
    int row = 0, head0 = 0, split = 0;
    SparseKeyList keys, extra;
    int key_blocks = 0, first = 0, count = 0;  // blocks [first, first + count) of the row's key_blocks
  };

  template <exec::KernelArch Arch>
  static TCGEN_HD void run(Arch& a, const Params<Arch>& p) {
    const std::uint32_t smem = a.smem_base();
    const unsigned warp = a.warp_index();
    exec::allocate_tmem<Tmem>(a, kMmaWarp, at<"tmem_slot">(smem));
    if (a.thread_index() == 0) Smem::init_barriers(a, smem);
    const tmem::TmemAddress base = exec::publish_tmem(a, at<"tmem_slot">(smem));
    const Work w = work(p, a.block_index());

    if (warp < kFirstSoftmaxWarp) {
      if (a.thread_index() == 0 && w.count > 0) load_q(a, p, smem, w);
      dequantise(a, smem, w);
    } else if (warp < kMmaWarp) {
      softmax(a, p, smem, base, w);
    } else if (a.elect_one()) {
      multiply(a, smem, base, w);
    }
    exec::free_tmem<Tmem>(a, kMmaWarp, base);
  }

  // The key of position `j` of block `block` of the row (−1: none).
  static TCGEN_HD std::int32_t key_index(const Work& w, int block, int j) {
    const int main_blocks = (w.keys.length + kBlock - 1) / kBlock;
    const SparseKeyList& list = block < main_blocks ? w.keys : w.extra;
    const int at = (block < main_blocks ? block : block - main_blocks) * kBlock + j;
    return at < list.length ? list.indices[at] : -1;
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
  // The hand-offs (tile/signal.hpp): Q's load; S, P and P·V of key block i, two blocks in flight.
  static constexpr TCGEN_HD tile::TmaSignal<> q_full(std::uint32_t smem) { return {{bar<"q_full">(smem)}}; }
  static constexpr TCGEN_HD tile::MmaSignal<2> s_full(std::uint32_t smem) { return {{bar<"s_full">(smem)}}; }
  static constexpr TCGEN_HD tile::ArrivalSignal<2> p_full(std::uint32_t smem) { return {{bar<"p_full">(smem)}}; }
  static constexpr TCGEN_HD tile::MmaSignal<2> pv_done(std::uint32_t smem) { return {{bar<"pv_done">(smem)}}; }
  using KvRing = tile::Ring<kStages>;
  static constexpr TCGEN_HD tile::Stage kv_stage(std::uint32_t smem, const KvRing& ring) {
    return ring.stage(bar<"kv_full">(smem), bar<"kv_empty">(smem));
  }

  template <class Arch, class Dim>
  static TCGEN_HD Work work(const Params<Arch>& p, const Dim& block) {
    Work w;
    w.row = static_cast<int>(block.z);
    w.head0 = static_cast<int>(block.y) * kHeads;
    w.split = static_cast<int>(block.x);
    const int b = w.row / p.s_q;
    w.keys = p.keys;
    w.keys.indices += static_cast<std::size_t>(w.row) * p.topk;
    w.keys.length = p.lengths ? p.lengths[b] : p.topk;
    w.extra = p.extra;
    if (p.extra_topk > 0) {
      w.extra.indices += static_cast<std::size_t>(w.row) * p.extra_topk;
      w.extra.length = p.extra_lengths ? p.extra_lengths[b] : p.extra_topk;
    } else {
      w.extra.length = 0;
    }
    w.key_blocks = (w.keys.length + kBlock - 1) / kBlock + (w.extra.length + kBlock - 1) / kBlock;
    const int per_split = (w.key_blocks + p.splits - 1) / p.splits;
    w.first = w.split * per_split;
    w.count = w.key_blocks - w.first < per_split ? w.key_blocks - w.first : per_split;
    if (w.count < 0) w.count = 0;
    return w;
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void load_q(Arch& a, const Params<Arch>& p, std::uint32_t smem, const Work& w) {
    q_full(smem).expect_bytes(a, 0, kTileBytes);
    for (int c = 0; c < kChunks; ++c)
      Chunk::load(a, p.q, at<"q">(smem) + c * kChunkBytes, q_full(smem).barrier(0), w.row * p.heads + w.head0,
                  c * tile::kBlockK);
  }

  // Warps 0-3: thread t fills key t / 2 of each block, dims [256·(t % 2), +256).
  template <exec::KernelArch Arch>
  static TCGEN_HD void dequantise(Arch& a, std::uint32_t smem, const Work& w) {
    const int key = static_cast<int>(a.thread_index() / 2), half = static_cast<int>(a.thread_index() % 2);
    KvRing ring;
    for (int i = 0; i < w.count; ++i, ring.advance()) {
      const tile::Stage stage = kv_stage(smem, ring);
      const int block = w.first + i;
      const SparseKeyList& list = block < (w.keys.length + kBlock - 1) / kBlock ? w.keys : w.extra;
      const std::int32_t index = key_index(w, block, key);
      stage.acquire(a);
      fill_key(a, at<"kv">(smem, ring.slot), list, index, key, half);
      a.fence_proxy_async();  // the generic stores, before tcgen05.mma reads the tile (async proxy)
      stage.arrive(a);
    }
    // The tail: each stage's last release (a tcgen05.commit arrival) lands
    // before the CTA exits; a stage never filled counts as released.
    for (int i = 0; i < kStages; ++i, ring.advance()) kv_stage(smem, ring).acquire(a);
  }

 public:
  // One thread's half of one key of a keys tile at shared address tile0 (a
  // 1024-aligned tile of 64-dim chunks): token `index` of `list`'s cache
  // (−1: zeros), its dims [256·half, +256) dequantised to bf16 at row `key`.
  // Half 0 takes the nope tiles 0-3, half 1 tiles 4-6 and the 64 rope dims.
  template <exec::KernelArch Arch>
  static TCGEN_HD void fill_key(Arch& a, std::uint32_t tile0, const SparseKeyList& list, std::int32_t index, int key,
                                int half) {
    using L = Model1Layout;
    const std::uint8_t* block = list.cache + static_cast<std::size_t>(index < 0 ? 0 : index / list.block_size) * list.block_bytes;
    const int slot = index < 0 ? 0 : index % list.block_size;
    const std::uint8_t* values = block + static_cast<std::size_t>(slot) * L::kTokenBytes;
    const std::uint8_t* scales = block + static_cast<std::size_t>(list.block_size) * L::kTokenBytes + slot * L::kScaleBytes;
    // Nope dims, 16 e4m3 values (one load) to two chunks of 8 bf16 at a time.
    const int first_tile = half == 0 ? 0 : 4, tiles = half == 0 ? 4 : 3;
    for (int g = first_tile; g < first_tile + tiles; ++g) {
      const float scale = index < 0 ? 0.0f : tile::ue8m0_to_f32(scales[g]);
      TCGEN_UNROLL
      for (int j = 0; j < L::kTile; j += 16) {
        const int d = g * L::kTile + j;
        tile::Vec16 raw{};
        if (index >= 0) raw = tile::load16(values + d);
        tile::Vec16 out[2];
        TCGEN_UNROLL
        for (int k = 0; k < 8; ++k) {
          float lo, hi;
          tile::e4m3x2_to_f32(static_cast<std::uint16_t>(raw.w[k / 2] >> (16 * (k % 2))), lo, hi);
          out[k / 4].w[k % 4] = tile::pack2<E>(lo * scale, hi * scale);
        }
        a.smem_store(tile0 + chunk_offset(key, d), out[0]);
        a.smem_store(tile0 + chunk_offset(key, d + 8), out[1]);
      }
    }
    if (half == 1) {  // the rope dims, bf16 already: 8 of them a load
      TCGEN_UNROLL
      for (int j = 0; j < L::kRope; j += 8) {
        tile::Vec16 raw{};
        if (index >= 0) raw = tile::load16(values + L::kNope + 2 * j);
        a.smem_store(tile0 + chunk_offset(key, L::kNope + j), raw);
      }
    }
  }

 private:
  // Warp 8, one lane: S_i, then P·V of the block before (its P is still being written while S_i runs).
  template <exec::KernelArch Arch>
  static TCGEN_HD void multiply(Arch& a, std::uint32_t smem, tmem::TmemAddress base, const Work& w) {
    if (w.count == 0) return;
    q_full(smem).wait(a, 0);
    KvRing ring, previous;
    for (int i = 0; i <= w.count; ++i) {
      if (i < w.count) {
        const tile::Stage keys = kv_stage(smem, ring);
        keys.wait(a);
        a.fence_after_thread_sync();
        const STile s = s_tile(base, i);
        for (int c = 0; c < kChunks; ++c) {
          const typename Chunk::Tile tq(at<"q">(smem) + c * kChunkBytes);
          const typename Chunk::Tile tk(at<"kv">(smem, ring.slot) + c * kChunkBytes);
          tile::mma_tile(a, SAtom{}, s, tq, tk, c > 0);
        }
        s_full(smem).commit(a, SAtom{}, i);
      }
      if (i > 0) {
        const int j = i - 1;
        p_full(smem).wait(a, j);
        a.fence_after_thread_sync();
        const typename Chunk::Tile tp(at<"p">(smem, j % 2));
        for (int h = 0; h < 2; ++h) {
          const OTile o = h == 0 ? Tmem::tile<"O_lo">(base) : Tmem::tile<"O_hi">(base);
          const VHalf tv(at<"kv">(smem, previous.slot) + h * 4 * kChunkBytes);
          tile::mma_tile(a, PvAtom{}, o, tp, tv, j > 0);
        }
        kv_stage(smem, previous).release(a, PvAtom{});
        pv_done(smem).commit(a, PvAtom{}, j);
        previous.advance();
      }
      if (i < w.count) ring.advance();
    }
  }

  static TCGEN_HD STile s_tile(tmem::TmemAddress base, int i) {
    return Tmem::tile<"S">(base, i % 2);
  }
  static TCGEN_HD OTile o_tile(tmem::TmemAddress base, int h) {
    return h == 0 ? Tmem::tile<"O_lo">(base) : Tmem::tile<"O_hi">(base);
  }

  template <exec::KernelArch Arch>
  static TCGEN_HD void softmax(Arch& a, const Params<Arch>& p, std::uint32_t smem, tmem::TmemAddress base,
                               const Work& w) {
    constexpr float kNone = -std::numeric_limits<float>::infinity();
    const int quarter = static_cast<int>(a.warp_index() % 4), lane = static_cast<int>(a.lane_index());
    const int head = 16 * quarter + lane % 16, half = lane / 16;  // this thread's head, and which 32 keys of a block
    const int partner = lane ^ 16;
    attention::SoftmaxRow r;
    for (int i = 0; i < w.count; ++i) {
      std::uint32_t visible = 0;  // bit j: key 32·half + j of the block is one
      for (int j = 0; j < 32; ++j)
        if (key_index(w, w.first + i, 32 * half + j) >= 0) visible |= 1u << j;
      s_full(smem).wait(a, i);
      a.fence_after_thread_sync();
      const typename Ld::Registers s = a.ld(Ld{}, SWalk::address(s_tile(base, i), quarter, 0));
      a.wait_ld();
      float block_max = kNone;
      TCGEN_UNROLL
      for (int j = 0; j < 32; ++j)
        if (visible >> j & 1u) block_max = block_max > tile::f32(s[j]) ? block_max : tile::f32(s[j]);
      const float other = a.shfl_sync(0xFFFFFFFFu, block_max, partner);
      const float factor = r.rescale_to(block_max > other ? block_max : other, p.scale);
      // tcgen05.ld/st are warp-wide: the warp rescales O if any of its heads' maximum grew.
      if (i > 0 && a.any_sync(0xFFFFFFFFu, factor != 1.0f)) {
        pv_done(smem).wait(a, i - 1);
        a.fence_after_thread_sync();
        for (int h = 0; h < 2; ++h) tile::scale_tmem<Ld, OWalk>(a, o_tile(base, h), quarter, factor);
      }
      // P_i goes where P_{i-2} was: P·V_{i-2} has read it.
      if (i >= 2) pv_done(smem).wait(a, i - 2);
      tile::Vec16 packed[4];
      TCGEN_UNROLL
      for (int j = 0; j < 32; j += 2) {
        const float p0 = visible >> j & 1u ? r.probability(tile::f32(s[j]), p.scale) : 0.0f;
        const float p1 = visible >> (j + 1) & 1u ? r.probability(tile::f32(s[j + 1]), p.scale) : 0.0f;
        packed[j / 8].w[(j % 8) / 2] = tile::pack2<E>(p0, p1);
        r.add(p0 + p1);
      }
      const std::uint32_t pt = at<"p">(smem, i % 2);
      for (int c = 0; c < 4; ++c) a.smem_store(pt + chunk_offset(head, 32 * half + 8 * c), packed[c]);
      a.fence_proxy_async();         // P's generic stores, before the MMA reads them
      a.fence_before_thread_sync();  // O's rescale (tcgen05.st), before the MMA accumulates into it
      p_full(smem).arrive(a, i);
    }
    r.sum += a.shfl_sync(0xFFFFFFFFu, r.sum, partner);  // both halves' sums: the head's l
    epilogue(a, p, smem, base, w, r, head, half, quarter);
  }

  // O / l (with the sink) as bf16 and LSE, or the split's O / l and LSE in f32.
  template <exec::KernelArch Arch>
  static TCGEN_HD void epilogue(Arch& a, const Params<Arch>& p, std::uint32_t smem, tmem::TmemAddress base,
                                const Work& w, const attention::SoftmaxRow& r, int head, int half, int quarter) {
    const std::size_t row = static_cast<std::size_t>(w.row) * p.heads + w.head0 + head;
    const float lse = r.lse(p.scale);  // −inf without a key
    float keep = r.inverse_sum();
    if (p.splits == 1 && p.sink != nullptr && r.sum > 0.0f)
      keep /= 1.0f + std::exp(p.sink[w.head0 + head] - lse);  // exp(lse) / (exp(lse) + exp(sink))
    if (w.count > 0) {
      pv_done(smem).wait(a, w.count - 1);
      a.fence_after_thread_sync();
    }
    for (int h = 0; h < 2; ++h) {
      TCGEN_UNROLL
      for (int s = 0; s < OWalk::accesses; ++s) {
        typename Ld::Registers v{};
        if (w.count > 0) {
          v = a.ld(Ld{}, OWalk::address(o_tile(base, h), quarter, s));
          a.wait_ld();
        }
        const int d0 = 256 * h + 64 * s + 32 * half;  // this thread's 32 dims
        TCGEN_UNROLL
        for (int j = 0; j < 32; j += 8) {
          if (p.splits == 1) {
            tile::Vec16 out;
            TCGEN_UNROLL
            for (int k = 0; k < 4; ++k) out.w[k] = tile::pack2<E>(tile::f32(v[j + 2 * k]) * keep, tile::f32(v[j + 2 * k + 1]) * keep);
            tile::store16(p.o + row * kD + d0 + j, out);
          } else {
            float* out = p.o_split + (static_cast<std::size_t>(w.split) * p.rows + row) * kD + d0 + j;
            tile::Vec16 lo, hi;
            TCGEN_UNROLL
            for (int k = 0; k < 4; ++k) {
              lo.w[k] = std::bit_cast<std::uint32_t>(tile::f32(v[j + k]) * keep);
              hi.w[k] = std::bit_cast<std::uint32_t>(tile::f32(v[j + 4 + k]) * keep);
            }
            tile::store16(out, lo);
            tile::store16(out + 4, hi);
          }
        }
      }
    }
    if (half != 0) return;
    if (p.splits == 1)
      p.lse[row] = r.sum > 0.0f ? lse : std::numeric_limits<float>::infinity();
    else
      p.lse_split[static_cast<std::size_t>(w.split) * p.rows + row] = lse;
  }

};

}  // namespace tcgen::sparse_decode
