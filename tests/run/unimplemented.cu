// A program that calls runtime functions tcgen's libcudart.so.13 exports as NVIDIA's does: managed
// memory, which is host memory here; the clusters a kernel fits (CUTLASS's examples size their grids
// so) on the SMs the device reports (148, or tcgen run --sms); and a graph, which tcgen does not emulate: the call returns cudaErrorNotSupported and tcgen run
// names the function after the program ends.
#include <cuda_runtime.h>

#include <cstdio>

__global__ void idle() {}

__global__ void read_nsmid(unsigned* out) {
  unsigned n;
  asm volatile("mov.u32 %0, %%nsmid;" : "=r"(n));
  if (threadIdx.x == 0) *out = n;
}

int main() {
  float* p = nullptr;
  const cudaError_t managed = cudaMallocManaged(&p, 1024 * sizeof(float));
  bool kept = managed == cudaSuccess;
  for (int i = 0; kept && i < 1024; ++i) p[i] = static_cast<float>(i);
  for (int i = 0; kept && i < 1024; ++i) kept = p[i] == static_cast<float>(i);
  if (managed == cudaSuccess) cudaFree(p);
  cudaLaunchAttribute pair{};
  pair.id = cudaLaunchAttributeClusterDimension;
  pair.val.clusterDim = {2, 1, 1};
  cudaLaunchConfig_t config{};
  config.gridDim = {2, 1, 1};
  config.blockDim = {128, 1, 1};
  config.attrs = &pair;
  config.numAttrs = 1;
  int clusters = 0;
  const cudaError_t occupancy = cudaOccupancyMaxActiveClusters(&clusters, idle, &config);
  pair.val.clusterDim = {0, 1, 1};
  int none = 0;
  const cudaError_t empty = cudaOccupancyMaxActiveClusters(&none, idle, &config);
  int sms = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  unsigned* seen = nullptr;
  unsigned nsmid = 0;
  if (cudaMalloc(&seen, sizeof nsmid) == cudaSuccess) {
    read_nsmid<<<1, 32>>>(seen);
    cudaMemcpy(&nsmid, seen, sizeof nsmid, cudaMemcpyDeviceToHost);
    cudaFree(seen);
  }
  cudaGraph_t graph;
  const cudaError_t created = cudaGraphCreate(&graph, 0);
  std::printf("cudaMallocManaged: %s, host writes read back: %s\n", cudaGetErrorName(managed), kept ? "yes" : "no");
  std::printf("cudaOccupancyMaxActiveClusters: %s, %d clusters of 2 CTAs of 128 threads on %d SMs (%%nsmid %u); "
              "of 0 CTAs: %s\n",
              cudaGetErrorName(occupancy), clusters, sms, nsmid, cudaGetErrorName(empty));
  const cudaError_t last = cudaGetLastError();
  std::printf("cudaGraphCreate: %s, then cudaGetLastError: %s\n", cudaGetErrorName(created), cudaGetErrorName(last));
  return 0;
}
