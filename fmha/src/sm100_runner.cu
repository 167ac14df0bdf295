#include "tcgen/fmha/sm100_runner.hpp"

#include <cuda_runtime.h>

#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/exec/device_buffer.hpp"
#include "tcgen/exec/device_timer.hpp"
#include "tcgen/exec/sm100_device.hpp"
#include "tcgen/fmha/device_fmha.hpp"

namespace tcgen::fmha {

using exec::check_cuda;
using exec::DeviceBuffer;

FmhaRun run(const CheckedFmhaProblem& checked, const FmhaOperands& in, const FmhaOptions& options, const exec::Sm100&) {
  if (const std::string why = exec::sm100_unavailable(); !why.empty())
    fail("backend", "sm100", "expected an sm_100 GPU (B200, GB200) to run on: " + why);
  const FmhaProblem& problem = checked;
  problem.check_sizes(in.q.size(), in.k.size(), in.v.size());
  const std::size_t nq = problem.q_elements(), nkv = problem.kv_elements(), nlse = problem.lse_elements();
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  const std::size_t e = sizeof(std::uint16_t);
  DeviceBuffer dq(nq * e), dk(nkv * e), dv(nkv * e), dout(nq * e), dlse(nlse * sizeof(float));
  check_cuda(cudaMemcpy(dq.ptr, in.q.data(), nq * e, cudaMemcpyHostToDevice), "copy Q");
  check_cuda(cudaMemcpy(dk.ptr, in.k.data(), nkv * e, cudaMemcpyHostToDevice), "copy K");
  check_cuda(cudaMemcpy(dv.ptr, in.v.data(), nkv * e, cudaMemcpyHostToDevice), "copy V");
  FmhaRun r{{std::vector<std::uint16_t>(nq), std::vector<float>(nlse)}, {}};
  exec::DeviceTimer timer;
  timer.start();
  check_cuda(launch_fmha_device(checked, dq.ptr, dk.ptr, dv.ptr, dout.ptr, static_cast<float*>(dlse.ptr), nullptr, options),
             "launch_fmha_device");
  r.stats.seconds = timer.stop_seconds("the FMHA kernel");
  check_cuda(cudaMemcpy(r.out.o.data(), dout.ptr, nq * e, cudaMemcpyDeviceToHost), "copy O");
  check_cuda(cudaMemcpy(r.out.lse.data(), dlse.ptr, nlse * sizeof(float), cudaMemcpyDeviceToHost), "copy LSE");
  return r;
}

}  // namespace tcgen::fmha
