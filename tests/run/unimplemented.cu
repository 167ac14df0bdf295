// A program that calls a runtime function tcgen's libcudart.so.13 does not
// define (managed memory): the dynamic loader stops it at that call, naming
// the function, with exit 127.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  float* p = nullptr;
  std::printf("before the call\n");
  std::fflush(stdout);
  const cudaError_t e = cudaMallocManaged(&p, 1024);
  std::printf("cudaMallocManaged returned %d\n", static_cast<int>(e));
  return 0;
}
