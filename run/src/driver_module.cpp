// Modules and launches through the driver API, as Triton's launcher and other
// driver-only programs use them: cuModuleLoadData (or cuLibraryLoadData)
// takes an image of PTX text, or a fatbinary holding compute_100a PTX, and
// the device parses it at once (a driver JIT-compiles PTX at load too);
// cuModuleGetFunction names an entry; cuLaunchKernel and cuLaunchKernelEx run
// it on the host model as the runtime's launches do (device.hpp). A cubin's
// kernels answer queries (cubin.hpp); their launches are refused with a
// sentence saying how to give the PTX instead.
#include <cuda.h>

#include <algorithm>
#include <string>

#include "b200.hpp"
#include "device.hpp"
#include "errors.hpp"

using tcgen::run::Binary;
using tcgen::run::Device;

namespace {

CUresult result(cudaError_t e) { return tcgen::run::driver_error(e); }

CUresult load(void** handle, const void* image, const char* call) {
  const auto guard = tcgen::run::lock_device();
  Device& d = Device::get();
  if (d.sticky() != cudaSuccess) return result(d.sticky());
  cudaError_t error = cudaSuccess;
  Binary* b = d.load_module(image, call, &error);
  *handle = b;
  return b ? CUDA_SUCCESS : result(error);
}

CUresult unload(void* handle, const char* call) {
  const auto guard = tcgen::run::lock_device();
  Binary* b = Device::get().loaded_module(handle, call);
  if (!b) return CUDA_ERROR_INVALID_HANDLE;
  Device::get().unload_module(b);
  return CUDA_SUCCESS;
}

// The handle of the module's kernel `name`, as a CUfunction or CUkernel.
template <class Handle>
CUresult function(Handle* f, void* module, const char* name, const char* call) {
  const auto guard = tcgen::run::lock_device();
  Binary* b = Device::get().loaded_module(module, call);
  if (!b) return CUDA_ERROR_INVALID_HANDLE;
  *f = static_cast<Handle>(const_cast<void*>(Device::get().module_function(*b, name, call)));
  return *f ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

// cuFuncGetAttribute from the kernel's PTX entry (the runtime's cudaFuncGetAttributes).
CUresult attribute(int* value, CUfunction_attribute a, const void* f) {
  const auto guard = tcgen::run::lock_device();
  cudaFuncAttributes fa;
  if (const cudaError_t e = Device::get().function_attributes(f, &fa); e != cudaSuccess) return result(e);
  switch (a) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = fa.maxThreadsPerBlock; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = static_cast<int>(fa.sharedSizeBytes); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = static_cast<int>(fa.constSizeBytes); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = static_cast<int>(fa.localSizeBytes); return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = fa.numRegs; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *value = fa.ptxVersion; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = fa.binaryVersion; return CUDA_SUCCESS;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: *value = fa.maxDynamicSharedSizeBytes; return CUDA_SUCCESS;
    default: *value = 0; return CUDA_SUCCESS;  // cache mode, carve-out and cluster preferences: none set
  }
}

// cuFuncSetAttribute: the dynamic shared memory limit is kept and checked at launch; the other
// attributes CUDA 13 defines are hints the host model has no use for. One it does not define (Triton
// tries 17, an oversized-shared-memory mode of newer drivers, then falls back) is refused as by a
// driver that lacks it.
CUresult set_attribute(CUfunction_attribute a, int value, const void* f, const char* call) {
  const auto guard = tcgen::run::lock_device();
  Device& d = Device::get();
  if (a < 0 || a >= CU_FUNC_ATTRIBUTE_MAX) {
    d.report(std::string(call) + ": attribute = " + std::to_string(static_cast<int>(a)) +
             " is not one CUDA 13 defines (CUDA_ERROR_INVALID_VALUE)");
    return CUDA_ERROR_INVALID_VALUE;
  }
  return result(d.set_function_attribute(f, static_cast<cudaFuncAttribute>(a), value));
}

// A launch attribute's name as the summary gives it, for those accepted with no effect here.
const char* attribute_name(CUlaunchAttributeID id) {
  switch (id) {
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: return "access_policy_window";
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE: return "cooperative";
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY: return "synchronization_policy";
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE: return "cluster_scheduling_policy_preference";
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: return "programmatic_stream_serialization";
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT: return "programmatic_event";
    case CU_LAUNCH_ATTRIBUTE_PRIORITY: return "priority";
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: return "mem_sync_domain_map";
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN: return "mem_sync_domain";
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION: return "preferred_cluster_dimension";
    case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT: return "launch_completion_event";
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT: return "preferred_shared_memory_carveout";
    default: return nullptr;
  }
}

// Whether an on/off attribute is off (cooperative 0, say), which asks for nothing; only the member the
// attribute sets is read (programs leave the rest of the union as it was).
bool is_off(const CUlaunchAttribute& a) {
  switch (a.id) {
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE: return a.value.cooperative == 0;
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: return a.value.programmaticStreamSerializationAllowed == 0;
    case CU_LAUNCH_ATTRIBUTE_PRIORITY: return a.value.priority == 0;
    default: return false;
  }
}

// The parameters: one pointer each, or a buffer at the PTX entry's offsets (`extra`:
// CU_LAUNCH_PARAM_BUFFER_POINTER, CU_LAUNCH_PARAM_BUFFER_SIZE, CU_LAUNCH_PARAM_END).
bool parameters(tcgen::run::LaunchRequest& r, void** params, void** extra) {
  r.args = params;
  for (std::size_t i = 0; extra && extra[i] != CU_LAUNCH_PARAM_END; i += 2)
    if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) r.packed = static_cast<const std::uint8_t*>(extra[i + 1]);
    else if (extra[i] != CU_LAUNCH_PARAM_BUFFER_SIZE) return false;
  return !(params && r.packed);
}

CUresult launch(tcgen::run::LaunchRequest& r, void** params, void** extra, const char* call) {
  const auto guard = tcgen::run::lock_device();
  Device& d = Device::get();
  if (!parameters(r, params, extra)) {
    d.report(std::string(call) + ": kernelParams and extra are both given, or extra holds an unknown key "
                                 "(CUDA_ERROR_INVALID_VALUE)");
    return CUDA_ERROR_INVALID_VALUE;
  }
  return result(d.launch(r));
}

}  // namespace

extern "C" {

CUresult cuModuleLoadData(CUmodule* m, const void* image) {
  return load(reinterpret_cast<void**>(m), image, "cuModuleLoadData");
}
// JIT options (optimisation level, log buffers) change nothing on the host model.
CUresult cuModuleLoadDataEx(CUmodule* m, const void* image, unsigned, CUjit_option*, void**) {
  return load(reinterpret_cast<void**>(m), image, "cuModuleLoadDataEx");
}
CUresult cuModuleUnload(CUmodule m) { return unload(m, "cuModuleUnload"); }
CUresult cuModuleGetFunction(CUfunction* f, CUmodule m, const char* name) {
  return function(f, m, name, "cuModuleGetFunction");
}
// A library is a module whose kernels are context-independent; with one context they are the same.
CUresult cuLibraryLoadData(CUlibrary* l, const void* code, CUjit_option*, void**, unsigned, CUlibraryOption*, void**,
                           unsigned) {
  return load(reinterpret_cast<void**>(l), code, "cuLibraryLoadData");
}
CUresult cuLibraryUnload(CUlibrary l) { return unload(l, "cuLibraryUnload"); }
CUresult cuLibraryGetKernel(CUkernel* k, CUlibrary l, const char* name) {
  return function(k, l, name, "cuLibraryGetKernel");
}
CUresult cuLibraryGetKernelCount(unsigned* count, CUlibrary l) {
  const auto guard = tcgen::run::lock_device();
  Binary* b = Device::get().loaded_module(l, "cuLibraryGetKernelCount");
  if (!b) return CUDA_ERROR_INVALID_HANDLE;
  std::vector<std::string> names;
  if (!Device::get().module_kernels(*b, names, "cuLibraryGetKernelCount")) return CUDA_ERROR_INVALID_IMAGE;
  *count = static_cast<unsigned>(names.size());
  return CUDA_SUCCESS;
}
// Up to n of the library's kernels, in the order its image holds them (CUDA leaves the order unsaid).
CUresult cuLibraryEnumerateKernels(CUkernel* kernels, unsigned n, CUlibrary l) {
  std::vector<std::string> names;
  {
    const auto guard = tcgen::run::lock_device();
    Binary* b = Device::get().loaded_module(l, "cuLibraryEnumerateKernels");
    if (!b) return CUDA_ERROR_INVALID_HANDLE;
    if (!Device::get().module_kernels(*b, names, "cuLibraryEnumerateKernels")) return CUDA_ERROR_INVALID_IMAGE;
  }
  for (unsigned i = 0; i < n && i < names.size(); ++i)
    if (const CUresult r = cuLibraryGetKernel(&kernels[i], l, names[i].c_str()); r != CUDA_SUCCESS) return r;
  return CUDA_SUCCESS;
}
CUresult cuKernelGetFunction(CUfunction* f, CUkernel k) {
  *f = reinterpret_cast<CUfunction>(k);
  return CUDA_SUCCESS;
}
CUresult cuKernelGetAttribute(int* value, CUfunction_attribute a, CUkernel k, CUdevice device) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  return attribute(value, a, k);
}
CUresult cuKernelSetAttribute(CUfunction_attribute a, int value, CUkernel k, CUdevice device) {
  if (device != 0) return CUDA_ERROR_INVALID_DEVICE;
  return set_attribute(a, value, k, "cuKernelSetAttribute");
}
CUresult cuFuncGetAttribute(int* value, CUfunction_attribute a, CUfunction f) { return attribute(value, a, f); }
CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int value) {
  return set_attribute(a, value, f, "cuFuncSetAttribute");
}
CUresult cuFuncSetCacheConfig(CUfunction, CUfunc_cache) { return result(Device::get().sticky()); }

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned smem, CUstream, void** params, void** extra) {
  tcgen::run::LaunchRequest r;
  r.function = f;
  r.grid = {gx, gy, gz};
  r.block = {bx, by, bz};
  r.dynamic_smem = smem;
  return launch(r, params, extra, "cuLaunchKernel");
}
// The cluster dimension shapes the launch; the other attributes set are accepted and named in the summary.
CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
  if (!config) return CUDA_ERROR_INVALID_VALUE;
  tcgen::run::LaunchRequest r;
  r.function = f;
  r.grid = {config->gridDimX, config->gridDimY, config->gridDimZ};
  r.block = {config->blockDimX, config->blockDimY, config->blockDimZ};
  r.dynamic_smem = config->sharedMemBytes;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute& a = config->attrs[i];
    if (a.id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      r.cluster = {a.value.clusterDim.x, a.value.clusterDim.y, a.value.clusterDim.z};
    else if (is_off(a))
      continue;
    else if (const char* name = attribute_name(a.id))
      r.no_effect.push_back(name);
    else if (a.id != CU_LAUNCH_ATTRIBUTE_IGNORE)
      r.no_effect.push_back("attribute_" + std::to_string(static_cast<int>(a.id)));
  }
  return launch(r, params, extra, "cuLaunchKernelEx");
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction f, int block_threads, std::size_t smem) {
  const auto guard = tcgen::run::lock_device();
  return result(Device::get().occupancy(f, block_threads, smem, blocks));
}
CUresult cuOccupancyAvailableDynamicSMemPerBlock(std::size_t* bytes, CUfunction f, int blocks, int block_threads) {
  const auto guard = tcgen::run::lock_device();
  return result(Device::get().available_dynamic_smem(f, blocks, block_threads, bytes));
}
// Clusters of the launch's shape that fit on the device at once: each SM holds the CTAs occupancy allows,
// and a cluster's CTAs lie in one GPC of the B200's 148 SMs; without GPC sizes here, the bound is SMs'.
CUresult cuOccupancyMaxActiveClusters(int* clusters, CUfunction f, const CUlaunchConfig* config) {
  if (!config) return CUDA_ERROR_INVALID_VALUE;
  unsigned cluster = 1;
  for (unsigned i = 0; i < config->numAttrs; ++i)
    if (config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
      cluster = config->attrs[i].value.clusterDim.x * config->attrs[i].value.clusterDim.y *
                config->attrs[i].value.clusterDim.z;
  if (cluster == 0) return CUDA_ERROR_INVALID_VALUE;  // a cluster dimension of 0
  int per_sm = 0;
  const CUresult e = cuOccupancyMaxActiveBlocksPerMultiprocessor(
      &per_sm, f, static_cast<int>(config->blockDimX * config->blockDimY * config->blockDimZ), config->sharedMemBytes);
  if (e != CUDA_SUCCESS) return e;
  *clusters = tcgen::run::max_active_clusters(per_sm, cluster, Device::get().sms);
  return CUDA_SUCCESS;
}

}  // extern "C"
