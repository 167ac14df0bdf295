#include "tcgen/gemm/sm100_runner.hpp"

#include <cuda_runtime.h>

#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/exec/device_buffer.hpp"
#include "tcgen/exec/device_timer.hpp"
#include "tcgen/exec/sm100_device.hpp"
#include "tcgen/gemm/device_gemm.hpp"

namespace tcgen::gemm::sm100 {

namespace {

using exec::check_cuda;
using exec::DeviceBuffer;

template <Config C>
double run_config(const Problem& host) {
  check(host, C);
  const std::uint64_t a_size = a_bytes(host, C), b_size = b_bytes(host, C);
  const std::uint64_t d_size = (static_cast<std::uint64_t>(host.m - 1) * host.ldd + host.n) * sizeof(float);
  DeviceBuffer a(a_size), b(b_size), d(d_size);
  check_cuda(cudaMemcpy(a.ptr, host.a, a_size, cudaMemcpyHostToDevice), "copy A");
  check_cuda(cudaMemcpy(b.ptr, host.b, b_size, cudaMemcpyHostToDevice), "copy B");
  Problem p = host;
  p.a = a.ptr;
  p.b = b.ptr;
  p.d = d.ptr;
  p.c = nullptr;
  int sms = 0;
  check_cuda(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
  const DeviceParams<C> params = device_params<C>(p);
  check_cuda(launch_device<C>(params, sms), "warm-up launch");
  exec::DeviceTimer timer;
  timer.start();
  check_cuda(launch_device<C>(params, sms), "launch");
  const double seconds = timer.stop_seconds("the kernel");
  check_cuda(cudaMemcpy(host.d, d.ptr, d_size, cudaMemcpyDeviceToHost), "copy D");
  return seconds;
}

}  // namespace

double run(ElementType ab, const Problem& host) {
  if (const std::string why = exec::sm100_unavailable(); !why.empty())
    fail("--backend", "sm100", "expected an sm_100 GPU (B200, GB200) to run on: " + why);
  if (ab == ElementType::bf16) return run_config<Config{.ab = ElementType::bf16}>(host);
  if (ab == ElementType::fp16) return run_config<Config{.ab = ElementType::fp16}>(host);
  fail("dtype", name(ab), "bf16 or fp16");
}

}  // namespace tcgen::gemm::sm100
