#include "tcgen/attention/fmha_host.hpp"

#include "tcgen/attention/fmha_kernel.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/exec/launch.hpp"

namespace tcgen::attention {

FmhaOutput run_fmha_host(const FmhaProblem& pr, std::span<const std::uint16_t> q, std::span<const std::uint16_t> k,
                         std::span<const std::uint16_t> v, const exec::LaunchOptions& options) {
  pr.validate();
  pr.check_sizes(q.size(), k.size(), v.size());
  const auto bytes = [](std::span<const std::uint16_t> s) {
    return std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size_bytes());
  };
  FmhaOutput out{std::vector<std::uint16_t>(pr.q_elements()), std::vector<float>(pr.lse_elements())};
  visit_fmha(pr, [&]<class F>() {
    typename F::template Params<exec::HostArch> p;
    p.q = exec::host_tensor_map(F::q_map(pr), bytes(q));
    p.k = exec::host_tensor_map(F::k_map(pr), bytes(k));
    p.v = exec::host_tensor_map(F::v_map(pr), bytes(v));
    p.problem = pr;
    p.o = out.o.data();
    p.lse = out.lse.data();
    exec::host::launch(F::grid(pr), F::kThreads, F::kSmemBytes, [&](exec::HostArch& a) { F::run(a, p); }, options);
  });
  return out;
}

}  // namespace tcgen::attention
