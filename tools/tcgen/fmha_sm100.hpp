#pragma once
// `tcgen fmha --backend sm100`: the FMHA kernel on a B200 for the CLI, which
// is plain C++. Defined in fmha_sm100.cu (target tcgen_fmha_sm100, built only
// where nvcc is found; the CLI then has TCGEN_FMHA_SM100 defined).
#include <cstdint>
#include <span>
#include <string>

#include "tcgen/attention/fmha_host.hpp"
#include "tcgen/attention/fmha_problem.hpp"

namespace tcgen::cli {

// "" when device 0 is an sm_100 GPU; else "no sm_100 GPU (found: ...)".
std::string fmha_sm100_unavailable();

// The whole problem in one launch_fmha_device (device_fmha.hpp) on device 0:
// copies Q, K, V (bit patterns of problem.dtype) to the GPU, runs the kernel,
// copies O and LSE back into `out`. Returns false with a sentence in `why`
// where there is no sm_100 GPU; throws std::runtime_error on a CUDA error and
// tcgen::Error for a bad problem or array size. `seconds`, when given, gets
// the kernel's time (CUDA events).
bool run_fmha_sm100(const attention::FmhaProblem& problem, std::span<const std::uint16_t> q,
                    std::span<const std::uint16_t> k, std::span<const std::uint16_t> v,
                    attention::FmhaOutput& out, std::string& why, double* seconds = nullptr);

}  // namespace tcgen::cli
