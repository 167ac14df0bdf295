#pragma once
// The FMHA kernel as PTX (nvcc -ptx of device_fmha.hpp's fmha_kernel<F>,
// built by the project: TCGEN_FMHA_PTX) run on the host model by the PTX
// interpreter: the same problem, inputs and checks as the host-model run
// (host_runner.hpp), but what executes is the code a B200 would run,
// DeviceArch's inline asm included; stats count what executed.
//
// Throws tcgen::Error for a bad problem or a module without the problem's
// instantiation, ptx::ExecutionError for a broken rule.
#include "tcgen/attention/fmha_problem.hpp"
#include "tcgen/ptx/backend.hpp"

namespace tcgen::attention {

FmhaRun run(const CheckedFmhaProblem& problem, const FmhaOperands& operands, const FmhaOptions& options,
            const ptx::Interpreter& backend);

}  // namespace tcgen::attention
