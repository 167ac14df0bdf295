#pragma once
// The FMHA on an sm_100 GPU for host code that is not compiled by nvcc (the
// tcgen CLI): the Sm100 backend's runner (tcgen/exec/backend.hpp), declared
// here and defined in src/sm100_runner.cu, which is built (target
// tcgen_fmha_sm100) only where nvcc is found.
#include "tcgen/exec/backend.hpp"
#include "tcgen/fmha/problem.hpp"

namespace tcgen::fmha {

// The whole problem in one launch_fmha_device (device_fmha.hpp) on device 0:
// copies Q, K, V to the GPU, runs the kernel once, timed by CUDA events, and
// copies O and LSE back. Throws tcgen::Error for a bad problem or array size,
// naming "backend" where device 0 is not an sm_100 GPU, or a CUDA error.
FmhaRun run(const CheckedFmhaProblem& problem, const FmhaOperands& operands, const FmhaOptions& options,
            const exec::Sm100& backend);

}  // namespace tcgen::fmha
