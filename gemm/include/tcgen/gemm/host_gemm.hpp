#pragma once
// Running the GEMM kernel on the host model (exec::HostArch): every
// tcgen05, mbarrier and TMA rule checked, D written to the host memory the
// problem points to. The CTAs of the persistent grid run one after another.
//
//   gemm::Problem p{...};
//   gemm::run_host<gemm::Config{.ab = ElementType::fp16, .d = ElementType::bf16}>(p);
//
// Errors: tcgen::Error for a problem the config cannot run (problem.hpp), a
// model::ModelError, exec::ConvergenceError or exec::DeadlockError for a
// broken rule of the kernel.
#include <algorithm>
#include <span>

#include "tcgen/exec/launch.hpp"
#include "tcgen/gemm/kernel.hpp"
#include "tcgen/gemm/problem.hpp"

namespace tcgen::gemm {

struct HostRun {
  int ctas = 0;  // the persistent grid: 0 means one CTA per tile, at most kDefaultCtas
  exec::LaunchOptions options;
  static constexpr int kDefaultCtas = 148;  // a B200's SMs
};

// The grid a run uses: one CTA per tile, at most `ctas` (kDefaultCtas when 0).
inline int grid_ctas(int tiles, int ctas) { return std::min(tiles, ctas > 0 ? ctas : HostRun::kDefaultCtas); }

template <Config C>
void run_host(const Problem& p, const HostRun& run = {}) {
  using G = Gemm<C>;
  const auto params = G::template params<exec::HostArch>(p, exec::host_tensor_map_of);
  const Schedule schedule(p.m, p.n, G::kTileM, G::kTileN);
  const unsigned grid = static_cast<unsigned>(grid_ctas(schedule.tiles(), run.ctas));
  exec::host::launch({grid, 1, 1}, G::kThreads, G::kSmemBytes, [&](exec::HostArch& arch) { G::run(arch, params); },
                     run.options);
}

}  // namespace tcgen::gemm
