#pragma once
// The one emulated B200 behind the replacement CUDA driver and runtime: the
// programs' device code (registered fatbinaries and loaded modules), their
// kernels and variables, device memory, the error state (per host thread,
// and sticky after a fault, as on a device) and the tally printed at exit.
// It lives in libcuda.so.1, which the runtime links, so that a program
// mixing both APIs sees one device. Work runs at once, in call order, so
// streams and events only keep order. Every member is used under `mutex`.
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "b200.hpp"
#include "cubin.hpp"
#include "profile.hpp"
#include "tcgen/timing/chrome_trace.hpp"
#include "tcgen/timing/machine.hpp"

namespace tcgen::ptx {
class Module;
}

namespace tcgen::run {

struct Binary {
  const void* wrapper = nullptr;        // what __cudaRegisterFatBinary received; null for a driver module
  std::unique_ptr<ptx::Module> module;  // parsed at the first use of one of its kernels or variables
  // A driver module loaded from a cubin: its kernels answer queries, their launches are refused.
  std::optional<std::vector<CubinKernel>> cubin;
  // A driver module's kernels (cuModuleGetFunction): name → the handle the program holds.
  std::map<std::string, std::unique_ptr<char>> functions;
  ~Binary();
};

struct Kernel {
  Binary* binary = nullptr;
  std::string name;  // the PTX entry (mangled)
  // cudaFuncAttributeMaxDynamicSharedMemorySize; unset: CUDA's default, 48 KiB less the static shared memory.
  std::optional<int> max_dynamic_smem;
};

// A __device__ or __constant__ variable: its module and PTX name.
struct Symbol {
  Binary* binary = nullptr;
  std::string name;
};

struct Block {
  std::uint64_t bytes = 0;
  bool pinned = false;  // cudaMallocHost: host memory the device also reaches
  int serial = 0;
  const char* call = "";  // what allocated it (cudaMalloc, cuMemAlloc, ...), for reports: "cuMemAlloc #2"
};

struct LaunchRequest {
  const void* function = nullptr;
  dim3 grid, block, cluster{1, 1, 1};
  std::size_t dynamic_smem = 0;
  void** args = nullptr;                  // one pointer per parameter, or
  const std::uint8_t* packed = nullptr;   // the parameters at their PTX offsets (CU_LAUNCH_PARAM_BUFFER_POINTER)
  std::vector<std::string> no_effect;     // launch attributes accepted that the host model has no use for
};

class Device {
 public:
  static Device& get();
  std::mutex mutex;

  // Options from tcgen run (TCGEN_RUN_STRICT, TCGEN_RUN_SEED, TCGEN_RUN_THREADS, TCGEN_RUN_JSON).
  bool strict = false;
  unsigned threads = 0;  // OS threads running a launch's CTAs at once; 0: one per core
  std::optional<std::uint64_t> watchdog;  // TCGEN_RUN_WATCHDOG: tcgen run --watchdog N (else the launch's default)
  // TCGEN_RUN_PROGRESS: seconds between the progress lines of a launch still running (0: none,
  // tcgen run --quiet).
  double progress_seconds = 5;
  bool profile = false;  // TCGEN_RUN_PROFILE: tcgen run --profile (Profile)
  bool json_summary = false;  // TCGEN_RUN_JSON: the summary as "json KEY VALUE" lines for tcgen run --json
  std::optional<std::uint64_t> seed;
  // TCGEN_RUN_SMS: tcgen run --sms, the SMs the device reports, so that a persistent kernel's CTAs
  // take several tiles of a small problem.
  int sms = kSms;
  // tcgen run --timing (TCGEN_RUN_TIMING, TCGEN_RUN_TIMING_SMS, TCGEN_RUN_TRACE): each launch's
  // predicted B200 time after it, the timeline of every launch written at exit.
  bool provenance = true;  // TCGEN_RUN_PROVENANCE=off: tcgen run --provenance off
  std::optional<timing::Machine> timing;
  int timing_sms = 0;
  std::string trace_path;

  void** register_binary(const void* wrapper);
  void register_function(void** handle, const void* host_function, const char* device_name);
  void register_variable(void** handle, const void* host_variable, const char* device_name);
  // cuModuleLoadData/cuLibraryLoadData: a module from an image (PTX text, or a fatbinary holding
  // compute_100a PTX), parsed now; null and *error set (with a report naming `call`) when refused.
  Binary* load_module(const void* image, const char* call, cudaError_t* error);
  // The module `handle` names, or null with a report naming `call`.
  Binary* loaded_module(const void* handle, const char* call);
  void unload_module(Binary* b);
  // The handle of a driver module's kernel `name` (cuModuleGetFunction), or null with a report.
  const void* module_function(Binary& b, const char* name, const char* call);
  // The names of a driver module's kernels in the order the image holds them (cuLibraryEnumerateKernels);
  // false with a report naming `call` when its PTX does not parse.
  bool module_kernels(Binary& b, std::vector<std::string>& names, const char* call);
  cudaError_t launch(const LaunchRequest& r);
  // cudaFuncGetAttributes / cudaFuncSetAttribute of a registered kernel, from its PTX entry.
  cudaError_t function_attributes(const void* function, cudaFuncAttributes* a);
  cudaError_t set_function_attribute(const void* function, cudaFuncAttribute attribute, int value);
  // The device variable registered for host_variable, in its module's storage
  // (the module loaded if need be); null with a report naming `call`.
  std::uint8_t* symbol(const void* host_variable, std::uint64_t* bytes, const char* call);

  // cudaOccupancyMaxActiveBlocksPerMultiprocessor from an SM's threads, CTAs and shared memory
  // (registers are ptxas's, unknown here, so they do not limit it).
  cudaError_t occupancy(const void* function, int block_threads, std::size_t dynamic_smem, int* blocks);
  // cudaOccupancyAvailableDynamicSMemPerBlock: the most dynamic shared memory a CTA of block_threads
  // may take with `blocks` of them on an SM, by occupancy()'s own count, capped by the kernel's limit.
  cudaError_t available_dynamic_smem(const void* function, int blocks, int block_threads, std::size_t* bytes);

  // Where a live block or module variable holding address a starts and how long it is.
  struct Range {
    std::uintptr_t begin;
    std::uint64_t bytes;
  };
  std::optional<Range> device_memory_at(std::uintptr_t a) const;

  void* allocate(std::uint64_t bytes, bool pinned, const char* call);
  std::uint64_t allocated_bytes() const;
  // Whether p lies in device memory (cudaPointerGetAttributes), and if so whether in pinned host memory.
  bool is_device_memory(const void* p, bool* pinned) const;
  cudaError_t release(void* p, bool pinned, const char* call);
  // Whether [p, p + bytes) lies in device memory: a live block or a module's
  // variables; false with a report naming `call` and `what`.
  bool device_range(const void* p, std::uint64_t bytes, const char* call, const char* what);
  cudaError_t copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* call);

  // Errors: a call's result, remembered as the calling thread's last error;
  // after a fault every call that uses the device fails with it.
  cudaError_t result(cudaError_t e);
  cudaError_t sticky() const { return sticky_.load(); }
  cudaError_t take_last_error();
  cudaError_t peek_last_error() const;

  // A message to stderr, prefixed "tcgen run: ".
  void report(const std::string& text) const;
  double elapsed_ms() const;  // host time since the process started
  // One line: kernels launched and PTX-letter warnings by rule.
  void print_summary() const;
  // The trace file of tcgen run --trace, with every launch's timeline.
  void write_timeline() const;

 private:
  Device();
  // The module of b, parsed from its compute_100a PTX at the first use. Throws tcgen::Error (for a
  // cubin's, which has none, with the field a launch reads as the missing kernel image).
  const ptx::Module& module(Binary& b);
  // What the queries ask of a kernel, from its PTX entry or its cubin. Throws tcgen::Error.
  struct KernelFacts {
    std::uint32_t shared_bytes = 0, local_bytes = 0;
    int registers = 0, max_threads = 1024, ptx_version = 0;
  };
  KernelFacts facts(const Kernel& k);
  // The kernel registered for a host stub, or null with a report.
  Kernel* kernel(const void* function, const char* call);

  std::vector<std::unique_ptr<Binary>> binaries_;
  std::map<const void*, Kernel> kernels_;
  std::map<const void*, Symbol> symbols_;
  std::map<std::uintptr_t, Block> blocks_;  // by start address
  int next_serial_ = 1;
  std::atomic<cudaError_t> sticky_{cudaSuccess};
  std::uint64_t launched_ = 0;
  std::map<std::string, std::uint64_t> warnings_;
  std::map<std::string, std::uint64_t> no_effect_;  // launch attribute → launches that asked for it
  std::map<std::string, std::string> first_warning_;  // rule → where it was first broken, and how
  std::vector<std::string> timing_json_;        // one object per launch, for --json
  Profile profile_;                             // under `profile`
  std::vector<timing::TraceLaunch> timelines_;  // for the trace file
  double timeline_clock_ = 0;                   // predicted seconds of the launches so far
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The device for one API call: every member is used under its mutex.
inline std::lock_guard<std::mutex> lock_device() { return std::lock_guard<std::mutex>(Device::get().mutex); }

}  // namespace tcgen::run
