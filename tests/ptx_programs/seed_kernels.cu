// The seed's kernels (../shared/seed/): QK^T and a TMEM store test written
// the way that user wrote them, raw CUDA with inline tcgen05 PTX: operands
// copied to shared memory by hand in the canonical K-major layout without
// swizzle (core matrices column-major: LBO = 128 rows · 16 B, SBO = 128 B),
// descriptors and the instruction descriptor built with shifts, one elected
// thread issuing, 32x32b reads. Nothing here uses tcgen's libraries: the
// PTX interpreter runs them (test_ptx_seed_bugs.cpp), with the bugs the
// user hit planted in variants.
#include <cstdint>

#include "raw_tcgen05.cuh"

namespace {

constexpr std::uint32_t kQ = 0, kK = 16384, kMbar = 32768, kSlot = 32776;  // shared-memory offsets
constexpr std::uint32_t kLbo = 128 * 16, kSbo = 128;

enum Variant { correct, lbo_sbo_swapped, idesc_in_high_half };

__device__ std::uint32_t smem_u32(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

// The SM100 shared-memory descriptor: start >> 4, LBO >> 4 at 16, SBO >> 4 at 32, version 1 at 46, no swizzle.
__device__ std::uint64_t make_desc(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo) {
  return ((addr & 0x3FFFF) >> 4) | (std::uint64_t((lbo >> 4) & 0x3FFF) << 16) |
         (std::uint64_t((sbo >> 4) & 0x3FFF) << 32) | (1ull << 46);
}

// kind::f16, bf16 × bf16 → f32, both K-major: D f32 at 4, A and B bf16 at 7 and 10, N >> 3 at 17, M >> 4 at 24.
__device__ std::uint32_t make_idesc(int m, int n) {
  return (1u << 4) | (1u << 7) | (1u << 10) | (std::uint32_t(n >> 3) << 17) | (std::uint32_t(m >> 4) << 24);
}

__device__ bool elect_one() {
  std::uint32_t pred = 0;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(pred));
  return pred != 0;
}

// S = Q·K^T for 128 queries and 128 keys of head_dim HD, bf16 in, f32 out; 128 threads.
template <int HD, Variant V>
__device__ void qk(const std::uint16_t* q, const std::uint16_t* k, float* s) {
  extern __shared__ __align__(1024) std::uint8_t smem[];
  const int tid = threadIdx.x, warp = tid / 32;
  const std::uint32_t base = smem_u32(smem);

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 128;" ::"r"(base + kSlot));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(base + kMbar));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  // The canonical layout: element (r, c) of a 128 × HD tile at (c/8)·LBO + (r/8)·SBO + (r%8)·16 + (c%8)·2.
  for (int i = tid; i < 128 * HD; i += 128) {
    const int r = i / HD, c = i % HD;
    const std::uint32_t off = (c / 8) * kLbo + (r / 8) * kSbo + (r % 8) * 16 + (c % 8) * 2;
    *reinterpret_cast<std::uint16_t*>(smem + kQ + off) = q[i];
    *reinterpret_cast<std::uint16_t*>(smem + kK + off) = k[i];
  }
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  const std::uint32_t tmem = *reinterpret_cast<volatile std::uint32_t*>(smem + kSlot);

  if (warp == 0 && elect_one()) {
    const std::uint32_t idesc = make_idesc(128, 128);
    for (int step = 0; step < HD / 16; ++step) {  // 16 of K per MMA: two core matrices, 2·LBO
      const std::uint32_t lbo = V == lbo_sbo_swapped ? kSbo : kLbo, sbo = V == lbo_sbo_swapped ? kLbo : kSbo;
      std::uint64_t a = make_desc(base + kQ + step * 2 * kLbo, lbo, sbo);
      const std::uint64_t b = make_desc(base + kK + step * 2 * kLbo, lbo, sbo);
      if (V == idesc_in_high_half) a = (a & 0xFFFFFFFFull) | (std::uint64_t(idesc) << 32);
      asm volatile(
          "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
          "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
          "l"(a), "l"(b), "r"(idesc), "r"(step));
    }
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(base + kMbar));
  }
  wait_parity(base + kMbar, 0);
  asm volatile("tcgen05.fence::after_thread_sync;");
  store_accumulator_128x128(tmem, s);
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 128;" ::"r"(tmem));
}

// Two tcgen05.st.16x256b.x1 by warp 0 fill lanes 0-31 of columns 0-7, then
// every lane reads its row back with 32x32b.x8 into out[lane * 8 + j].
// 16x256b covers 16 lanes × 8 columns: the second half of the warp is at
// lane + 16, taddr + (16 << 16). The user wrote taddr + 16 (column + 16).
template <bool ColumnPlus16>
__device__ void tmem_store(std::uint32_t* out) {
  extern __shared__ __align__(1024) std::uint8_t smem[];
  const std::uint32_t base = smem_u32(smem);
  const int lane = threadIdx.x % 32;
  asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" ::"r"(base + kSlot));
  asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  __syncwarp();
  const std::uint32_t tmem = *reinterpret_cast<volatile std::uint32_t*>(smem + kSlot);
  asm volatile("tcgen05.fence::after_thread_sync;");
  // 16x256b.x1: thread t holds row t/4 (+8 for registers 2, 3), columns 2(t%4) and 2(t%4)+1.
  for (int half = 0; half < 2; ++half) {
    const std::uint32_t v[4] = {std::uint32_t(1000 * half + lane), std::uint32_t(1000 * half + lane + 100),
                                std::uint32_t(1000 * half + lane + 200), std::uint32_t(1000 * half + lane + 300)};
    const std::uint32_t at = tmem + (half == 0 ? 0u : ColumnPlus16 ? 16u : (16u << 16));
    asm volatile("tcgen05.st.sync.aligned.16x256b.x1.b32 [%0], {%1, %2, %3, %4};" ::"r"(at), "r"(v[0]), "r"(v[1]),
                 "r"(v[2]), "r"(v[3]));
  }
  asm volatile("tcgen05.wait::st.sync.aligned;");
  std::uint32_t r[8];
  asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
               : "r"(tmem));
  asm volatile("tcgen05.wait::ld.sync.aligned;");
  for (int j = 0; j < 8; ++j) out[lane * 8 + j] = r[j];
  asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 32;" ::"r"(tmem));
}

}  // namespace

extern "C" __global__ void seed_qk_hd16(const std::uint16_t* q, const std::uint16_t* k, float* s) {
  qk<16, correct>(q, k, s);
}
extern "C" __global__ void seed_qk_hd64(const std::uint16_t* q, const std::uint16_t* k, float* s) {
  qk<64, correct>(q, k, s);
}
extern "C" __global__ void seed_qk_lbo_sbo_swapped(const std::uint16_t* q, const std::uint16_t* k, float* s) {
  qk<64, lbo_sbo_swapped>(q, k, s);
}
extern "C" __global__ void seed_qk_idesc_in_high_half(const std::uint16_t* q, const std::uint16_t* k, float* s) {
  qk<64, idesc_in_high_half>(q, k, s);
}
extern "C" __global__ void seed_tmem_store_column_plus_16(std::uint32_t* out) { tmem_store<true>(out); }
extern "C" __global__ void seed_tmem_store_lane_plus_16(std::uint32_t* out) { tmem_store<false>(out); }
