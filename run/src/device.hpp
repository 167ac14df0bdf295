#pragma once
// The one emulated B200 behind the replacement CUDA runtime: the programs'
// registered device code, their kernels, device memory, the error state
// (sticky after a fault, as on a device) and the tally printed at exit.
// Work runs at once, in call order, so streams and events only keep order.
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::run {

struct Binary {
  const std::uint8_t* fatbin = nullptr;
  std::unique_ptr<ptx::Module> module;  // loaded at the first launch of one of its kernels
};

struct Kernel {
  Binary* binary = nullptr;
  std::string name;  // the PTX entry (mangled)
};

// A __device__ or __constant__ variable: its module and PTX name.
struct Symbol {
  Binary* binary = nullptr;
  std::string name;
  std::uint64_t bytes = 0;
};

struct Block {
  std::uint64_t bytes = 0;
  bool pinned = false;  // cudaMallocHost: host memory the device also reaches
  int serial = 0;
};

struct LaunchRequest {
  const void* function = nullptr;
  dim3 grid, block, cluster{1, 1, 1};
  std::size_t dynamic_smem = 0;
  void** args = nullptr;
};

class Device {
 public:
  static Device& get();
  std::mutex mutex;

  // Options from tcgen run (TCGEN_RUN_STRICT, TCGEN_RUN_SEED, TCGEN_RUN_QUIET).
  bool strict = false, quiet = false;
  std::optional<std::uint64_t> seed;

  void** register_binary(const void* wrapper);
  void register_function(void** handle, const void* host_function, const char* device_name);
  void register_variable(void** handle, const void* host_variable, const char* device_name, std::uint64_t bytes);
  cudaError_t launch(const LaunchRequest& r);
  // cudaFuncGetAttributes of a registered kernel, from its PTX entry.
  cudaError_t function_attributes(const void* function, cudaFuncAttributes* a);
  // The device variable registered for host_variable, in its module's storage
  // (the module loaded if need be); null with a report naming `call`.
  std::uint8_t* symbol(const void* host_variable, std::uint64_t* bytes, const char* call);

  void* allocate(std::uint64_t bytes, bool pinned);
  cudaError_t release(void* p, bool pinned, const char* call);
  // The block holding [p, p + bytes), or null with a report naming `call`.
  const Block* find(const void* p, std::uint64_t bytes, const char* call, const char* what);
  cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* call);

  // Errors: the call's result, remembered for cudaGetLastError; a fault
  // makes every later call fail with it.
  cudaError_t result(cudaError_t e);
  cudaError_t sticky() const { return sticky_; }
  cudaError_t take_last_error();
  cudaError_t peek_last_error() const { return last_; }

  // A message to stderr, prefixed "tcgen run: ".
  void report(const std::string& text) const;
  double elapsed_ms() const;  // host time since the process started
  // One line: kernels launched and PTX-letter warnings by rule.
  void print_summary() const;

 private:
  Device();
  std::vector<std::unique_ptr<Binary>> binaries_;
  // The module of b, parsed from its compute_100a PTX at the first use. Throws tcgen::Error.
  const ptx::Module& module(Binary& b);
  std::map<const void*, Kernel> kernels_;
  std::map<const void*, Symbol> symbols_;
  std::map<std::uintptr_t, Block> blocks_;  // by start address
  int next_serial_ = 1;
  cudaError_t sticky_ = cudaSuccess, last_ = cudaSuccess;
  std::uint64_t launched_ = 0;
  std::map<std::string, std::uint64_t> warnings_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace tcgen::run
