#include "device.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

#include "tcgen/core/error.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/run/fatbin.hpp"

namespace tcgen::run {

namespace {

std::string hex(const void* p) {
  char b[24];
  std::snprintf(b, sizeof b, "%p", p);
  return b;
}

// "gemm_device<…>": the kernel's C++ name without its template arguments and parameters.
std::string short_name(const std::string& mangled) {
  std::string s = ptx::demangle(mangled);
  for (std::size_t a; (a = s.find("(anonymous namespace)::")) != std::string::npos;) s.erase(a, 23);
  if (const auto p = s.find('('); p != std::string::npos) s.resize(p);
  if (const auto t = s.find('<'); t != std::string::npos) s = s.substr(0, t) + "<…>";
  if (const auto space = s.rfind(' '); space != std::string::npos && s.find('<') == std::string::npos)
    s = s.substr(space + 1);  // a return type before the name
  return s;
}

std::string dims(const dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

}  // namespace

Device::Device() {
  const char* strict_env = std::getenv("TCGEN_RUN_STRICT");
  strict = strict_env && std::strcmp(strict_env, "0") != 0;
  const char* quiet_env = std::getenv("TCGEN_RUN_QUIET");
  quiet = quiet_env && std::strcmp(quiet_env, "0") != 0;
  if (const char* s = std::getenv("TCGEN_RUN_SEED"); s && *s) seed = std::strtoull(s, nullptr, 10);
}

Device& Device::get() {
  // Never destroyed: static destructors of the program may still call in.
  static Device* d = [] {
    auto* device = new Device;
    std::atexit([] { Device::get().print_summary(); });
    return device;
  }();
  return *d;
}

void Device::report(const std::string& text) const { std::fprintf(stderr, "tcgen run: %s\n", text.c_str()); }

double Device::elapsed_ms() const {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start_).count();
}

void Device::print_summary() const {
  std::string line = "tcgen run: " + std::to_string(launched_) + " kernel launch" + (launched_ == 1 ? "" : "es");
  if (warnings_.empty()) line += ", no PTX-letter warnings";
  for (const auto& [rule, count] : warnings_) line += ", " + rule + " " + std::to_string(count);
  if (sticky_ != cudaSuccess) line += std::string("; the device faulted (") + cudaGetErrorName(sticky_) + ")";
  line += "\n";
  // Under tcgen run the line goes back through its pipe, which also tells it the runtime was loaded.
  if (const char* fd = std::getenv("TCGEN_RUN_FD"); fd && *fd) {
    if (write(std::atoi(fd), line.data(), line.size()) == static_cast<ssize_t>(line.size())) return;
  }
  std::fputs(line.c_str(), stderr);
}

void** Device::register_binary(const void* wrapper) {
  auto b = std::make_unique<Binary>();
  b->fatbin = unwrap_fatbin(wrapper);
  binaries_.push_back(std::move(b));
  // The handle nvcc's registration code passes back: a pointer to our Binary.
  return reinterpret_cast<void**>(binaries_.back().get());
}

void Device::register_function(void** handle, const void* host_function, const char* device_name) {
  kernels_[host_function] = {reinterpret_cast<Binary*>(handle), device_name};
}

void Device::register_variable(void** handle, const void* host_variable, const char* device_name,
                               std::uint64_t bytes) {
  symbols_[host_variable] = {reinterpret_cast<Binary*>(handle), device_name, bytes};
}

const ptx::Module& Device::module(Binary& b) {
  if (!b.module) {
    const std::vector<FatbinEntry> entries = parse_fatbin(b.fatbin);
    const FatbinEntry& ptx = sm100a_ptx(entries);
    b.module = std::make_unique<ptx::Module>(ptx::Module::parse(ptx_text(ptx), ptx.target() + ".ptx"));
  }
  return *b.module;
}

std::uint8_t* Device::symbol(const void* host_variable, std::uint64_t* bytes, const char* call) {
  const auto s = symbols_.find(host_variable);
  if (s == symbols_.end()) {
    report(std::string(call) + ": " + hex(host_variable) + " is no registered __device__ or __constant__ variable");
    return nullptr;
  }
  try {
    for (const ptx::Module::Storage& st : module(*s->second.binary).storage())
      if (*st.name == s->second.name) {
        *bytes = st.end - st.begin;
        return reinterpret_cast<std::uint8_t*>(st.begin);
      }
    report(std::string(call) + ": the module has no variable " + s->second.name);
  } catch (const Error& e) {
    report(std::string(call) + ": " + e.what());
  }
  return nullptr;
}

cudaError_t Device::result(cudaError_t e) {
  if (e != cudaSuccess) last_ = e;
  return e;
}

cudaError_t Device::take_last_error() {
  const cudaError_t e = sticky_ != cudaSuccess ? sticky_ : last_;
  last_ = cudaSuccess;
  return e;
}

cudaError_t Device::launch(const LaunchRequest& r) {
  if (sticky_ != cudaSuccess) return result(sticky_);
  const auto k = kernels_.find(r.function);
  if (k == kernels_.end()) {
    report("a launch of " + hex(r.function) + ", which is no registered kernel (cudaErrorInvalidDeviceFunction)");
    return result(cudaErrorInvalidDeviceFunction);
  }
  const Kernel& kernel = k->second;
  try {
    const ptx::Module& module = this->module(*kernel.binary);
    const ptx::Function& entry = module.entry(kernel.name);
    std::vector<ptx::Argument> args;
    for (std::size_t i = 0; i < entry.params.size(); ++i)
      args.push_back({static_cast<const std::uint8_t*>(r.args[i]), entry.params[i].bytes});
    std::vector<ptx::Allocation> memory;
    for (const auto& [start, b] : blocks_)
      memory.push_back({reinterpret_cast<const void*>(start), b.bytes,
                        (b.pinned ? "cudaMallocHost #" : "cudaMalloc #") + std::to_string(b.serial), true});
    ptx::LaunchConfig config{.grid = {r.grid.x, r.grid.y, r.grid.z},
                             .block = {r.block.x, r.block.y, r.block.z},
                             .cluster = {r.cluster.x, r.cluster.y, r.cluster.z},
                             .dynamic_smem = static_cast<std::uint32_t>(r.dynamic_smem),
                             .strict = strict};
    config.options.shuffle_seed = seed;
    const ptx::LaunchStats stats = ptx::launch(module, entry, config, args, memory);
    ++launched_;
    for (const auto& [rule, count] : stats.warnings) warnings_[rule] += count;
    return cudaSuccess;
  } catch (const ptx::ExecutionError& e) {
    ++launched_;
    report(std::string("kernel fault, the device is now unusable (cudaErrorLaunchFailure):\n") + e.what());
    sticky_ = cudaErrorLaunchFailure;
    return result(sticky_);
  } catch (const Error& e) {
    // A shape the device cannot launch is an invalid configuration, as CUDA reports it; the rest invalid values.
    const bool shape = e.field() == "block" || e.field() == "grid" || e.field() == "cluster";
    const cudaError_t code = shape ? cudaErrorInvalidConfiguration : cudaErrorInvalidValue;
    report("the launch of " + short_name(kernel.name) + " <<<" + dims(r.grid) + ", " + dims(r.block) + ", " +
           std::to_string(r.dynamic_smem) + ">>> is refused (" + cudaGetErrorName(code) + "): " + e.what());
    return result(code);
  }
}

cudaError_t Device::function_attributes(const void* function, cudaFuncAttributes* a) {
  const auto k = kernels_.find(function);
  if (k == kernels_.end()) {
    report("cudaFuncGetAttributes of " + hex(function) + ", which is no registered kernel");
    return result(cudaErrorInvalidDeviceFunction);
  }
  try {
    const ptx::Module& m = module(*k->second.binary);
    const ptx::Function& f = m.entry(k->second.name);
    std::memset(a, 0, sizeof *a);
    a->sharedSizeBytes = f.static_shared_bytes;
    a->localSizeBytes = f.local_bytes;
    a->maxThreadsPerBlock = 1024;
    for (const std::string& d : f.directives) {
      unsigned x = 1, y = 1, z = 1;
      if ((d.starts_with(".maxntid ") || d.starts_with(".reqntid ")) && std::sscanf(d.c_str() + 9, "%u , %u , %u", &x, &y, &z) >= 1)
        a->maxThreadsPerBlock = static_cast<int>(x * y * z);
    }
    // PTX registers are virtual: what ptxas allocates is unknown here; at most 255 per thread.
    a->numRegs = static_cast<int>(std::min<std::uint32_t>(f.registers, 255));
    a->ptxVersion = 90;
    a->binaryVersion = 100;
    a->maxDynamicSharedSizeBytes = static_cast<int>(232448 - f.static_shared_bytes);
    return cudaSuccess;
  } catch (const Error& e) {
    report(std::string("cudaFuncGetAttributes: ") + e.what());
    return result(cudaErrorInvalidDeviceFunction);
  }
}

void* Device::allocate(std::uint64_t bytes, bool pinned) {
  const std::uint64_t rounded = (bytes + 255) / 256 * 256;
  void* p = std::aligned_alloc(256, rounded ? rounded : 256);
  if (!p) return nullptr;
  std::memset(p, 0, rounded ? rounded : 256);  // the host model has no uninitialised global memory
  blocks_[reinterpret_cast<std::uintptr_t>(p)] = {bytes, pinned, next_serial_++};
  return p;
}

cudaError_t Device::release(void* p, bool pinned, const char* call) {
  if (!p) return cudaSuccess;
  const auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == blocks_.end() || it->second.pinned != pinned) {
    report(std::string(call) + "(" + hex(p) + "): not an address " + (pinned ? "cudaMallocHost" : "cudaMalloc") +
           " returned, or already freed (cudaErrorInvalidValue)");
    return result(cudaErrorInvalidValue);
  }
  std::free(p);
  blocks_.erase(it);
  return cudaSuccess;
}

const Block* Device::find(const void* p, std::uint64_t bytes, const char* call, const char* what) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  auto it = blocks_.upper_bound(a);
  if (it != blocks_.begin()) {
    --it;
    if (a >= it->first && a + bytes <= it->first + it->second.bytes) return &it->second;
  }
  report(std::string(call) + ": the " + what + " [" + hex(p) + ", +" + std::to_string(bytes) +
         ") is not inside any live cudaMalloc or cudaMallocHost block (as compute-sanitizer's memcheck would "
         "report; cudaErrorInvalidValue)");
  return nullptr;
}

cudaError_t Device::copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* call) {
  if (sticky_ != cudaSuccess) return result(sticky_);
  if (bytes == 0) return cudaSuccess;
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice;
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice;
  if (kind == cudaMemcpyDefault) {
    // Unified addressing: each side is device memory when it lies in a block.
  } else {
    if (dst_device && !find(dst, bytes, call, "destination")) return result(cudaErrorInvalidValue);
    if (src_device && !find(src, bytes, call, "source")) return result(cudaErrorInvalidValue);
  }
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}

}  // namespace tcgen::run
