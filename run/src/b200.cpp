#include "b200.hpp"

#include <cstdio>
#include <cstring>

namespace tcgen::run {

// sm_100, 148 SMs, 232,448 bytes of opt-in shared memory per block (CUDA
// Programming Guide, compute capability 10.0), 1024 threads per block.
void b200_properties(cudaDeviceProp* p, int sms) {
  std::memset(p, 0, sizeof *p);
  std::strcpy(p->name, "NVIDIA B200 (tcgen host model)");
  p->major = 10;
  p->minor = 0;
  p->multiProcessorCount = sms;
  p->totalGlobalMem = kGlobalMemoryBytes;
  p->sharedMemPerBlock = kSharedPerBlockDefault;
  p->sharedMemPerBlockOptin = kSharedPerBlockOptin;
  p->sharedMemPerMultiprocessor = kSharedPerSm;
  p->regsPerBlock = p->regsPerMultiprocessor = 65536;
  p->warpSize = 32;
  p->maxThreadsPerBlock = 1024;
  p->maxThreadsPerMultiProcessor = 32 * kWarpsPerSm;
  p->maxBlocksPerMultiProcessor = kCtasPerSm;
  p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
  p->maxThreadsDim[2] = 64;
  p->maxGridSize[0] = 0x7FFFFFFF;
  p->maxGridSize[1] = p->maxGridSize[2] = 65535;
  p->l2CacheSize = 126 * 1024 * 1024;
  p->memoryBusWidth = 7680;  // as a B200 reports it (pytorch/ao PR #4002): 7.67 TB/s at its memory clock
  p->totalConstMem = 65536;
  p->unifiedAddressing = 1;
  p->concurrentKernels = 1;
  p->clusterLaunch = 1;
}

bool device_attribute(int* value, int attribute, int device, int sms) {
  if (device != 0) return false;
  cudaDeviceProp p;
  b200_properties(&p, sms);
  switch (static_cast<cudaDeviceAttr>(attribute)) {
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; return true;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; return true;
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; return true;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = static_cast<int>(p.sharedMemPerBlockOptin); return true;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = static_cast<int>(p.sharedMemPerBlock); return true;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = static_cast<int>(p.sharedMemPerMultiprocessor); return true;
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; return true;
    case cudaDevAttrWarpSize: *value = p.warpSize; return true;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; return true;
    case cudaDevAttrClusterLaunch: *value = 1; return true;
    case cudaDevAttrUnifiedAddressing: *value = 1; return true;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; return true;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; return true;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; return true;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; return true;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; return true;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; return true;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; return true;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; return true;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; return true;
    case cudaDevAttrTotalConstantMemory: *value = static_cast<int>(p.totalConstMem); return true;
    case cudaDevAttrGlobalMemoryBusWidth: *value = p.memoryBusWidth; return true;
    // The SM clock SemiAnalysis's B200 measurements convert cycles at (microbench-blackwell), and the
    // memory clock a B200 reports (pytorch/ao PR #4002; both in ../shared/reference/b200-timing-facts.md).
    case cudaDevAttrClockRate: *value = 1'965'000; return true;
    case cudaDevAttrMemoryClockRate: *value = 3'996'000; return true;
    default: break;
  }
  std::fprintf(stderr, "tcgen run: device attribute %d is not emulated (invalid value)\n", attribute);
  return false;
}

}  // namespace tcgen::run
