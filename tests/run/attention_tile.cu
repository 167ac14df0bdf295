// An attention tile written the way a raw-PTX FMHA author writes one, as a
// whole program run under `tcgen run`: O = softmax(Q·Kᵀ / sqrt(64))·V for 128
// queries and 128 keys of head_dim 64, bf16 in, f32 out, one CTA of 128
// threads, no tcgen library:
//   - Q, K and V come in by TMA, one box each, 128-byte swizzled: maps made
//     with cuTensorMapEncodeTiled through cudaGetDriverEntryPointByVersion;
//   - S = Q·Kᵀ by tcgen05.mma (both operands K-major), in Tensor Memory;
//   - each thread owns one query: it reads its row of S with tcgen05.ld
//     32x32b, takes the softmax (unnormalised, exp2 of the scaled scores less
//     the row maximum) and stores P as bf16 into shared memory in the
//     canonical K-major 128B-swizzled layout of an MMA A operand;
//   - O = P·V by tcgen05.mma with V as an MN-major B operand (head_dim
//     contiguous, as V is stored), then each thread divides its row by the sum.
// The CPU computes the same attention in double precision. Exit 0 and PASSED
// when every row of O is within 1e-2 of it in the 2-norm (P rounded to bf16
// costs at most 2^-8 relative).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

constexpr int kRows = 128, kDim = 64;
constexpr std::uint32_t kQ = 0, kK = 16384, kV = 32768, kP = 49152;  // 1024-aligned tiles; P is 2 × 16 KiB
constexpr std::uint32_t kBars = 81920, kSlot = kBars + 16, kSmem = kSlot + 16 + 1024;  // + room to align
constexpr std::uint32_t kS = 0, kO = 128;  // TMEM columns of S (128) and O (64)

__device__ std::uint32_t smem_u32(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

// SM100 shared-memory descriptor (PTX #tcgen05-shared-memory-descriptor): start, LBO, SBO >> 4, version 1 at bit
// 46, layout 2 (128-byte swizzle) at 61.
__device__ std::uint64_t sw128_desc(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo) {
  return ((addr & 0x3FFFF) >> 4) | std::uint64_t((lbo >> 4) & 0x3FFF) << 16 | std::uint64_t((sbo >> 4) & 0x3FFF) << 32 |
         1ull << 46 | 2ull << 61;
}
// kind::f16 idesc: D f32, A and B bf16, B MN-major when asked, N >> 3 at 17, M >> 4 at 24.
__device__ std::uint32_t idesc(int n, bool b_mn_major) {
  return 1u << 4 | 1u << 7 | 1u << 10 | (b_mn_major ? 1u << 16 : 0u) | std::uint32_t(n >> 3) << 17 | (128u >> 4) << 24;
}
__device__ void mma(std::uint32_t d, std::uint64_t a, std::uint64_t b, std::uint32_t id, bool accumulate) {
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\ttcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
               "l"(a), "l"(b), "r"(id), "r"(std::uint32_t(accumulate)));
}
__device__ void commit(std::uint32_t bar) {
  asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(bar));
}
__device__ void wait(std::uint32_t bar, std::uint32_t parity) {
  asm volatile("{\n\t.reg .pred done;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n\t@!done bra WAIT;\n\t}" ::"r"(bar),
               "r"(parity));
}
// 32 columns of this thread's lane (32x32b.x32: thread t of warp w holds lane 32w + t).
__device__ void load32(std::uint32_t taddr, float* out) {
  std::uint32_t r[32];
  asm volatile(
      "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]),
        "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]),
        "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]),
        "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
      : "r"(taddr));
  asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
  for (int i = 0; i < 32; ++i) out[i] = __uint_as_float(r[i]);
}

__global__ void __launch_bounds__(128) attention(const __grid_constant__ CUtensorMap q_map,
                                                  const __grid_constant__ CUtensorMap k_map,
                                                  const __grid_constant__ CUtensorMap v_map, float* out) {
  extern __shared__ std::uint8_t raw[];
  std::uint8_t* smem = raw + ((1024 - smem_u32(raw) % 1024) % 1024);
  const std::uint32_t base = smem_u32(smem), loaded = base + kBars, done = base + kBars + 8;
  const int tid = threadIdx.x, warp = tid / 32;

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;" ::"r"(base + kSlot));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(loaded));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(done));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  const std::uint32_t tmem = *reinterpret_cast<volatile std::uint32_t*>(smem + kSlot);

  if (tid == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(loaded), "r"(3 * 16384));
    const CUtensorMap* maps[] = {&q_map, &k_map, &v_map};
    const std::uint32_t dst[] = {kQ, kK, kV};
    for (int i = 0; i < 3; ++i)
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
              base + dst[i]),
          "l"(maps[i]), "r"(0), "r"(0), "r"(loaded)
          : "memory");
    wait(loaded, 0);
    // S = Q·Kᵀ: 4 K steps of 16 elements, 32 bytes apart inside the 128-byte swizzled rows (SBO 1024: 8 rows).
    for (int s = 0; s < kDim / 16; ++s)
      mma(tmem + kS, sw128_desc(base + kQ + 32 * s, 16, 1024), sw128_desc(base + kK + 32 * s, 16, 1024),
          idesc(kRows, false), s > 0);
    commit(done);
  }
  wait(done, 0);
  asm volatile("tcgen05.fence::after_thread_sync;");

  // This thread's query: its row of S, the softmax, P as bf16 into the A operand's layout (two 64-key blocks of
  // 128 rows × 128 bytes; 16-byte chunk c of row r at chunk c ^ (r % 8)).
  const std::uint32_t lane_addr = tmem + (std::uint32_t(32 * warp) << 16);
  float s[kRows];
  for (int c = 0; c < kRows; c += 32) load32(lane_addr + kS + c, s + c);
  const float scale = 0.125f * 1.4426950408889634f;  // 1/sqrt(64), in base 2
  float m = -INFINITY, l = 0;
  for (int k = 0; k < kRows; ++k) m = fmaxf(m, s[k]);
  for (int k = 0; k < kRows; ++k) {
    s[k] = exp2f((s[k] - m) * scale);
    l += s[k];
  }
  const int r = tid;
  for (int k = 0; k < kRows; k += 8) {
    std::uint32_t w[4];
    for (int j = 0; j < 4; ++j)  // key k + 2j in the low half: cvt.rn.bf16x2.f32 puts its first source high
      asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w[j]) : "f"(s[k + 2 * j + 1]), "f"(s[k + 2 * j]));
    const std::uint32_t chunk = ((k % 64) / 8) ^ (r % 8);
    const std::uint32_t at = kP + (k / 64) * 16384 + (r / 8) * 1024 + (r % 8) * 128 + chunk * 16;
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(base + at), "r"(w[0]), "r"(w[1]), "r"(w[2]), "r"(w[3]));
  }
  // P was written through the generic proxy; the MMA reads it through the async proxy.
  asm volatile("fence.proxy.async.shared::cta;");
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  if (tid == 0) {
    // O = P·V: 8 K steps of 16 keys. P's step s: block s / 4, 32 bytes apart inside it. V's: 16 key rows
    // (2048 bytes) down its MN-major 128B-swizzled tile (SBO 1024: 8 key rows).
    for (int step = 0; step < kRows / 16; ++step)
      mma(tmem + kO, sw128_desc(base + kP + (step / 4) * 16384 + (step % 4) * 32, 16, 1024),
          sw128_desc(base + kV + 2048 * step, 8192, 1024), idesc(kDim, true), step > 0);
    commit(done);
  }
  wait(done, 1);
  asm volatile("tcgen05.fence::after_thread_sync;");
  float o[kDim];
  for (int c = 0; c < kDim; c += 32) load32(lane_addr + kO + c, o + c);
  for (int c = 0; c < kDim; ++c) out[r * kDim + c] = o[c] / l;

  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  if (warp == 0) {
    asm volatile("tcgen05.fence::after_thread_sync;");
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" ::"r"(tmem));
  }
}

using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                            const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                            CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

std::uint16_t bf16(float x) {  // round to nearest even
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  return static_cast<std::uint16_t>((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
double value(std::uint16_t b) {
  const std::uint32_t u = std::uint32_t(b) << 16;
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

}  // namespace

int main() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status) !=
          cudaSuccess ||
      !fn) {
    std::printf("FAILED: no cuTensorMapEncodeTiled\n");
    return 1;
  }
  const auto encode = reinterpret_cast<Encode>(fn);
  std::mt19937 rng(std::random_device{}());
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<std::uint16_t> host[3];
  for (auto& h : host)
    for (int i = 0; i < kRows * kDim; ++i) h.push_back(bf16(normal(rng)));
  CUtensorMap maps[3];
  void* dev[3];
  const cuuint64_t dims[] = {kDim, kRows}, strides[] = {kDim * 2};
  const cuuint32_t box[] = {kDim, kRows}, ones[] = {1, 1};
  for (int i = 0; i < 3; ++i) {
    cudaMalloc(&dev[i], kRows * kDim * 2);
    cudaMemcpy(dev[i], host[i].data(), kRows * kDim * 2, cudaMemcpyHostToDevice);
    if (encode(&maps[i], CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, dev[i], dims, strides, box, ones,
               CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
      std::printf("FAILED: encode\n");
      return 1;
    }
  }
  float* out;
  cudaMalloc(&out, kRows * kDim * sizeof(float));
  cudaFuncSetAttribute(attention, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);
  attention<<<1, 128, kSmem>>>(maps[0], maps[1], maps[2], out);
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("FAILED: %s\n", cudaGetErrorString(e));
    return 1;
  }
  std::vector<float> o(kRows * kDim);
  cudaMemcpy(o.data(), out, o.size() * sizeof(float), cudaMemcpyDeviceToHost);
  double worst = 0;
  for (int i = 0; i < kRows; ++i) {
    std::vector<double> s(kRows);
    double m = -INFINITY, l = 0;
    for (int j = 0; j < kRows; ++j) {
      for (int c = 0; c < kDim; ++c) s[j] += value(host[0][i * kDim + c]) * value(host[1][j * kDim + c]);
      s[j] *= 0.125;
      m = std::fmax(m, s[j]);
    }
    for (double& x : s) l += (x = std::exp(x - m));
    double err = 0, norm = 0;
    for (int c = 0; c < kDim; ++c) {
      double want = 0;
      for (int j = 0; j < kRows; ++j) want += s[j] * value(host[2][j * kDim + c]);
      want /= l;
      err += (o[i * kDim + c] - want) * (o[i * kDim + c] - want);
      norm += want * want;
    }
    worst = std::fmax(worst, std::sqrt(err / norm));
  }
  std::printf("attention 128 x 128, head_dim 64: largest row error %.3g (bound 1e-2)\n", worst);
  const bool ok = worst <= 1e-2;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
