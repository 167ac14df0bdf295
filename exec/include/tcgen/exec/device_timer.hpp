#pragma once
// Seconds of GPU work between two CUDA events, for the sm100 runners: the
// events are destroyed with the timer, also when a checked call throws.
#if !defined(__CUDACC__)
#error "tcgen/exec/device_timer.hpp uses the CUDA runtime: include it from a .cu file compiled by nvcc"
#endif

#include <cuda_runtime.h>

#include "tcgen/exec/device_buffer.hpp"

namespace tcgen::exec {

class DeviceTimer {
 public:
  DeviceTimer() {
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~DeviceTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;

  void start() { check_cuda(cudaEventRecord(start_), "cudaEventRecord"); }
  // Waits for the work since start(); `what` names it in a CUDA error.
  double stop_seconds(const char* what) {
    check_cuda(cudaEventRecord(stop_), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(stop_), what);
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return ms * 1e-3;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
};

}  // namespace tcgen::exec
