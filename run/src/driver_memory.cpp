// Device memory through the driver API: allocations, copies, fills and
// pointer attributes, on the device's blocks (device.hpp) as the runtime's
// cudaMalloc and cudaMemcpy are, so both APIs see the same memory. A
// device pointer is a host address on the host model.
#include <cuda.h>

#include <algorithm>
#include <string>

#include "b200.hpp"
#include "device.hpp"
#include "errors.hpp"

using tcgen::run::Device;

namespace {

CUresult result(cudaError_t e) { return tcgen::run::driver_error(e); }

void* host(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p)); }

CUresult allocate(void** p, std::size_t bytes, bool pinned, const char* call) {
  const auto guard = tcgen::run::lock_device();
  Device& d = Device::get();
  if (d.sticky() != cudaSuccess) return result(d.sticky());
  if (!p) return CUDA_ERROR_INVALID_VALUE;
  *p = d.allocate(bytes, pinned, call);
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult copy(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind kind, const char* call) {
  const auto guard = tcgen::run::lock_device();
  return result(Device::get().copy(dst, src, bytes, kind, call));
}

// n values of T from dst, which must lie in device memory.
template <class T>
CUresult fill(CUdeviceptr dst, T value, std::size_t n, const char* call) {
  const auto guard = tcgen::run::lock_device();
  Device& d = Device::get();
  if (d.sticky() != cudaSuccess) return result(d.sticky());
  if (n && !d.device_range(host(dst), n * sizeof(T), call, "destination")) return CUDA_ERROR_INVALID_VALUE;
  T* p = static_cast<T*>(host(dst));
  for (std::size_t i = 0; i < n; ++i) p[i] = value;
  return CUDA_SUCCESS;
}

// One attribute of the memory at p (CU_POINTER_ATTRIBUTE_*): CUDA_ERROR_INVALID_VALUE where p lies in
// no device memory, as the driver answers a host pointer it does not know.
CUresult pointer_attribute(void* data, CUpointer_attribute attribute, CUdeviceptr p) {
  Device& d = Device::get();
  bool pinned = false;
  const auto range = d.device_memory_at(static_cast<std::uintptr_t>(p));
  if (!range || !d.is_device_memory(host(p), &pinned)) return CUDA_ERROR_INVALID_VALUE;
  switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: {
      CUcontext c = nullptr;
      cuDevicePrimaryCtxRetain(&c, 0);
      *static_cast<CUcontext*>(data) = c;
      return CUDA_SUCCESS;
    }
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
      *static_cast<unsigned*>(data) = pinned ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *static_cast<CUdeviceptr*>(data) = p; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:  // one address space: a pinned block's host address is its device address
      if (!pinned) return CUDA_ERROR_INVALID_VALUE;
      *static_cast<void**>(data) = host(p);
      return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: *static_cast<int*>(data) = 0; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data) = 0; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: *static_cast<CUdeviceptr*>(data) = range->begin; return CUDA_SUCCESS;
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *static_cast<std::size_t*>(data) = range->bytes; return CUDA_SUCCESS;
    default:
      d.report("cuPointerGetAttribute: attribute = " + std::to_string(static_cast<int>(attribute)) +
               " is not emulated (CUDA_ERROR_INVALID_VALUE)");
      return CUDA_ERROR_INVALID_VALUE;
  }
}

}  // namespace

extern "C" {

CUresult cuMemAlloc(CUdeviceptr* p, std::size_t bytes) {
  void* at = nullptr;
  const CUresult e = allocate(&at, bytes, false, "cuMemAlloc");
  if (p) *p = reinterpret_cast<std::uintptr_t>(at);
  return e;
}
CUresult cuMemAllocHost(void** p, std::size_t bytes) { return allocate(p, bytes, true, "cuMemAllocHost"); }
// Managed memory: device memory is host memory here, so an allocation both sides reach is cuMemAlloc's.
CUresult cuMemAllocManaged(CUdeviceptr* p, std::size_t bytes, unsigned) { return cuMemAlloc(p, bytes); }
CUresult cuMemHostAlloc(void** p, std::size_t bytes, unsigned) { return allocate(p, bytes, true, "cuMemHostAlloc"); }
CUresult cuMemFree(CUdeviceptr p) {
  const auto guard = tcgen::run::lock_device();
  return result(Device::get().release(host(p), false, "cuMemFree"));
}
CUresult cuMemFreeHost(void* p) {
  const auto guard = tcgen::run::lock_device();
  return result(Device::get().release(p, true, "cuMemFreeHost"));
}
CUresult cuMemGetInfo(std::size_t* free, std::size_t* total) {
  const auto guard = tcgen::run::lock_device();
  *total = tcgen::run::kGlobalMemoryBytes;
  *free = *total - std::min<std::size_t>(*total, Device::get().allocated_bytes());
  return result(Device::get().sticky());
}

CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, std::size_t n) { return copy(host(dst), host(src), n, cudaMemcpyDefault, "cuMemcpy"); }
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream) {
  return copy(host(dst), host(src), n, cudaMemcpyDefault, "cuMemcpyAsync");
}
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, std::size_t n) {
  return copy(host(dst), src, n, cudaMemcpyHostToDevice, "cuMemcpyHtoD");
}
CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, std::size_t n) {
  return copy(dst, host(src), n, cudaMemcpyDeviceToHost, "cuMemcpyDtoH");
}
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, std::size_t n) {
  return copy(host(dst), host(src), n, cudaMemcpyDeviceToDevice, "cuMemcpyDtoD");
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, std::size_t n, CUstream) {
  return copy(host(dst), src, n, cudaMemcpyHostToDevice, "cuMemcpyHtoDAsync");
}
CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, std::size_t n, CUstream) {
  return copy(dst, host(src), n, cudaMemcpyDeviceToHost, "cuMemcpyDtoHAsync");
}
CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, std::size_t n, CUstream) {
  return copy(host(dst), host(src), n, cudaMemcpyDeviceToDevice, "cuMemcpyDtoDAsync");
}

// cuMemsetD8/16/32 and their Async forms: the runtime finishes each launch before it returns, so a
// fill is done at once, in order with them (CUTLASS fills its workspaces so: cutlass/workspace.h).
CUresult cuMemsetD8(CUdeviceptr dst, unsigned char v, std::size_t n) { return fill(dst, v, n, "cuMemsetD8"); }
CUresult cuMemsetD16(CUdeviceptr dst, unsigned short v, std::size_t n) { return fill(dst, v, n, "cuMemsetD16"); }
CUresult cuMemsetD32(CUdeviceptr dst, unsigned int v, std::size_t n) { return fill(dst, v, n, "cuMemsetD32"); }
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, std::size_t n, CUstream) {
  return fill(dst, v, n, "cuMemsetD8Async");
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, std::size_t n, CUstream) {
  return fill(dst, v, n, "cuMemsetD16Async");
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int v, std::size_t n, CUstream) {
  return fill(dst, v, n, "cuMemsetD32Async");
}

CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr p) {
  const auto guard = tcgen::run::lock_device();
  return pointer_attribute(data, attribute, p);
}
// Every attribute asked; for memory the device does not know, the driver leaves the
// answers at their "unregistered" values and succeeds.
CUresult cuPointerGetAttributes(unsigned n, CUpointer_attribute* attributes, void** data, CUdeviceptr p) {
  const auto guard = tcgen::run::lock_device();
  for (unsigned i = 0; i < n; ++i)
    if (pointer_attribute(data[i], attributes[i], p) != CUDA_SUCCESS && attributes[i] == CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
      *static_cast<unsigned*>(data[i]) = 0;
  return CUDA_SUCCESS;
}

}  // extern "C"
