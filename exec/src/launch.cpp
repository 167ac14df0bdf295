#include "tcgen/exec/launch.hpp"

#include "tcgen/core/error.hpp"
#include "tcgen/exec/cluster_runtime.hpp"
#include "tcgen/exec/unit_pool.hpp"

namespace tcgen::exec::host {

void check_cluster(Dim3 grid, Dim3 cluster) {
  const auto shape = [](Dim3 d) { return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z); };
  if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0 || std::uint64_t{cluster.x} * cluster.y * cluster.z > 16)
    fail("cluster", shape(cluster),
         "1 to 16 CTAs per cluster (8 portable, 16 with the non-portable size; PTX #cluster-of-cooperative-thread-arrays)");
  if (grid.x % cluster.x != 0 || grid.y % cluster.y != 0 || grid.z % cluster.z != 0)
    fail("cluster", shape(cluster) + " for a grid of " + shape(grid),
         "a cluster shape that divides the grid in every dimension (CUDA: cudaErrorInvalidClusterSize otherwise)");
}

void launch(Dim3 grid, unsigned block_threads, std::uint32_t smem_bytes,
            const std::function<void(HostArch&)>& kernel, const LaunchOptions& options, Dim3 cluster) {
  if (grid.count() == 0) fail("grid", 0, "at least one CTA in each dimension");
  check_cluster(grid, cluster);
  const Dim3 clusters{grid.x / cluster.x, grid.y / cluster.y, grid.z / cluster.z};
  const std::uint64_t units = std::uint64_t{clusters.x} * clusters.y * clusters.z;
  UnitPool pool(units, options.threads);
  pool.run(
      [&](std::uint64_t index) {
        LaunchOptions unit_options = options;
        if (options.shuffle_seed) unit_options.shuffle_seed = *options.shuffle_seed + index;
        ClusterRuntime c(clusters.at(index), cluster, grid, static_cast<int>(block_threads), smem_bytes, unit_options,
                         &pool);
        c.run(kernel);
      },
      [&](std::uint64_t index) {
        if (options.progress) options.progress(index + 1, units);
      });
}

}  // namespace tcgen::exec::host
