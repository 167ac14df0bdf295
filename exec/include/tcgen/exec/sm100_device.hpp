#pragma once
// Whether this machine can run the sm_100a kernels, for host code that is not
// compiled by nvcc (the CLI's --backend sm100). Defined in src/sm100_device.cu,
// built (target tcgen_exec_sm100) only where nvcc is found.
#include <string>

namespace tcgen::exec {

// "" when device 0 is an sm_100 GPU (B200, GB200); else what was found,
// e.g. "device 0 is NVIDIA H200 (sm_90)" or "found no CUDA device (…)".
std::string sm100_unavailable();

}  // namespace tcgen::exec
