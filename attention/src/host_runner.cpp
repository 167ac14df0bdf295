#include "tcgen/attention/host_runner.hpp"

#include <chrono>

#include "tcgen/attention/fmha_kernel.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/exec/launch.hpp"

namespace tcgen::attention {

FmhaRun run(const CheckedFmhaProblem& problem, const FmhaOperands& in, const FmhaOptions& options,
            const exec::HostModel& backend) {
  const FmhaProblem& pr = problem;
  pr.check_sizes(in.q.size(), in.k.size(), in.v.size());
  FmhaRun r{{std::vector<std::uint16_t>(pr.q_elements()), std::vector<float>(pr.lse_elements())}, {}};
  const auto start = std::chrono::steady_clock::now();
  visit_fmha(problem, [&]<class F>() {
    const auto p = F::template params<exec::HostArch>(problem, options, exec::host_tensor_map_of, in.q.data(), in.k.data(),
                                                      in.v.data(), r.out.o.data(), r.out.lse.data());
    exec::host::launch(F::grid(pr), F::kThreads, F::kSmemBytes, [&](exec::HostArch& a) { F::run(a, p); },
                       backend.launch);
  });
  r.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace tcgen::attention
