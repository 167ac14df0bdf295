#include "tcgen/moe/sm100_runner.hpp"

#include <cuda_runtime.h>

#include <span>
#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/exec/device_buffer.hpp"
#include "tcgen/exec/device_timer.hpp"
#include "tcgen/exec/sm100_device.hpp"
#include "tcgen/moe/device_moe.hpp"

namespace tcgen::moe {

using exec::check_cuda;
using exec::DeviceBuffer;

template <Config C>
  requires(compiled_for_sm100(C))
exec::RunStats run(const Problem& host, const Options& options, const exec::Sm100&) {
  if (const std::string why = exec::sm100_unavailable(); !why.empty())
    fail("backend", "sm100", "expected an sm_100 GPU (B200, GB200) to run on: " + why);
  check(host, C);
  const std::span<const std::int32_t> counts(host.counts, static_cast<std::size_t>(host.experts));
  const std::uint64_t k = static_cast<std::uint64_t>(host.k), w_rows = static_cast<std::uint64_t>(host.experts) * host.n;
  const std::uint64_t sizes[] = {counts.size_bytes(), static_cast<std::uint64_t>(host.tokens) * k,
                                 a_scale_bytes(counts, host.k), w_rows * k / 2, w_scale_bytes(host.experts, host.n, host.k)};
  const void* sources[] = {host.counts, host.a, host.scale_a, host.w, host.scale_w};
  const char* names[] = {"copy counts", "copy A", "copy A's factors", "copy W", "copy W's factors"};
  DeviceBuffer arrays[] = {DeviceBuffer(sizes[0]), DeviceBuffer(sizes[1]), DeviceBuffer(sizes[2]), DeviceBuffer(sizes[3]),
                           DeviceBuffer(sizes[4])};
  for (int i = 0; i < 5; ++i)
    check_cuda(cudaMemcpy(arrays[i].ptr, sources[i], sizes[i], cudaMemcpyHostToDevice), names[i]);
  const std::uint64_t d_size = (static_cast<std::uint64_t>(host.tokens - 1) * host.ldd + out_columns(host, C)) * 2;
  DeviceBuffer d(d_size);
  Problem p = host;
  p.counts = static_cast<const std::int32_t*>(arrays[0].ptr);
  p.a = static_cast<const std::uint8_t*>(arrays[1].ptr);
  p.scale_a = static_cast<const std::uint8_t*>(arrays[2].ptr);
  p.w = static_cast<const std::uint8_t*>(arrays[3].ptr);
  p.scale_w = static_cast<const std::uint8_t*>(arrays[4].ptr);
  p.d = static_cast<std::uint16_t*>(d.ptr);
  int ctas = options.ctas;
  if (ctas <= 0) check_cuda(cudaDeviceGetAttribute(&ctas, cudaDevAttrMultiProcessorCount, 0), "SM count");
  const DeviceParams<C> params = device_params<C>(p, host.counts);
  check_cuda(launch_device<C>(params, ctas), "warm-up launch");
  exec::DeviceTimer timer;
  timer.start();
  check_cuda(launch_device<C>(params, ctas), "launch");
  exec::RunStats stats;
  stats.seconds = timer.stop_seconds("the kernel");
  check_cuda(cudaMemcpy(host.d, d.ptr, d_size, cudaMemcpyDeviceToHost), "copy D");
  return stats;
}

template exec::RunStats run<Config{}>(const Problem&, const Options&, const exec::Sm100&);
template exec::RunStats run<Config{.swiglu = true}>(const Problem&, const Options&, const exec::Sm100&);

}  // namespace tcgen::moe
