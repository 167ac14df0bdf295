#pragma once
// The FMHA kernel (kernel.hpp) on sm_100a: the __global__ entry and one
// launch over the whole problem, grid (Q tile pairs, heads, batch). Device
// pointers, in the layouts of problem.hpp: q, k, v and o hold
// problem.dtype (bf16 or fp16) bit patterns, lse floats; o 16-byte aligned.
// docs/perf.md has what ptxas reports for each instantiation.
#if !defined(__CUDACC__)
#error "tcgen/fmha/device_fmha.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

#include <cuda_runtime.h>

#include <cstdint>

#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/device_launch.hpp"
#include "tcgen/exec/device_tensor_map.hpp"
#include "tcgen/fmha/kernel.hpp"

namespace tcgen::fmha {

template <class F>
__global__ void __launch_bounds__(F::kThreads, 1)
    fmha_kernel(const __grid_constant__ typename F::template Params<exec::DeviceArch> p) {
  exec::DeviceArch a;
  F::run(a, p);
}

// Throws tcgen::Error (validating a plain FmhaProblem) for a problem the
// kernel does not run; returns cudaErrorMisalignedAddress when o is not
// 16-byte aligned (the epilogue writes O in 16-byte pieces; cudaMalloc gives 256).
inline cudaError_t launch_fmha_device(const CheckedFmhaProblem& problem, const void* q, const void* k, const void* v,
                                      void* o, float* lse, cudaStream_t stream = nullptr,
                                      const FmhaOptions& options = {}) {
  if (reinterpret_cast<std::uintptr_t>(o) % 16 != 0) return cudaErrorMisalignedAddress;
  const auto encode = [](const tma::TensorMapSpec& spec, const void* tensor) {
    return exec::device_tensor_map(spec, tensor);
  };
  return visit_fmha(problem, [&]<class F>() {
    const auto p = F::template params<exec::DeviceArch>(problem, options, encode, q, k, v,
                                                        static_cast<typename F::Out*>(o), lse);
    return exec::device::launch(fmha_kernel<F>, F::grid(problem), F::kThreads, F::kSmemBytes, p, stream);
  });
}

}  // namespace tcgen::fmha
