// CuTe DSL's runtime library (libcute_dsl_runtime.so) on tcgen's driver:
// the functions the DSL's JIT-compiled host code binds, by their names. The
// DSL's own library carries NVIDIA's CUDA runtime linked statically, which
// tcgen cannot stand in for; `tcgen run` points CUTE_DSL_LIBS here instead.
//
// The DSL loads each kernel as a fatbinary holding the sm_100a cubin alone.
// The host model runs PTX, which the DSL leaves in CUTE_DSL_DUMP_DIR when
// CUTE_DSL_KEEP=ptx (tcgen run sets both): the kernel's library is loaded
// from the PTX file whose .entry the kernel's name is, at the first ask for
// the kernel. Kernel handles are the driver's (a cudaKernel_t is a CUkernel).
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "errors.hpp"

namespace {

void report(const std::string& text) { std::fprintf(stderr, "tcgen run: %s\n", text.c_str()); }

cudaError_t runtime(CUresult e) { return tcgen::run::runtime_error(e); }

// A library the DSL asked to load: its image, and once a kernel is asked for, the PTX module.
struct Library {
  const void* image = nullptr;
  CUlibrary ptx = nullptr;
};

// The newest .ptx file in the dump folder with `.entry name(`, or "" (why set).
std::string ptx_with_entry(const std::string& name, std::string* why) {
  const char* dir = std::getenv("CUTE_DSL_DUMP_DIR");
  if (!dir || !*dir) {
    *why = "CUTE_DSL_DUMP_DIR is not set: run the program under tcgen run, which sets it and CUTE_DSL_KEEP=ptx";
    return "";
  }
  std::string best;
  std::filesystem::file_time_type newest{};
  std::error_code ec;
  for (const auto& f : std::filesystem::recursive_directory_iterator(dir, ec)) {
    if (f.path().extension() != ".ptx") continue;
    std::ifstream in(f.path());
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    if (text.find(".entry " + name + "(") == std::string::npos) continue;
    if (best.empty() || f.last_write_time() > newest) {
      best = text;
      newest = f.last_write_time();
    }
  }
  if (best.empty())
    *why = "no PTX file in " + std::string(dir) + " has the entry " + name +
           " (the DSL writes one per compilation when CUTE_DSL_KEEP=ptx; a kernel from its disk cache has none: "
           "CUTE_DSL_NO_CACHE=1)";
  return best;
}

}  // namespace

extern "C" {

cudaError_t _cudaLibraryLoadData(cudaLibrary_t* library, const void* code, cudaJitOption*, void**, unsigned,
                                 cudaLibraryOption*, void**, unsigned) {
  if (!library || !code) return cudaErrorInvalidValue;
  *library = reinterpret_cast<cudaLibrary_t>(new Library{code});
  return cudaSuccess;
}

cudaError_t _cudaLibraryGetKernel(cudaKernel_t* kernel, cudaLibrary_t library, const char* name) {
  auto* l = reinterpret_cast<Library*>(library);
  if (!l || !kernel || !name) return cudaErrorInvalidValue;
  if (!l->ptx) {
    // The PTX the DSL left for this kernel; without it, the image as it is (which a GPU-only image fails,
    // the driver saying why).
    std::string why;
    const std::string ptx = ptx_with_entry(name, &why);
    const void* image = ptx.empty() ? l->image : ptx.c_str();
    if (ptx.empty()) report("CuTe DSL's kernel " + std::string(name) + ": " + why);
    if (const CUresult e = cuLibraryLoadData(&l->ptx, image, nullptr, nullptr, 0, nullptr, nullptr, 0); e != CUDA_SUCCESS)
      return runtime(e);
  }
  return runtime(cuLibraryGetKernel(reinterpret_cast<CUkernel*>(kernel), l->ptx, name));
}

cudaError_t _cudaLibraryUnload(cudaLibrary_t library) {
  auto* l = reinterpret_cast<Library*>(library);
  if (!l) return cudaErrorInvalidValue;
  const CUresult e = l->ptx ? cuLibraryUnload(l->ptx) : CUDA_SUCCESS;
  delete l;
  return runtime(e);
}

cudaError_t _cudaKernelSetAttributeForDevice(cudaKernel_t kernel, cudaFuncAttribute attribute, int value, int device) {
  return runtime(cuKernelSetAttribute(static_cast<CUfunction_attribute>(attribute), value,
                                      reinterpret_cast<CUkernel>(kernel), device));
}

CUresult _cuKernelGetAttribute(int* value, CUfunction_attribute attribute, CUkernel kernel, CUdevice device) {
  return cuKernelGetAttribute(value, attribute, kernel, device);
}

cudaError_t _cudaFuncSetAttribute(const void* function, cudaFuncAttribute attribute, int value) {
  return runtime(cuFuncSetAttribute(static_cast<CUfunction>(const_cast<void*>(function)),
                                    static_cast<CUfunction_attribute>(attribute), value));
}

cudaError_t _cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device) {
  // The runtime's attributes share the driver's numbering.
  return runtime(cuDeviceGetAttribute(value, static_cast<CUdevice_attribute>(attribute), device));
}

cudaError_t _cudaGetDevice(int* device) {
  *device = 0;
  return cudaSuccess;
}

// The runtime's launch configuration is the driver's, field for field, its attributes included.
cudaError_t _cudaLaunchKernelEx(const cudaLaunchConfig_t* config, const void* function, void** args) {
  static_assert(sizeof(cudaLaunchAttribute) == sizeof(CUlaunchAttribute));
  if (!config) return cudaErrorInvalidValue;
  CUlaunchConfig c{};
  c.gridDimX = config->gridDim.x;
  c.gridDimY = config->gridDim.y;
  c.gridDimZ = config->gridDim.z;
  c.blockDimX = config->blockDim.x;
  c.blockDimY = config->blockDim.y;
  c.blockDimZ = config->blockDim.z;
  c.sharedMemBytes = static_cast<unsigned>(config->dynamicSmemBytes);
  c.hStream = reinterpret_cast<CUstream>(config->stream);
  c.attrs = reinterpret_cast<CUlaunchAttribute*>(config->attrs);
  c.numAttrs = config->numAttrs;
  return runtime(cuLaunchKernelEx(&c, static_cast<CUfunction>(const_cast<void*>(function)), args, nullptr));
}

}  // extern "C"
