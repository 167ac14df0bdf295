// tcgen's Tensor Memory pieces on a B200 (sm_100a):
//  - every tcgen05.ld/st shape x .num x packing: a warpgroup allocates, stores
//    a pattern with the atom (each warp in its lane quarter, 16-lane shapes
//    twice, the second at lane + 16), waits, reads it back with the same atom
//    and, cell by cell, with 32x32b.x1 (thread t = lane t, register i =
//    column i: PTX #tcgen05-matrix-fragments), and compares both with the
//    cell the host thread map (layout::thread_map) predicts; then deallocates;
//  - tcgen05.cp for every shape: 32-bit words from shared memory land in the
//    lanes and columns tcgen05-facts-2.md §2 gives (tmem::copy_lanes);
//  - cta_group::2: a cluster of two CTAs allocates, round-trips and deallocates.
// Exit 0: all agree; 1: a mismatch or a CUDA error; 77: no sm_100 GPU.
// Built with TCGEN_DEVICE_CHECKS, so a lane-quarter or taddr mistake traps with a message.
#define TCGEN_DEVICE_CHECKS

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <utility>

#include "device_check.hpp"
#include "tcgen/tmem/alloc.hpp"
#include "tcgen/tmem/atom.hpp"
#include "tcgen/tmem/copy.hpp"
#include "tcgen/tmem/plan.hpp"
#include "tcgen/tmem/sync.hpp"
#include "tcgen/tmem/tile_access.hpp"

namespace {

using tcgen::ElementType;
using tcgen::layout::TmemAccess;
using tcgen::layout::TmemShape;
namespace tmem = tcgen::tmem;

// A value per cell (lane < 128, column < 512), different in every cell; the
// 16-bit form for packed accesses, which move the low half of each cell.
__host__ __device__ constexpr std::uint32_t pattern(int lane, int column) {
  return 0xA5000000u | (std::uint32_t(lane) << 12) | std::uint32_t(column);
}
__host__ __device__ constexpr std::uint32_t pattern16(int lane, int column) {
  return (std::uint32_t(lane) * 512u + std::uint32_t(column)) & 0xFFFFu;
}

struct Outcome {
  unsigned mismatches;
  int lane, column;  // the first mismatching cell (-1: none)
  std::uint32_t want, got;
};

__device__ void record(Outcome* out, int lane, int column, std::uint32_t want, std::uint32_t got) {
  if (atomicAdd(&out->mismatches, 1u) == 0) {
    out->lane = lane;
    out->column = column;
    out->want = want;
    out->got = got;
  }
}

using Cell = tmem::Atom<TmemAccess{TmemShape::s32x32b, 1}>;

// Warp q's registers for its access s: the pattern of the cell each holds.
template <class Walk, int R>
__device__ void expected(std::uint32_t (&r)[R], int q, int s, int t) {
  for (int i = 0; i < R; ++i) {
    const tmem::Element lo = Walk::element(q, s, t, i, 0);
    if constexpr (Walk::halves == 2) {
      const tmem::Element hi = Walk::element(q, s, t, i, 1);
      r[i] = pattern16(lo.row, lo.col) | pattern16(hi.row, hi.col) << 16;
    } else {
      r[i] = pattern(lo.row, lo.col);
    }
  }
}

// Kernel templates take the access as plain values: nvcc's host stubs cannot
// name a class-type template argument.
template <TmemShape Shape, long Num, bool Pack>
__global__ void __launch_bounds__(128) round_trip(Outcome* out) {
  constexpr TmemAccess A{Shape, Num, Pack};
  using Ld = tmem::Atom<A>;
  constexpr int kColumns = Ld::columns;
  // One 16-bit value per cell when packed: the packed forms move the low halves.
  using Plan = tmem::Plan<tmem::scratch("cells", 128, kColumns, A.pack ? ElementType::fp16 : ElementType::f32)>;
  using Walk = tmem::TileAccess<typename Plan::template Tile<"cells">, A>;
  __shared__ std::uint32_t slot;
  {
    tmem::ScopedAllocation<Plan> allocation(&slot);
    const auto tile = allocation.template tile<"cells">();
    const int q = static_cast<int>(tmem::warp_index() % 4), t = static_cast<int>(threadIdx.x % 32);
    std::uint32_t r[Ld::registers];
    for (int s = 0; s < Walk::accesses; ++s) {
      expected<Walk>(r, q, s, t);
      Ld::store(Walk::address(tile, q, s), r);
    }
    tmem::wait_st();
    for (int s = 0; s < Walk::accesses; ++s) {
      std::uint32_t got[Ld::registers];
      Ld::load(Walk::address(tile, q, s), got);
      tmem::wait_ld();
      expected<Walk>(r, q, s, t);
      for (int i = 0; i < Ld::registers; ++i)
        if (got[i] != r[i]) record(out, -1, i, r[i], got[i]);  // lane -1: the same-atom read-back
    }
    for (int c = 0; c < kColumns; ++c) {
      std::uint32_t cell[1];
      Cell::load(tile.address.lane_offset(32 * q).col_offset(c), cell);
      tmem::wait_ld();
      const int lane = 32 * q + t;
      const std::uint32_t want = A.pack ? pattern16(lane, c) : pattern(lane, c);
      const std::uint32_t got = A.pack ? cell[0] & 0xFFFFu : cell[0];
      if (got != want) record(out, lane, c, want, got);
    }
  }
}

// The K-major, no-swizzle SMEM descriptor of tcgen05-facts.md §1: 16-byte
// chunk c of row s at start + (s % 8)·16 + (s / 8)·SBO + c·LBO; bit 46 set.
__device__ std::uint64_t descriptor(const void* smem, std::uint32_t lbo, std::uint32_t sbo) {
  const auto start = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  return std::uint64_t((start & 0x3FFFF) >> 4) | std::uint64_t(lbo >> 4) << 16 | std::uint64_t(sbo >> 4) << 32 |
         std::uint64_t(1) << 46;
}

// 32-bit word w of source row s: bytes go little-endian into cells, so word w lands whole in column w.
__host__ __device__ constexpr std::uint32_t word(int s, int w) { return 0xC0000000u | std::uint32_t(s) << 8 | std::uint32_t(w); }

template <tmem::CopyShape S>
__global__ void __launch_bounds__(128) copy_round_trip(Outcome* out) {
  constexpr int kRows = tmem::copy_rows(S), kWords = tmem::copy_columns(S), kLbo = 16 * kRows < 128 ? 128 : 16 * kRows;
  using Plan = tmem::Plan<tmem::scratch("cells", 128, 32)>;
  __shared__ std::uint32_t slot;
  __shared__ alignas(8) std::uint64_t mbar;
  __shared__ alignas(128) std::uint32_t source[2 * (kLbo / 4)];
  // Row s, word w: chunk c = w / 4 (16 bytes), word w % 4 inside it.
  for (int i = static_cast<int>(threadIdx.x); i < kRows * kWords; i += 128) {
    const int s = i / kWords, w = i % kWords;
    source[((s % 8) * 16 + (s / 8) * 128 + (w / 4) * kLbo) / 4 + w % 4] = word(s, w);
  }
  const auto bar = static_cast<std::uint32_t>(__cvta_generic_to_shared(&mbar));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
  // Generic-proxy writes, read by tcgen05.cp in the async proxy (tcgen05-facts.md §7).
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  {
    tmem::ScopedAllocation<Plan> allocation(&slot);
    const auto tile = allocation.template tile<"cells">();
    // Each warp reads whole 32-lane columns below, also lanes the shape does
    // not write: zeros first, so that no read finds a cell nothing wrote
    // (the host model's initcheck), ordered before the copy by the barrier.
    const int q = static_cast<int>(tmem::warp_index() % 4), lane = 32 * q + static_cast<int>(threadIdx.x % 32);
    for (int w = 0; w < kWords; ++w) {
      const std::uint32_t zero[1] = {0};
      Cell::store(tile.address.lane_offset(32 * q).col_offset(w), zero);
    }
    tmem::wait_st();
    tmem::fence_before_thread_sync();
    __syncthreads();
    tmem::fence_after_thread_sync();
    if (threadIdx.x == 0) {
      tmem::copy<S, 1>(tile.address, descriptor(source, kLbo, 128));
      asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar) : "memory");
    }
    for (std::uint32_t done = 0; !done;)
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                   : "=r"(done) : "r"(bar) : "memory");
    tmem::fence_after_thread_sync();
    // Each warp reads its quarter; each thread checks the source rows copy_lanes sends to its lane.
    for (int w = 0; w < kWords; ++w) {
      std::uint32_t cell[1];
      Cell::load(tile.address.lane_offset(32 * q).col_offset(w), cell);
      tmem::wait_ld();
      for (int s = 0; s < kRows; ++s)
        if (tmem::copy_lanes(S, s).contains(lane) && cell[0] != word(s, w)) record(out, lane, w, word(s, w), cell[0]);
    }
  }
}

// cta_group::2: both CTAs of a cluster pair allocate together, round-trip
// 32x32b.x8 in their own Tensor Memory and deallocate together.
__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128) pair_round_trip(Outcome* out) {
  using Plan = tmem::Plan<tmem::accumulator("D", {256, 256, 2})>;
  using St = tmem::Atom<TmemAccess{TmemShape::s32x32b, 8}>;
  static_assert(Plan::cta_group == 2 && Plan::allocation == 256);
  __shared__ std::uint32_t slot;
  tmem::ScopedAllocation<Plan> allocation(&slot);
  const auto d = allocation.template tile<"D">();
  const int q = static_cast<int>(tmem::warp_index() % 4), lane = 32 * q + static_cast<int>(threadIdx.x % 32);
  std::uint32_t r[8];
  for (int i = 0; i < 8; ++i) r[i] = pattern(lane, 100 + i) ^ blockIdx.x;
  St::store(d.address.lane_offset(32 * q).col_offset(100), r);
  tmem::wait_st();
  std::uint32_t got[8];
  St::load(d.address.lane_offset(32 * q).col_offset(100), got);
  tmem::wait_ld();
  for (int i = 0; i < 8; ++i)
    if (got[i] != r[i]) record(out, lane, 100 + i, r[i], got[i]);
}

// Every legal (shape, .num, packing), in Table 49 order.
constexpr std::size_t kAccessCount = 2 * (8 + 8 + 7 + 6 + 8);
constexpr std::array<TmemAccess, kAccessCount> kAccesses = [] {
  std::array<TmemAccess, kAccessCount> out{};
  std::size_t n = 0;
  for (TmemShape s : {TmemShape::s32x32b, TmemShape::s16x64b, TmemShape::s16x128b, TmemShape::s16x256b, TmemShape::s16x32bx2})
    for (long num = 1; num <= 128; num *= 2)
      for (bool pack : {false, true})
        if (tcgen::layout::check(TmemAccess{s, num, pack}) == tcgen::layout::TmemAccessRule::ok) out[n++] = {s, num, pack};
  return out;
}();

// Launches one kernel on a zeroed Outcome and reports it under `what`.
template <class Launch>
bool run(const char* what, Launch launch, unsigned& failures) {
  Outcome* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, sizeof(Outcome)));
  CUDA_CHECK(cudaMemset(d, 0, sizeof(Outcome)));
  launch(d);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  Outcome h{};
  CUDA_CHECK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d));
  if (h.mismatches == 0) {
    std::printf("%-28s ok\n", what);
  } else {
    ++failures;
    std::printf("%-28s %u mismatches, first at lane %d column %d: want 0x%08x, got 0x%08x%s\n", what, h.mismatches,
                h.lane, h.column, h.want, h.got, h.lane < 0 ? " (same-atom read-back, column = register)" : "");
  }
  return true;
}

template <std::size_t I>
bool run_access(unsigned& failures) {
  constexpr TmemAccess a = kAccesses[I];
  char name[40];
  std::snprintf(name, sizeof name, "%s.x%ld%s", tcgen::layout::name(a.shape), static_cast<long>(a.num),
                a.pack ? ".pack::16b" : "");
  return run(name, [](Outcome* d) { round_trip<kAccesses[I].shape, kAccesses[I].num, kAccesses[I].pack><<<1, 128>>>(d); },
             failures);
}

template <std::size_t... I>
bool run_accesses(std::index_sequence<I...>, unsigned& failures) {
  return (run_access<I>(failures) && ...);
}

}  // namespace

// Every tcgen05.cp spelling of cta_group::2, compiled for ptxas to check
// (external linkage keeps it) but not run: where cp's data lands is checked
// with cta_group::1 above; which CTA's shared memory a cta_group::2 cp reads
// is UNCONFIRMED (tcgen05-facts-2.md §2).
__global__ void __cluster_dims__(2, 1, 1) copy_spellings_cta_group_2(std::uint64_t desc) {
  using Plan = tcgen::tmem::Plan<tcgen::tmem::accumulator("D", {256, 256, 2})>;
  __shared__ std::uint32_t slot;
  tcgen::tmem::ScopedAllocation<Plan> allocation(&slot);
  if (threadIdx.x == 0 && blockIdx.x % 2 == 0) {
#define TCGEN_X(code, suffix, rows, columns) tcgen::tmem::copy<tcgen::tmem::CopyShape::code, 2>(allocation.base(), desc);
    TCGEN_COPY_SHAPES(TCGEN_X)
#undef TCGEN_X
  }
}

int main() {
  require_gpu(10, 0);
  unsigned failures = 0;
  bool ok = run_accesses(std::make_index_sequence<kAccessCount>{}, failures);
#define TCGEN_X(code, suffix, rows, columns) \
  ok = ok && run("tcgen05.cp" suffix, [](Outcome* d) { copy_round_trip<tmem::CopyShape::code><<<1, 128>>>(d); }, failures);
  TCGEN_COPY_SHAPES(TCGEN_X)
#undef TCGEN_X
  ok = ok && run("cta_group::2 pair", [](Outcome* d) { pair_round_trip<<<2, 128>>>(d); }, failures);
  std::printf("%s: %u of %zu checks failed\n", ok && failures == 0 ? "PASSED" : "FAILED", failures, kAccessCount + 7);
  return ok && failures == 0 ? 0 : 1;
}
