#pragma once
// The benchmarks' timing: the median of single launches, each between its
// own pair of CUDA events, queued behind a spin kernel so that they run back
// to back and each pair times the kernel, not the host between two launches.
#include <cuda_runtime.h>

#include <algorithm>
#include <vector>

#include "../tests/device/device_check.hpp"

namespace tcgen::timing {

// Keeps one SM busy for `ns` nanoseconds, so the launches queued behind it
// run back to back and each pair of events times the kernel, not the host's
// time between two launches.
static __global__ void spin(unsigned long long ns) {
  unsigned long long start = 0, now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
}

// Median seconds of `iters` launches, each between its own pair of events, after `warmup` launches.
template <class Launch>
double median_seconds(Launch launch_once, int iters, int warmup) {
  for (int i = 0; i < warmup; ++i) launch_once();
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> start(iters), stop(iters);
  for (int i = 0; i < iters; ++i) {
    CUDA_CHECK(cudaEventCreate(&start[i]));
    CUDA_CHECK(cudaEventCreate(&stop[i]));
  }
  spin<<<1, 1>>>(10'000'000ull + 100'000ull * static_cast<unsigned long long>(iters));
  CUDA_CHECK(cudaGetLastError());
  for (int i = 0; i < iters; ++i) {
    CUDA_CHECK(cudaEventRecord(start[i]));
    launch_once();
    CUDA_CHECK(cudaEventRecord(stop[i]));
  }
  CUDA_CHECK(cudaEventSynchronize(stop[iters - 1]));
  CUDA_CHECK(cudaGetLastError());
  std::vector<double> seconds(iters);
  for (int i = 0; i < iters; ++i) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start[i], stop[i]));
    seconds[i] = ms * 1e-3;
    cudaEventDestroy(start[i]);
    cudaEventDestroy(stop[i]);
  }
  std::sort(seconds.begin(), seconds.end());
  return iters % 2 ? seconds[iters / 2] : 0.5 * (seconds[iters / 2 - 1] + seconds[iters / 2]);
}

}  // namespace tcgen::timing
