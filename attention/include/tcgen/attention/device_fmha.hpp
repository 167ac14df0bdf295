#pragma once
// The FMHA kernel (fmha_kernel.hpp) on sm_100a: the __global__ entry and one
// launch over the whole problem, grid (Q tile pairs, heads, batch). Device
// pointers, in the layouts of fmha_problem.hpp: q, k, v and o hold
// problem.dtype (bf16 or fp16) bit patterns, lse floats; o 16-byte aligned.
// docs/perf.md has what ptxas reports for each instantiation.
#if !defined(__CUDACC__)
#error "tcgen/attention/device_fmha.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

#include <cuda_runtime.h>

#include <cstdint>

#include "tcgen/attention/fmha_kernel.hpp"
#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/device_launch.hpp"
#include "tcgen/exec/device_tensor_map.hpp"

namespace tcgen::attention {

template <class F>
__global__ void __launch_bounds__(F::kThreads, 1)
    fmha_kernel(const __grid_constant__ typename F::template Params<exec::DeviceArch> p) {
  exec::DeviceArch a;
  F::run(a, p);
}

// Throws tcgen::Error (from problem.validate()) for a problem the kernel
// does not run; returns cudaErrorMisalignedAddress when o is not 16-byte
// aligned (the epilogue writes O in 16-byte pieces; cudaMalloc gives 256).
inline cudaError_t launch_fmha_device(const FmhaProblem& pr, const void* q, const void* k, const void* v, void* o,
                                      float* lse, cudaStream_t stream = nullptr) {
  if (reinterpret_cast<std::uintptr_t>(o) % 16 != 0) return cudaErrorMisalignedAddress;
  return visit_fmha(pr, [&]<class F>() {
    typename F::template Params<exec::DeviceArch> p;
    p.q = exec::device_tensor_map(F::q_map(pr), q);
    p.k = exec::device_tensor_map(F::k_map(pr), k);
    p.v = exec::device_tensor_map(F::v_map(pr), v);
    p.problem = pr;
    p.o = static_cast<typename F::Out*>(o);
    p.lse = lse;
    return exec::device::launch(fmha_kernel<F>, F::grid(pr), F::kThreads, F::kSmemBytes, p, stream);
  });
}

}  // namespace tcgen::attention
