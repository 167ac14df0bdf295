#include "tcgen/timing/placement.hpp"

#include <algorithm>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::timing {

Placement place(const Machine& m, std::uint64_t clusters, int cluster_size, std::uint32_t threads,
                std::uint32_t smem_bytes) {
  const std::uint32_t smem = smem_bytes + m.smem_reserved_per_cta;
  if (smem > m.smem_per_sm)
    fail("shared memory", std::to_string(smem_bytes) + " bytes per CTA",
         "at most " + std::to_string(m.smem_per_sm - m.smem_reserved_per_cta) + " to fit an SM");
  Placement p;
  p.ctas_per_sm = std::max(1, std::min({m.ctas_per_sm, m.threads_per_sm / static_cast<int>(std::max(threads, 1u)),
                                        static_cast<int>(m.smem_per_sm / smem)}));
  p.groups = std::max(1, m.sms / std::max(1, cluster_size));
  p.clusters = clusters;
  return p;
}

std::vector<std::uint64_t> Placement::sampled_groups(int sms, int cluster_size) const {
  const std::uint64_t used = std::min<std::uint64_t>(groups, clusters);  // groups that get a cluster
  const std::uint64_t want = sms <= 0 ? used : std::min<std::uint64_t>(used, std::max(1, sms / std::max(1, cluster_size)));
  std::vector<std::uint64_t> g;
  for (std::uint64_t i = 0; i < want; ++i) g.push_back(i * used / want);
  return g;
}

}  // namespace tcgen::timing
