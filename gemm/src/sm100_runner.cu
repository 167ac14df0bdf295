#include "tcgen/gemm/sm100_runner.hpp"

#include <cuda_runtime.h>

#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/gemm/device_gemm.hpp"

namespace tcgen::gemm::sm100 {

namespace {

void cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail("CUDA", std::string(what) + ": " + cudaGetErrorString(e), "cudaSuccess");
}

// Device memory for the run's lifetime.
struct Buffer {
  void* ptr = nullptr;
  explicit Buffer(std::uint64_t bytes) { cuda(cudaMalloc(&ptr, bytes), "cudaMalloc"); }
  ~Buffer() { cudaFree(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

template <Config C>
double run_config(const Problem& host) {
  check(host, C);
  const std::uint64_t a_size = a_bytes(host, C), b_size = b_bytes(host, C);
  const std::uint64_t d_size = (static_cast<std::uint64_t>(host.m - 1) * host.ldd + host.n) * sizeof(float);
  Buffer a(a_size), b(b_size), d(d_size);
  cuda(cudaMemcpy(a.ptr, host.a, a_size, cudaMemcpyHostToDevice), "copy A");
  cuda(cudaMemcpy(b.ptr, host.b, b_size, cudaMemcpyHostToDevice), "copy B");
  Problem p = host;
  p.a = a.ptr;
  p.b = b.ptr;
  p.d = d.ptr;
  p.c = nullptr;
  int sms = 0;
  cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  const DeviceParams<C> params = device_params<C>(p);
  cuda(launch_device<C>(params, sms), "warm-up launch");
  cudaEvent_t start, stop;
  cuda(cudaEventCreate(&start), "cudaEventCreate");
  cuda(cudaEventCreate(&stop), "cudaEventCreate");
  cuda(cudaEventRecord(start), "cudaEventRecord");
  cuda(launch_device<C>(params, sms), "launch");
  cuda(cudaEventRecord(stop), "cudaEventRecord");
  cuda(cudaEventSynchronize(stop), "the kernel");
  float ms = 0;
  cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cuda(cudaMemcpy(host.d, d.ptr, d_size, cudaMemcpyDeviceToHost), "copy D");
  return ms * 1e-3;
}

}  // namespace

std::string unavailable() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return "found no CUDA device";
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return "could not read device 0's properties";
  if (prop.major != 10 || prop.minor != 0)
    return "device 0 is " + std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
  return "";
}

double run(ElementType ab, const Problem& host) {
  if (const std::string why = unavailable(); !why.empty())
    fail("--backend", "sm100", "expected an sm_100 GPU (B200, GB200) to run on: " + why);
  if (ab == ElementType::bf16) return run_config<Config{.ab = ElementType::bf16}>(host);
  if (ab == ElementType::fp16) return run_config<Config{.ab = ElementType::fp16}>(host);
  fail("dtype", name(ab), "bf16 or fp16");
}

}  // namespace tcgen::gemm::sm100
