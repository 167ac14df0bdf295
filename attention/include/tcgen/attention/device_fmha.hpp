#pragma once
// The FMHA kernel (fmha_kernel.hpp) on sm_100a: the __global__ entry and its
// launch, one CTA per 128-row Q tile of one head. Device pointers: q, k, v
// bf16 (seq × head_dim, row-major), o bf16, lse float. tests/device/fmha_sm100.cu
// compiles it for sm_100a in CI and runs it on a B200: 95/96 registers, no
// spills, a 1280-byte stack frame (the softmax's S and P rows).
#if !defined(__CUDACC__)
#error "tcgen/attention/device_fmha.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

#include <cuda_runtime.h>

#include <cstdint>

#include "tcgen/attention/fmha_kernel.hpp"
#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/device_launch.hpp"

namespace tcgen::attention {

template <class F>
__global__ void __launch_bounds__(F::kThreads, 1)
    fmha_kernel(const __grid_constant__ typename F::template Params<exec::DeviceArch> p) {
  exec::DeviceArch a;
  F::run(a, p);
}

template <int HeadDim>
cudaError_t launch_fmha_device(const std::uint16_t* q, const std::uint16_t* k, const std::uint16_t* v,
                               std::uint16_t* o, float* lse, int seq_q, int seq_k, SoftmaxScale scale,
                               cudaStream_t stream = nullptr) {
  using F = Fmha<HeadDim>;
  if (seq_q <= 0 || seq_q % kFmhaBlockM != 0 || seq_k <= 0) return cudaErrorInvalidValue;
  typename F::template Params<exec::DeviceArch> p;
  const auto u = [](int x) { return static_cast<std::uint64_t>(x); };
  p.q = exec::device_tensor_map(F::Q::map(u(seq_q), HeadDim, HeadDim), q);
  p.k = exec::device_tensor_map(F::K::map(u(seq_k), HeadDim, HeadDim), k);
  p.v = exec::device_tensor_map(F::V::map(HeadDim, u(seq_k), HeadDim), v);
  p.seq_q = seq_q;
  p.seq_k = seq_k;
  p.scale = scale;
  p.o = o;
  p.lse = lse;
  return exec::device::launch(fmha_kernel<F>, {static_cast<unsigned>(seq_q / kFmhaBlockM), 1, 1}, F::kThreads,
                              F::kSmemBytes, p, stream);
}

}  // namespace tcgen::attention
