#pragma once
// The grouped GEMM on any backend (tcgen/exec/backend.hpp), D written to the
// memory the problem points to: the host model (exec::HostArch, every
// tcgen05, mbarrier and TMA rule checked) or, including tcgen/ptx/backend.hpp,
// the kernel's sm_100a PTX on the PTX interpreter:
//
//   moe::run<moe::Config{}>(problem, {}, exec::HostModel{});
//
// Errors: tcgen::Error for a problem the config cannot run (problem.hpp); a
// model::ModelError, exec::ConvergenceError or exec::DeadlockError for a
// broken rule of the kernel (through the PTX interpreter: ptx::ExecutionError).
#include <cstdint>
#include <vector>

#include "tcgen/exec/backend.hpp"
#include "tcgen/exec/host_launcher.hpp"
#include "tcgen/exec/launchable.hpp"
#include "tcgen/moe/kernel.hpp"
#include "tcgen/moe/problem.hpp"

namespace tcgen::moe {

struct Options {
  int ctas = 0;  // the persistent grid: 0 means at most a B200's 148 SMs
};

template <Config C>
struct MoeLaunch {
  using Kernel = GroupedGemm<C>;
  const Problem& p;
  Options options;

  template <class Face, class Encode>
  auto params(Encode&& encode) const {
    return Kernel::template params<Face>(p, encode);
  }
  exec::Dim3 grid() const { return {Kernel::grid(p.tokens, p.experts, p.n, options.ctas), 1, 1}; }
  exec::Dim3 cluster() const { return {1, 1, 1}; }
  std::vector<exec::Buffer> buffers() const {
    const std::uint64_t k = static_cast<std::uint64_t>(p.k), rows = static_cast<std::uint64_t>(p.experts) * p.n;
    const std::uint64_t d_bytes = (static_cast<std::uint64_t>(p.tokens - 1) * p.ldd + out_columns(p, C)) * 2;
    return {{p.counts, static_cast<std::uint64_t>(p.experts) * 4, "counts"},
            {p.a, static_cast<std::uint64_t>(p.tokens) * k, "A"},
            {p.scale_a, a_scale_bytes({p.counts, static_cast<std::size_t>(p.experts)}, p.k), "scale_A"},
            {p.w, rows * k / 2, "W"},
            {p.scale_w, w_scale_bytes(p.experts, p.n, p.k), "scale_W"},
            {p.d, d_bytes, "D", true}};
  }
};

template <Config C, class Backend>
  requires requires(const Backend& b, const MoeLaunch<C>& l) { launch(b, l); }
exec::RunStats run(const Problem& p, const Options& options, const Backend& backend) {
  check(p, C);
  return launch(backend, MoeLaunch<C>{p, options});
}

}  // namespace tcgen::moe
