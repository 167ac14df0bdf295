#include "tcgen/attention/sparse_decode_sm100.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "tcgen/attention/device_sparse_decode.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/device_buffer.hpp"
#include "tcgen/exec/device_timer.hpp"
#include "tcgen/exec/sm100_device.hpp"

namespace tcgen::attention {

using exec::check_cuda;
using exec::DeviceBuffer;

SparseDecodeRun run(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q, const exec::Sm100&) {
  if (const std::string why = exec::sm100_unavailable(); !why.empty())
    fail("backend", "sm100", "expected an sm_100 GPU (B200, GB200) to run on: " + why);
  problem.validate();
  if (q.size() != problem.q_elements())
    fail("q", std::to_string(q.size()) + " values", "expected " + std::to_string(problem.q_elements()) + ": [batch, s_q, heads, 512]");
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  const auto upload = [&](const void* data, std::size_t bytes) -> void* {
    if (data == nullptr || bytes == 0) return nullptr;
    buffers.push_back(std::make_unique<DeviceBuffer>(bytes));
    check_cuda(cudaMemcpy(buffers.back()->ptr, data, bytes, cudaMemcpyHostToDevice), "copy an input");
    return buffers.back()->ptr;
  };
  SparseDecodeRun r;
  r.splits = problem.split_count();
  SparseDecodeBuffers at;
  at.q = upload(q.data(), q.size_bytes());
  at.cache = static_cast<const std::uint8_t*>(upload(problem.keys.cache.data(), problem.keys.cache.size()));
  at.indices = static_cast<const std::int32_t*>(upload(problem.keys.indices.data(), problem.keys.indices.size_bytes()));
  at.lengths = static_cast<const std::int32_t*>(upload(problem.keys.lengths.data(), problem.keys.lengths.size_bytes()));
  if (problem.extra) {
    const SparseKeys& e = *problem.extra;
    at.extra_cache = static_cast<const std::uint8_t*>(upload(e.cache.data(), e.cache.size()));
    at.extra_indices = static_cast<const std::int32_t*>(upload(e.indices.data(), e.indices.size_bytes()));
    at.extra_lengths = static_cast<const std::int32_t*>(upload(e.lengths.data(), e.lengths.size_bytes()));
  }
  at.sink = static_cast<const float*>(upload(problem.sink.data(), problem.sink.size_bytes()));
  DeviceBuffer o(problem.q_elements() * 2), lse(problem.rows() * sizeof(float));
  const std::size_t splits = static_cast<std::size_t>(r.splits);
  DeviceBuffer o_split(splits > 1 ? splits * problem.q_elements() * sizeof(float) : 0),
      lse_split(splits > 1 ? splits * problem.rows() * sizeof(float) : 0);
  at.o = static_cast<std::uint16_t*>(o.ptr);
  at.lse = static_cast<float*>(lse.ptr);
  at.o_split = static_cast<float*>(o_split.ptr);
  at.lse_split = static_cast<float*>(lse_split.ptr);
  exec::DeviceTimer timer;
  timer.start();
  check_cuda(launch_sparse_decode_device(problem, at), "launch_sparse_decode_device");
  r.stats.seconds = timer.stop_seconds("the sparse decode kernel");
  r.out.o.resize(problem.q_elements());
  r.out.lse.resize(problem.rows());
  check_cuda(cudaMemcpy(r.out.o.data(), o.ptr, r.out.o.size() * 2, cudaMemcpyDeviceToHost), "copy O");
  check_cuda(cudaMemcpy(r.out.lse.data(), lse.ptr, r.out.lse.size() * sizeof(float), cudaMemcpyDeviceToHost), "copy LSE");
  return r;
}

}  // namespace tcgen::attention
