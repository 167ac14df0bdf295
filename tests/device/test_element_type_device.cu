// tcgen's element-type encoders, run on the GPU, against CUDA's own float
// conversions (hardware cvt where the arch has one, cuda_fp*.h code otherwise)
// on ~1M floats. Exit 0: all agree; 1: mismatches (a few printed); 77: not the
// GPU named by TCGEN_REQUIRE_SM (90 or 100).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp4.h>
#include <cuda_fp6.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "device_check.hpp"
#include "tcgen/core/element_type.hpp"

using tcgen::ElementType;

namespace {

constexpr int kTypes = 8;
constexpr int kCount = 1 << 20;
constexpr std::uint32_t kSeed = 20250611;

constexpr TCGEN_HD ElementType type_of(int k) {
  switch (k) {
    case 0: return ElementType::bf16;
    case 1: return ElementType::fp16;
    case 2: return ElementType::tf32;
    case 3: return ElementType::e4m3;
    case 4: return ElementType::e5m2;
    case 5: return ElementType::e2m3;
    case 6: return ElementType::e3m2;
    default: return ElementType::e2m1;
  }
}

__device__ std::uint32_t cuda_convert(int k, float x) {
  switch (k) {
    case 0: return __bfloat16_as_ushort(__float2bfloat16_rn(x));
    case 1: return __half_as_ushort(__float2half_rn(x));
    case 2: {  // PTX cvt.rn.tf32.f32 (sm_90+); only the top 19 bits are tf32
      std::uint32_t r;
      asm("cvt.rn.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
      return r & ~0x1FFFu;
    }
    case 3: return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
    case 4: return __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
    case 5: return __nv_cvt_float_to_fp6(x, __NV_E2M3, cudaRoundNearest);
    case 6: return __nv_cvt_float_to_fp6(x, __NV_E3M2, cudaRoundNearest);
    default: return __nv_cvt_float_to_fp4(x, __NV_E2M1, cudaRoundNearest);
  }
}

__global__ void convert(const float* in, int n, std::uint32_t* ours, std::uint32_t* theirs) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    for (int k = 0; k < kTypes; ++k) {
      ours[k * n + i] = tcgen::encode(type_of(k), in[i]);
      theirs[k * n + i] = cuda_convert(k, in[i]);
    }
  }
}

// Random bit patterns (every f32 class), floats around the narrow types'
// ranges, and floats whose low bits are a tie at some mantissa position.
std::vector<float> make_inputs(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<std::uint32_t> exp_dist(127 - 40, 127 + 20), pos_dist(0, 22);
  std::vector<float> v(kCount);
  for (int i = 0; i < kCount; ++i) {
    std::uint32_t bits = rng();
    if (i % 4 != 0) bits = (bits & 0x807FFFFFu) | (exp_dist(rng) << 23);
    if (i % 4 == 3) {  // bit p set, everything below it clear: a midpoint for the format keeping bits above p
      const std::uint32_t p = pos_dist(rng);
      bits = (bits & ~((2u << p) - 1)) | (1u << p);
    }
    v[i] = __builtin_bit_cast(float, bits);
  }
  return v;
}

}  // namespace

int main() {
  // Built once for sm_90a (label sm90) and once for sm_100a (label sm100,
  // where Blackwell converts fp6/fp4 in hardware); each needs its own GPU.
  require_gpu(TCGEN_REQUIRE_SM / 10, TCGEN_REQUIRE_SM % 10);
  std::printf("seed %u, %d floats, %d types\n", kSeed, kCount, kTypes);
  const std::vector<float> in = make_inputs(kSeed);

  float* d_in = nullptr;
  std::uint32_t *d_ours = nullptr, *d_theirs = nullptr;
  const std::size_t out_bytes = sizeof(std::uint32_t) * kTypes * kCount;
  CUDA_CHECK(cudaMalloc(&d_in, sizeof(float) * kCount));
  CUDA_CHECK(cudaMalloc(&d_ours, out_bytes));
  CUDA_CHECK(cudaMalloc(&d_theirs, out_bytes));
  CUDA_CHECK(cudaMemcpy(d_in, in.data(), sizeof(float) * kCount, cudaMemcpyHostToDevice));
  convert<<<1024, 256>>>(d_in, kCount, d_ours, d_theirs);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> ours(std::size_t(kTypes) * kCount), theirs(ours.size());
  CUDA_CHECK(cudaMemcpy(ours.data(), d_ours, out_bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(theirs.data(), d_theirs, out_bytes, cudaMemcpyDeviceToHost));
  cudaFree(d_in);
  cudaFree(d_ours);
  cudaFree(d_theirs);

  long total = 0;
  for (int k = 0; k < kTypes; ++k) {
    const ElementType t = type_of(k);
    long bad = 0;
    for (int i = 0; i < kCount; ++i) {
      const std::uint32_t a = ours[std::size_t(k) * kCount + i], b = theirs[std::size_t(k) * kCount + i];
      // NaN encodings may differ (payload, sign): both NaN is agreement.
      if (a == b || (std::isnan(tcgen::decode(t, a)) && std::isnan(tcgen::decode(t, b)))) continue;
      if (bad++ < 5)
        std::printf("  %s: x = %a (0x%08X): tcgen 0x%X, CUDA 0x%X\n", tcgen::name(t), double(in[i]),
                    __builtin_bit_cast(std::uint32_t, in[i]), a, b);
    }
    std::printf("%-5s %ld mismatches\n", tcgen::name(t), bad);
    total += bad;
  }
  std::printf("%s: %ld mismatches in total\n", total ? "FAILED" : "PASSED", total);
  return total ? 1 : 0;
}
