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
// (declared `const __grid_constant__ Params p`); cluster: CTAs per cluster
// in each dimension (cudaLaunchKernelEx's cluster attribute). Returns the
// launch's error.
template <class Params>
cudaError_t launch(void (*entry)(Params), Dim3 grid, unsigned block_threads, std::uint32_t smem_bytes,
                   const Params& params, cudaStream_t stream = nullptr, Dim3 cluster = {1, 1, 1}) {
  const std::uint32_t bytes = smem_bytes + kSmemAlignment;
  const cudaError_t e =
      cudaFuncSetAttribute(entry, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (e != cudaSuccess) return e;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid.x, grid.y, grid.z);
  config.blockDim = dim3(block_threads, 1, 1);
  config.dynamicSmemBytes = bytes;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cluster.x;
  attribute.val.clusterDim.y = cluster.y;
  attribute.val.clusterDim.z = cluster.z;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, entry, params);
}

}  // namespace tcgen::exec::device
