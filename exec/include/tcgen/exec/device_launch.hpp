#pragma once
// Launching a kernel written against DeviceArch: the device side of
// host::launch (launch.hpp), with the same arguments. The dynamic shared
// memory requested is smem_bytes plus the 1024 bytes DeviceArch::smem_base()
// may skip to reach a 1024-byte boundary (the 128-byte swizzle atoms' alignment).
#if !defined(__CUDACC__)
#error "tcgen/exec/device_launch.hpp needs the CUDA toolkit: include it from a .cu file compiled by nvcc"
#endif

#include <cuda_runtime.h>

#include <cstdint>

#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/smem_budget.hpp"

namespace tcgen::exec::device {

// entry: the kernel's __global__ function, taking its parameters by value
// (declared `const __grid_constant__ Params p`). Returns the launch's error.
template <class Params>
cudaError_t launch(void (*entry)(Params), Dim3 grid, unsigned block_threads, std::uint32_t smem_bytes,
                   const Params& params, cudaStream_t stream = nullptr) {
  const std::uint32_t bytes = smem_bytes + kSmemAlignment;
  const cudaError_t e =
      cudaFuncSetAttribute(entry, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (e != cudaSuccess) return e;
  entry<<<dim3(grid.x, grid.y, grid.z), block_threads, bytes, stream>>>(params);
  return cudaGetLastError();
}

}  // namespace tcgen::exec::device
