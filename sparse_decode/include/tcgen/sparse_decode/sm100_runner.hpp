#pragma once
// The sparse decode kernel on an sm_100 GPU for host code that is not
// compiled by nvcc (the tcgen CLI, the benchmark's host side): defined in
// src/sm100_runner.cu, built (target tcgen_sparse_decode_sm100) only where
// nvcc is found.
#include <cstdint>
#include <memory>
#include <span>

#include "tcgen/exec/backend.hpp"
#include "tcgen/sparse_decode/problem.hpp"

namespace tcgen::sparse_decode {

// One problem's arrays on device 0, uploaded once (Q, the caches, the index
// lists, the sinks, O, LSE and the split workspace): launch() runs the kernel
// and, where the keys are split, the combine step (SparseDecodeDeviceLaunch,
// device_sparse_decode.hpp), as often as asked, with nothing done on the
// host; output() copies O and LSE back. The problem's spans are read by the
// constructor only. Throws tcgen::Error for a bad
// problem, naming "backend" where device 0 is not an sm_100 GPU, or a CUDA error.
class DeviceSparseDecode {
 public:
  DeviceSparseDecode(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q);
  ~DeviceSparseDecode();
  DeviceSparseDecode(const DeviceSparseDecode&) = delete;
  DeviceSparseDecode& operator=(const DeviceSparseDecode&) = delete;

  void launch() const;
  SparseDecodeOutput output() const;
  int splits() const;

 private:
  struct Arrays;
  std::unique_ptr<Arrays> arrays_;
};

// The whole problem once on device 0, timed by CUDA events.
SparseDecodeRun run(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q, const exec::Sm100& backend);

}  // namespace tcgen::sparse_decode
