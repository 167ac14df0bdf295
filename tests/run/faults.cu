// Planted faults, one per run (argv[1]), each of a class `tcgen run` reports
// the way compute-sanitizer would, with the error the program then sees:
//   oob     a kernel stores one element past its cudaMalloc block: the
//           report names the kernel's .cu line; the launch fails with
//           cudaErrorIllegalAddress and, as on a GPU after a fault, so does
//           every later call (the error sticks)
//   memcpy  cudaMemcpy from an address no cudaMalloc returned: refused
//   tmem    tcgen05.ld of Tensor Memory nothing wrote, stored: the report names the
//           store and the cell (under --strict, the load)
//   letter  a tcgen05.ld destination read before tcgen05.wait::ld: a PTX
//           letter, counted in the summary; under --strict a fault
//   hang    a kernel that waits on an mbarrier nobody arrives on: it would
//           hang on a GPU; here a fault with both waits named
//   spin    a kernel that polls a flag nobody sets: a livelock, which tcgen
//           run reports at the watchdog; until then its progress line says
//           that it runs
//   crash   the host code dies of SIGSEGV after a kernel ran: no runtime
//           summary, which tcgen run says (and --json still reports)
//   export  looks up cuGetExportTable through tcgen's runtime, as a library
//           that carries NVIDIA's static runtime would: a null pointer, and
//           the program goes on (only a program without tcgen's runtime is
//           stopped for asking)
//   memory  requests refused before they touch memory: 100 KB of dynamic
//           shared memory without cudaFuncSetAttribute (then with it),
//           cudaMemcpyDefault past a block's end, a cudaMalloc larger than the
//           device and one larger than this host's memory, a bad cudaMemcpyKind; and a copy into a __device__
//           variable through cudaGetSymbolAddress, which is device memory
// Exit 3 when the program saw the error it expected (letter: exit 0 when
// the kernel ran, 3 when it faulted), 1 otherwise.
#include <cuda_runtime.h>

#include <unistd.h>

#include <csignal>
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

__global__ void wait_forever() {
  __shared__ __align__(8) std::uint64_t bar;
  const auto a = static_cast<std::uint32_t>(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(a));
  __syncthreads();
  asm volatile("{\n\t.reg .pred p;\n\tW:\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\n\t@!p bra W;\n\t}" ::"r"(a));
}

__global__ void spin(const volatile int* flag) {
  while (*flag == 0) {
  }
}

__device__ int table[4];

__global__ void big_smem(int* out) {
  extern __shared__ int scratch[];
  scratch[threadIdx.x] = static_cast<int>(threadIdx.x);
  __syncthreads();
  out[threadIdx.x] = scratch[31 - threadIdx.x];
}

// Launches a one-warp kernel that writes 32 words and says how the launch ended.
cudaError_t launch_one_warp(void (*kernel)(std::uint32_t*)) {
  std::uint32_t* out = nullptr;
  cudaMalloc(&out, 32 * sizeof(std::uint32_t));
  kernel<<<1, 32>>>(out);
  const cudaError_t e = cudaDeviceSynchronize();
  std::printf("launch: %s\n", cudaGetErrorName(e));
  return e;
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
    return launch == cudaErrorIllegalAddress && later == launch ? 3 : 1;
  }
  if (std::strcmp(mode, "memcpy") == 0) {
    float host[4];
    const cudaError_t e = cudaMemcpy(host, reinterpret_cast<void*>(0x1000), sizeof host, cudaMemcpyDeviceToHost);
    std::printf("cudaMemcpy: %s\n", cudaGetErrorName(e));
    return e == cudaErrorInvalidValue ? 3 : 1;
  }
  if (std::strcmp(mode, "tmem") == 0) {
    const cudaError_t e = launch_one_warp(read_unwritten_tmem);
    return e == cudaErrorLaunchFailure ? 3 : 1;
  }
  if (std::strcmp(mode, "letter") == 0) {
    const cudaError_t e = launch_one_warp(read_before_wait);
    return e == cudaSuccess ? 0 : e == cudaErrorLaunchFailure ? 3 : 1;
  }
  if (std::strcmp(mode, "hang") == 0) {
    wait_forever<<<1, 64>>>();
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("launch: %s\n", cudaGetErrorName(e));
    return e == cudaErrorLaunchFailure ? 3 : 1;
  }
  if (std::strcmp(mode, "spin") == 0) {
    int* flag = nullptr;
    cudaMalloc(&flag, sizeof(int));
    spin<<<1, 32>>>(flag);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("launch: %s\n", cudaGetErrorName(e));
    return e == cudaErrorLaunchFailure ? 3 : 1;
  }
  if (std::strcmp(mode, "memory") == 0) {
    int* out = nullptr;
    cudaMalloc(&out, 32 * sizeof(int));
    big_smem<<<1, 32, 100 * 1024>>>(out);
    const cudaError_t no_opt_in = cudaGetLastError();
    cudaFuncSetAttribute(big_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024);
    big_smem<<<1, 32, 100 * 1024>>>(out);
    const cudaError_t opted_in = cudaDeviceSynchronize();
    char host[4096] = {};
    const cudaError_t past_end = cudaMemcpy(out, host, sizeof host, cudaMemcpyDefault);
    void* huge = nullptr;
    const cudaError_t too_big = cudaMalloc(&huge, ~std::size_t{0} - 8);
    // Below the device's 180 GiB where this host has less, so that the host's limit is what refuses it.
    const std::size_t host_bytes = std::size_t(sysconf(_SC_PHYS_PAGES)) * std::size_t(sysconf(_SC_PAGESIZE));
    const cudaError_t past_host = cudaMalloc(&huge, host_bytes + (std::size_t{1} << 30));
    const cudaError_t bad_kind = cudaMemcpy(host, out, 4, static_cast<cudaMemcpyKind>(7));
    int* slot = nullptr;
    const int values[4] = {1, 2, 3, 4};
    cudaGetSymbolAddress(reinterpret_cast<void**>(&slot), table);
    const cudaError_t to_symbol = cudaMemcpy(slot, values, sizeof values, cudaMemcpyHostToDevice);
    int back[4] = {};
    cudaMemcpyFromSymbol(back, table, sizeof back);
    cudaGetLastError();  // the refusals above set it
    std::printf("no opt-in: %s, opted in: %s, past the end: %s, too big: %s, past the host: %s, bad kind: %s, "
                "into a __device__ variable: %s (%d %d %d %d)\n",
                cudaGetErrorName(no_opt_in), cudaGetErrorName(opted_in), cudaGetErrorName(past_end),
                cudaGetErrorName(too_big), cudaGetErrorName(past_host), cudaGetErrorName(bad_kind), cudaGetErrorName(to_symbol), back[0], back[1],
                back[2], back[3]);
    const bool ok = no_opt_in == cudaErrorInvalidValue && opted_in == cudaSuccess && past_end == cudaErrorInvalidValue &&
                    too_big == cudaErrorMemoryAllocation && past_host == cudaErrorMemoryAllocation && bad_kind == cudaErrorInvalidMemcpyDirection &&
                    to_symbol == cudaSuccess && back[3] == 4;
    return ok ? 3 : 1;
  }
  if (std::strcmp(mode, "crash") == 0) {
    const cudaError_t e = launch_one_warp(read_before_wait);
    std::printf("launch: %s\n", cudaGetErrorName(e));
    std::fflush(stdout);
    std::raise(SIGSEGV);
  }
  if (std::strcmp(mode, "export") == 0) {
    void* table = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t e =
        cudaGetDriverEntryPointByVersion("cuGetExportTable", &table, CUDART_VERSION, cudaEnableDefault, &found);
    std::printf("cuGetExportTable through the runtime: %s, %s\n", cudaGetErrorName(e),
                table ? "a function" : "a null pointer");
    return table ? 1 : 0;
  }
  std::printf("usage: faults oob|memcpy|tmem|letter|hang|spin|memory|crash|export\n");
  return 1;
}
