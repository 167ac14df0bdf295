#pragma once
// The FMHA on a B200 for host code that is not compiled by nvcc (the tcgen
// CLI): plain declarations, defined in src/sm100_runner.cu, which is built
// (target tcgen_attention_sm100) only where nvcc is found.
#include <cstdint>
#include <span>

#include "tcgen/attention/fmha_problem.hpp"

namespace tcgen::attention::sm100 {

// The whole problem in one launch_fmha_device (device_fmha.hpp) on device 0:
// copies Q, K, V (bit patterns of problem.dtype) to the GPU, runs the kernel
// once, timed by CUDA events, and copies O and LSE back. `seconds`, when
// given, gets the kernel's time. Throws tcgen::Error for a bad problem or
// array size, a missing sm_100 GPU (exec::sm100_unavailable()) or a CUDA error.
FmhaOutput run(const CheckedFmhaProblem& problem, std::span<const std::uint16_t> q, std::span<const std::uint16_t> k,
               std::span<const std::uint16_t> v, double* seconds = nullptr, const FmhaOptions& options = {});

}  // namespace tcgen::attention::sm100
