#pragma once
// The sparse decode kernel (sparse_decode_kernel.hpp), and the combine step
// where the problem's keys are split (sparse_decode_combine.hpp), on the host
// model (exec::HostArch, every tcgen05, mbarrier and TMA rule checked) or
// through its sm_100a PTX on the PTX interpreter: one launch over the whole
// problem, grid (splits, heads / 64, batch · s_q), then one of the combine.
//
//   const SparseDecodeRun r = attention::run(problem, q, exec::HostModel{});
//
// q: [batch, s_q, heads, 512] bf16 bit patterns. Errors: tcgen::Error for a
// bad problem (SparseDecodeProblem::validate) or q of the wrong size; a
// model::ModelError, exec::ConvergenceError or exec::DeadlockError for a
// broken rule of the kernel.
#include <cstdint>
#include <span>

#include "tcgen/attention/sparse_decode_problem.hpp"
#include "tcgen/exec/backend.hpp"
#include "tcgen/ptx/backend.hpp"

namespace tcgen::attention {

SparseDecodeRun run(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q, const exec::HostModel& backend);
SparseDecodeRun run(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q, const ptx::Interpreter& backend);

}  // namespace tcgen::attention
