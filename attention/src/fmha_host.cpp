#include "tcgen/attention/fmha_host.hpp"

#include <string>

#include "tcgen/attention/fmha_kernel.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/exec/launch.hpp"

namespace tcgen::attention {
namespace {

std::span<const std::uint8_t> bytes(std::span<const std::uint16_t> s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size_bytes()};
}

template <ElementType E, int D>
void run(const FmhaProblem& pr, std::span<const std::uint16_t> q, std::span<const std::uint16_t> k,
         std::span<const std::uint16_t> v, FmhaOutput& out, const exec::LaunchOptions& options) {
  using F = Fmha<E, D>;
  typename F::template Params<exec::HostArch> p;
  p.q = exec::host_tensor_map(F::q_map(pr), bytes(q));
  p.k = exec::host_tensor_map(F::k_map(pr), bytes(k));
  p.v = exec::host_tensor_map(F::v_map(pr), bytes(v));
  p.problem = pr;
  p.o = out.o.data();
  p.lse = out.lse.data();
  exec::host::launch(F::grid(pr), F::kThreads, F::kSmemBytes, [&](exec::HostArch& a) { F::run(a, p); }, options);
}

template <ElementType E>
void run_dtype(const FmhaProblem& pr, std::span<const std::uint16_t> q, std::span<const std::uint16_t> k,
               std::span<const std::uint16_t> v, FmhaOutput& out, const exec::LaunchOptions& options) {
  switch (pr.head_dim) {
    case 64: return run<E, 64>(pr, q, k, v, out, options);
    case 128: return run<E, 128>(pr, q, k, v, out, options);
    default: return run<E, 256>(pr, q, k, v, out, options);  // validate() admits 64, 128 and 256
  }
}

}  // namespace

FmhaOutput run_fmha_host(const FmhaProblem& pr, std::span<const std::uint16_t> q, std::span<const std::uint16_t> k,
                         std::span<const std::uint16_t> v, const exec::LaunchOptions& options) {
  pr.validate();
  const auto count = [](std::span<const std::uint16_t> s) { return std::to_string(s.size()) + " elements"; };
  if (q.size() != pr.q_elements()) fail("q", count(q), "batch x heads x seq_q x head_dim = " + std::to_string(pr.q_elements()));
  if (k.size() != pr.kv_elements()) fail("k", count(k), "batch x heads_kv x seq_k x head_dim = " + std::to_string(pr.kv_elements()));
  if (v.size() != pr.kv_elements()) fail("v", count(v), "batch x heads_kv x seq_k x head_dim = " + std::to_string(pr.kv_elements()));
  FmhaOutput out{std::vector<std::uint16_t>(pr.q_elements()), std::vector<float>(pr.lse_elements())};
  if (pr.dtype == ElementType::fp16) run_dtype<ElementType::fp16>(pr, q, k, v, out, options);
  else run_dtype<ElementType::bf16>(pr, q, k, v, out, options);
  return out;
}

}  // namespace tcgen::attention
