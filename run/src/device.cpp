#include "device.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>

#include "b200.hpp"
#include "driver.hpp"
#include "errors.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/core/host_memory.hpp"
#include "tcgen/exec/errors.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"
#include "tcgen/run/fatbin.hpp"

namespace tcgen::run {

namespace {

// CUDA keeps the last error per host thread.
thread_local cudaError_t last_error = cudaSuccess;

constexpr int kDefaultSmem = kSharedPerBlockDefault, kMaxSmem = kSharedPerBlockOptin;

std::string dims(const dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}

// "gemm_device<…>": the kernel's C++ name without namespaces' "(anonymous namespace)::", its template
// arguments, parameters and return type.
std::string short_name(const std::string& mangled) {
  std::string s = ptx::demangle(mangled);
  if (s == mangled && !ptx::leading_name(mangled).empty()) return ptx::leading_name(mangled);  // unreadable whole
  for (std::size_t a; (a = s.find("(anonymous namespace)::")) != std::string::npos;) s.erase(a, 23);
  if (const auto p = s.find('('); p != std::string::npos) s.resize(p);
  const auto t = s.find('<');
  if (t != std::string::npos) s = s.substr(0, t) + "<…>";
  if (const auto space = s.rfind(' ', t == std::string::npos ? std::string::npos : t); space != std::string::npos)
    s = s.substr(space + 1);
  return s;
}

// The error a GPU reports for a kernel fault of this kind.
cudaError_t fault_code(const ptx::ExecutionError& e) {
  switch (e.kind()) {
    case ptx::FaultKind::illegal_address: return cudaErrorIllegalAddress;
    case ptx::FaultKind::assertion: return cudaErrorAssert;
    case ptx::FaultKind::launch_failure: break;
  }
  return cudaErrorLaunchFailure;
}

// A message on one line: the model's may hold line breaks.
std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s;
}

// A line on stderr once a launch has run `seconds`, and each `seconds` after, with what it has done:
// a kernel that spins, or runs for hours on the host model, is never silent. Called from every OS
// thread running a CTA (ptx::LaunchConfig::heartbeat).
std::function<void(const ptx::LaunchProgress&)> progress_line(const std::string& what, double seconds) {
  using Clock = std::chrono::steady_clock;
  struct State {
    std::mutex lock;
    Clock::time_point start = Clock::now(), next;
  };
  const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  auto state = std::make_shared<State>();
  state->next = state->start + interval;
  return [what, interval, state](const ptx::LaunchProgress& p) {
    const Clock::time_point now = Clock::now();
    const std::lock_guard lock(state->lock);
    if (now < state->next) return;
    state->next = now + interval;
    std::fprintf(stderr, "tcgen run: %s running for %.1f s: %llu instructions, %llu of %llu CTAs done\n", what.c_str(),
                 std::chrono::duration<double>(now - state->start).count(), static_cast<unsigned long long>(p.instructions),
                 static_cast<unsigned long long>(p.ctas_done), static_cast<unsigned long long>(p.ctas));
  };
}

}  // namespace

Device::Device() {
  const char* strict_env = std::getenv("TCGEN_RUN_STRICT");
  strict = strict_env && std::strcmp(strict_env, "0") != 0;
  if (const char* s = std::getenv("TCGEN_RUN_SEED"); s && *s) seed = std::strtoull(s, nullptr, 10);
  if (const char* s = std::getenv("TCGEN_RUN_THREADS"); s && *s) threads = static_cast<unsigned>(std::strtoul(s, nullptr, 10));
  if (const char* s = std::getenv("TCGEN_RUN_WATCHDOG"); s && *s) watchdog = std::strtoull(s, nullptr, 10);
  // Finite, at most a day: a larger one would overflow the clock's arithmetic; anything else is off.
  if (const char* s = std::getenv("TCGEN_RUN_PROGRESS"); s && *s) {
    const double seconds = std::strtod(s, nullptr);
    progress_seconds = std::isfinite(seconds) && seconds > 0 ? std::min(seconds, 86400.0) : 0;
  }
  profile = std::getenv("TCGEN_RUN_PROFILE") != nullptr;
  json_summary = std::getenv("TCGEN_RUN_JSON") != nullptr;
  if (const char* s = std::getenv("TCGEN_RUN_TRACE"); s && *s) trace_path = s;
  if (const char* s = std::getenv("TCGEN_RUN_PROVENANCE"); s && std::strcmp(s, "off") == 0) provenance = false;
  if (const char* s = std::getenv("TCGEN_RUN_TIMING"); (s && *s) || !trace_path.empty()) timing.emplace();
  if (const char* s = std::getenv("TCGEN_RUN_TIMING_SMS"); s && *s) timing_sms = static_cast<int>(std::strtol(s, nullptr, 10));
  if (const char* s = std::getenv("TCGEN_RUN_SMS"); s && *s) {
    const long n = std::strtol(s, nullptr, 10);
    if (n < 1 || n > kSms || timing)
      report(std::string("TCGEN_RUN_SMS=") + s + ": expected 1 to 148, and no timing (the timing model is a "
             "148-SM B200); the device reports 148 SMs");
    else
      sms = static_cast<int>(n);
  }
  // NAME=VALUE,...: tcgen run --timing-set, which checked each already.
  if (const char* s = std::getenv("TCGEN_RUN_TIMING_SET"); s && *s && timing) {
    std::string list = s;
    for (std::size_t at = 0; at < list.size();) {
      const std::size_t end = std::min(list.find(',', at), list.size()), eq = list.find('=', at);
      try {
        if (eq < end) timing::set_constant(*timing, list.substr(at, eq - at), std::stod(list.substr(eq + 1, end - eq - 1)));
      } catch (const std::exception& e) {
        report(std::string("TCGEN_RUN_TIMING_SET: ") + e.what());
      }
      at = end + 1;
    }
  }
  // tcgen run learns that the program loaded this runtime, whatever way it ends.
  if (std::getenv("TCGEN_RUN_FD")) to_tcgen_run("loaded\n");
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

void Device::write_timeline() const {
  if (trace_path.empty()) return;
  std::ofstream out(trace_path);
  out << timing::chrome_trace(timelines_, *timing);
  out.close();
  if (!out) {
    report("the timeline could not be written to " + trace_path + ": " + std::strerror(errno));
    return;
  }
  report("timeline of " + std::to_string(timelines_.size()) + " launch" + (timelines_.size() == 1 ? "" : "es") +
         " written to " + trace_path + " (open it in ui.perfetto.dev)");
}

void Device::print_summary() const {
  if (json_summary) {  // the same facts, one per line, for tcgen run to put into its JSON object
    std::string lines = "json kernel_launches " + std::to_string(launched_) + "\n";
    // The runtime marks itself (cudart.cpp); a program without it used the driver API alone.
    if (!dlsym(RTLD_DEFAULT, "tcgen_cudart")) lines += "json driver_only true\n";
    for (const auto& [rule, count] : warnings_) lines += "json warning " + rule + " " + std::to_string(count) + "\n";
    for (const auto& [rule, text] : first_warning_) lines += "json first " + rule + " " + one_line(text) + "\n";
    for (const auto& [attribute, count] : no_effect_)
      lines += "json no_effect " + attribute + " " + std::to_string(count) + "\n";
    if (sticky() != cudaSuccess) lines += std::string("json fault ") + error_name(sticky()) + "\n";
    for (const std::string& launch : timing_json_) lines += "json timing " + launch + "\n";
    if (profile)
      for (const std::string& kernel : profile_.json()) lines += "json profile " + kernel + "\n";
    write_timeline();
    return to_tcgen_run(lines);
  }
  write_timeline();
  std::string line = "tcgen run: " + std::to_string(launched_) + " kernel launch" + (launched_ == 1 ? "" : "es");
  if (warnings_.empty()) line += ", no PTX-letter warnings";
  for (const auto& [rule, count] : warnings_) line += ", " + rule + " " + std::to_string(count);
  if (sticky() != cudaSuccess) line += std::string("; the device faulted (") + error_name(sticky()) + ")";
  if (profile && !profile_.busiest().empty()) line += "; " + profile_.busiest();
  line += "\n";
  if (profile) line += profile_.table();
  if (!no_effect_.empty()) {  // accepted, as a GPU accepts them, but nothing on the host model changes
    line += "tcgen run: launch attributes with no effect on the host model:";
    for (const auto& [attribute, count] : no_effect_) line += " " + attribute + " " + std::to_string(count);
    line += "\n";
  }
  // Where each PTX-letter rule was first broken: a count alone leaves the user to search for it.
  for (const auto& [rule, text] : first_warning_) line += "tcgen run: " + rule + " first broken at " + one_line(text) + "\n";
  to_tcgen_run(line);
}

// ---- registration

void** Device::register_binary(const void* wrapper) {
  auto b = std::make_unique<Binary>();
  b->wrapper = wrapper;
  binaries_.push_back(std::move(b));
  // The handle nvcc's registration code passes back: a pointer to our Binary.
  return reinterpret_cast<void**>(binaries_.back().get());
}

void Device::register_function(void** handle, const void* host_function, const char* device_name) {
  kernels_[host_function] = {reinterpret_cast<Binary*>(handle), device_name, std::nullopt};
}

void Device::register_variable(void** handle, const void* host_variable, const char* device_name) {
  symbols_[host_variable] = {reinterpret_cast<Binary*>(handle), device_name};
}

Kernel* Device::kernel(const void* function, const char* call) {
  const auto k = kernels_.find(function);
  if (k != kernels_.end()) return &k->second;
  report(std::string(call) + " of " + hex(reinterpret_cast<std::uintptr_t>(function)) +
         ", which is no registered kernel (cudaErrorInvalidDeviceFunction)");
  return nullptr;
}

std::uint8_t* Device::symbol(const void* host_variable, std::uint64_t* bytes, const char* call) {
  const auto s = symbols_.find(host_variable);
  if (s == symbols_.end()) {
    report(std::string(call) + ": " + hex(reinterpret_cast<std::uintptr_t>(host_variable)) +
           " is no registered __device__ or __constant__ variable");
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

// ---- errors

cudaError_t Device::result(cudaError_t e) {
  if (e != cudaSuccess) last_error = e;
  return e;
}

cudaError_t Device::take_last_error() {
  const cudaError_t e = sticky() != cudaSuccess ? sticky() : last_error;
  last_error = cudaSuccess;
  return e;
}

cudaError_t Device::peek_last_error() const { return sticky() != cudaSuccess ? sticky() : last_error; }

// ---- kernels

cudaError_t Device::function_attributes(const void* function, cudaFuncAttributes* a) {
  Kernel* k = kernel(function, "cudaFuncGetAttributes");
  if (!k) return result(cudaErrorInvalidDeviceFunction);
  try {
    const KernelFacts f = facts(*k);
    std::memset(a, 0, sizeof *a);
    a->sharedSizeBytes = f.shared_bytes;
    a->localSizeBytes = f.local_bytes;
    a->maxThreadsPerBlock = f.max_threads;
    a->numRegs = f.registers;
    a->ptxVersion = f.ptx_version;
    a->binaryVersion = 100;
    a->maxDynamicSharedSizeBytes = k->max_dynamic_smem.value_or(kDefaultSmem - static_cast<int>(f.shared_bytes));
    return cudaSuccess;
  } catch (const Error& e) {
    report(std::string("cudaFuncGetAttributes: ") + e.what());
    return result(cudaErrorInvalidDeviceFunction);
  }
}

cudaError_t Device::set_function_attribute(const void* function, cudaFuncAttribute attribute, int value) {
  if (sticky() != cudaSuccess) return result(sticky());
  Kernel* k = kernel(function, "cudaFuncSetAttribute");
  if (!k) return result(cudaErrorInvalidDeviceFunction);
  if (attribute != cudaFuncAttributeMaxDynamicSharedMemorySize) return cudaSuccess;  // hints and cluster policies
  try {
    const int limit = kMaxSmem - static_cast<int>(facts(*k).shared_bytes);
    if (value < 0 || value > limit) {
      report("cudaFuncSetAttribute: cudaFuncAttributeMaxDynamicSharedMemorySize = " + std::to_string(value) +
             " is invalid: 0 to " + std::to_string(limit) + " (227 KiB less the static shared memory; cudaErrorInvalidValue)");
      return result(cudaErrorInvalidValue);
    }
    k->max_dynamic_smem = value;
    return cudaSuccess;
  } catch (const Error& e) {
    report(std::string("cudaFuncSetAttribute: ") + e.what());
    return result(cudaErrorInvalidDeviceFunction);
  }
}

cudaError_t Device::launch(const LaunchRequest& r) {
  if (sticky() != cudaSuccess) return result(sticky());
  Kernel* k = kernel(r.function, "a launch");
  if (!k) return result(cudaErrorInvalidDeviceFunction);
  const std::string what =
      short_name(k->name) + " <<<" + dims(r.grid) + ", " + dims(r.block) + ", " + std::to_string(r.dynamic_smem) + ">>>";
  const ptx::Module* module = nullptr;
  const ptx::Function* entry = nullptr;
  std::vector<ptx::Argument> args;
  ptx::LaunchConfig config;
  // What the device refuses before the kernel starts: the error does not stick.
  try {
    module = &this->module(*k->binary);
    entry = &module->entry(k->name);
    if (!r.args && !r.packed && !entry->params.empty())
      fail("kernel parameters", "none", "a pointer per parameter, or CU_LAUNCH_PARAM_BUFFER_POINTER");
    for (std::size_t i = 0; i < entry->params.size(); ++i)
      args.push_back({r.args ? static_cast<const std::uint8_t*>(r.args[i]) : r.packed + entry->params[i].offset,
                      entry->params[i].bytes});
    const int allowed = k->max_dynamic_smem.value_or(kDefaultSmem - static_cast<int>(entry->static_shared_bytes));
    if (r.dynamic_smem > static_cast<std::size_t>(std::max(allowed, 0)))
      fail("dynamic shared memory", std::to_string(r.dynamic_smem) + " bytes",
           "at most " + std::to_string(allowed) +
               (k->max_dynamic_smem ? " (the kernel's cudaFuncAttributeMaxDynamicSharedMemorySize)"
                                    : ": above 48 KiB in all a kernel needs cudaFuncSetAttribute(kernel, "
                                      "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) first"));
    config = {.grid = {r.grid.x, r.grid.y, r.grid.z},
              .block = {r.block.x, r.block.y, r.block.z},
              .cluster = {r.cluster.x, r.cluster.y, r.cluster.z},
              .dynamic_smem = static_cast<std::uint32_t>(r.dynamic_smem),
              .strict = strict};
    config.options.shuffle_seed = seed;
    config.options.threads = threads;
    if (watchdog) config.options.watchdog = *watchdog;
    config.options.provenance = provenance;
    config.timing = timing ? &*timing : nullptr;
    config.timing_sms = timing_sms;
    config.timeline = !trace_path.empty();
    if (progress_seconds > 0) config.heartbeat = progress_line(what, progress_seconds);
    config.profile = profile;
    config.sms = sms;
    ptx::check_launch(*entry, config, args);
  } catch (const Error& e) {
    const bool image = e.field() == "the program's device code";
    const bool shape = e.field() == "block" || e.field() == "grid" || e.field() == "cluster";
    const cudaError_t code = image   ? cudaErrorNoKernelImageForDevice
                             : shape ? cudaErrorInvalidConfiguration
                                     : cudaErrorInvalidValue;
    report("the launch of " + what + " is refused (" + error_name(code) + "): " + e.what());
    return result(code);
  }
  // Once threads run, whatever stops them is a fault: the device is unusable from then on.
  std::vector<ptx::Allocation> memory;
  for (const auto& [start, b] : blocks_)
    memory.push_back({reinterpret_cast<const void*>(start), b.bytes,
                      std::string(b.call) + " #" + std::to_string(b.serial), true});
  ++launched_;
  for (const std::string& attribute : r.no_effect) ++no_effect_[attribute];
  try {
    const auto started = std::chrono::steady_clock::now();
    const ptx::LaunchStats stats = ptx::launch(*module, *entry, config, args, memory);
    if (profile)
      profile_.add(short_name(k->name), *module, *entry, stats,
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
    for (const auto& [rule, count] : stats.warnings) warnings_[rule] += count;
    for (const auto& [rule, text] : stats.first_warning) first_warning_.try_emplace(rule, text);
    for (std::size_t i = 0; i < stats.timing.size(); ++i) {
      const timing::Prediction& p = stats.timing[i];
      if (json_summary) timing_json_.push_back(p.json());
      else std::fputs(p.summary().c_str(), stderr);
      if (p.ctas_simulated < p.ctas_total && !json_summary)
        std::fprintf(stderr, "tcgen timing: only the sample's CTAs ran (--timing-sms): the kernel's results are not complete\n");
      if (i < stats.timelines.size()) timelines_.push_back({short_name(k->name), stats.timelines[i], timeline_clock_});
      timeline_clock_ += p.seconds;
    }
    return cudaSuccess;
  } catch (const ptx::ExecutionError& e) {
    sticky_ = fault_code(e);
    // The report's "file:line: error: ..." first, as a compiler's diagnostic, for editors to jump to.
    const std::string what = e.what();
    const std::size_t first = what.find('\n');
    std::fprintf(stderr, "%s\n", what.substr(0, first).c_str());
    report(std::string("kernel fault, the device is now unusable (") + error_name(sticky()) + "):" +
           (first == std::string::npos ? "" : what.substr(first)));
  } catch (const exec::DeadlockError& e) {
    sticky_ = cudaErrorLaunchFailure;
    report("the kernel " + what + " would hang on the device; the device is now unusable (cudaErrorLaunchFailure):\n" +
           e.what());
  } catch (const Error& e) {
    sticky_ = cudaErrorLaunchFailure;
    report("the kernel " + what + " failed; the device is now unusable (cudaErrorLaunchFailure): " + e.what());
  }
  return result(sticky());
}

cudaError_t Device::occupancy(const void* function, int block_threads, std::size_t dynamic_smem, int* blocks) {
  Kernel* k = kernel(function, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
  if (!k) return result(cudaErrorInvalidDeviceFunction);
  if (block_threads < 1 || block_threads > 1024) {
    report("cudaOccupancyMaxActiveBlocksPerMultiprocessor: blockSize = " + std::to_string(block_threads) +
           " is invalid: 1 to 1024 (cudaErrorInvalidValue)");
    return result(cudaErrorInvalidValue);
  }
  try {
    // Per SM of compute capability 10.0: 2048 threads, 32 CTAs, 228 KiB of shared memory of which each
    // CTA's first KiB is the system's (CUDA C++ Programming Guide, Table 23).
    const std::uint64_t smem = facts(*k).shared_bytes + dynamic_smem + 1024;
    const std::uint64_t warps = (static_cast<std::uint64_t>(block_threads) + 31) / 32;
    *blocks = static_cast<int>(std::min<std::uint64_t>({kWarpsPerSm / warps, kCtasPerSm, kSharedPerSm / smem}));
    return cudaSuccess;
  } catch (const Error& e) {
    report(std::string("cudaOccupancyMaxActiveBlocksPerMultiprocessor: ") + e.what());
    return result(cudaErrorInvalidDeviceFunction);
  }
}

cudaError_t Device::available_dynamic_smem(const void* function, int blocks, int block_threads, std::size_t* bytes) {
  int fit = 0;
  if (const cudaError_t e = occupancy(function, block_threads, 0, &fit); e != cudaSuccess) return e;
  if (blocks < 1 || blocks > fit) {
    report("cudaOccupancyAvailableDynamicSMemPerBlock: numBlocks = " + std::to_string(blocks) + " is invalid: 1 to the " +
           std::to_string(fit) + " CTAs of " + std::to_string(block_threads) +
           " threads an SM holds without dynamic shared memory (cudaErrorInvalidValue)");
    return result(cudaErrorInvalidValue);
  }
  Kernel* k = kernel(function, "cudaOccupancyAvailableDynamicSMemPerBlock");
  const std::int64_t fixed = facts(*k).shared_bytes;
  // occupancy()'s count holds `blocks` CTAs while each takes at most an SM's share, its system KiB included.
  const std::int64_t share = kSharedPerSm / blocks - 1024 - fixed;
  const std::int64_t limit = k->max_dynamic_smem.value_or(kSharedPerBlockDefault - fixed);
  *bytes = static_cast<std::size_t>(std::max<std::int64_t>(0, std::min({share, limit, kSharedPerBlockOptin - fixed})));
  return cudaSuccess;
}

// ---- memory

std::uint64_t Device::allocated_bytes() const {
  std::uint64_t n = 0;
  for (const auto& [start, b] : blocks_) n += b.pinned ? 0 : b.bytes;
  return n;
}

bool Device::is_device_memory(const void* p, bool* pinned) const {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (!device_memory_at(a)) return false;
  auto it = blocks_.upper_bound(a);
  *pinned = it != blocks_.begin() && std::prev(it)->second.pinned && a - std::prev(it)->first < std::prev(it)->second.bytes;
  return true;
}

void* Device::allocate(std::uint64_t bytes, bool pinned, const char* call) {
  if (bytes > kGlobalMemoryBytes) {
    report(std::string(call) + " of " + std::to_string(bytes) + " bytes: more than the device's 180 GiB "
                                                               "(cudaErrorMemoryAllocation)");
    return nullptr;
  }
  // Device memory is host memory, zeroed here page by page: past what the host can hold, the OOM
  // killer would end the program mid-run with no word, where a GPU would say out of memory.
  if (const double host = host_memory_limit_bytes(); double(allocated_bytes()) + double(bytes) > host) {
    report(std::string(call) + " of " + std::to_string(bytes) + " bytes: more than this host's memory (" +
           std::to_string(static_cast<std::uint64_t>(host) >> 20) + " MiB, " + std::to_string(allocated_bytes() >> 20) +
           " MiB of it allocated already), which backs the device's (cudaErrorMemoryAllocation)");
    return nullptr;
  }
  const std::uint64_t rounded = std::max<std::uint64_t>((bytes + 255) / 256 * 256, 256);
  void* p = std::aligned_alloc(256, rounded);
  if (!p) return nullptr;
  std::memset(p, 0, rounded);  // the host model has no uninitialised global memory
  blocks_[reinterpret_cast<std::uintptr_t>(p)] = {bytes, pinned, next_serial_++, call};
  return p;
}

cudaError_t Device::release(void* p, bool pinned, const char* call) {
  if (sticky() != cudaSuccess) return result(sticky());
  if (!p) return cudaSuccess;
  const auto it = blocks_.find(reinterpret_cast<std::uintptr_t>(p));
  if (it == blocks_.end() || it->second.pinned != pinned) {
    report(std::string(call) + "(" + hex(reinterpret_cast<std::uintptr_t>(p)) + "): not an address " + (pinned ? "cudaMallocHost" : "cudaMalloc") +
           " returned, or already freed (cudaErrorInvalidValue)");
    return result(cudaErrorInvalidValue);
  }
  std::free(p);
  blocks_.erase(it);
  return cudaSuccess;
}

std::optional<Device::Range> Device::device_memory_at(std::uintptr_t a) const {
  auto it = blocks_.upper_bound(a);
  if (it != blocks_.begin()) {
    --it;
    if (a - it->first < std::max<std::uint64_t>(it->second.bytes, 1)) return Range{it->first, it->second.bytes};
  }
  for (const auto& b : binaries_)
    if (b->module)
      for (const ptx::Module::Storage& s : b->module->storage())
        if (a >= s.begin && a < s.end) return Range{static_cast<std::uintptr_t>(s.begin), s.end - s.begin};
  return std::nullopt;
}

bool Device::device_range(const void* p, std::uint64_t bytes, const char* call, const char* what) {
  const auto a = reinterpret_cast<std::uintptr_t>(p);
  if (const std::optional<Range> r = device_memory_at(a); r && bytes <= r->bytes - (a - r->begin)) return true;
  report(std::string(call) + ": the " + what + " [" + hex(reinterpret_cast<std::uintptr_t>(p)) + ", +" + std::to_string(bytes) +
         ") is not inside any live cudaMalloc or cudaMallocHost block or device variable (as compute-sanitizer's "
         "memcheck would report; cudaErrorInvalidValue)");
  return false;
}

cudaError_t Device::copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* call) {
  if (sticky() != cudaSuccess) return result(sticky());
  if (kind < cudaMemcpyHostToHost || kind > cudaMemcpyDefault) {
    report(std::string(call) + ": kind = " + std::to_string(static_cast<int>(kind)) +
           " is no cudaMemcpyKind (cudaErrorInvalidMemcpyDirection)");
    return result(cudaErrorInvalidMemcpyDirection);
  }
  if (bytes == 0) return cudaSuccess;
  // cudaMemcpyDefault: a side is device memory when its start lies in device memory, and then all of it must.
  const auto on_device = [&](const void* p) { return device_memory_at(reinterpret_cast<std::uintptr_t>(p)).has_value(); };
  const bool dst_device = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice ||
                          (kind == cudaMemcpyDefault && on_device(dst));
  const bool src_device = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice ||
                          (kind == cudaMemcpyDefault && on_device(src));
  if (dst_device && !device_range(dst, bytes, call, "destination")) return result(cudaErrorInvalidValue);
  if (src_device && !device_range(src, bytes, call, "source")) return result(cudaErrorInvalidValue);
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}

}  // namespace tcgen::run
