// A CUDA program of the ordinary kind, run under `tcgen run`: the device's
// properties, pinned host memory, a stream with async copies and a kernel,
// events timing it, __constant__ and __device__ variables, the kernel's
// attributes and occupancy, pointer attributes, memory info, a 2-D copy, a
// host callback, the last-error protocol. Prints PASSED and exits 0 when
// every result is right.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#define CHECK(call)                                                                          \
  do {                                                                                       \
    const cudaError_t e = (call);                                                            \
    if (e != cudaSuccess) {                                                                  \
      std::printf("FAILED: %s = %s at line %d\n", #call, cudaGetErrorString(e), __LINE__);  \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

__constant__ float offset;  // set with cudaMemcpyToSymbol
__device__ int calls;       // counted by the kernel, read with cudaMemcpyFromSymbol

__global__ void saxpy(int n, float a, const float* x, float* y) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i] + offset;
  if (i == 0) atomicAdd(&calls, 1);
}

void CUDART_CB mark(void* flag) { *static_cast<int*>(flag) = 1; }

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device: %s, sm_%d%d, %d SMs, %zu bytes of opt-in shared memory per block\n", prop.name, prop.major,
              prop.minor, prop.multiProcessorCount, prop.sharedMemPerBlockOptin);
  if (prop.major != 10 || prop.multiProcessorCount != 148 || prop.sharedMemPerBlockOptin != 232448) {
    std::printf("FAILED: not a B200\n");
    return 1;
  }
  const int n = 1000;
  float *x, *y, *hx, *hy;
  CHECK(cudaMallocHost(&hx, n * sizeof(float)));
  CHECK(cudaMallocHost(&hy, n * sizeof(float)));
  for (int i = 0; i < n; ++i) hx[i] = float(i), hy[i] = float(2 * i);
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&y, n * sizeof(float)));
  cudaStream_t s;
  cudaEvent_t start, stop;
  CHECK(cudaStreamCreate(&s));
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const float half = 0.5f;
  CHECK(cudaMemcpyToSymbol(offset, &half, sizeof half));
  cudaFuncAttributes attributes;
  CHECK(cudaFuncGetAttributes(&attributes, saxpy));
  CHECK(cudaMemcpyAsync(x, hx, n * sizeof(float), cudaMemcpyHostToDevice, s));
  CHECK(cudaMemcpyAsync(y, hy, n * sizeof(float), cudaMemcpyHostToDevice, s));
  CHECK(cudaEventRecord(start, s));
  saxpy<<<(n + 127) / 128, 128, 0, s>>>(n, 3.0f, x, y);
  CHECK(cudaGetLastError());
  CHECK(cudaEventRecord(stop, s));
  CHECK(cudaMemcpyAsync(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost, s));
  CHECK(cudaStreamSynchronize(s));
  float ms = -1;
  CHECK(cudaEventElapsedTime(&ms, start, stop));
  int bad = 0, counted = 0;
  for (int i = 0; i < n; ++i) bad += hy[i] != 5.0f * i + 0.5f;
  CHECK(cudaMemcpyFromSymbol(&counted, calls, sizeof counted));
  // A launch with too many threads is refused, and the error is not sticky.
  saxpy<<<1, 2048>>>(n, 1.0f, x, y);
  const cudaError_t refused = cudaGetLastError();
  const cudaError_t after = cudaMemset(y, 0, n * sizeof(float));
  // The rest of what programs commonly ask.
  std::size_t free = 0, total = 0;
  CHECK(cudaMemGetInfo(&free, &total));
  int blocks = 0, least = 1, greatest = 1, called = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, saxpy, 128, 0));
  CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaPointerAttributes on_device, pinned, on_stack;
  CHECK(cudaPointerGetAttributes(&on_device, x));
  CHECK(cudaPointerGetAttributes(&pinned, hx));
  CHECK(cudaPointerGetAttributes(&on_stack, &called));
  CHECK(cudaMemcpy2D(y, 16, hx, 32, 8, 4, cudaMemcpyHostToDevice));  // 4 rows of 2 floats, source pitch 8 floats
  float rows[16];
  CHECK(cudaMemcpy(rows, y, sizeof rows, cudaMemcpyDeviceToHost));
  const bool copied_2d = rows[0] == hx[0] && rows[1] == hx[1] && rows[4] == hx[8] && rows[13] == hx[25];
  CHECK(cudaLaunchHostFunc(s, mark, &called));
  cudaStreamCaptureStatus capturing;
  CHECK(cudaStreamIsCapturing(s, &capturing));
  cudaStreamCaptureStatus asked = cudaStreamCaptureStatusActive;
  unsigned long long capture_id = 1;
  CHECK(cudaStreamGetCaptureInfo(s, &asked, &capture_id));
  const bool common = free < total && total == std::size_t{180} << 30 && blocks == 16 && least == 0 && greatest == -5 &&
                      on_device.type == cudaMemoryTypeDevice && pinned.type == cudaMemoryTypeHost &&
                      on_stack.type == cudaMemoryTypeUnregistered && copied_2d && called == 1 &&
                      capturing == cudaStreamCaptureStatusNone && asked == cudaStreamCaptureStatusNone;
  std::printf("memory info, occupancy (%d CTAs of 128 threads per SM), priorities, pointer types, 2-D copy, host "
              "callback: %s\n",
              blocks, common ? "as on a B200" : "WRONG");
  CHECK(cudaEventDestroy(start));
  CHECK(cudaEventDestroy(stop));
  CHECK(cudaStreamDestroy(s));
  CHECK(cudaFree(x));
  CHECK(cudaFree(y));
  CHECK(cudaFreeHost(hx));
  CHECK(cudaFreeHost(hy));
  std::printf("kernel time %.3f ms (host model), %d wrong, %d call counted, at most %d threads per block, "
              "oversized launch: %s, then: %s\n",
              ms, bad, counted, attributes.maxThreadsPerBlock, cudaGetErrorName(refused), cudaGetErrorName(after));
  const bool ok = common && bad == 0 && counted == 1 && attributes.maxThreadsPerBlock == 1024 && ms >= 0 &&
                  refused != cudaSuccess && after == cudaSuccess;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
