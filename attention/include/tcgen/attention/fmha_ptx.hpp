#pragma once
// The FMHA kernel as PTX (nvcc -ptx of device_fmha.hpp's fmha_kernel<F>,
// built by the project: TCGEN_FMHA_PTX) run on the host model by the PTX
// interpreter: the same problem, inputs and checks as run_fmha_host, but
// what executes is the code a B200 would run, DeviceArch's inline asm
// included.
#include <cstdint>
#include <span>

#include "tcgen/attention/fmha_problem.hpp"
#include "tcgen/exec/launch_options.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::attention {

// Throws tcgen::Error for a bad problem or a module without the problem's
// instantiation, ptx::ExecutionError for a broken rule. `stats`, when given,
// gets what the launch executed.
FmhaOutput run_fmha_ptx(const ptx::Module& module, const CheckedFmhaProblem& problem, std::span<const std::uint16_t> q,
                        std::span<const std::uint16_t> k, std::span<const std::uint16_t> v,
                        const exec::LaunchOptions& launch = {}, bool strict = false, ptx::LaunchStats* stats = nullptr,
                        const FmhaOptions& options = {});

}  // namespace tcgen::attention
