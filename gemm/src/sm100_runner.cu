#include "tcgen/gemm/sm100_runner.hpp"

#include <cuda_runtime.h>

#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/exec/device_buffer.hpp"
#include "tcgen/exec/device_timer.hpp"
#include "tcgen/exec/sm100_device.hpp"
#include "tcgen/gemm/device_gemm.hpp"

namespace tcgen::gemm {

using exec::check_cuda;
using exec::DeviceBuffer;

template <Config C>
  requires(compiled_for_sm100(C))
exec::RunStats run(const Problem& host, const Options& options, const exec::Sm100&) {
  if (const std::string why = exec::sm100_unavailable(); !why.empty())
    fail("backend", "sm100", "expected an sm_100 GPU (B200, GB200) to run on: " + why);
  check(host, C);
  const std::uint64_t a_size = a_bytes(host, C), b_size = b_bytes(host, C);
  const std::uint64_t d_size = (static_cast<std::uint64_t>(host.m - 1) * host.ldd + host.n) * sizeof(float);
  const std::uint64_t c_size = host.c ? (static_cast<std::uint64_t>(host.m - 1) * host.ldc + host.n) * sizeof(float) : 0;
  DeviceBuffer a(a_size), b(b_size), c(c_size), d(d_size);
  check_cuda(cudaMemcpy(a.ptr, host.a, a_size, cudaMemcpyHostToDevice), "copy A");
  check_cuda(cudaMemcpy(b.ptr, host.b, b_size, cudaMemcpyHostToDevice), "copy B");
  if (host.c) check_cuda(cudaMemcpy(c.ptr, host.c, c_size, cudaMemcpyHostToDevice), "copy C");
  Problem p = host;
  p.a = a.ptr;
  p.b = b.ptr;
  p.c = host.c ? c.ptr : nullptr;
  p.d = d.ptr;
  int ctas = options.ctas;
  if (ctas <= 0) check_cuda(cudaDeviceGetAttribute(&ctas, cudaDevAttrMultiProcessorCount, 0), "SM count");
  const DeviceParams<C> params = device_params<C>(p);
  check_cuda(launch_device<C>(params, ctas), "warm-up launch");
  exec::DeviceTimer timer;
  timer.start();
  check_cuda(launch_device<C>(params, ctas), "launch");
  exec::RunStats stats;
  stats.seconds = timer.stop_seconds("the kernel");
  check_cuda(cudaMemcpy(host.d, d.ptr, d_size, cudaMemcpyDeviceToHost), "copy D");
  return stats;
}

template exec::RunStats run<Config{.ab = ElementType::bf16}>(const Problem&, const Options&, const exec::Sm100&);
template exec::RunStats run<Config{.ab = ElementType::fp16}>(const Problem&, const Options&, const exec::Sm100&);
template exec::RunStats run<Config{.ab = ElementType::bf16, .cta_group = 2}>(const Problem&, const Options&,
                                                                             const exec::Sm100&);

}  // namespace tcgen::gemm
