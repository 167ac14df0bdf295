// The CUDA driver API (libcuda.so.1, and through cudaGetDriverEntryPoint):
// initialisation, the one device and its attributes, error strings, and
// cuGetProcAddress over the table of every function this library defines.
// Contexts and streams, modules and launches, memory and tensor maps are in
// the driver_*.cpp files beside this one.
#include "driver.hpp"

#include "b200.hpp"
#include "device.hpp"
#include "errors.hpp"

#include <cuda.h>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <string>

extern "C" {

// The device is made at the first call that needs it; its summary is printed at exit.
CUresult cuInit(unsigned) {
  tcgen::run::Device::get();
  return CUDA_SUCCESS;
}
CUresult cuDriverGetVersion(int* v) {
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetCount(int* n) {
  *n = 1;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal != 0) return CUDA_ERROR_INVALID_DEVICE;
  *d = 0;
  return CUDA_SUCCESS;
}
CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attr, CUdevice device) {
  // The runtime's attributes share the driver's numbering.
  const int sms = tcgen::run::Device::get().sms;
  return tcgen::run::device_attribute(value, static_cast<int>(attr), device, sms) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}
CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  if (!name || length < 1) return CUDA_ERROR_INVALID_VALUE;
  cudaDeviceProp p;
  tcgen::run::b200_properties(&p, tcgen::run::Device::get().sms);
  std::snprintf(name, static_cast<std::size_t>(length), "%s", p.name);
  return CUDA_SUCCESS;
}
CUresult cuDeviceTotalMem(std::size_t* bytes, CUdevice device) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = tcgen::run::kGlobalMemoryBytes;
  return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult e, const char** s) {
  if (tcgen::run::driver_error_name(e, s)) return CUDA_SUCCESS;
  *s = "CUDA_ERROR_UNKNOWN";
  return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuGetErrorString(CUresult e, const char** s) {
  if (tcgen::run::driver_error_text(e, s)) return CUDA_SUCCESS;
  *s = "unknown error";
  return CUDA_ERROR_INVALID_VALUE;
}

}  // extern "C"

namespace {

// What cuGetProcAddress hands out for NVIDIA's private export tables where tcgen's runtime is not loaded
// (it marks itself with tcgen_cudart). Only NVIDIA's own runtime calls it, linked statically into the
// program (nvcc's default) or a package, and none of that runtime's CUDA calls would reach tcgen's: the
// program is stopped at the call, with why. Looking it up is harmless: cuda-python's driver bindings look
// up every driver function, this one too, and never call it.
// The caller's file names where that runtime lives: the program, or a library it loaded (a Python
// package's extension module), which is what the user must replace.
CUresult stop_static_runtime(const void**, const CUuuid*) {
  Dl_info caller{};
  const std::string where =
      dladdr(__builtin_return_address(0), &caller) != 0 && caller.dli_fname ? caller.dli_fname : "";
  tcgen::run::to_tcgen_run(std::getenv("TCGEN_RUN_FD")
                               ? "static_runtime " + where + "\n"
                               : "tcgen run: " + (where.empty() ? std::string("the program") : where) +
                                     " carries NVIDIA's CUDA runtime (linked statically, nvcc's default), which tcgen "
                                     "cannot stand in for: rebuild it with -cudart shared\n");
  _exit(2);
}

}  // namespace

extern "C" {

// cuGetProcAddress (cuda.h maps the name to _v2) and the legacy four-argument form: a
// symbol not emulated gives a null pointer and status SYMBOL_NOT_FOUND, not an error.
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int, cuuint64_t, CUdriverProcAddressQueryResult* status) {
  const bool export_table = symbol && std::strcmp(symbol, "cuGetExportTable") == 0;
  *pfn = export_table && !dlsym(RTLD_DEFAULT, "tcgen_cudart") ? reinterpret_cast<void*>(&stop_static_runtime)
                                                               : tcgen::run::driver_function(symbol);
  if (status) *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
  return CUDA_SUCCESS;
}
#undef cuGetProcAddress
CUresult cuGetProcAddress(const char* symbol, void** pfn, int version, cuuint64_t flags) {
  return cuGetProcAddress_v2(symbol, pfn, version, flags, nullptr);
}

}  // extern "C"

namespace tcgen::run {

void to_tcgen_run(const std::string& line) {
  if (const char* fd = std::getenv("TCGEN_RUN_FD"); fd && *fd)
    if (write(std::atoi(fd), line.data(), line.size()) == static_cast<ssize_t>(line.size())) return;
  std::fputs(line.c_str(), stderr);
}

namespace {

// Every driver function this library defines, by the name programs ask for: cuda.h maps a name
// to its current version (cuMemAlloc → cuMemAlloc_v2), which `&name` takes and `#name` does not.
#define TCGEN_DRIVER_FUNCTIONS(X)                                                                                     \
  X(cuInit) X(cuDriverGetVersion) X(cuDeviceGet) X(cuDeviceGetCount) X(cuDeviceGetAttribute) X(cuDeviceGetName)       \
  X(cuDeviceTotalMem) X(cuGetErrorName) X(cuGetErrorString)                              \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxReset) X(cuDevicePrimaryCtxGetState)    \
  X(cuCtxCreate) X(cuCtxDestroy) X(cuCtxGetCurrent) X(cuCtxSetCurrent) X(cuCtxPushCurrent) X(cuCtxPopCurrent)         \
  X(cuCtxGetDevice) X(cuCtxSynchronize) X(cuCtxGetLimit) X(cuCtxSetLimit) X(cuCtxSetCacheConfig)                      \
  X(cuStreamCreate) X(cuStreamCreateWithPriority) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamQuery)          \
  X(cuStreamIsCapturing) X(cuStreamWaitEvent) X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord)                     \
  X(cuEventSynchronize) X(cuEventQuery) X(cuEventElapsedTime)                                                         \
  X(cuModuleLoadData) X(cuModuleLoadDataEx) X(cuModuleUnload) X(cuModuleGetFunction) X(cuLibraryLoadData)             \
  X(cuLibraryUnload) X(cuLibraryGetKernel) X(cuLibraryGetKernelCount) X(cuLibraryEnumerateKernels)                  \
  X(cuKernelGetFunction) X(cuKernelGetAttribute) X(cuKernelSetAttribute)                                             \
  X(cuFuncGetAttribute) X(cuFuncSetAttribute) X(cuFuncSetCacheConfig) X(cuLaunchKernel) X(cuLaunchKernelEx)           \
  X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuOccupancyMaxActiveClusters)                                      \
  X(cuOccupancyAvailableDynamicSMemPerBlock)                                                                          \
  X(cuMemAlloc) X(cuMemAllocManaged) X(cuMemFree) X(cuMemAllocHost) X(cuMemHostAlloc) X(cuMemFreeHost) X(cuMemGetInfo) X(cuMemcpy)         \
  X(cuMemcpyAsync) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD) X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync)          \
  X(cuMemcpyDtoDAsync) X(cuMemsetD8) X(cuMemsetD16) X(cuMemsetD32) X(cuMemsetD8Async) X(cuMemsetD16Async)             \
  X(cuMemsetD32Async) X(cuPointerGetAttribute) X(cuPointerGetAttributes)                                              \
  X(cuTensorMapEncodeTiled) X(cuTensorMapEncodeIm2col) X(cuGetProcAddress_v2)

struct Entry {
  const char* name;
  void* function;
};

const Entry kFunctions[] = {
#define TCGEN_ENTRY(f) {#f, reinterpret_cast<void*>(&f)},
    TCGEN_DRIVER_FUNCTIONS(TCGEN_ENTRY)
#undef TCGEN_ENTRY
};

}  // namespace

void* driver_function(const char* symbol) {
  std::string s = symbol ? symbol : "";
  if (s == "cuGetProcAddress") s = "cuGetProcAddress_v2";
  for (const Entry& e : kFunctions)
    if (s == e.name) return e.function;
  // Programs look up many functions they never call: under tcgen run the names are gathered and said
  // once, after the program ends (a crash through a null pointer included).
  if (std::getenv("TCGEN_RUN_FD"))
    to_tcgen_run("unemulated " + (s.empty() ? std::string("(an empty name)") : s) + "\n");
  else
    std::fprintf(stderr, "tcgen run: the driver function %s is not emulated; the program gets a null pointer for it\n",
                 s.c_str());
  return nullptr;
}

int unemulated_call(const char* name) {
  static std::mutex lock;
  static std::set<std::string> told;
  {
    const std::lock_guard guard(lock);
    if (!told.insert(name).second) return CUDA_ERROR_NOT_SUPPORTED;
  }
  if (std::getenv("TCGEN_RUN_FD"))
    to_tcgen_run(std::string("unemulated ") + name + "\n");
  else
    std::fprintf(stderr, "tcgen run: %s is not emulated; it returns error 801 (not supported)\n", name);
  return CUDA_ERROR_NOT_SUPPORTED;  // cudaErrorNotSupported has the same value
}

}  // namespace tcgen::run
