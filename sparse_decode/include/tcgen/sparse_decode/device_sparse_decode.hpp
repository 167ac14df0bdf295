#pragma once
// The sparse decode kernel and its combine step (kernel.hpp, combine.hpp) on
// sm_100a: the __global__ entries and one
// launch over the whole problem (SparseDecodeDeviceLaunch). `at` holds device addresses, in the layouts
// of problem.hpp; with splits > 1 also the split workspace
// (o_split: splits · rows · 512 floats, lse_split: splits · rows).
// docs/perf.md has what ptxas reports for both.
#if !defined(__CUDACC__)
#error "tcgen/sparse_decode/device_sparse_decode.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

#include <cuda_runtime.h>

#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/device_launch.hpp"
#include "tcgen/exec/device_tensor_map.hpp"
#include "tcgen/sparse_decode/combine.hpp"
#include "tcgen/sparse_decode/kernel.hpp"

namespace tcgen::sparse_decode {

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

// One problem's launches, prepared once: the problem validated (its spans
// read on the host for their sizes and the index check), the kernel's and the
// combine step's parameters built. launch() may run often and reads no span.
struct SparseDecodeDeviceLaunch {
  SparseDecode::Params<exec::DeviceArch> kernel;
  exec::Dim3 grid;
  SparseDecodeCombine::Params combine;

  // Throws tcgen::Error for a problem validate() refuses.
  SparseDecodeDeviceLaunch(const SparseDecodeProblem& problem, const SparseDecodeBuffers& at)
      : kernel((problem.validate(), SparseDecode::params<exec::DeviceArch>(
                                        problem,
                                        [](const tma::TensorMapSpec& spec, const void* tensor) {
                                          return exec::device_tensor_map(spec, tensor);
                                        },
                                        at))),
        grid(SparseDecode::grid(problem)),
        combine{at.o_split, at.lse_split, kernel.splits, problem.heads, problem.rows(), at.sink, at.o, at.lse} {}

  cudaError_t launch(cudaStream_t stream = nullptr) const {
    const cudaError_t e = exec::device::launch(sparse_decode_kernel<SparseDecode>, grid, SparseDecode::kThreads,
                                               SparseDecode::kSmemBytes, kernel, stream);
    if (e != cudaSuccess || kernel.splits == 1) return e;
    return exec::device::launch(sparse_decode_combine_kernel<SparseDecodeCombine>, SparseDecodeCombine::grid(combine.rows),
                                SparseDecodeCombine::kThreads, 0, combine, stream);
  }
};

}  // namespace tcgen::sparse_decode
