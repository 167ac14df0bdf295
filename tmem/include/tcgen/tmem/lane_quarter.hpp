#pragma once
// The lane-quarter rule: with tcgen05.ld / st, warp w of a warpgroup may
// touch only Tensor Memory lanes 32·(w%4) … 32·(w%4)+31
// (PTX #tcgen05-tensor-memory-ld-st-access-restrictions). Where a warp's
// quarter is known at compile time, quarter_lane<Quarter, Lane, A>() refuses
// an access that leaves it. Everywhere else, built with TCGEN_DEVICE_CHECKS,
// every ld/st atom checks its taddr against the warp that issues it (and the
// 512 columns, and that the whole warp passes one taddr) and traps with a
// message naming warp, lane and taddr.
#include "tcgen/core/rule_table.hpp"
#include <cstdint>

#include "tcgen/core/host_device.hpp"
#include "tcgen/layout/tmem_thread_map.hpp"
#include "tcgen/tmem/address.hpp"

#if defined(__CUDACC__) && defined(TCGEN_DEVICE_CHECKS)
#include <cstdio>
#endif

namespace tcgen::tmem {

#define TCGEN_LANE_QUARTER_RULES(X)                                                                     \
  X(quarter, "quarter", "a warp's lane quarter is its warp id % 4: 0, 1, 2 or 3")                      \
  X(lanes, "lane", "a warp may touch only the 32 lanes of its quarter, 32*(warp id % 4) to 32*(warp id % 4)+31 (PTX #tcgen05-tensor-memory-ld-st-access-restrictions)")

TCGEN_RULE_ENUM(QuarterRule, TCGEN_LANE_QUARTER_RULES);
TCGEN_RULE_LOOKUPS(QuarterRule, TCGEN_LANE_QUARTER_RULES)

// Whether `lanes` lanes from lane `first` stay inside lane quarter `quarter`.
constexpr TCGEN_HD QuarterRule check_quarter(int quarter, int first, int lanes) {
  if (quarter < 0 || quarter > 3) return QuarterRule::quarter;
  if (first < 32 * quarter || first + lanes > 32 * quarter + 32) return QuarterRule::lanes;
  return QuarterRule::ok;
}

// The lane offset 32·Quarter + Lane at which a warp of quarter Quarter issues
// access A, refused at compile time if A's lanes would leave the quarter.
template <int Quarter, int Lane, layout::TmemAccess A>
consteval std::uint32_t quarter_lane() {
  constexpr QuarterRule rule = check_quarter(Quarter, 32 * Quarter + Lane, static_cast<int>(layout::access_lanes(A.shape)));
  TCGEN_RULE_ASSERTS(QuarterRule, TCGEN_LANE_QUARTER_RULES, rule);
  return 32 * Quarter + Lane;
}

#if defined(__CUDACC__)
// The calling thread's warp, counted over the CTA's linear thread index
// (a warpgroup is four consecutive warps, the first a multiple of 4).
__device__ inline unsigned warp_index() {
  const unsigned linear = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
  return linear / 32;
}

// Built with TCGEN_DEVICE_CHECKS: traps unless the whole warp issues the
// access (.sync.aligned), with one taddr, inside its lane quarter and the 512
// columns (PTX #tcgen05-tensor-memory-ld-st-access-restrictions,
// #tcgen05-instructions-tcgen05-ld: "all the threads in the warp must specify
// the same value of taddr").
__device__ inline void check_warp_access(TmemAddress taddr, int lanes, int columns, const char* instruction) {
#if defined(TCGEN_DEVICE_CHECKS)
  const unsigned warp = warp_index(), thread = threadIdx.x % 32, active = __activemask();
  if (active != 0xFFFFFFFFu) {
    std::printf("tcgen: %s issued by part of warp %u (active mask 0x%08x, thread %u): the whole warp must issue it (.sync.aligned)\n",
                instruction, warp, active, thread);
    __trap();
  }
  const std::uint32_t first = __shfl_sync(0xFFFFFFFFu, taddr.raw(), 0);
  if (first != taddr.raw()) {
    std::printf("tcgen: %s in warp %u: thread %u has taddr 0x%08x, thread 0 has 0x%08x; every thread must pass the same taddr\n",
                instruction, warp, thread, taddr.raw(), first);
    __trap();
  }
  const int quarter = static_cast<int>(warp % 4);
  if (check_quarter(quarter, static_cast<int>(taddr.lane()), lanes) != QuarterRule::ok) {
    if (thread == 0)
      std::printf("tcgen: %s by warp %u at taddr 0x%08x (lane %u, column %u) touches lanes %u-%u, outside the warp's "
                  "lane quarter %d-%d (warp id %% 4 = %d; PTX #tcgen05-tensor-memory-ld-st-access-restrictions)\n",
                  instruction, warp, taddr.raw(), taddr.lane(), taddr.column(), taddr.lane(), taddr.lane() + lanes - 1,
                  32 * quarter, 32 * quarter + 31, quarter);
    __trap();
  }
  if (taddr.column() + columns > 512) {
    if (thread == 0)
      std::printf("tcgen: %s by warp %u at taddr 0x%08x (lane %u, column %u) touches columns %u-%u, past the 512 "
                  "columns of Tensor Memory\n",
                  instruction, warp, taddr.raw(), taddr.lane(), taddr.column(), taddr.column(),
                  taddr.column() + columns - 1);
    __trap();
  }
#else
  (void)taddr;
  (void)lanes;
  (void)columns;
  (void)instruction;
#endif
}
#endif

}  // namespace tcgen::tmem
