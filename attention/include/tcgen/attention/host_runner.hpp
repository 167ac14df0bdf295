#pragma once
// The FMHA kernel (fmha_kernel.hpp) on the host model (exec::HostArch), every
// tcgen05, mbarrier and TMA rule checked: one launch over the whole problem,
// grid (Q tile pairs, heads, batch) as on a B200. The runners of every
// backend share one name and shape (tcgen/exec/backend.hpp):
//
//   const FmhaRun r = attention::run(problem, inputs.operands(), {}, exec::HostModel{});
//
// O comes back in problem.dtype, LSE as float (natural log).
// Errors: tcgen::Error for a bad problem or array size (naming the field); a
// model::ModelError, exec::ConvergenceError or exec::DeadlockError for a
// broken rule of the kernel.
#include "tcgen/attention/fmha_problem.hpp"
#include "tcgen/exec/backend.hpp"

namespace tcgen::attention {

FmhaRun run(const CheckedFmhaProblem& problem, const FmhaOperands& operands, const FmhaOptions& options,
            const exec::HostModel& backend);

}  // namespace tcgen::attention
