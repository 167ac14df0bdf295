#pragma once
// Running the FMHA kernel (fmha_kernel.hpp) on the host model
// (exec::HostArch), every tcgen05, mbarrier and TMA rule checked: one launch
// over the whole problem, grid (Q tile pairs, heads, batch) as on a B200.
// Q, K, V are bit patterns of problem.dtype in the layouts of
// fmha_problem.hpp; O comes back in the same type, LSE as float (natural log).
//
// Errors: tcgen::Error for a bad problem or array size (naming the field); a
// model::ModelError, exec::ConvergenceError or exec::DeadlockError for a
// broken rule of the kernel.
#include <cstdint>
#include <span>

#include "tcgen/attention/fmha_problem.hpp"
#include "tcgen/exec/launch_options.hpp"

namespace tcgen::attention {

FmhaOutput run_fmha_host(const CheckedFmhaProblem& problem, std::span<const std::uint16_t> q,
                         std::span<const std::uint16_t> k, std::span<const std::uint16_t> v,
                         const exec::LaunchOptions& launch = {}, const FmhaOptions& options = {});

}  // namespace tcgen::attention
