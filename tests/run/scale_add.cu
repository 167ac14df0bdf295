// y[i] += a * x[i] for i < n: the kernel tests/run/driver_module.cpp loads as PTX and as a cubin.
extern "C" __global__ void scale_add(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}
