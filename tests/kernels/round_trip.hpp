#pragma once
// The MMA round trip, written once for sm_100a and for the host model:
// TMA loads A (128 × 64) and B (128 × 64) bf16 into shared memory, one
// thread issues the four K steps of tcgen05.mma into a TMEM accumulator and
// commits them to an mbarrier, and the four warps read D back with
// tcgen05.ld, each its own lane quarter, and store it to global memory.
// D = A·Bᵀ in f32. docs/kernels.md walks through it.
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

namespace tcgen::kernels::round_trip {

constexpr int kM = 128, kN = 128, kK = kBlockK;
constexpr unsigned kThreads = 128;  // four warps: one per TMEM lane quarter

using Atom = mma::Mma<mma::InstrDescriptorSpec{.m = kM, .n = kN}>;  // bf16 × bf16 → f32, both K-major
using ATile = OperandTile<kM>;
using BTile = OperandTile<kN>;
using Tmem = tmem::Plan<tmem::accumulator("D", {kM, kN})>;
using Ld = exec::LdSt<layout::TmemAccess{layout::TmemShape::s32x32b, 32}>;  // thread t: lane t, 32 columns
using Walk = tmem::TileAccess<Tmem::Tile<"D">, Ld::access>;

// Shared memory from smem_base(), which is 1024-byte aligned as the 128B
// swizzle atoms need: the tiles, two mbarriers, the TMEM address slot.
constexpr std::uint32_t kABytes = ATile::operand.size_bytes(), kBBytes = BTile::operand.size_bytes();
constexpr std::uint32_t kA = 0, kB = kA + kABytes;
constexpr std::uint32_t kFull = kB + kBBytes;  // the tiles have landed
constexpr std::uint32_t kDone = kFull + 8;     // the MMAs are complete
constexpr std::uint32_t kSlot = kDone + 8;     // tcgen05.alloc writes the TMEM address here
constexpr std::uint32_t kSmemBytes = kSlot + 8;

template <class Arch>
struct Params {
  typename Arch::TensorMap a, b;  // operand_map(kM, kK, kM), operand_map(kN, kK, kN)
  float* d;                       // kM × kN, row-major
};

template <class Arch>
TCGEN_HD void kernel(Arch& a, const Params<Arch>& p) {
  const std::uint32_t smem = a.smem_base();
  const std::uint32_t full = smem + kFull, done = smem + kDone;
  const unsigned warp = a.warp_index();

  // Warp 0 allocates the accumulator; thread 0 makes the mbarriers. The
  // fences around the barrier order the allocation before every use
  // (PTX #tcgen05-memory-consistency-model), and the barrier makes the
  // address alloc wrote readable by all (#tcgen05-instructions-tcgen05-alloc).
  exec::allocate_tmem<Tmem>(a, 0, smem + kSlot);
  if (a.thread_index() == 0) {
    a.mbarrier_init(full, 1);
    a.mbarrier_init(done, 1);
    a.fence_mbarrier_init();
  }
  const auto d = Tmem::tile<"D">(exec::publish_tmem(a, smem + kSlot));

  // One thread: both tiles by TMA onto `full` (expecting their bytes), then
  // the four K steps of the MMA, committed to `done`.
  if (a.thread_index() == 0) {
    a.mbarrier_arrive_expect_tx(full, kABytes + kBBytes);
    a.tma_load(p.a, smem + kA, full, 0, 0);
    a.tma_load(p.b, smem + kB, full, 0, 0);
    a.mbarrier_wait(full, 0);
    const ATile at(smem + kA);
    const BTile bt(smem + kB);
    for (int k = 0; k < ATile::ksteps; ++k) a.mma(Atom{}, d, at, bt, k, k > 0);
    a.commit(Atom{}, done);
  }

  // Every warp: wait for the MMAs, fence, and read its lane quarter (warp %
  // 4) of D; Walk says which element each register holds.
  a.mbarrier_wait(done, 0);
  a.fence_after_thread_sync();
  const int quarter = static_cast<int>(warp % 4);
  TCGEN_UNROLL
  for (int s = 0; s < Walk::accesses; ++s) {
    const Ld::Registers r = a.ld(Ld{}, Walk::address(d, quarter, s));
    a.wait_ld();
    TCGEN_UNROLL
    for (int i = 0; i < Ld::registers; ++i) {
      const tmem::Element e = Walk::element(quarter, s, static_cast<int>(a.lane_index()), i);
      p.d[e.row * kN + e.col] = std::bit_cast<float>(r[i]);
    }
  }

  // Every thread's tcgen05.ld is done before warp 0 frees the columns.
  exec::free_tmem<Tmem>(a, 0, d.address);
}

}  // namespace tcgen::kernels::round_trip
