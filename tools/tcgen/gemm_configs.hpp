#pragma once
// The GEMM configurations `tcgen gemm` runs: every combination of the options
// that choose a gemm::Config (A/B type, A and B major, D type), each an
// instantiation of gemm::run<C> chosen at run time, on each backend. On an
// sm_100 GPU only the configs gemm::compiled_for_sm100 admits run.
#include "tcgen/exec/backend.hpp"
#include "tcgen/gemm/config.hpp"
#include "tcgen/gemm/problem.hpp"
#include "tcgen/ptx/backend.hpp"

namespace tcgen::cli {

// gemm::run<C>(p, {}, backend) for the one compiled config C equal to `c`; a
// config outside the set is an internal error (the options admit only its members).
exec::RunStats run_gemm(const gemm::Config& c, const gemm::Problem& p, const exec::HostModel& backend);
exec::RunStats run_gemm(const gemm::Config& c, const gemm::Problem& p, const ptx::Interpreter& backend);
#if defined(TCGEN_SM100)
exec::RunStats run_gemm(const gemm::Config& c, const gemm::Problem& p, const exec::Sm100& backend);
#endif

}  // namespace tcgen::cli
