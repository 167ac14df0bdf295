#include "tcgen/exec/sm100_device.hpp"

#include <cuda_runtime.h>

#include <string>

namespace tcgen::exec {

std::string sm100_unavailable() {
  int devices = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess)
    return std::string("found no CUDA device (") + cudaGetErrorString(e) + ")";
  if (devices == 0) return "found no CUDA device";
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, 0); e != cudaSuccess)
    return std::string("could not read device 0's properties (") + cudaGetErrorString(e) + ")";
  if (prop.major != 10 || prop.minor != 0)
    return "device 0 is " + std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) +
           ")";
  return "";
}

}  // namespace tcgen::exec
