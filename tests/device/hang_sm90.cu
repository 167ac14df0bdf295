// DeviceArch's hang report (device_arch.hpp, built with TCGEN_DEVICE_CHECKS):
// a thread that waits on an mbarrier phase that never completes prints who
// waits on which mbarrier and parity, and traps, instead of hanging the GPU.
// Hopper has the same mbarriers as Blackwell, so this runs on an H200. The
// timeout is cut to 0.2 s here (TCGEN_HANG_TIMEOUT_NS, set by CMake).
//
// Checked: a wait for the phase before the first (parity 1) returns at once
// (PTX #parallel-synchronization-and-communication-instructions-mbarrier-test-wait:
// it counts as complete); a wait for phase 0 of a barrier nobody arrives on
// ends the kernel with an error, and the report (matched by ctest's
// PASS_REGULAR_EXPRESSION) names the block, thread, mbarrier and parity.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "device_check.hpp"
#include "tcgen/exec/device_arch.hpp"

namespace {

__global__ void wait_on_fresh_barrier(unsigned parity) {
  __shared__ alignas(8) std::uint64_t barrier;
  tcgen::exec::DeviceArch a;
  const auto mbar = static_cast<std::uint32_t>(__cvta_generic_to_shared(&barrier));
  if (threadIdx.x == 0) {
    a.mbarrier_init(mbar, 1);
    a.fence_mbarrier_init();
  }
  __syncthreads();
  a.mbarrier_wait(mbar, parity);
}

}  // namespace

int main() {
  require_gpu(9, 0);
  wait_on_fresh_barrier<<<1, 32>>>(1);
  CUDA_CHECK(cudaDeviceSynchronize());
  std::printf("parity 1 (the phase before the first): returned at once\n");
  wait_on_fresh_barrier<<<dim3(2, 1, 1), 32>>>(0);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e == cudaSuccess) {
    std::printf("FAILED: a wait for phase 0 of a barrier nobody arrives on returned\n");
    return 1;
  }
  std::printf("parity 0 on a barrier nobody arrives on: the kernel ended with %s\n", cudaGetErrorString(e));
  std::printf("PASSED: the hang was reported\n");
  return 0;
}
