#pragma once
// Running a kernel on the host, as a launch <<<grid, block_threads, smem_bytes>>>
// would on a GPU:
//
//   exec::host::launch({2, 1, 1}, 192, Kernel::smem_bytes,
//                      [&](exec::HostArch& a) { kernel_body(a, params); });
//
// The clusters of CTAs (one CTA each unless `cluster` says more) run on
// LaunchOptions::threads OS threads at once (unit_pool.hpp), handed out x
// fastest, each as its own ClusterRuntime (the fibers of its CTAs over fresh
// model::Ctas). The first error (by cluster index) stops the launch and is rethrown: a ModelError, ConvergenceError, DeadlockError
// (errors.hpp) or a tcgen::Error naming the argument. Global memory is the
// host memory the kernel's parameters point to.
#include <cstdint>
#include <functional>

#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/host_arch.hpp"
#include "tcgen/exec/launch_options.hpp"

namespace tcgen::exec::host {

// block_threads: a multiple of 32 up to 1024. smem_bytes: the kernel's
// dynamic shared memory, from HostArch::smem_base(). cluster: CTAs per
// cluster in each dimension, each dividing the grid's, 16 CTAs at most
// (sm_100's non-portable maximum; 8 is portable). With a shuffle seed,
// cluster i of the grid (in launch order) runs with seed + i.
void launch(Dim3 grid, unsigned block_threads, std::uint32_t smem_bytes,
            const std::function<void(HostArch&)>& kernel, const LaunchOptions& options = {},
            Dim3 cluster = {1, 1, 1});

// The checks of a launch's cluster shape: throws tcgen::Error naming "cluster".
void check_cluster(Dim3 grid, Dim3 cluster);

}  // namespace tcgen::exec::host
