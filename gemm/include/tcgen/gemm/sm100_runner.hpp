#pragma once
// The GEMM on a B200 for host code that is not compiled by nvcc (the tcgen
// CLI): plain declarations, defined in src/sm100_runner.cu, which is built
// (target tcgen_gemm_sm100) only where nvcc is found. The config is the
// CLI's: A and B K-major, f32 out, tile 128×256, 4 stages.
#include "tcgen/core/element_type.hpp"
#include "tcgen/gemm/problem.hpp"

namespace tcgen::gemm::sm100 {

// D = A·Bᵀ for a problem in host memory (ab: bf16 or fp16): copies A and B
// to the GPU, runs the kernel once to warm up and once timed, copies D
// back. Returns the timed run's seconds (CUDA events). Throws tcgen::Error
// for a problem the kernel cannot run, a missing GPU or a CUDA error.
double run(ElementType ab, const Problem& host);

}  // namespace tcgen::gemm::sm100
