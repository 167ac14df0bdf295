#pragma once
// Shared by the device tests: stop on a CUDA error, and skip when the GPU a
// program is built for is absent (exit 77, which ctest reports as skipped,
// never as passed).
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#define CUDA_CHECK(call)                                                                          \
  do {                                                                                            \
    const cudaError_t err_ = (call);                                                              \
    if (err_ != cudaSuccess) {                                                                    \
      std::printf("FAILED: %s at %s:%d: %s\n", #call, __FILE__, __LINE__, cudaGetErrorString(err_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

// Returns device 0's properties when it is sm_<major><minor> (minor < 0: any
// minor); otherwise prints why the test is skipped and exits 77.
inline cudaDeviceProp require_gpu(int major, int minor) {
  int devices = 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: needs an sm_%d%s GPU, found no CUDA device\n", major, minor < 0 ? "x" : "0");
    std::exit(77);
  }
  CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != major || (minor >= 0 && prop.minor != minor)) {
    std::printf("SKIPPED: needs an sm_%d%s GPU, found sm_%d%d (%s)\n", major, minor < 0 ? "x" : "0", prop.major,
                prop.minor, prop.name);
    std::exit(77);
  }
  int driver = 0;
  cudaDriverGetVersion(&driver);
  std::printf("GPU %s (sm_%d%d), CUDA driver %d\n", prop.name, prop.major, prop.minor, driver);
  return prop;
}

// The cases of a device test: each reported as one PASS or FAIL line, counted.
struct Counts {
  int cases = 0, failures = 0;
  void report(bool ok, const std::string& line) {
    ++cases;
    failures += !ok;
    std::printf("%s %s\n", ok ? "PASS" : "FAIL", line.c_str());
    std::fflush(stdout);
  }
};
