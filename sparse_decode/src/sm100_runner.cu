#include "tcgen/sparse_decode/sm100_runner.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "tcgen/exec/device_buffer.hpp"
#include "tcgen/exec/device_timer.hpp"
#include "tcgen/exec/sm100_device.hpp"
#include "tcgen/sparse_decode/device_sparse_decode.hpp"

namespace tcgen::sparse_decode {

using exec::check_cuda;
using exec::DeviceBuffer;

struct DeviceSparseDecode::Arrays {
  int splits = 1;
  std::size_t q_elements = 0, rows = 0;
  std::vector<std::unique_ptr<DeviceBuffer>> buffers;
  SparseDecodeBuffers at;
  std::optional<SparseDecodeDeviceLaunch> prepared;  // built once the arrays are on the device

  // A device copy of `bytes` bytes at data (null for none).
  template <class T>
  T* upload(const T* data, std::size_t bytes) {
    if (data == nullptr || bytes == 0) return nullptr;
    buffers.push_back(std::make_unique<DeviceBuffer>(bytes));
    check_cuda(cudaMemcpy(buffers.back()->ptr, data, bytes, cudaMemcpyHostToDevice), "copy an input");
    return static_cast<T*>(buffers.back()->ptr);
  }
  template <class T>
  T* zeros(std::size_t count) {
    buffers.push_back(std::make_unique<DeviceBuffer>(count * sizeof(T)));
    check_cuda(cudaMemset(buffers.back()->ptr, 0, count * sizeof(T)), "clear an output");
    return static_cast<T*>(buffers.back()->ptr);
  }
};

DeviceSparseDecode::DeviceSparseDecode(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q)
    : arrays_(std::make_unique<Arrays>()) {
  if (const std::string why = exec::sm100_unavailable(); !why.empty())
    fail("backend", "sm100", "expected an sm_100 GPU (B200, GB200) to run on: " + why);
  problem.validate();
  if (q.size() != problem.q_elements())
    fail("q", std::to_string(q.size()) + " values", "expected " + std::to_string(problem.q_elements()) + ": [batch, s_q, heads, 512]");
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  Arrays& x = *arrays_;
  x.splits = problem.split_count();
  x.q_elements = problem.q_elements();
  x.rows = problem.rows();
  SparseDecodeBuffers& at = x.at;
  at.q = x.upload(q.data(), q.size_bytes());
  at.cache = x.upload(problem.keys.cache.data(), problem.keys.cache.size());
  at.indices = x.upload(problem.keys.indices.data(), problem.keys.indices.size_bytes());
  at.lengths = x.upload(problem.keys.lengths.data(), problem.keys.lengths.size_bytes());
  if (problem.extra) {
    const SparseKeys& e = *problem.extra;
    at.extra_cache = x.upload(e.cache.data(), e.cache.size());
    at.extra_indices = x.upload(e.indices.data(), e.indices.size_bytes());
    at.extra_lengths = x.upload(e.lengths.data(), e.lengths.size_bytes());
  }
  at.sink = x.upload(problem.sink.data(), problem.sink.size_bytes());
  at.o = x.zeros<std::uint16_t>(problem.q_elements());
  at.lse = x.zeros<float>(problem.rows());
  const std::size_t splits = static_cast<std::size_t>(problem.split_count());
  if (splits > 1) {
    at.o_split = x.zeros<float>(splits * problem.q_elements());
    at.lse_split = x.zeros<float>(splits * problem.rows());
  }
  x.prepared.emplace(problem, at);
}

DeviceSparseDecode::~DeviceSparseDecode() = default;

int DeviceSparseDecode::splits() const { return arrays_->splits; }

void DeviceSparseDecode::launch() const { check_cuda(arrays_->prepared->launch(), "the sparse decode launch"); }

SparseDecodeOutput DeviceSparseDecode::output() const {
  SparseDecodeOutput out{std::vector<std::uint16_t>(arrays_->q_elements), std::vector<float>(arrays_->rows)};
  check_cuda(cudaMemcpy(out.o.data(), arrays_->at.o, out.o.size() * 2, cudaMemcpyDeviceToHost), "copy O");
  check_cuda(cudaMemcpy(out.lse.data(), arrays_->at.lse, out.lse.size() * sizeof(float), cudaMemcpyDeviceToHost), "copy LSE");
  return out;
}

SparseDecodeRun run(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q, const exec::Sm100&) {
  const DeviceSparseDecode device(problem, q);
  SparseDecodeRun r;
  r.splits = device.splits();
  exec::DeviceTimer timer;
  timer.start();
  device.launch();
  r.stats.seconds = timer.stop_seconds("the sparse decode kernel");
  r.out = device.output();
  return r;
}

}  // namespace tcgen::sparse_decode
