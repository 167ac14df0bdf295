#pragma once
// The FMHA kernel (kernel.hpp) on any backend (tcgen/exec/backend.hpp):
// one launch over the whole problem, grid (Q tile pairs, heads, batch) as on a
// B200. On the host model (exec::HostArch) every tcgen05, mbarrier and TMA rule
// is checked; through the PTX interpreter (include tcgen/ptx/backend.hpp) what
// runs is the kernel's PTX (TCGEN_FMHA_PTX), DeviceArch's inline asm included.
//
//   const FmhaRun r = fmha::run(problem, inputs.operands(), {}, exec::HostModel{});
//   const FmhaRun s = fmha::run(problem, inputs.operands(), {}, ptx::Interpreter{module});
//
// O comes back in problem.dtype, LSE as float (natural log).
// Errors: tcgen::Error for a bad problem or array size (naming the field), or a
// module without the problem's instantiation; a model::ModelError,
// exec::ConvergenceError or exec::DeadlockError for a broken rule of the kernel
// (through the PTX interpreter: ptx::ExecutionError).
#include <vector>

#include "tcgen/exec/backend.hpp"
#include "tcgen/exec/host_launcher.hpp"
#include "tcgen/exec/launchable.hpp"
#include "tcgen/fmha/kernel.hpp"
#include "tcgen/fmha/problem.hpp"

namespace tcgen::fmha {

// One launch of the FMHA variant F over the problem, writing `out`.
template <class F>
struct FmhaLaunch {
  using Kernel = F;
  const CheckedFmhaProblem& problem;
  const FmhaOptions& options;
  const FmhaOperands& in;
  FmhaOutput& out;

  template <class Face, class Encode>
  auto params(Encode&& encode) const {
    return F::template params<Face>(problem, options, encode, in.q.data(), in.k.data(), in.v.data(), out.o.data(),
                                    out.lse.data());
  }
  exec::Dim3 grid() const { return F::grid(problem); }
  exec::Dim3 cluster() const { return {1, 1, 1}; }
  std::vector<exec::Buffer> buffers() const {
    return {{in.q.data(), in.q.size_bytes(), "Q"},
            {in.k.data(), in.k.size_bytes(), "K"},
            {in.v.data(), in.v.size_bytes(), "V"},
            {out.o.data(), out.o.size() * sizeof(std::uint16_t), "O", true},
            {out.lse.data(), out.lse.size() * sizeof(float), "LSE", true}};
  }
};

// The backend's launcher (launch(backend, l), tcgen/exec/backend.hpp) is found by its type.
template <class Backend>
FmhaRun run(const CheckedFmhaProblem& problem, const FmhaOperands& in, const FmhaOptions& options,
            const Backend& backend) {
  const FmhaProblem& pr = problem;
  pr.check_sizes(in.q.size(), in.k.size(), in.v.size());
  FmhaRun r{{std::vector<std::uint16_t>(pr.q_elements()), std::vector<float>(pr.lse_elements())}, {}};
  visit_fmha(problem, [&]<class F>() { r.stats = launch(backend, FmhaLaunch<F>{problem, options, in, r.out}); });
  return r;
}

// The host model's instantiation is compiled once, in the library.
extern template FmhaRun run(const CheckedFmhaProblem&, const FmhaOperands&, const FmhaOptions&,
                            const exec::HostModel&);

}  // namespace tcgen::fmha
