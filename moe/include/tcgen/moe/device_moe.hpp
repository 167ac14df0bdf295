#pragma once
// Running the grouped GEMM on sm_100a: the __global__ entry (one line around
// GroupedGemm<C>::run with exec::DeviceArch), the tensor maps the driver
// encodes from the same specs the host model reads, and the launch of a
// persistent grid. The host-model and PTX counterpart is run.hpp.
#if !defined(__CUDACC__)
#error "tcgen/moe/device_moe.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

#include <cuda_runtime.h>

#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/device_launch.hpp"
#include "tcgen/exec/device_tensor_map.hpp"
#include "tcgen/moe/kernel.hpp"
#include "tcgen/moe/problem.hpp"

namespace tcgen::moe {

template <Config C>
using DeviceParams = typename GroupedGemm<C>::template Params<exec::DeviceArch>;

// Templated on the kernel type G = GroupedGemm<C>: nvcc's host stub of a
// __global__ template cannot spell a class-type template argument (Config).
template <class G>
__global__ void __launch_bounds__(G::kThreads, 1)
    grouped_gemm_kernel(const __grid_constant__ typename G::template Params<exec::DeviceArch> p) {
  exec::DeviceArch a;
  G::run(a, p);
}

// The kernel's parameters for problem p: device pointers, except that check()
// reads the counts, so `host_counts` gives them (throws tcgen::Error for a
// problem the kernel cannot run).
template <Config C>
DeviceParams<C> device_params(const Problem& p, const std::int32_t* host_counts) {
  Problem on_host = p;
  on_host.counts = host_counts;
  DeviceParams<C> params = GroupedGemm<C>::template params<exec::DeviceArch>(
      on_host, [](const tma::TensorMapSpec& spec, const void* array) { return exec::device_tensor_map(spec, array); });
  params.counts = p.counts;
  return params;
}

template <Config C>
cudaError_t launch_device(const DeviceParams<C>& params, int ctas, cudaStream_t stream = nullptr) {
  using G = GroupedGemm<C>;
  return exec::device::launch(grouped_gemm_kernel<G>, {G::grid(params.tokens, params.experts, params.n, ctas), 1, 1},
                              G::kThreads, G::kSmemBytes, params, stream, {1, 1, 1});
}

}  // namespace tcgen::moe
