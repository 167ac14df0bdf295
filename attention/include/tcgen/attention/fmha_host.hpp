#pragma once
// Running the FMHA kernel (fmha_kernel.hpp) on the host model
// (exec::HostArch): every tcgen05, mbarrier and TMA rule checked. One head:
// Q is seq_q × head_dim, K and V seq_k × head_dim, row-major bf16 bit
// patterns; O comes back as bf16 bit patterns, LSE as float (natural log).
//
// Errors: tcgen::Error for shapes this stage does not run; a
// model::ModelError, exec::ConvergenceError or exec::DeadlockError for a
// broken rule of the kernel.
#include <cstdint>
#include <span>
#include <vector>

#include "tcgen/attention/fmha_kernel.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/launch.hpp"

namespace tcgen::attention {

struct FmhaHostOutput {
  std::vector<std::uint16_t> o;  // seq_q × head_dim, bf16
  std::vector<float> lse;        // seq_q
};

template <int HeadDim>
FmhaHostOutput run_fmha_host(std::span<const std::uint16_t> q, std::span<const std::uint16_t> k,
                             std::span<const std::uint16_t> v, int seq_q, int seq_k, SoftmaxScale scale,
                             const exec::LaunchOptions& options = {}) {
  using F = Fmha<HeadDim>;
  if (seq_q <= 0 || seq_q % kFmhaBlockM != 0) fail("seq_q", seq_q, "expected a positive multiple of 128 (this stage)");
  if (seq_k <= 0) fail("seq_k", seq_k, "expected a positive key length");
  const auto n = [](int rows) { return static_cast<std::size_t>(rows) * HeadDim; };
  if (q.size() != n(seq_q)) fail("q", static_cast<std::int64_t>(q.size()), "expected seq_q x head_dim elements");
  if (k.size() != n(seq_k)) fail("k", static_cast<std::int64_t>(k.size()), "expected seq_k x head_dim elements");
  if (v.size() != n(seq_k)) fail("v", static_cast<std::int64_t>(v.size()), "expected seq_k x head_dim elements");
  const auto bytes = [](std::span<const std::uint16_t> s) {
    return std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size_bytes());
  };
  FmhaHostOutput out{std::vector<std::uint16_t>(n(seq_q)), std::vector<float>(static_cast<std::size_t>(seq_q))};
  typename F::template Params<exec::HostArch> params;
  const auto u = [](int x) { return static_cast<std::uint64_t>(x); };
  params.q = exec::host_tensor_map(F::Q::map(u(seq_q), HeadDim, HeadDim), bytes(q));
  params.k = exec::host_tensor_map(F::K::map(u(seq_k), HeadDim, HeadDim), bytes(k));
  params.v = exec::host_tensor_map(F::V::map(HeadDim, u(seq_k), HeadDim), bytes(v));
  params.seq_q = seq_q;
  params.seq_k = seq_k;
  params.scale = scale;
  params.o = out.o.data();
  params.lse = out.lse.data();
  exec::host::launch({static_cast<unsigned>(seq_q / kFmhaBlockM), 1, 1}, F::kThreads, F::kSmemBytes,
                     [&](exec::HostArch& arch) { F::run(arch, params); }, options);
  return out;
}

}  // namespace tcgen::attention
