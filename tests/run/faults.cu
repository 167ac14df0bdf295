// Planted faults, one per run (argv[1]), each of a class `tcgen run` reports
// the way compute-sanitizer would, with the error the program then sees:
//   oob     a kernel stores one element past its cudaMalloc block: the
//           report names the kernel's .cu line; the launch fails and, as on
//           a GPU after a fault, so does every later call (the error sticks)
//   memcpy  cudaMemcpy from an address no cudaMalloc returned: refused
//   tmem    tcgen05.ld of Tensor Memory nothing wrote: the report names the cell
//   letter  a tcgen05.ld destination read before tcgen05.wait::ld: a PTX
//           letter, counted in the summary; under --strict a fault
// Exit 3 when the program saw the error it expected (letter: exit 0 when
// the kernel ran, 3 when it faulted), 1 otherwise.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

__global__ void store_past_end(float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i <= n) y[i] = 1.0f;  // i == n is one past the end
}

__global__ void read_unwritten_tmem(std::uint32_t* out) {
  __shared__ std::uint32_t slot;
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(
      static_cast<std::uint32_t>(__cvta_generic_to_shared(&slot))));
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  __syncwarp();
  const std::uint32_t tmem = slot;
  std::uint32_t r;
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];" : "=r"(r) : "r"(tmem));
  asm volatile("tcgen05.wait::ld.sync.aligned;");
  out[threadIdx.x] = r;
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(tmem));
}

// Stores 7 to its cell, then reads it back and adds 1 before the wait that makes the value defined.
__global__ void read_before_wait(std::uint32_t* out) {
  __shared__ std::uint32_t slot;
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(
      static_cast<std::uint32_t>(__cvta_generic_to_shared(&slot))));
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  __syncwarp();
  const std::uint32_t tmem = slot;
  std::uint32_t r;
  asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(tmem), "r"(7u));
  asm volatile("tcgen05.wait::st.sync.aligned;");
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x1.b32 {%0}, [%1];\n\t"
      "add.u32 %0, %0, 1;\n\t"
      "tcgen05.wait::ld.sync.aligned;"
      : "=r"(r)
      : "r"(tmem));
  out[threadIdx.x] = r;
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(tmem));
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  if (std::strcmp(mode, "oob") == 0) {
    float* y = nullptr;
    cudaMalloc(&y, 1000 * sizeof(float));
    store_past_end<<<8, 128>>>(y, 1000);
    const cudaError_t launch = cudaDeviceSynchronize();
    float* z = nullptr;
    const cudaError_t later = cudaMalloc(&z, 16);
    std::printf("launch: %s, later cudaMalloc: %s\n", cudaGetErrorName(launch), cudaGetErrorName(later));
    return launch == cudaErrorLaunchFailure && later == launch ? 3 : 1;
  }
  if (std::strcmp(mode, "memcpy") == 0) {
    float host[4];
    const cudaError_t e = cudaMemcpy(host, reinterpret_cast<void*>(0x1000), sizeof host, cudaMemcpyDeviceToHost);
    std::printf("cudaMemcpy: %s\n", cudaGetErrorName(e));
    return e == cudaErrorInvalidValue ? 3 : 1;
  }
  if (std::strcmp(mode, "tmem") == 0) {
    std::uint32_t* out = nullptr;
    cudaMalloc(&out, 32 * sizeof(std::uint32_t));
    read_unwritten_tmem<<<1, 32>>>(out);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("launch: %s\n", cudaGetErrorName(e));
    return e == cudaErrorLaunchFailure ? 3 : 1;
  }
  if (std::strcmp(mode, "letter") == 0) {
    std::uint32_t* out = nullptr;
    cudaMalloc(&out, 32 * sizeof(std::uint32_t));
    read_before_wait<<<1, 32>>>(out);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("launch: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess ? 0 : e == cudaErrorLaunchFailure ? 3 : 1;
  }
  std::printf("usage: faults oob|memcpy|tmem|letter\n");
  return 1;
}
