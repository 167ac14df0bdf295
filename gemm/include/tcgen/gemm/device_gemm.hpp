#pragma once
// Running the GEMM kernel on sm_100a: the __global__ entry (one line around
// Gemm<C>::run with exec::DeviceArch), the tensor maps the driver encodes
// from the same specs the host model reads, and the launch of a persistent
// grid, one CTA per SM at most. The host-model and PTX counterpart is run.hpp.
//
//   gemm::Problem p{...};   // device pointers
//   CUDA_CHECK(gemm::run_device<gemm::Config{}>(p, sm_count));
#if !defined(__CUDACC__)
#error "tcgen/gemm/device_gemm.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

#include <cuda_runtime.h>

#include <algorithm>

#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/device_launch.hpp"
#include "tcgen/gemm/kernel.hpp"
#include "tcgen/gemm/problem.hpp"

namespace tcgen::gemm {

template <Config C>
using DeviceParams = typename Gemm<C>::template Params<exec::DeviceArch>;

// One CTA per SM: 192 threads, and the stages take most of the shared memory.
// Templated on the kernel type G = Gemm<C>: nvcc's host stub of a
// __global__ template cannot spell a class-type template argument (Config).
template <class G>
__global__ void __launch_bounds__(G::kThreads, 1) gemm_kernel(const __grid_constant__ typename G::template Params<exec::DeviceArch> p) {
  exec::DeviceArch a;
  G::run(a, p);
}

// The kernel's parameters for problem p (device pointers): the tensor maps
// are encoded here (throws tcgen::Error for a problem TMA cannot read).
template <Config C>
DeviceParams<C> device_params(const Problem& p) {
  return Gemm<C>::template params<exec::DeviceArch>(
      p, [](const tma::TensorMapSpec& spec, const void* tensor) { return exec::device_tensor_map(spec, tensor); });
}

// Launches on `stream` over min(tiles, ctas) CTAs (ctas: the SM count).
template <Config C>
cudaError_t launch_device(const DeviceParams<C>& params, int ctas, cudaStream_t stream = nullptr) {
  using G = Gemm<C>;
  return exec::device::launch(gemm_kernel<G>, {G::grid(params.m, params.n, ctas), 1, 1}, G::kThreads, G::kSmemBytes,
                              params, stream, {static_cast<unsigned>(G::kClusterCtas), 1, 1});
}

template <Config C>
cudaError_t run_device(const Problem& p, int ctas, cudaStream_t stream = nullptr) {
  return launch_device<C>(device_params<C>(p), ctas, stream);
}

}  // namespace tcgen::gemm
