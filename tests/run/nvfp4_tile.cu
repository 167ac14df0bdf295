// The raw-PTX NVFP4 and MXFP8 tiles of tests/ptx_programs/block_scaled_kernels.cu
// as a user's whole program: its own main with cudaMalloc, <<<>>> launches
// and a CPU check in double precision, run under `tcgen run`. The values and
// factors are chosen so that fp32 holds every product and sum exactly: the
// check is equality. Exit 0 and PASSED when both tiles match.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "../ptx_programs/block_scaled_kernels.cu"

namespace {

constexpr int M = 128, N = 128, K = 128;
constexpr unsigned kSmem = 34828;

// FP4 e2m1 and FP8 e4m3 codes of ±{0.5, 1, 1.5, 2, 3, 4, 6}.
constexpr float kMag[] = {0.5f, 1, 1.5f, 2, 3, 4, 6};
constexpr std::uint8_t kE2m1[] = {1, 2, 3, 4, 5, 6, 7};
constexpr std::uint8_t kE4m3[] = {0x30, 0x38, 0x3C, 0x40, 0x44, 0x48, 0x4C};

std::size_t sf_offset(int r, int kb) { return 512u * (kb / 4) + 16u * (r % 32) + 4u * (r / 32) + kb % 4; }

int check(bool nvfp4, std::mt19937& rng) {
  const int block = nvfp4 ? 16 : 32, nkb = K / block, row_bytes = nvfp4 ? K / 2 : K;
  std::uniform_int_distribution<int> pick(0, 13), mant(0, 7), e(-1, 1);
  std::vector<double> a(M * K), b(N * K), sfa(M * nkb), sfb(N * nkb);
  std::vector<std::uint8_t> a_bytes(M * row_bytes), b_bytes(N * row_bytes), sfa_bytes(1024), sfb_bytes(1024);
  for (int which = 0; which < 2; ++which)
    for (int r = 0; r < 128; ++r)
      for (int k = 0; k < K; ++k) {
        const int i = pick(rng), sign = i % 2;
        const std::uint8_t code = nvfp4 ? std::uint8_t(kE2m1[i / 2] | sign << 3) : std::uint8_t(kE4m3[i / 2] | sign << 7);
        (which ? b : a)[r * K + k] = (sign ? -1.0 : 1.0) * kMag[i / 2];
        auto& bytes = which ? b_bytes : a_bytes;
        if (nvfp4) bytes[r * row_bytes + k / 2] |= std::uint8_t(code << (4 * (k % 2)));
        else bytes[r * row_bytes + k] = code;
      }
  for (int which = 0; which < 2; ++which)
    for (int r = 0; r < 128; ++r)
      for (int kb = 0; kb < nkb; ++kb) {
        // UE4M3 1 + m/8 (exponent field 7) or UE8M0 2^e, e in -1 .. 1.
        const int m = mant(rng), x = e(rng);
        (which ? sfb : sfa)[r * nkb + kb] = nvfp4 ? 1.0 + m / 8.0 : std::ldexp(1.0, x);
        (which ? sfb_bytes : sfa_bytes)[sf_offset(r, kb)] = nvfp4 ? std::uint8_t(7 << 3 | m) : std::uint8_t(127 + x);
      }
  std::uint8_t *da, *db, *dsa, *dsb;
  float* dd;
  cudaMalloc(&da, a_bytes.size());
  cudaMalloc(&db, b_bytes.size());
  cudaMalloc(&dsa, 1024);
  cudaMalloc(&dsb, 1024);
  cudaMalloc(&dd, M * N * sizeof(float));
  cudaMemcpy(da, a_bytes.data(), a_bytes.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(db, b_bytes.data(), b_bytes.size(), cudaMemcpyHostToDevice);
  cudaMemcpy(dsa, sfa_bytes.data(), 1024, cudaMemcpyHostToDevice);
  cudaMemcpy(dsb, sfb_bytes.data(), 1024, cudaMemcpyHostToDevice);
  if (nvfp4) nvfp4_tile<<<1, 128, kSmem>>>(da, db, dsa, dsb, dd);
  else mxfp8_tile<<<1, 128, kSmem>>>(da, db, dsa, dsb, dd);
  const cudaError_t err = cudaDeviceSynchronize();
  std::vector<float> d(M * N);
  cudaMemcpy(d.data(), dd, d.size() * sizeof(float), cudaMemcpyDeviceToHost);
  cudaFree(da), cudaFree(db), cudaFree(dsa), cudaFree(dsb), cudaFree(dd);
  if (err != cudaSuccess) {
    std::printf("%s tile: %s\n", nvfp4 ? "NVFP4" : "MXFP8", cudaGetErrorString(err));
    return M * N;
  }
  int wrong = 0;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double want = 0;
      for (int k = 0; k < K; ++k) want += a[i * K + k] * sfa[i * nkb + k / block] * b[j * K + k] * sfb[j * nkb + k / block];
      wrong += d[i * N + j] != want;
    }
  std::printf("%s tile: %d of %d elements differ from the double-precision product\n", nvfp4 ? "NVFP4" : "MXFP8", wrong,
              M * N);
  return wrong;
}

}  // namespace

int main() {
  std::mt19937 rng(std::random_device{}());
  const int wrong = check(true, rng) + check(false, rng);
  std::printf("%s\n", wrong ? "FAILED" : "PASSED");
  return wrong ? 1 : 0;
}
