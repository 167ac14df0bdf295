#pragma once
// The GEMM on any backend (tcgen/exec/backend.hpp), D written to the memory
// the problem points to. On the host model (exec::HostArch) every tcgen05,
// mbarrier and TMA rule is checked, and the CTAs of the persistent grid run on
// LaunchOptions::threads OS threads at once (exec/unit_pool.hpp), with the same
// result on any number; through the PTX interpreter (include
// tcgen/ptx/backend.hpp) what runs is the kernel's PTX, whose module must hold
// the instantiation for C:
//
//   gemm::Problem p{...};
//   gemm::run<gemm::Config{.ab = ElementType::fp16, .d = ElementType::bf16}>(p, {}, exec::HostModel{});
//   gemm::run<gemm::Config{}>(p, {}, ptx::Interpreter{ptx::Module::load(TCGEN_GEMM_PTX)});
//
// Errors: tcgen::Error for a problem the config cannot run (problem.hpp), a
// model::ModelError, exec::ConvergenceError or exec::DeadlockError for a
// broken rule of the kernel (through the PTX interpreter: ptx::ExecutionError,
// naming the PTX line and the CUDA source line it came from).
#include <cstdint>
#include <vector>

#include "tcgen/exec/backend.hpp"
#include "tcgen/exec/host_launcher.hpp"
#include "tcgen/exec/launchable.hpp"
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

// One launch of Gemm<C> over the problem, for any backend's launcher.
template <Config C>
struct GemmLaunch {
  using Kernel = Gemm<C>;
  const Problem& p;
  Options options;

  template <class Face, class Encode>
  auto params(Encode&& encode) const {
    return Kernel::template params<Face>(p, encode);
  }
  exec::Dim3 grid() const { return {Kernel::grid(p.m, p.n, options.ctas), 1, 1}; }
  exec::Dim3 cluster() const { return {static_cast<unsigned>(Kernel::kClusterCtas), 1, 1}; }
  std::vector<exec::Buffer> buffers() const {
    const std::uint64_t d_bytes = (static_cast<std::uint64_t>(p.m - 1) * p.ldd + p.n) * bits(C.d) / 8;
    const std::uint64_t c_bytes = p.c ? (static_cast<std::uint64_t>(p.m - 1) * p.ldc + p.n) * bits(C.d) / 8 : 0;
    return {{p.a, a_bytes(p, C), "A"}, {p.b, b_bytes(p, C), "B"}, {p.c, c_bytes, "C"}, {p.d, d_bytes, "D", true}};
  }
};

// The backend's launcher (launch(backend, l), tcgen/exec/backend.hpp) is found by its type.
template <Config C, class Backend>
  requires requires(const Backend& b, const GemmLaunch<C>& l) { launch(b, l); }
exec::RunStats run(const Problem& p, const Options& options, const Backend& backend) {
  return launch(backend, GemmLaunch<C>{p, options});
}

}  // namespace tcgen::gemm
