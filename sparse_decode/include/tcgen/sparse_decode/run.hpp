#pragma once
// The sparse decode kernel (kernel.hpp), and the combine step where the
// problem's keys are split (combine.hpp), on any backend
// (tcgen/exec/backend.hpp): the host model (exec::HostArch, every
// tcgen05, mbarrier and TMA rule checked) or, including
// tcgen/ptx/backend.hpp, its sm_100a PTX on the PTX interpreter: one launch
// over the whole problem, grid (splits, heads / 64, batch · s_q), then one of
// the combine.
//
//   const SparseDecodeRun r = sparse_decode::run(problem, q, exec::HostModel{});
//
// q: [batch, s_q, heads, 512] bf16 bit patterns. Errors: tcgen::Error for a
// bad problem (SparseDecodeProblem::validate) or q of the wrong size; a
// model::ModelError, exec::ConvergenceError or exec::DeadlockError for a
// broken rule of the kernel (through the PTX interpreter: ptx::ExecutionError).
#include <cstdint>
#include <span>
#include <vector>

#include "tcgen/exec/backend.hpp"
#include "tcgen/exec/host_launcher.hpp"
#include "tcgen/exec/launchable.hpp"
#include "tcgen/sparse_decode/combine.hpp"
#include "tcgen/sparse_decode/kernel.hpp"
#include "tcgen/sparse_decode/problem.hpp"

namespace tcgen::sparse_decode {

// The outputs and the split workspace of one run, and where the kernels find every array.
struct SparseDecodeArrays {
  SparseDecodeRun run;
  std::vector<float> o_split, lse_split;
  SparseDecodeBuffers at;
  std::vector<exec::Buffer> memory;  // every array, named, as the kernels may touch them

  // Validates the problem and q's size.
  SparseDecodeArrays(const SparseDecodeProblem& p, std::span<const std::uint16_t> q);
};

// The decode kernel's launch over the problem.
struct SparseDecodeLaunch {
  using Kernel = SparseDecode;
  const SparseDecodeProblem& problem;
  const SparseDecodeArrays& x;

  template <class Face, class Encode>
  auto params(Encode&& encode) const {
    return SparseDecode::params<Face>(problem, encode, x.at);
  }
  exec::Dim3 grid() const { return SparseDecode::grid(problem); }
  exec::Dim3 cluster() const { return {1, 1, 1}; }
  std::vector<exec::Buffer> buffers() const { return x.memory; }
};

// The combine step's launch: the splits' O and LSE into the problem's.
struct SparseDecodeCombineLaunch {
  using Kernel = SparseDecodeCombine;
  const SparseDecodeProblem& problem;
  const SparseDecodeArrays& x;

  template <class Face, class Encode>
  SparseDecodeCombine::Params params(Encode&&) const {
    return {x.at.o_split, x.at.lse_split, x.run.splits, problem.heads, problem.rows(), x.at.sink, x.at.o, x.at.lse};
  }
  exec::Dim3 grid() const { return SparseDecodeCombine::grid(problem.rows()); }
  exec::Dim3 cluster() const { return {1, 1, 1}; }
  std::vector<exec::Buffer> buffers() const { return x.memory; }
};

// The backend's launcher (launch(backend, l), tcgen/exec/backend.hpp) is found by its type.
template <class Backend>
SparseDecodeRun run(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q, const Backend& backend) {
  SparseDecodeArrays x(problem, q);
  x.run.stats = launch(backend, SparseDecodeLaunch{problem, x});
  if (x.run.splits > 1) x.run.stats += launch(backend, SparseDecodeCombineLaunch{problem, x});
  return std::move(x.run);
}

// The host model's instantiation is compiled once, in the library.
extern template SparseDecodeRun run(const SparseDecodeProblem&, std::span<const std::uint16_t>, const exec::HostModel&);

}  // namespace tcgen::sparse_decode
