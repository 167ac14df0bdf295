#pragma once
// tcgen05.commit: make an mbarrier track the completion of every asynchronous
// tcgen05 operation (mma, cp, shift) this thread issued before it, then arrive
// on it once (PTX #tcgen-async-sync-operations-commit; tcgen05-facts.md §7).
//
// Rules encoded here:
// - commit.cta_group::N tracks only the thread's prior cta_group::N
//   operations, and "all tcgen05 instructions within a kernel must specify the
//   same value for the .cta_group qualifier" (tcgen05-facts.md §6; ptxas 13.0:
//   "uses single CTA(.cta_group::1) and CTA pair granularity(.cta_group::2) and
//   that is not allowed"): the group is a template argument, and
//   Mma<Spec>::commit passes the atom's own.
// - The arrive is at cluster scope on `.shared::cluster`; a CTA's own
//   shared-memory address (__cvta_generic_to_shared) names its own mbarrier.
// - .multicast::cluster arrives on the mbarrier at the same shared-memory
//   offset in every CTA whose %cluster_ctarank bit is set in the 16-bit ctaMask.
//
// Device only: a host compiler sees no declarations.
#include <cstdint>

namespace tcgen::mma {

#if defined(__CUDACC__)

template <int CtaGroup>
__device__ void commit(std::uint32_t mbarrier) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2 (PTX #tcgen-async-sync-operations-commit)");
  asm volatile("tcgen05.commit.cta_group::%1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(mbarrier),
               "n"(CtaGroup)
               : "memory");
}

template <int CtaGroup>
__device__ void commit_multicast(std::uint32_t mbarrier, std::uint16_t cta_mask) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group must be 1 or 2 (PTX #tcgen-async-sync-operations-commit)");
  asm volatile("tcgen05.commit.cta_group::%1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %2;" ::"r"(
                   mbarrier),
               "n"(CtaGroup), "h"(cta_mask)
               : "memory");
}

#endif

}  // namespace tcgen::mma
