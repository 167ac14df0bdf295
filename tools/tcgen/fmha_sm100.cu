// `tcgen fmha --backend sm100`: see fmha_sm100.hpp.
#include "fmha_sm100.hpp"

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "tcgen/attention/device_fmha.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::cli {

namespace {

void cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("CUDA error in ") + what + ": " + cudaGetErrorString(e));
}

// Device memory for the run's lifetime.
struct Buffer {
  void* ptr = nullptr;
  explicit Buffer(std::size_t bytes) { cuda(cudaMalloc(&ptr, bytes == 0 ? 1 : bytes), "cudaMalloc"); }
  ~Buffer() { cudaFree(ptr); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
};

struct Events {
  cudaEvent_t start = nullptr, stop = nullptr;
  Events() {
    cuda(cudaEventCreate(&start), "cudaEventCreate");
    cuda(cudaEventCreate(&stop), "cudaEventCreate");
  }
  ~Events() {
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
  }
  Events(const Events&) = delete;
  Events& operator=(const Events&) = delete;
};

}  // namespace

std::string fmha_sm100_unavailable() {
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess)
    return std::string("no sm_100 GPU (found: no CUDA device, ") + cudaGetErrorString(e) + ")";
  if (devices == 0) return "no sm_100 GPU (found: no CUDA device)";
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, 0); e != cudaSuccess)
    return std::string("no sm_100 GPU (found: device 0 whose properties cannot be read, ") + cudaGetErrorString(e) +
           ")";
  if (prop.major != 10 || prop.minor != 0)
    return "no sm_100 GPU (found: device 0 is " + std::string(prop.name) + ", sm_" + std::to_string(prop.major) +
           std::to_string(prop.minor) + ")";
  return "";
}

bool run_fmha_sm100(const attention::FmhaProblem& problem, std::span<const std::uint16_t> q,
                    std::span<const std::uint16_t> k, std::span<const std::uint16_t> v,
                    attention::FmhaOutput& out, std::string& why, double* seconds) {
  why = fmha_sm100_unavailable();
  if (!why.empty()) return false;
  problem.validate();
  const std::size_t nq = problem.q_elements(), nkv = problem.kv_elements(), nlse = problem.lse_elements();
  if (q.size() != nq) fail("q", std::to_string(q.size()) + " elements", "batch · heads · seq_q · head_dim = " + std::to_string(nq));
  if (k.size() != nkv) fail("k", std::to_string(k.size()) + " elements", "batch · heads_kv · seq_k · head_dim = " + std::to_string(nkv));
  if (v.size() != nkv) fail("v", std::to_string(v.size()) + " elements", "batch · heads_kv · seq_k · head_dim = " + std::to_string(nkv));
  cuda(cudaSetDevice(0), "cudaSetDevice");
  const std::size_t e = sizeof(std::uint16_t);
  Buffer dq(nq * e), dk(nkv * e), dv(nkv * e), dout(nq * e), dlse(nlse * sizeof(float));
  cuda(cudaMemcpy(dq.ptr, q.data(), nq * e, cudaMemcpyHostToDevice), "copy Q");
  cuda(cudaMemcpy(dk.ptr, k.data(), nkv * e, cudaMemcpyHostToDevice), "copy K");
  cuda(cudaMemcpy(dv.ptr, v.data(), nkv * e, cudaMemcpyHostToDevice), "copy V");
  Events ev;
  cuda(cudaEventRecord(ev.start), "cudaEventRecord");
  cuda(attention::launch_fmha_device(problem, dq.ptr, dk.ptr, dv.ptr, dout.ptr, static_cast<float*>(dlse.ptr)),
       "launch_fmha_device");
  cuda(cudaEventRecord(ev.stop), "cudaEventRecord");
  cuda(cudaEventSynchronize(ev.stop), "the FMHA kernel");
  cuda(cudaGetLastError(), "the FMHA kernel");
  float ms = 0;
  cuda(cudaEventElapsedTime(&ms, ev.start, ev.stop), "cudaEventElapsedTime");
  if (seconds != nullptr) *seconds = ms * 1e-3;
  out.o.resize(nq);
  out.lse.resize(nlse);
  cuda(cudaMemcpy(out.o.data(), dout.ptr, nq * e, cudaMemcpyDeviceToHost), "copy O");
  cuda(cudaMemcpy(out.lse.data(), dlse.ptr, nlse * sizeof(float), cudaMemcpyDeviceToHost), "copy LSE");
  return true;
}

}  // namespace tcgen::cli
