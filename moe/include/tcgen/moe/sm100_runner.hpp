#pragma once
// The grouped GEMM on an sm_100 GPU for host code that is not compiled by
// nvcc (the tcgen CLI): the Sm100 backend's runner (tcgen/exec/backend.hpp),
// defined in src/sm100_runner.cu, which is built (target tcgen_moe_sm100)
// only where nvcc is found, for the configs of src/moe_kernels.cu.
#include "tcgen/exec/backend.hpp"
#include "tcgen/moe/config.hpp"
#include "tcgen/moe/problem.hpp"
#include "tcgen/moe/run.hpp"

namespace tcgen::moe {

constexpr bool compiled_for_sm100(const Config& c) { return c == Config{} || c == Config{.swiglu = true}; }

// D for a problem in host memory: copies the arrays (counts included) to the
// GPU, runs the kernel once to warm up and once timed (CUDA events), copies D
// back. Throws tcgen::Error for a problem the kernel cannot run, naming
// "backend" where device 0 is not an sm_100 GPU, or a CUDA error.
template <Config C>
  requires(compiled_for_sm100(C))
exec::RunStats run(const Problem& host, const Options& options, const exec::Sm100& backend);

}  // namespace tcgen::moe
