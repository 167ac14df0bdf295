// Contexts, streams and events of the driver API. The device has one
// context, the primary one, which every creation hands out: the host model
// has one address space and one device. Work runs at once, in call order
// (device.hpp), so synchronising only reports a fault, and an event holds
// the host time it was recorded at.
#include <cuda.h>

#include <map>
#include <memory>
#include <mutex>

#include "device.hpp"
#include "errors.hpp"

using tcgen::run::Device;

namespace {

int primary_context;  // its address is the CUcontext every call sees
CUcontext primary() { return reinterpret_cast<CUcontext>(&primary_context); }
// The calling thread's current context: none until one is set, as in the driver.
thread_local CUcontext current = nullptr;

CUresult sticky() { return tcgen::run::driver_error(Device::get().sticky()); }

CUresult check(CUcontext c) { return c == primary() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }

struct Stream {
  char unused = 0;
};

struct Event {
  double ms = 0;
  bool recorded = false;
};

// The streams and events the program holds. The driver owns them, as CUDA's does: one never
// destroyed lives until the program ends (CUDA frees it then; LeakSanitizer finds it still
// reachable), and a handle that names none is CUDA_ERROR_INVALID_HANDLE, never a wild delete.
template <class T>
class Handles {
 public:
  T* make() {
    const std::lock_guard hold(lock_);
    auto owned = std::make_unique<T>();
    T* handle = owned.get();
    live_.emplace(handle, std::move(owned));
    return handle;
  }
  // f(object) under the lock, so that no destroy on another thread comes between; false when the
  // handle names none.
  template <class F>
  bool with(const void* handle, F&& f) {
    const std::lock_guard hold(lock_);
    const auto it = live_.find(handle);
    if (it == live_.end()) return false;
    f(*it->second);
    return true;
  }
  bool destroy(const void* handle) {
    const std::lock_guard hold(lock_);
    return live_.erase(handle) == 1;
  }

 private:
  std::mutex lock_;
  std::map<const void*, std::unique_ptr<T>> live_;
};

// Never destroyed: a program's static destructors may still destroy its streams and events.
Handles<Stream>& streams() {
  static auto* h = new Handles<Stream>;
  return *h;
}
Handles<Event>& events() {
  static auto* h = new Handles<Event>;
  return *h;
}

}  // namespace

extern "C" {

CUresult cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice device) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  Device::get();
  *c = primary();
  return CUDA_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease(CUdevice device) { return device == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }
CUresult cuDevicePrimaryCtxReset(CUdevice device) { return device == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE; }
CUresult cuDevicePrimaryCtxGetState(CUdevice device, unsigned* flags, int* active) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  *flags = 0;
  *active = 1;
  return CUDA_SUCCESS;
}
CUresult cuCtxCreate(CUcontext* c, CUctxCreateParams*, unsigned, CUdevice device) {
  if (const CUresult e = cuDevicePrimaryCtxRetain(c, device); e != CUDA_SUCCESS) return e;
  current = *c;
  return CUDA_SUCCESS;
}
CUresult cuCtxDestroy(CUcontext c) {
  if (current == c) current = nullptr;
  return check(c);
}
CUresult cuCtxGetCurrent(CUcontext* c) {
  *c = current;
  return CUDA_SUCCESS;
}
CUresult cuCtxSetCurrent(CUcontext c) {
  if (c && c != primary()) return CUDA_ERROR_INVALID_CONTEXT;
  current = c;
  return CUDA_SUCCESS;
}
CUresult cuCtxPushCurrent(CUcontext c) { return cuCtxSetCurrent(c); }
CUresult cuCtxPopCurrent(CUcontext* c) {
  if (c) *c = current;
  current = nullptr;
  return CUDA_SUCCESS;
}
CUresult cuCtxGetDevice(CUdevice* device) {
  if (!current) return CUDA_ERROR_INVALID_CONTEXT;
  *device = 0;
  return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize() { return sticky(); }
CUresult cuCtxGetLimit(std::size_t* value, CUlimit limit) {
  switch (limit) {  // CUDA's defaults
    case CU_LIMIT_STACK_SIZE: *value = 1024; return CUDA_SUCCESS;
    case CU_LIMIT_PRINTF_FIFO_SIZE: *value = std::size_t{1} << 20; return CUDA_SUCCESS;
    case CU_LIMIT_MALLOC_HEAP_SIZE: *value = std::size_t{8} << 20; return CUDA_SUCCESS;
    default: *value = 0; return CUDA_SUCCESS;
  }
}
CUresult cuCtxSetLimit(CUlimit, std::size_t) { return sticky(); }
CUresult cuCtxSetCacheConfig(CUfunc_cache) { return sticky(); }

CUresult cuStreamCreate(CUstream* s, unsigned) {
  *s = reinterpret_cast<CUstream>(streams().make());
  return CUDA_SUCCESS;
}
CUresult cuStreamCreateWithPriority(CUstream* s, unsigned flags, int) { return cuStreamCreate(s, flags); }
CUresult cuStreamDestroy(CUstream s) { return streams().destroy(s) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
CUresult cuStreamSynchronize(CUstream) { return sticky(); }
CUresult cuStreamQuery(CUstream) { return sticky(); }
CUresult cuStreamWaitEvent(CUstream, CUevent, unsigned) { return sticky(); }
CUresult cuStreamIsCapturing(CUstream, CUstreamCaptureStatus* status) {
  *status = CU_STREAM_CAPTURE_STATUS_NONE;  // graphs are not emulated: nothing captures
  return sticky();
}

CUresult cuEventCreate(CUevent* e, unsigned) {
  *e = reinterpret_cast<CUevent>(events().make());
  return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent e) { return events().destroy(e) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE; }
CUresult cuEventRecord(CUevent e, CUstream) {
  const double now = Device::get().elapsed_ms();
  const bool found = events().with(e, [&](Event& event) {
    event.ms = now;
    event.recorded = true;
  });
  if (!found) return CUDA_ERROR_INVALID_HANDLE;
  return sticky();
}
CUresult cuEventSynchronize(CUevent) { return sticky(); }
CUresult cuEventQuery(CUevent) { return sticky(); }
CUresult cuEventElapsedTime(float* ms, CUevent start, CUevent end) {
  Event a, b;
  if (!events().with(start, [&](const Event& e) { a = e; }) || !events().with(end, [&](const Event& e) { b = e; }) ||
      !a.recorded || !b.recorded)
    return CUDA_ERROR_INVALID_HANDLE;
  *ms = static_cast<float>(b.ms - a.ms);
  return CUDA_SUCCESS;
}

}  // extern "C"
