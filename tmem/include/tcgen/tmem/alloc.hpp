#pragma once
// Tensor Memory allocation (device code, sm_100a), with the rules of
// PTX #tcgen05-memory-alloc-manage-instructions (tcgen05-facts.md §6):
//  - one whole warp issues tcgen05.alloc / dealloc / relinquish_alloc_permit
//    (.sync.aligned); with cta_group::2, one warp in each CTA of the pair;
//  - nCols is a power of two in [32, 512];
//  - alloc writes the address to shared memory with a weak store: other
//    threads read it only after a barrier;
//  - everything allocated is deallocated before the kernel exits;
//  - every tcgen05 instruction of a kernel names the same .cta_group;
//  - after relinquish_alloc_permit the CTA may not allocate again.
//
// ScopedAllocation<Plan> keeps them by construction: the plan's cta_group
// and nCols, one allocation per CTA (relinquished at once), the address read
// after the barrier, the dealloc in the destructor.
#if !defined(__CUDACC__)
#error "tcgen/tmem/alloc.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

#include <cstdint>

#include "tcgen/tmem/address.hpp"
#include "tcgen/tmem/lane_quarter.hpp"
#include "tcgen/tmem/plan.hpp"
#include "tcgen/tmem/sync.hpp"

#if defined(TCGEN_DEVICE_CHECKS)
#include <cstdio>
#endif

namespace tcgen::tmem {

// The PTX of one cta_group. Each function is issued by a whole warp.
template <int CtaGroup>
struct Allocator {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group is 1 or 2 (PTX #tcgen05-memory-alloc-manage-instructions)");

  template <std::uint32_t Columns>
  static constexpr TCGEN_HD void check_columns() {
    static_assert(Columns >= 32 && Columns <= 512 && (Columns & (Columns - 1)) == 0,
                  "tcgen05.alloc takes a power of two from 32 to 512 columns (PTX #tcgen05-memory-alloc-manage-instructions)");
  }

  // Writes the address of `Columns` fresh columns to *slot, in shared memory.
  template <std::uint32_t Columns>
  static __device__ void alloc(std::uint32_t* slot) {
    check_columns<Columns>();
    check_whole_warp("tcgen05.alloc");
    const auto dst = static_cast<std::uint32_t>(__cvta_generic_to_shared(slot));
    if constexpr (CtaGroup == 1)
      asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(dst), "n"(Columns) : "memory");
    else
      asm volatile("tcgen05.alloc.cta_group::2.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(dst), "n"(Columns) : "memory");
  }

  template <std::uint32_t Columns>
  static __device__ void dealloc(TmemAddress base) {
    check_columns<Columns>();
    check_whole_warp("tcgen05.dealloc");
    if constexpr (CtaGroup == 1)
      asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(base.raw()), "n"(Columns) : "memory");
    else
      asm volatile("tcgen05.dealloc.cta_group::2.sync.aligned.b32 %0, %1;" ::"r"(base.raw()), "n"(Columns) : "memory");
  }

  // After this, the CTA may not allocate again; other CTAs waiting to allocate on the SM may proceed.
  static __device__ void relinquish() {
    check_whole_warp("tcgen05.relinquish_alloc_permit");
    if constexpr (CtaGroup == 1)
      asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
    else
      asm volatile("tcgen05.relinquish_alloc_permit.cta_group::2.sync.aligned;" ::: "memory");
  }

 private:
  // Built with TCGEN_DEVICE_CHECKS: traps when part of a warp issues it.
  static __device__ void check_whole_warp(const char* instruction) {
#if defined(TCGEN_DEVICE_CHECKS)
    const unsigned active = __activemask();
    if (active != 0xFFFFFFFFu) {
      std::printf("tcgen: %s issued by part of warp %u (active mask 0x%08x): one whole warp must issue it "
                  "(PTX #tcgen05-memory-alloc-manage-instructions)\n",
                  instruction, warp_index(), active);
      __trap();
    }
#else
    (void)instruction;
#endif
  }
};

// The plan's Tensor Memory for the lifetime of a scope. Every thread of the
// CTA (of both CTAs with cta_group::2) constructs it, at the same point, and
// leaves the scope: the constructor and destructor hold a barrier. Warp
// `OwnerWarp` allocates and deallocates. One per CTA: the constructor
// relinquishes the allocation permit, so a second allocation cannot happen
// by accident. `slot` is a 32-bit shared-memory word at the same offset in
// every CTA (a __shared__ variable).
template <class P, int OwnerWarp = 0>
class ScopedAllocation {
 public:
  using Plan = P;
  static constexpr int cta_group = Plan::cta_group;
  static constexpr std::uint32_t columns = Plan::allocation;

  __device__ explicit ScopedAllocation(std::uint32_t* slot) {
    if (warp_index() == OwnerWarp) {
      Allocator<cta_group>::template alloc<columns>(slot);
      Allocator<cta_group>::relinquish();
    }
    // The alloc's store to *slot is weak: the barrier orders it before the reads below.
    barrier();
    base_ = TmemAddress::from_raw(*static_cast<volatile std::uint32_t*>(slot));
  }

  // Every thread's tcgen05 work ends before the barrier; then the owner deallocates.
  __device__ ~ScopedAllocation() {
    barrier();
    if (warp_index() == OwnerWarp) Allocator<cta_group>::template dealloc<columns>(base_);
  }

  ScopedAllocation(const ScopedAllocation&) = delete;
  ScopedAllocation& operator=(const ScopedAllocation&) = delete;

  __device__ TmemAddress base() const { return base_; }
  // The region's typed tile: Plan::tile<Name>(base()).
  template <RegionName Name>
  __device__ typename Plan::template Tile<Name> tile() const {
    return Plan::template tile<Name>(base_);
  }

 private:
  // A thread synchronisation wrapped in the tcgen05 fences, so that tcgen05
  // operations before it on one side are ordered with those after it on the
  // other (PTX #tcgen05-memory-consistency-model). With cta_group::2 the
  // peer's MMAs write this CTA's Tensor Memory, so both CTAs of the cluster
  // take part (barrier.cluster).
  static __device__ void barrier() {
    fence_before_thread_sync();
    if constexpr (cta_group == 1) {
      __syncthreads();
    } else {
      asm volatile("barrier.cluster.arrive.release;" ::: "memory");
      asm volatile("barrier.cluster.wait.acquire;" ::: "memory");
    }
    fence_after_thread_sync();
  }

  TmemAddress base_;
};

}  // namespace tcgen::tmem
