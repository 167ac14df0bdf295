#pragma once
// The replay: each sampled SM group runs its clusters' warps over the B200's
// units, event by event in time order. A warp's instructions take issue slots
// of its scheduler and the MUFU, shared memory and L2 time they need; its
// tcgen05.mma go through the SM's tensor pipe, its TMA copies through the
// SM's TMA unit; a wait lasts until every record that completes the phase
// it waits for has happened. The grid's time is the last group's, or the
// time HBM needs for the distinct bytes, whichever is longer.
#include <cstdint>
#include <string>
#include <vector>

#include "tcgen/timing/machine.hpp"
#include "tcgen/timing/placement.hpp"
#include "tcgen/timing/prediction.hpp"
#include "tcgen/timing/trace.hpp"

namespace tcgen::timing {

// A span on the timeline: what ran on which track of which SM, in cycles.
struct Span {
  std::uint32_t sm;       // SM of the first sampled group (0, 1, ... up to the cluster size)
  std::string track;      // "warp 3", "tensor pipe", "TMA"
  std::string name;       // "wait mbarrier 0x30", "mma", "TMA load 32768 B"
  double start, cycles;
};

Prediction simulate(const LaunchTrace& trace, const Placement& placement, const Machine& m,
                    std::vector<Span>* timeline = nullptr);

}  // namespace tcgen::timing
