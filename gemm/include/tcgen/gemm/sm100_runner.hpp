#pragma once
// The GEMM on an sm_100 GPU for host code that is not compiled by nvcc (the
// tcgen CLI): the Sm100 backend's runner (tcgen/exec/backend.hpp), declared
// here and defined in src/sm100_runner.cu, which is built (target
// tcgen_gemm_sm100) only where nvcc is found, for the configs below. Code
// compiled by nvcc launches any config itself (device_gemm.hpp).
#include "tcgen/core/element_type.hpp"
#include "tcgen/exec/backend.hpp"
#include "tcgen/gemm/config.hpp"
#include "tcgen/gemm/run.hpp"
#include "tcgen/gemm/problem.hpp"

namespace tcgen::gemm {

// The configs src/sm100_runner.cu compiles: A and B K-major, bf16 or fp16, f32 D, tile 128×256, 4 stages,
// on one CTA or a CTA pair (bf16 only) per tile.
constexpr bool compiled_for_sm100(const Config& c) {
  return c == Config{.ab = ElementType::bf16} || c == Config{.ab = ElementType::fp16} ||
         c == Config{.ab = ElementType::bf16, .cta_group = 2};
}

// D = A·Bᵀ (+ C) for a problem in host memory: copies A, B (and C) to the
// GPU, runs the kernel once to warm up and once timed (CUDA events),
// copies D back. options.ctas 0 means one CTA per SM. Throws tcgen::Error
// for a problem the kernel cannot run, naming "backend" where device 0 is
// not an sm_100 GPU, or a CUDA error.
template <Config C>
  requires(compiled_for_sm100(C))
exec::RunStats run(const Problem& host, const Options& options, const exec::Sm100& backend);

}  // namespace tcgen::gemm
