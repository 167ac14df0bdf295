#pragma once
// Host-side CUDA runtime helpers of the sm100 runners (gemm, fmha, sparse_decode):
// a checked call and device memory that is freed with its scope.
#if !defined(__CUDACC__)
#error "tcgen/exec/device_buffer.hpp uses the CUDA runtime: include it from a .cu file compiled by nvcc"
#endif

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::exec {

// Throws tcgen::Error ("CUDA", "<what>: <CUDA's message>", "cudaSuccess").
inline void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail("CUDA", std::string(what) + ": " + cudaGetErrorString(e), "cudaSuccess");
}

// Device memory for a run's lifetime.
struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { check_cuda(cudaMalloc(&ptr, bytes == 0 ? 1 : bytes), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(ptr); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

}  // namespace tcgen::exec
