#pragma once
// Where a grid's clusters run: CTAs per SM from threads and shared memory,
// clusters on groups of SMs (one CTA per SM), handed out in the grid's order
// to the slots as the hardware's block scheduler fills an empty GPU; a
// group's next cluster starts when one of its slots frees. A timing sample
// keeps the clusters of a few groups, spread over the chip so that the group
// given the most clusters (group 0) is among them.
#include <cstdint>
#include <vector>

#include "tcgen/timing/machine.hpp"

namespace tcgen::timing {

struct Placement {
  int ctas_per_sm = 1;             // occupancy, registers not counted (the PTX does not give ptxas's count)
  std::uint64_t groups = 1;        // SM groups of one cluster's size
  std::uint64_t clusters = 1;      // in the grid
  std::uint64_t group_of(std::uint64_t cluster) const { return cluster % (groups * ctas_per_sm) % groups; }
  // The groups a sample of `sms` SMs keeps (all when sms covers the chip or the grid).
  std::vector<std::uint64_t> sampled_groups(int sms, int cluster_size) const;
};

// Throws tcgen::Error when a CTA does not fit on an SM.
Placement place(const Machine& m, std::uint64_t clusters, int cluster_size, std::uint32_t threads,
                std::uint32_t smem_bytes);

}  // namespace tcgen::timing
