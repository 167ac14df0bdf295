#pragma once
// The GEMM on the host model (exec::HostArch): every tcgen05, mbarrier and
// TMA rule checked, D written to the host memory the problem points to. The
// CTAs of the persistent grid run on LaunchOptions::threads OS threads at once
// (exec/unit_pool.hpp), with the same result on any number. The runners of every
// backend share one name and shape (tcgen/exec/backend.hpp):
//
//   gemm::Problem p{...};
//   gemm::run<gemm::Config{.ab = ElementType::fp16, .d = ElementType::bf16}>(p, {}, exec::HostModel{});
//
// Errors: tcgen::Error for a problem the config cannot run (problem.hpp), a
// model::ModelError, exec::ConvergenceError or exec::DeadlockError for a
// broken rule of the kernel.
#include <algorithm>
#include <chrono>

#include "tcgen/exec/backend.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/gemm/kernel.hpp"
#include "tcgen/gemm/problem.hpp"

namespace tcgen::gemm {

// The kernel's choices beside its Config, on every backend.
struct Options {
  // The persistent grid: 0 means one CTA per tile, at most kDefaultCtas. A
  // CTA pair's grid is a cluster per tile whatever this says: its running
  // clusters take the others' tiles through clusterlaunchcontrol.
  int ctas = 0;
  static constexpr int kDefaultCtas = 148;  // a B200's SMs
};

static_assert(grid_ctas(1000, 0) == Options::kDefaultCtas, "grid_ctas's default is a B200's SMs");

template <Config C>
exec::RunStats run(const Problem& p, const Options& options, const exec::HostModel& backend) {
  using G = Gemm<C>;
  const auto params = G::template params<exec::HostArch>(p, exec::host_tensor_map_of);
  const unsigned grid = G::grid(p.m, p.n, options.ctas);
  const auto start = std::chrono::steady_clock::now();
  exec::host::launch({grid, 1, 1}, G::kThreads, G::kSmemBytes, [&](exec::HostArch& arch) { G::run(arch, params); },
                     backend.launch, {static_cast<unsigned>(G::kClusterCtas), 1, 1});
  exec::RunStats stats;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace tcgen::gemm
