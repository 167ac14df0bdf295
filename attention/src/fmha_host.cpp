#include "tcgen/attention/fmha_host.hpp"

#include "tcgen/attention/fmha_kernel.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/exec/launch.hpp"

namespace tcgen::attention {

FmhaOutput run_fmha_host(const CheckedFmhaProblem& problem, std::span<const std::uint16_t> q,
                         std::span<const std::uint16_t> k, std::span<const std::uint16_t> v,
                         const exec::LaunchOptions& launch, const FmhaOptions& options) {
  const FmhaProblem& pr = problem;
  pr.check_sizes(q.size(), k.size(), v.size());
  FmhaOutput out{std::vector<std::uint16_t>(pr.q_elements()), std::vector<float>(pr.lse_elements())};
  visit_fmha(problem, [&]<class F>() {
    const auto p = F::template params<exec::HostArch>(problem, options, exec::host_tensor_map_of, q.data(), k.data(), v.data(),
                                                      out.o.data(), out.lse.data());
    exec::host::launch(F::grid(pr), F::kThreads, F::kSmemBytes, [&](exec::HostArch& a) { F::run(a, p); }, launch);
  });
  return out;
}

}  // namespace tcgen::attention
