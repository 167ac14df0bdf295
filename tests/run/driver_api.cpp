// A host program (g++, no nvcc) linked with -lcuda, run under `tcgen run`:
// it loads no CUDA runtime, and the dynamic loader
// finds tcgen's libcuda.so.1 by its soname. Initialisation, the device and
// two attributes, cuGetProcAddress, error strings, the cuMemsetD* fills of
// cuMemAlloc's memory (as CUTLASS fills its workspaces). Exit 0 and PASSED when the driver describes a
// B200, hands out cuTensorMapEncodeTiled, encodes im2col and packed 4-bit maps, and fills what it is given.
#include <cuda.h>

#include <cstdio>
#include <cstring>

int main() {
  CUdevice dev;
  int major = 0, sms = 0;
  void* encode = nullptr;
  CUdriverProcAddressQueryResult status;
  const char* text = nullptr;
  const bool ok = cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
                  cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) == CUDA_SUCCESS &&
                  cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) == CUDA_SUCCESS &&
                  cuGetProcAddress("cuTensorMapEncodeTiled", &encode, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status) ==
                      CUDA_SUCCESS &&
                  encode && cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text) == CUDA_SUCCESS;
  std::printf("sm_%d0, %d SMs, cuTensorMapEncodeTiled %s, CUDA_ERROR_INVALID_VALUE: %s\n", major, sms,
              encode ? "found" : "missing", text ? text : "?");
  // An im2col map (NHWC fp16, 8 channels, 4 × 5 pixels, 3×3 filter with padding 1) and a packed 4-bit
  // tiled one are encoded; 2000 pixels per column (DRV: at most 1024) are refused.
  CUtensorMap map;  // 128-byte aligned by its type (cuda.h); an alignas(64) here made it 64
  alignas(32) static unsigned short image[2 * 4 * 5 * 8];
  const cuuint64_t dims[4] = {8, 5, 4, 2}, strides[3] = {16, 80, 320};
  const cuuint32_t ones[4] = {1, 1, 1, 1};
  const int lower[2] = {-1, -1}, upper[2] = {-1, -1};
  const auto im2col = [&](cuuint32_t pixels) {
    return cuTensorMapEncodeIm2col(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 4, image, dims, strides, lower, upper, 8, pixels,
                                   ones, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                   CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  };
  const cuuint64_t fp4_dims[2] = {256, 4}, fp4_strides[1] = {128};
  const cuuint32_t fp4_box[2] = {128, 4};
  const bool maps = im2col(16) == CUDA_SUCCESS && im2col(2000) == CUDA_ERROR_INVALID_VALUE &&
                    cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B, 2, image, fp4_dims, fp4_strides,
                                           fp4_box, ones, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                           CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
  std::printf("cuTensorMapEncodeIm2col and a 16U4_ALIGN16B map: %s\n", maps ? "encoded, and 2000 pixels refused" : "wrong");
  // Fills of driver memory, each of the words asked and no more.
  unsigned int words[6] = {};
  CUdeviceptr at = 0;
  const bool filled = cuMemAlloc(&at, sizeof words) == CUDA_SUCCESS && cuMemsetD32(at, 0, 6) == CUDA_SUCCESS &&
                      cuMemsetD32Async(at + 4, 0xA5A5A5A5u, 4, nullptr) == CUDA_SUCCESS &&
                      cuMemsetD16_v2(at + 8, 0x1234, 2) == CUDA_SUCCESS && cuMemsetD8Async(at + 12, 7, 1, nullptr) == CUDA_SUCCESS &&
                      cuMemcpyDtoH(words, at, sizeof words) == CUDA_SUCCESS && words[0] == 0 &&
                      words[1] == 0xA5A5A5A5u && words[2] == 0x12341234u && words[3] == 0xA5A5A507u &&
                      words[4] == 0xA5A5A5A5u && words[5] == 0 && cuMemFree(at) == CUDA_SUCCESS;
  std::printf("cuMemsetD32Async, D16, D8Async: %s\n", filled ? "filled as asked" : "wrong");
  const bool b200 = ok && filled && maps && major == 10 && sms == 148 && std::strcmp(text, "invalid argument") == 0;
  std::printf("%s\n", b200 ? "PASSED" : "FAILED");
  return b200 ? 0 : 1;
}
