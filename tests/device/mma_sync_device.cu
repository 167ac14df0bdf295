// mma.sync on real tensor cores and on the host model, one program: a warp multiplies one 16×8 tile
// (m16n8k16 and m16n8k8, f16 and bf16 into f32) with fragments laid out from CuTe's SM80 traits
// (tests/host/mma_sync_fragments.hpp). Small-integer inputs must give D exactly; normal ones must lie
// within (K+1)·2^-24 of the terms' magnitude of the fp64 product. Each case prints an FNV-1a hash of
// D's bits: run on an H200 (sm_90a SASS) and under `tcgen run` (its compute_100a PTX on the
// interpreter), equal hashes mean equal bits. Exit 0: all within bounds; 1: not; 77: no sm_90+ GPU.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "../host/mma_sync_fragments.hpp"
#include "device_check.hpp"
#include "tcgen/core/element_type.hpp"

namespace {

using tcgen::ElementType;

// Lane l's ten words at in + 10·l: A's registers (k/4), B's (k/8) from word 4, C's from word 6; D's four
// to out + 4·l.
template <int K, bool kBf16>
__global__ void mma_tile(const std::uint32_t* in, float* out) {
  const std::uint32_t* w = in + 10 * threadIdx.x;
  float d[4];
  if constexpr (K == 16 && !kBf16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]), "r"(w[4]), "r"(w[5]), "f"(__uint_as_float(w[6])),
                   "f"(__uint_as_float(w[7])), "f"(__uint_as_float(w[8])), "f"(__uint_as_float(w[9])));
  else if constexpr (K == 16)
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%10,%11,%12,%13};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]), "r"(w[4]), "r"(w[5]), "f"(__uint_as_float(w[6])),
                   "f"(__uint_as_float(w[7])), "f"(__uint_as_float(w[8])), "f"(__uint_as_float(w[9])));
  else if constexpr (!kBf16)
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(w[0]), "r"(w[1]), "r"(w[4]), "f"(__uint_as_float(w[6])), "f"(__uint_as_float(w[7])),
                   "f"(__uint_as_float(w[8])), "f"(__uint_as_float(w[9])));
  else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(w[0]), "r"(w[1]), "r"(w[4]), "f"(__uint_as_float(w[6])), "f"(__uint_as_float(w[7])),
                   "f"(__uint_as_float(w[8])), "f"(__uint_as_float(w[9])));
  for (int i = 0; i < 4; ++i) out[4 * threadIdx.x + i] = d[i];
}

template <int K, bool kBf16>
bool run_case(bool integers, std::uint64_t seed, Counts& counts) {
  const ElementType type = kBf16 ? ElementType::bf16 : ElementType::fp16;
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(-4, 4);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const auto value = [&] { return tcgen::round_to(type, integers ? static_cast<float>(small(rng)) : normal(rng)); };
  std::vector<float> a(16 * K), b(8 * K), c(16 * 8);
  for (float& x : a) x = value();
  for (float& x : b) x = value();
  for (float& x : c) x = integers ? static_cast<float>(small(rng)) : normal(rng);
  std::vector<std::uint32_t> in(320, 0);
  for (int t = 0; t < 32; ++t) {
    for (int v = 0; v < K / 2; ++v)
      in[10 * t + v / 2] |= tcgen::encode(type, a[tcgen::test::mma_a_index(K, t, v)]) << 16 * (v % 2);
    for (int v = 0; v < K / 4; ++v)
      in[10 * t + 4 + v / 2] |= tcgen::encode(type, b[tcgen::test::mma_b_index(K, t, v)]) << 16 * (v % 2);
    for (int v = 0; v < 4; ++v) std::memcpy(&in[10 * t + 6 + v], &c[tcgen::test::mma_c_index(t, v)], 4);
  }
  std::uint32_t* d_in = nullptr;
  float* d_out = nullptr;
  CUDA_CHECK(cudaMalloc(&d_in, in.size() * 4));
  CUDA_CHECK(cudaMalloc(&d_out, 128 * 4));
  CUDA_CHECK(cudaMemcpy(d_in, in.data(), in.size() * 4, cudaMemcpyHostToDevice));
  mma_tile<K, kBf16><<<1, 32>>>(d_in, d_out);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> out(128);
  CUDA_CHECK(cudaMemcpy(out.data(), d_out, 128 * 4, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(d_in));
  CUDA_CHECK(cudaFree(d_out));
  double worst = 0;
  bool exact = true;
  std::uint64_t hash = 1469598103934665603ull;
  for (int t = 0; t < 32; ++t)
    for (int v = 0; v < 4; ++v) {
      const int idx = tcgen::test::mma_c_index(t, v), row = idx % 16, col = idx / 16;
      double want = c[idx], scale = std::fabs(c[idx]);
      for (int k = 0; k < K; ++k) {
        want += double(a[row + 16 * k]) * double(b[col + 8 * k]);
        scale += std::fabs(double(a[row + 16 * k]) * double(b[col + 8 * k]));
      }
      exact = exact && out[4 * t + v] == want;
      worst = std::max(worst, std::fabs(out[4 * t + v] - want) / std::max(scale, 1e-30));
      std::uint32_t bits;
      std::memcpy(&bits, &out[4 * t + v], 4);
      for (int byte = 0; byte < 4; ++byte) hash = (hash ^ (bits >> 8 * byte & 0xFF)) * 1099511628211ull;
    }
  const bool ok = integers ? exact : worst <= (K + 1) * 0x1p-24;
  char line[256];
  std::snprintf(line, sizeof line, "m16n8k%d %s %s: worst error / magnitude %.3g, D hash %016llx", K,
                kBf16 ? "bf16" : "f16", integers ? "integers (exact)" : "normal", worst,
                static_cast<unsigned long long>(hash));
  counts.report(ok, line);
  return ok;
}

}  // namespace

int main() {
  int devices = 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0 || cudaGetDeviceProperties(&prop, 0) != cudaSuccess ||
      prop.major < 9) {
    std::printf("SKIPPED: needs an sm_90 or newer GPU (or tcgen run)\n");
    return 77;
  }
  std::printf("%s (sm_%d%d)\n", prop.name, prop.major, prop.minor);
  Counts counts;
  for (const bool integers : {true, false}) {
    const std::uint64_t seed = integers ? 11 : 12;  // fixed: the hashes compare across machines
    run_case<16, false>(integers, seed, counts);
    run_case<16, true>(integers, seed, counts);
    run_case<8, false>(integers, seed, counts);
    run_case<8, true>(integers, seed, counts);
  }
  std::printf("%d of %d cases %s\n", counts.cases - counts.failures, counts.cases,
              counts.failures ? "passed: FAILED" : "passed: PASSED");
  return counts.failures ? 1 : 0;
}
