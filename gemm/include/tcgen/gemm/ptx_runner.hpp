#pragma once
// The GEMM as PTX (nvcc -ptx of device_gemm.hpp's gemm_kernel<G>) run on the
// host model by the PTX interpreter: the counterpart of the host-model run
// (host_runner.hpp) that executes what a B200 would, DeviceArch's inline asm
// included. The module must hold the instantiation for C.
//
//   const ptx::Module m = ptx::Module::load(TCGEN_GEMM_PTX);
//   gemm::run<gemm::Config{}>(p, {}, ptx::Interpreter{m});
//
// Errors: as the host-model run, with a broken rule as ptx::ExecutionError
// (the PTX line and the CUDA source line it came from).
#include <chrono>
#include <cstdint>

#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/gemm/host_runner.hpp"
#include "tcgen/gemm/kernel.hpp"
#include "tcgen/gemm/problem.hpp"
#include "tcgen/ptx/backend.hpp"
#include "tcgen/ptx/device_layout.hpp"

namespace tcgen::gemm {

template <Config C>
exec::RunStats run(const Problem& p, const Options& options, const ptx::Interpreter& backend) {
  using G = Gemm<C>;
  const auto params = G::template params<ptx::DeviceLayout>(
      p, [](const tma::TensorMapSpec& spec, const void* tensor) { return ptx::encode_tensor_map(spec, tensor); });
  const std::uint64_t d_bytes = (static_cast<std::uint64_t>(p.m - 1) * p.ldd + p.n) * bits(C.d) / 8;
  const std::uint64_t c_bytes = p.c ? (static_cast<std::uint64_t>(p.m - 1) * p.ldc + p.n) * bits(C.d) / 8 : 0;
  const ptx::Allocation memory[] = {{p.a, a_bytes(p, C), "A"},
                                    {p.b, b_bytes(p, C), "B"},
                                    {p.c, c_bytes, "C"},
                                    {p.d, d_bytes, "D", true}};
  const ptx::Argument args[] = {ptx::argument(params)};
  const unsigned grid = G::grid(p.m, p.n, options.ctas);
  const ptx::Module& module = backend.module;
  const auto start = std::chrono::steady_clock::now();
  // As exec::device::launch: 1 KiB beyond the kernel's bytes for smem_base() to align.
  const ptx::LaunchStats stats =
      ptx::launch(module, module.entry_instance("tcgen::gemm::gemm_kernel", typeid(G)),
                  {.grid = {grid, 1, 1}, .block = {G::kThreads, 1, 1},
                   .cluster = {static_cast<unsigned>(G::kClusterCtas), 1, 1},
                   .dynamic_smem = G::kSmemBytes + exec::kSmemAlignment, .options = backend.launch, .strict = backend.strict},
                  args, memory);
  return ptx::run_stats(stats, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace tcgen::gemm
