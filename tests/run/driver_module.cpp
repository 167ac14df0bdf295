// A host program (g++, no nvcc) that runs a kernel through the driver API alone, as Triton's launcher
// does: a context made current, the kernel's cubin loaded for queries (ptxas's registers; its launch
// refused, with why), its PTX loaded with cuModuleLoadData, cuModuleGetFunction, driver memory, and three launches: cuLaunchKernel with a pointer per
// parameter, with the parameters packed in a buffer (`extra`), and cuLaunchKernelEx with a cluster
// and a programmatic-serialisation attribute, which the summary names. PASSED when every answer is
// the driver's and y = 1 + 2 x after the first launch, 1 + 2 x + 3 x after the second, and so on.
// A second cubin (tests/fuzz/seeds/cubin/launch_bounds_shared_cluster.cubin, nvcc 13.0) answers with
// what readelf and its .nv.info records say: `bounded` (__launch_bounds__(256), 400 bytes of
// __shared__) 256 threads, a .nv.shared.bounded of 1424 bytes, 10 registers; `clustered` 8 registers.
//   driver_module KERNEL.ptx KERNEL.cubin OTHER.cubin   (scale_add: y[i] += a * x[i] for i < n)
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace {

std::string read(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), {}};
}

bool expect(const char* what, CUresult got, CUresult want) {
  if (got == want) return true;
  const char *g = "?", *w = "?";
  cuGetErrorName(got, &g);
  cuGetErrorName(want, &w);
  std::printf("%s: %s, expected %s\n", what, g, w);
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const std::string ptx = read(argv[1]), cubin = read(argv[2]), other_cubin = read(argv[3]);
  bool ok = expect("cuInit", cuInit(0), CUDA_SUCCESS);
  CUcontext ctx = nullptr;
  CUdevice dev = -1;
  ok &= expect("cuCtxGetDevice before a context", cuCtxGetDevice(&dev), CUDA_ERROR_INVALID_CONTEXT);
  ok &= expect("cuCtxGetCurrent", cuCtxGetCurrent(&ctx), CUDA_SUCCESS) && ctx == nullptr;
  ok &= expect("cuDevicePrimaryCtxRetain", cuDevicePrimaryCtxRetain(&ctx, 0), CUDA_SUCCESS) && ctx;
  ok &= expect("cuCtxSetCurrent", cuCtxSetCurrent(ctx), CUDA_SUCCESS);
  ok &= expect("cuCtxGetDevice", cuCtxGetDevice(&dev), CUDA_SUCCESS) && dev == 0;

  CUmodule module = nullptr;
  std::string other = cubin;
  other[0x12] = 62;  // e_machine: x86-64's
  ok &= expect("cuModuleLoadData of an ELF for another machine", cuModuleLoadData(&module, other.data()),
               CUDA_ERROR_INVALID_IMAGE);
  ok &= expect("cuModuleLoadData of a cubin", cuModuleLoadData(&module, cubin.data()), CUDA_SUCCESS);
  CUfunction machine = nullptr;
  ok &= expect("cuModuleGetFunction of the cubin's kernel", cuModuleGetFunction(&machine, module, "scale_add"), CUDA_SUCCESS);
  int registers = 0, limit = 0;
  ok &= expect("cuFuncGetAttribute of the cubin's registers",
               cuFuncGetAttribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, machine), CUDA_SUCCESS) &&
        registers > 0 && registers <= 255;
  ok &= expect("cuFuncGetAttribute of the cubin's thread limit",
               cuFuncGetAttribute(&limit, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, machine), CUDA_SUCCESS) && limit == 1024;
  ok &= expect("cuLaunchKernel of the cubin's kernel", cuLaunchKernel(machine, 1, 1, 1, 32, 1, 1, 0, nullptr, nullptr, nullptr),
               CUDA_ERROR_NO_BINARY_FOR_GPU);
  ok &= expect("cuModuleUnload of the cubin", cuModuleUnload(module), CUDA_SUCCESS);
  ok &= expect("cuModuleLoadData of the second cubin", cuModuleLoadData(&module, other_cubin.data()), CUDA_SUCCESS);
  CUfunction bounded = nullptr, clustered = nullptr;
  ok &= expect("cuModuleGetFunction bounded", cuModuleGetFunction(&bounded, module, "bounded"), CUDA_SUCCESS);
  ok &= expect("cuModuleGetFunction clustered", cuModuleGetFunction(&clustered, module, "clustered"), CUDA_SUCCESS);
  int bounded_threads = 0, bounded_shared = 0, bounded_registers = 0, clustered_registers = 0;
  cuFuncGetAttribute(&bounded_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, bounded);
  cuFuncGetAttribute(&bounded_shared, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, bounded);
  cuFuncGetAttribute(&bounded_registers, CU_FUNC_ATTRIBUTE_NUM_REGS, bounded);
  cuFuncGetAttribute(&clustered_registers, CU_FUNC_ATTRIBUTE_NUM_REGS, clustered);
  if (bounded_threads != 256 || bounded_shared != 1424 || bounded_registers != 10 || clustered_registers != 8) {
    std::printf("second cubin: %d threads, %d shared bytes, %d and %d registers\n", bounded_threads, bounded_shared,
                bounded_registers, clustered_registers);
    ok = false;
  }
  // The most dynamic shared memory for n CTAs an SM (CuTe DSL's HardwareInfo asks it for one). With the
  // kernel's limit at its most, 227 KiB less its 1,424 static bytes, one CTA may take all of it, as NVIDIA's
  // calculator (cuda_occupancy.h, cudaOccAvailableDynamicSMemPerBlock) gives; for two, the largest size at
  // which the occupancy query still holds two, a byte more holds one.
  std::size_t one = 0, two = 0;
  const int opt_in = 227 * 1024 - 1424;
  ok &= expect("cuFuncSetAttribute of the dynamic shared memory limit",
               cuFuncSetAttribute(bounded, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, opt_in), CUDA_SUCCESS);
  ok &= expect("cuOccupancyAvailableDynamicSMemPerBlock, 1 CTA", cuOccupancyAvailableDynamicSMemPerBlock(&one, bounded, 1, 256),
               CUDA_SUCCESS) && one == static_cast<std::size_t>(opt_in);
  ok &= expect("cuOccupancyAvailableDynamicSMemPerBlock, 2 CTAs", cuOccupancyAvailableDynamicSMemPerBlock(&two, bounded, 2, 256),
               CUDA_SUCCESS);
  int at = 0, past = 0;
  cuOccupancyMaxActiveBlocksPerMultiprocessor(&at, bounded, 256, two);
  cuOccupancyMaxActiveBlocksPerMultiprocessor(&past, bounded, 256, two + 1);
  if (one != static_cast<std::size_t>(opt_in) || at != 2 || past != 1) {
    std::printf("available dynamic shared memory: %zu for 1 CTA (expected %d); %zu for 2, where %d and, a byte more, %d "
                "CTAs fit (expected 2 and 1)\n", one, opt_in, two, at, past);
    ok = false;
  }
  ok &= expect("cuOccupancyAvailableDynamicSMemPerBlock, 9 CTAs of 8 warps",
               cuOccupancyAvailableDynamicSMemPerBlock(&two, bounded, 9, 256), CUDA_ERROR_INVALID_VALUE);
  ok &= expect("cuModuleUnload of the second cubin", cuModuleUnload(module), CUDA_SUCCESS);
  // As CuTe DSL's HardwareInfo finds its probe kernel: the library's kernels enumerated, in some order.
  CUlibrary library = nullptr;
  ok &= expect("cuLibraryLoadData of the second cubin",
               cuLibraryLoadData(&library, other_cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS);
  unsigned kernels = 0;
  ok &= expect("cuLibraryGetKernelCount", cuLibraryGetKernelCount(&kernels, library), CUDA_SUCCESS) && kernels == 2;
  CUkernel listed[2] = {};
  ok &= expect("cuLibraryEnumerateKernels", cuLibraryEnumerateKernels(listed, 2, library), CUDA_SUCCESS);
  int listed_registers[2] = {};
  for (int i = 0; i < 2; ++i) {
    CUfunction k = nullptr;
    ok &= expect("cuKernelGetFunction of an enumerated kernel", cuKernelGetFunction(&k, listed[i]), CUDA_SUCCESS);
    cuFuncGetAttribute(&listed_registers[i], CU_FUNC_ATTRIBUTE_NUM_REGS, k);
  }
  if (std::min(listed_registers[0], listed_registers[1]) != 8 || std::max(listed_registers[0], listed_registers[1]) != 10) {
    std::printf("enumerated kernels: %d and %d registers, expected 10 and 8\n", listed_registers[0], listed_registers[1]);
    ok = false;
  }
  ok &= expect("cuLibraryUnload", cuLibraryUnload(library), CUDA_SUCCESS);
  ok &= expect("cuModuleLoadData of PTX", cuModuleLoadData(&module, ptx.c_str()), CUDA_SUCCESS);
  CUfunction f = nullptr, missing = nullptr;
  ok &= expect("cuModuleGetFunction of no entry", cuModuleGetFunction(&missing, module, "scale_sub"), CUDA_ERROR_NOT_FOUND);
  ok &= expect("cuModuleGetFunction", cuModuleGetFunction(&f, module, "scale_add"), CUDA_SUCCESS);
  int threads = 0;
  ok &= expect("cuFuncGetAttribute", cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f), CUDA_SUCCESS) &&
        threads == 1024;
  ok &= expect("cuFuncSetAttribute of attribute 17", cuFuncSetAttribute(f, static_cast<CUfunction_attribute>(17), 1),
               CUDA_ERROR_INVALID_VALUE);

  constexpr int n = 1000;
  std::vector<float> x(n), y(n, 1.0f), back(n);
  for (int i = 0; i < n; ++i) x[i] = static_cast<float>(i % 17) - 8.0f;
  CUdeviceptr dx = 0, dy = 0;
  ok &= expect("cuMemAlloc", cuMemAlloc(&dx, n * sizeof(float)), CUDA_SUCCESS);
  ok &= expect("cuMemAlloc", cuMemAlloc(&dy, n * sizeof(float)), CUDA_SUCCESS);
  ok &= expect("cuMemcpyHtoD", cuMemcpyHtoD(dx, x.data(), n * sizeof(float)), CUDA_SUCCESS);
  ok &= expect("cuMemcpyHtoD", cuMemcpyHtoD(dy, y.data(), n * sizeof(float)), CUDA_SUCCESS);
  CUdeviceptr seen = 0;
  int on_stack = 0;
  ok &= expect("cuPointerGetAttribute of device memory",
               cuPointerGetAttribute(&seen, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, dy + 8), CUDA_SUCCESS) && seen == dy + 8;
  ok &= expect("cuPointerGetAttribute of host memory",
               cuPointerGetAttribute(&seen, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, reinterpret_cast<CUdeviceptr>(&on_stack)),
               CUDA_ERROR_INVALID_VALUE);
  ok &= expect("cuMemsetD32 of host memory", cuMemsetD32(reinterpret_cast<CUdeviceptr>(&on_stack), 1, 1),
               CUDA_ERROR_INVALID_VALUE);

  // a = 2 by pointers, then 3 from a packed buffer laid out as the PTX entry's parameters are.
  float a = 2.0f;
  int count = n;
  void* params[] = {&dy, &dx, &a, &count};
  ok &= expect("cuLaunchKernel", cuLaunchKernel(f, 8, 1, 1, 128, 1, 1, 0, nullptr, params, nullptr), CUDA_SUCCESS);
  struct {
    CUdeviceptr y, x;
    float a;
    int n;
  } packed{dy, dx, 3.0f, n};
  std::size_t packed_bytes = sizeof packed;
  void* extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_bytes, CU_LAUNCH_PARAM_END};
  ok &= expect("cuLaunchKernel with extra", cuLaunchKernel(f, 8, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra), CUDA_SUCCESS);
  // a = 4 in clusters of 2, with programmatic stream serialisation (PDL), which changes nothing here.
  a = 4.0f;
  CUlaunchAttribute attributes[2] = {};
  attributes[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attributes[0].value.clusterDim.x = 2;
  attributes[0].value.clusterDim.y = attributes[0].value.clusterDim.z = 1;
  attributes[1].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  attributes[1].value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig config = {};
  config.gridDimX = 8;
  config.gridDimY = config.gridDimZ = 1;
  config.blockDimX = 128;
  config.blockDimY = config.blockDimZ = 1;
  config.attrs = attributes;
  config.numAttrs = 2;
  ok &= expect("cuLaunchKernelEx", cuLaunchKernelEx(&config, f, params, nullptr), CUDA_SUCCESS);
  ok &= expect("cuCtxSynchronize", cuCtxSynchronize(), CUDA_SUCCESS);
  ok &= expect("cuMemcpyDtoH", cuMemcpyDtoH(back.data(), dy, n * sizeof(float)), CUDA_SUCCESS);
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += back[i] != 1.0f + 9.0f * x[i];
  std::printf("three launches: %d of %d wrong\n", wrong, n);

  ok &= expect("cuMemFree", cuMemFree(dx), CUDA_SUCCESS) && expect("cuMemFree", cuMemFree(dy), CUDA_SUCCESS);
  ok &= expect("cuModuleUnload", cuModuleUnload(module), CUDA_SUCCESS);
  ok &= expect("cuModuleGetFunction after unload", cuModuleGetFunction(&f, module, "scale_add"), CUDA_ERROR_INVALID_HANDLE);
  ok &= wrong == 0;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
