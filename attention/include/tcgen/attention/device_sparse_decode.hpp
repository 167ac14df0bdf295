#pragma once
// The sparse decode kernel and its combine step (sparse_decode_kernel.hpp,
// sparse_decode_combine.hpp) on sm_100a: the __global__ entries and one
// launch over the whole problem. `at` holds device addresses, in the layouts
// of sparse_decode_problem.hpp; with splits > 1 also the split workspace
// (o_split: splits · rows · 512 floats, lse_split: splits · rows).
// docs/perf.md has what ptxas reports for both.
#if !defined(__CUDACC__)
#error "tcgen/attention/device_sparse_decode.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

#include <cuda_runtime.h>

#include "tcgen/attention/sparse_decode_combine.hpp"
#include "tcgen/attention/sparse_decode_kernel.hpp"
#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/device_launch.hpp"
#include "tcgen/exec/device_tensor_map.hpp"

namespace tcgen::attention {

template <class F>
__global__ void __launch_bounds__(F::kThreads, 1)
    sparse_decode_kernel(const __grid_constant__ typename F::template Params<exec::DeviceArch> p) {
  exec::DeviceArch a;
  F::run(a, p);
}

template <class F>
__global__ void __launch_bounds__(F::kThreads) sparse_decode_combine_kernel(const __grid_constant__ typename F::Params p) {
  exec::DeviceArch a;
  F::run(a, p);
}

// Throws tcgen::Error for a problem validate() refuses (its spans are read
// for their sizes and for the index check, on the host).
inline cudaError_t launch_sparse_decode_device(const SparseDecodeProblem& problem, const SparseDecodeBuffers& at,
                                               cudaStream_t stream = nullptr) {
  problem.validate();
  const auto encode = [](const tma::TensorMapSpec& spec, const void* tensor) {
    return exec::device_tensor_map(spec, tensor);
  };
  const auto p = SparseDecode::params<exec::DeviceArch>(problem, encode, at);
  cudaError_t e = exec::device::launch(sparse_decode_kernel<SparseDecode>, SparseDecode::grid(problem),
                                       SparseDecode::kThreads, SparseDecode::kSmemBytes, p, stream);
  if (e != cudaSuccess || p.splits == 1) return e;
  const SparseDecodeCombine::Params c{at.o_split, at.lse_split, p.splits, problem.heads, problem.rows(), at.sink, at.o, at.lse};
  return exec::device::launch(sparse_decode_combine_kernel<SparseDecodeCombine>, SparseDecodeCombine::grid(c.rows),
                              SparseDecodeCombine::kThreads, 0, c, stream);
}

}  // namespace tcgen::attention
