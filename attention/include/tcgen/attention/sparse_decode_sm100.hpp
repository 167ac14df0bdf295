#pragma once
// The sparse decode kernel on an sm_100 GPU for host code that is not
// compiled by nvcc (the tcgen CLI): the Sm100 backend's runner, defined in
// src/sparse_decode_sm100.cu, built (target tcgen_attention_sm100) only where
// nvcc is found.
#include <cstdint>
#include <span>

#include "tcgen/attention/sparse_decode_problem.hpp"
#include "tcgen/exec/backend.hpp"

namespace tcgen::attention {

// The whole problem on device 0 (launch_sparse_decode_device,
// device_sparse_decode.hpp): copies Q, the caches and the index lists to the
// GPU, runs the kernel (and the combine step) once, timed by CUDA events, and
// copies O and LSE back. Throws tcgen::Error for a bad problem, naming
// "backend" where device 0 is not an sm_100 GPU, or a CUDA error.
SparseDecodeRun run(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q, const exec::Sm100& backend);

}  // namespace tcgen::attention
