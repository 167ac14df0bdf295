#include "tcgen/attention/sm100_runner.hpp"

#include <cuda_runtime.h>

#include <string>

#include "tcgen/attention/device_fmha.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/device_buffer.hpp"
#include "tcgen/exec/sm100_device.hpp"

namespace tcgen::attention::sm100 {

using exec::check_cuda;
using exec::DeviceBuffer;

FmhaOutput run(const FmhaProblem& problem, std::span<const std::uint16_t> q, std::span<const std::uint16_t> k,
               std::span<const std::uint16_t> v, double* seconds) {
  if (const std::string why = exec::sm100_unavailable(); !why.empty())
    fail("--backend", "sm100", "expected an sm_100 GPU (B200, GB200) to run on: " + why);
  problem.validate();
  const std::size_t nq = problem.q_elements(), nkv = problem.kv_elements(), nlse = problem.lse_elements();
  const auto count = [](std::span<const std::uint16_t> s) { return std::to_string(s.size()) + " elements"; };
  if (q.size() != nq) fail("q", count(q), "batch x heads x seq_q x head_dim = " + std::to_string(nq));
  if (k.size() != nkv) fail("k", count(k), "batch x heads_kv x seq_k x head_dim = " + std::to_string(nkv));
  if (v.size() != nkv) fail("v", count(v), "batch x heads_kv x seq_k x head_dim = " + std::to_string(nkv));
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  const std::size_t e = sizeof(std::uint16_t);
  DeviceBuffer dq(nq * e), dk(nkv * e), dv(nkv * e), dout(nq * e), dlse(nlse * sizeof(float));
  check_cuda(cudaMemcpy(dq.ptr, q.data(), nq * e, cudaMemcpyHostToDevice), "copy Q");
  check_cuda(cudaMemcpy(dk.ptr, k.data(), nkv * e, cudaMemcpyHostToDevice), "copy K");
  check_cuda(cudaMemcpy(dv.ptr, v.data(), nkv * e, cudaMemcpyHostToDevice), "copy V");
  cudaEvent_t start, stop;
  check_cuda(cudaEventCreate(&start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&stop), "cudaEventCreate");
  check_cuda(cudaEventRecord(start), "cudaEventRecord");
  check_cuda(launch_fmha_device(problem, dq.ptr, dk.ptr, dv.ptr, dout.ptr, static_cast<float*>(dlse.ptr)),
             "launch_fmha_device");
  check_cuda(cudaEventRecord(stop), "cudaEventRecord");
  check_cuda(cudaEventSynchronize(stop), "the FMHA kernel");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (seconds != nullptr) *seconds = ms * 1e-3;
  FmhaOutput out{std::vector<std::uint16_t>(nq), std::vector<float>(nlse)};
  check_cuda(cudaMemcpy(out.o.data(), dout.ptr, nq * e, cudaMemcpyDeviceToHost), "copy O");
  check_cuda(cudaMemcpy(out.lse.data(), dlse.ptr, nlse * sizeof(float), cudaMemcpyDeviceToHost), "copy LSE");
  return out;
}

}  // namespace tcgen::attention::sm100
