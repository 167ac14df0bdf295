// The CUDA runtime API as programs built by nvcc call it (libcudart.so.13),
// over the host model: registration of the embedded device code, launches,
// memory, errors, streams and events, the device's properties (a B200). Every
// other function NVIDIA's runtime exports is a stub (run/exports) that returns
// cudaErrorNotSupported and is named to tcgen run.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <deque>

#include "b200.hpp"
#include "device.hpp"
#include "driver.hpp"
#include "errors.hpp"

using tcgen::run::Device;

namespace {

struct CallConfiguration {
  dim3 grid, block;
  std::size_t smem;
  void* stream;
};
thread_local std::deque<CallConfiguration> configurations;  // <<<...>>> pushes, the stub pops

cudaError_t launch(const void* function, dim3 grid, dim3 block, void** args, std::size_t smem, dim3 cluster = {1, 1, 1}) {
  const auto guard = tcgen::run::lock_device();
  tcgen::run::LaunchRequest r;
  r.function = function;
  r.grid = grid;
  r.block = block;
  r.cluster = cluster;
  r.dynamic_smem = smem;
  r.args = args;
  return Device::get().launch(r);
}

// A driver call's result as the runtime's error, remembered as the last one where it is one.
cudaError_t runtime_error(CUresult e) { return Device::get().result(tcgen::run::runtime_error(e)); }

}  // namespace

extern "C" {

// The mark by which tcgen's libcuda knows that this runtime, not NVIDIA's, is in the process.
[[gnu::visibility("default")]] extern const int tcgen_cudart;
const int tcgen_cudart = 1;

// ---- registration (nvcc's crt/host_runtime.h)
void** __cudaRegisterFatBinary(void* fat_cubin) {
  const auto guard = tcgen::run::lock_device();
  return Device::get().register_binary(fat_cubin);
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void** handle, const char* host_function, char*, const char* device_name, int, uint3*,
                            uint3*, dim3*, dim3*, int*) {
  const auto guard = tcgen::run::lock_device();
  Device::get().register_function(handle, host_function, device_name);
}
void __cudaRegisterVar(void** handle, char* host_variable, char*, const char* device_name, int, std::size_t, int, int) {
  const auto guard = tcgen::run::lock_device();
  Device::get().register_variable(handle, host_variable, device_name);
}
char __cudaInitModule(void**) { return 1; }
// What nvcc registers and the host model does not emulate: a __managed__ variable, whose host
// pointer the runtime would have to set to memory both sides reach, and the registrations of host
// variables and unified tables. Carrying on would leave the program a pointer never set: it stops
// at the registration (before main), naming the variable.
[[noreturn]] static void refuse_registration(const std::string& what) {
  std::fprintf(stderr, "tcgen run: the program registers %s, which tcgen does not emulate\n", what.c_str());
  std::fflush(stderr);
  _exit(2);
}
void __cudaRegisterManagedVar(void**, void**, char*, const char* name, int, std::size_t, int, int) {
  refuse_registration(std::string("the __managed__ variable ") + (name ? name : "(unnamed)"));
}
void __cudaRegisterHostVar() { refuse_registration("a host variable (__cudaRegisterHostVar)"); }
void __cudaRegisterUnifiedTable() { refuse_registration("a unified table (__cudaRegisterUnifiedTable)"); }

}  // extern "C"

namespace tcgen::run {
// The runtime's stubs (run/exports/stubs.cmake): named to tcgen run, and the error is the last error.
int unemulated_runtime_call(const char* name) {
  unemulated_call(name);
  const auto guard = lock_device();
  return Device::get().result(cudaErrorNotSupported);
}
}  // namespace tcgen::run

extern "C" {

// ---- launches
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, std::size_t smem, void* stream) {
  configurations.push_back({grid, block, smem, stream});
  return 0;
}
cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, std::size_t* smem, void* stream) {
  if (configurations.empty()) return cudaErrorMissingConfiguration;
  const CallConfiguration c = configurations.back();
  configurations.pop_back();
  *grid = c.grid;
  *block = c.block;
  *smem = c.smem;
  *static_cast<void**>(stream) = c.stream;
  return cudaSuccess;
}
cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* function) {
  *kernel = reinterpret_cast<cudaKernel_t>(const_cast<void*>(function));
  return cudaSuccess;
}
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t smem, cudaStream_t) {
  return launch(kernel, grid, block, args, smem);
}
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args, std::size_t smem,
                                    cudaStream_t) {
  return launch(kernel, grid, block, args, smem);
}
cudaError_t cudaLaunchKernel(const void* function, dim3 grid, dim3 block, void** args, std::size_t smem, cudaStream_t) {
  return launch(function, grid, block, args, smem);
}
cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* function, void** args) {
  dim3 cluster{1, 1, 1};
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == cudaLaunchAttributeClusterDimension)
      cluster = {config->attrs[i].val.clusterDim.x, config->attrs[i].val.clusterDim.y, config->attrs[i].val.clusterDim.z};
  return launch(function, config->gridDim, config->blockDim, args, config->dynamicSmemBytes, cluster);
}
cudaError_t cudaFuncSetAttribute(const void* function, cudaFuncAttribute attribute, int value) {
  const auto guard = tcgen::run::lock_device();
  return Device::get().set_function_attribute(function, attribute, value);
}
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* a, const void* function) {
  const auto guard = tcgen::run::lock_device();
  return Device::get().function_attributes(function, a);
}

// ---- memory
cudaError_t cudaMalloc(void** p, std::size_t bytes) {
  const auto guard = tcgen::run::lock_device();
  Device& d = Device::get();
  if (d.sticky() != cudaSuccess) return d.result(d.sticky());
  *p = d.allocate(bytes, false, "cudaMalloc");
  return *p ? cudaSuccess : d.result(cudaErrorMemoryAllocation);
}
cudaError_t cudaMallocHost(void** p, std::size_t bytes) {
  const auto guard = tcgen::run::lock_device();
  Device& d = Device::get();
  if (d.sticky() != cudaSuccess) return d.result(d.sticky());
  *p = d.allocate(bytes, true, "cudaMallocHost");
  return *p ? cudaSuccess : d.result(cudaErrorMemoryAllocation);
}
cudaError_t cudaHostAlloc(void** p, std::size_t bytes, unsigned) { return cudaMallocHost(p, bytes); }
// Managed memory: device memory is host memory here, so an allocation both sides reach is cudaMalloc's.
cudaError_t cudaMallocManaged(void** p, std::size_t bytes, unsigned) { return cudaMalloc(p, bytes); }
cudaError_t cudaFree(void* p) {
  const auto guard = tcgen::run::lock_device();
  return Device::get().release(p, false, "cudaFree");
}
cudaError_t cudaFreeHost(void* p) {
  const auto guard = tcgen::run::lock_device();
  return Device::get().release(p, true, "cudaFreeHost");
}
cudaError_t cudaMemcpy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind) {
  const auto guard = tcgen::run::lock_device();
  return Device::get().copy(dst, src, bytes, kind, "cudaMemcpy");
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, cudaStream_t) {
  const auto guard = tcgen::run::lock_device();
  return Device::get().copy(dst, src, bytes, kind, "cudaMemcpyAsync");
}
// ---- __device__ and __constant__ variables, in their module's storage
cudaError_t cudaGetSymbolAddress(void** p, const void* symbol) {
  const auto guard = tcgen::run::lock_device();
  std::uint64_t bytes = 0;
  *p = Device::get().symbol(symbol, &bytes, "cudaGetSymbolAddress");
  return *p ? cudaSuccess : Device::get().result(cudaErrorInvalidSymbol);
}
cudaError_t cudaGetSymbolSize(std::size_t* size, const void* symbol) {
  const auto guard = tcgen::run::lock_device();
  std::uint64_t bytes = 0;
  if (!Device::get().symbol(symbol, &bytes, "cudaGetSymbolSize")) return Device::get().result(cudaErrorInvalidSymbol);
  *size = bytes;
  return cudaSuccess;
}
static cudaError_t copy_symbol(void* host, const void* symbol, std::size_t count, std::size_t offset, bool to_symbol,
                               const char* call) {
  const auto guard = tcgen::run::lock_device();
  Device& d = Device::get();
  if (d.sticky() != cudaSuccess) return d.result(d.sticky());
  std::uint64_t bytes = 0;
  std::uint8_t* at = d.symbol(symbol, &bytes, call);
  if (!at) return d.result(cudaErrorInvalidSymbol);
  if (offset + count > bytes) {
    d.report(std::string(call) + ": " + std::to_string(count) + " bytes at offset " + std::to_string(offset) +
             " leave the " + std::to_string(bytes) + "-byte variable (cudaErrorInvalidValue)");
    return d.result(cudaErrorInvalidValue);
  }
  if (to_symbol) std::memcpy(at + offset, host, count);
  else std::memcpy(host, at + offset, count);
  return cudaSuccess;
}
cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, std::size_t count, std::size_t offset, cudaMemcpyKind) {
  return copy_symbol(const_cast<void*>(src), symbol, count, offset, true, "cudaMemcpyToSymbol");
}
cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, std::size_t count, std::size_t offset,
                                    cudaMemcpyKind, cudaStream_t) {
  return copy_symbol(const_cast<void*>(src), symbol, count, offset, true, "cudaMemcpyToSymbolAsync");
}
cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, std::size_t count, std::size_t offset, cudaMemcpyKind) {
  return copy_symbol(dst, symbol, count, offset, false, "cudaMemcpyFromSymbol");
}
cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, std::size_t count, std::size_t offset,
                                      cudaMemcpyKind, cudaStream_t) {
  return copy_symbol(dst, symbol, count, offset, false, "cudaMemcpyFromSymbolAsync");
}

cudaError_t cudaMemset(void* p, int value, std::size_t bytes) {
  const auto guard = tcgen::run::lock_device();
  Device& d = Device::get();
  if (d.sticky() != cudaSuccess) return d.result(d.sticky());
  if (bytes && !d.device_range(p, bytes, "cudaMemset", "destination")) return d.result(cudaErrorInvalidValue);
  std::memset(p, value, bytes);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* p, int value, std::size_t bytes, cudaStream_t) { return cudaMemset(p, value, bytes); }

// ---- the device: one B200 (b200.cpp)
cudaError_t cudaGetDeviceCount(int* count) {
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) {
  const auto guard = tcgen::run::lock_device();
  return device == 0 ? cudaSuccess : Device::get().result(cudaErrorInvalidDevice);
}
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* p, int device) {
  const auto guard = tcgen::run::lock_device();
  if (device != 0) return Device::get().result(cudaErrorInvalidDevice);
  tcgen::run::b200_properties(p, Device::get().sms);
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
  const auto guard = tcgen::run::lock_device();
  return tcgen::run::device_attribute(value, static_cast<int>(attr), device, Device::get().sms) ? cudaSuccess
                                                                               : Device::get().result(cudaErrorInvalidValue);
}
// The driver's functions for programs that do not link libcuda (CUTLASS and
// DeepGEMM get cuTensorMapEncodeTiled so). A symbol not emulated is not an
// error: a null pointer and status cudaDriverEntryPointSymbolNotFound.
cudaError_t cudaGetDriverEntryPointByVersion(const char* symbol, void** function, unsigned, unsigned long long,
                                             cudaDriverEntryPointQueryResult* status) {
  *function = tcgen::run::driver_function(symbol);
  if (status) *status = *function ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}
cudaError_t cudaGetDriverEntryPoint(const char* symbol, void** function, unsigned long long flags,
                                    cudaDriverEntryPointQueryResult* status) {
  return cudaGetDriverEntryPointByVersion(symbol, function, CUDART_VERSION, flags, status);
}
cudaError_t cudaDeviceSynchronize() { return Device::get().sticky(); }
cudaError_t cudaRuntimeGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int* v) {
  *v = CUDART_VERSION;
  return cudaSuccess;
}

// ---- errors
cudaError_t cudaGetLastError() {
  const auto guard = tcgen::run::lock_device();
  return Device::get().take_last_error();
}
cudaError_t cudaPeekAtLastError() {
  const auto guard = tcgen::run::lock_device();
  return Device::get().peek_last_error();
}
const char* cudaGetErrorName(cudaError_t e) { return tcgen::run::error_name(e); }
const char* cudaGetErrorString(cudaError_t e) { return tcgen::run::error_text(e); }
cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f) {
  return {x, y, z, w, f};
}
// NVIDIA's runtime exports it undeclared; a lookup that finds nothing is a null pointer.
void* __cudaGetProcAddress() {
  tcgen::run::unemulated_call("__cudaGetProcAddress");
  return nullptr;
}

// ---- the rest of what programs commonly ask: limits, occupancy, pointers, 2-D copies, host callbacks
// The driver's answers (driver_memory.cpp, driver_context.cpp): the limits share their numbering.
cudaError_t cudaMemGetInfo(std::size_t* free, std::size_t* total) { return runtime_error(cuMemGetInfo(free, total)); }
cudaError_t cudaDeviceGetLimit(std::size_t* value, cudaLimit limit) {
  return runtime_error(cuCtxGetLimit(value, static_cast<CUlimit>(limit)));
}
cudaError_t cudaDeviceSetLimit(cudaLimit, std::size_t) { return Device::get().sticky(); }
cudaError_t cudaFuncSetCacheConfig(const void*, cudaFuncCache) { return Device::get().sticky(); }
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* function, int block_threads,
                                                          std::size_t dynamic_smem) {
  const auto guard = tcgen::run::lock_device();
  return Device::get().occupancy(function, block_threads, dynamic_smem, blocks);
}
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(std::size_t* bytes, const void* function, int blocks,
                                                     int block_threads) {
  const auto guard = tcgen::run::lock_device();
  return Device::get().available_dynamic_smem(function, blocks, block_threads, bytes);
}
cudaError_t cudaOccupancyMaxActiveClusters(int* clusters, const void* function, const cudaLaunchConfig_t* config) {
  if (!clusters || !config) return cudaErrorInvalidValue;
  unsigned cluster = 1;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == cudaLaunchAttributeClusterDimension)
      cluster = config->attrs[i].val.clusterDim.x * config->attrs[i].val.clusterDim.y * config->attrs[i].val.clusterDim.z;
  if (cluster == 0) return cudaErrorInvalidValue;  // a cluster dimension of 0
  int per_sm = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, function, static_cast<int>(config->blockDim.x * config->blockDim.y * config->blockDim.z),
      config->dynamicSmemBytes);
  if (e == cudaSuccess) *clusters = tcgen::run::max_active_clusters(per_sm, cluster, Device::get().sms);
  return e;
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* function, int block_threads,
                                                                   std::size_t dynamic_smem, unsigned) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, function, block_threads, dynamic_smem);
}
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
  const auto guard = tcgen::run::lock_device();
  std::memset(a, 0, sizeof *a);
  bool pinned = false;
  const bool device = Device::get().is_device_memory(p, &pinned);
  a->type = !device ? cudaMemoryTypeUnregistered : pinned ? cudaMemoryTypeHost : cudaMemoryTypeDevice;
  a->device = 0;
  a->devicePointer = device ? const_cast<void*>(p) : nullptr;  // one address space: device pointers are host addresses
  a->hostPointer = !device || pinned ? const_cast<void*>(p) : nullptr;
  return cudaSuccess;
}
cudaError_t cudaMemcpy2D(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                         std::size_t height, cudaMemcpyKind kind) {
  const auto guard = tcgen::run::lock_device();
  Device& d = Device::get();
  if (width > dpitch || width > spitch) {
    d.report("cudaMemcpy2D: width = " + std::to_string(width) + " is invalid: at most both pitches (cudaErrorInvalidPitchValue)");
    return d.result(cudaErrorInvalidPitchValue);
  }
  for (std::size_t row = 0; row < height; ++row)
    if (const cudaError_t e = d.copy(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch,
                                     width, kind, "cudaMemcpy2D");
        e != cudaSuccess)
      return e;
  return cudaSuccess;
}
cudaError_t cudaMemcpy2DAsync(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width,
                              std::size_t height, cudaMemcpyKind kind, cudaStream_t) {
  return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
// The stream's earlier work is done: the function runs now, on the calling thread.
cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t function, void* data) {
  if (const cudaError_t e = Device::get().sticky(); e != cudaSuccess) return Device::get().result(e);
  function(data);
  return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t, cudaStreamCaptureStatus* status) {
  *status = cudaStreamCaptureStatusNone;  // graphs are not emulated: nothing captures
  return Device::get().sticky();
}
// The outputs past the status mean something only while a capture is active (CUDA Runtime API,
// cudaStreamGetCaptureInfo), which it never is here; they are cleared all the same.
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t, cudaStreamCaptureStatus* status, unsigned long long* id,
                                     cudaGraph_t* graph, const cudaGraphNode_t** dependencies,
                                     const cudaGraphEdgeData** edges, std::size_t* count) {
  *status = cudaStreamCaptureStatusNone;
  if (id) *id = 0;
  if (graph) *graph = nullptr;
  if (dependencies) *dependencies = nullptr;
  if (edges) *edges = nullptr;
  if (count) *count = 0;
  return Device::get().sticky();
}

// ---- streams and events: the driver's (driver_context.cpp), whose handles the runtime's are
cudaError_t cudaStreamCreate(cudaStream_t* s) { return runtime_error(cuStreamCreate(reinterpret_cast<CUstream*>(s), 0)); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) { return cudaStreamCreate(s); }
cudaError_t cudaStreamCreateWithPriority(cudaStream_t* s, unsigned, int) { return cudaStreamCreate(s); }
cudaError_t cudaStreamDestroy(cudaStream_t s) { return runtime_error(cuStreamDestroy(reinterpret_cast<CUstream>(s))); }
cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
  *least = 0;  // as on Hopper and Blackwell: 0 lowest, -5 highest
  *greatest = -5;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return Device::get().sticky(); }
cudaError_t cudaStreamQuery(cudaStream_t) { return Device::get().sticky(); }
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned) { return Device::get().sticky(); }
cudaError_t cudaEventCreate(cudaEvent_t* e) { return runtime_error(cuEventCreate(reinterpret_cast<CUevent*>(e), 0)); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned) { return cudaEventCreate(e); }
cudaError_t cudaEventDestroy(cudaEvent_t e) { return runtime_error(cuEventDestroy(reinterpret_cast<CUevent>(e))); }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) {
  if (cuEventRecord(reinterpret_cast<CUevent>(e), nullptr) == CUDA_ERROR_INVALID_HANDLE)
    return Device::get().result(cudaErrorInvalidResourceHandle);
  return Device::get().sticky();
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned) { return cudaEventRecord(e, s); }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return Device::get().sticky(); }
cudaError_t cudaEventQuery(cudaEvent_t) { return Device::get().sticky(); }
cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
  if (cuEventElapsedTime(ms, reinterpret_cast<CUevent>(start), reinterpret_cast<CUevent>(end)) != CUDA_SUCCESS)
    return Device::get().result(cudaErrorInvalidResourceHandle);
  return cudaSuccess;
}

}  // extern "C"
