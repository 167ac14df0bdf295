#pragma once
// The GEMM configurations `tcgen gemm` runs on the host model: every
// combination of the options that choose a gemm::Config (A/B type, A and B
// major, D type), each an instantiation of gemm::run_host chosen at run time.
#include "tcgen/gemm/config.hpp"
#include "tcgen/gemm/problem.hpp"

namespace tcgen::cli {

// gemm::run_host<c>(p) for the one compiled config equal to `c`; a config
// outside the set is an internal error (the options admit only its members).
void run_host_gemm(const gemm::Config& c, const gemm::Problem& p);

}  // namespace tcgen::cli
