// Operand provenance (docs/model.md, operand_not_a_tile) in the raw-PTX style
// of the seed's kernels: one CTA TMA-loads A and B (128 × 64 bf16 each, 128B
// swizzle, K-major) and issues the four tcgen05.mma of D = A·Bᵀ (128 × 128 ×
// 64), then stores D. The variants plant legal descriptors that read the
// wrong bytes: the descriptor's swizzle is not the TMA box's, or the
// instruction descriptor calls A MN-major, or the K step does not advance the
// descriptors, or advances them by the wrong count, or the idesc's M or N is
// not the 128 × 128 D read back. A second kernel brings A through
// registers: each thread loads its row from global memory and stores it to
// Tensor Memory with tcgen05.st, and the MMAs read A from there (the TS form);
// its variant stores two of the loads in each other's columns. Built by nvcc
// -ptx for sm_100a.
#include <cuda.h>

#include <cstdint>

#include "raw_tcgen05.cuh"

namespace {

constexpr std::uint32_t kA = 0, kB = 16384, kMbar = 32768, kSlot = 32776;  // shared-memory offsets

enum Variant {
  correct,
  swizzle_none_in_descriptor,
  a_transposed_in_idesc,
  k_step_not_advanced,
  k_step_in_bytes_not_encoded,  // the descriptor advanced by 32 where its start field counts 16-byte units
  k_step_doubled,               // 64 bytes a K step of 16 bf16, where it is 32
  m_at_bit_23,                  // the idesc's M >> 4 one bit low: M = 128 reads as 64
  n_too_small,                  // the idesc's N = 64 where D is 128 columns wide
};

// K-major, 128B swizzle: rows 128 bytes apart in 8-row atoms of 1024 bytes (SBO), LBO unused (1).
__device__ std::uint64_t make_desc(std::uint32_t addr, int layout_type) {
  return ((addr & 0x3FFFF) >> 4) | (1ull << 16) | (std::uint64_t(1024 >> 4) << 32) | (1ull << 46) |
         (std::uint64_t(layout_type) << 61);
}

// Warp 0 allocates 256 columns of Tensor Memory (A, when stored there, lives in columns 128-159),
// thread 0 initialises the mbarrier; every thread then reads the allocation's address.
__device__ std::uint32_t start(std::uint32_t base, const std::uint8_t* smem) {
  if (threadIdx.x / 32 == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;" ::"r"(base + kSlot));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(base + kMbar));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  return *reinterpret_cast<volatile const std::uint32_t*>(smem + kSlot);
}

// One 128 × 64 bf16 box of `map` to shared address dst, completing on the mbarrier.
__device__ void load_tile(std::uint32_t dst, const CUtensorMap* map, std::uint32_t base) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {0, 0}], [%2];"
      ::"r"(dst), "l"(map), "r"(base + kMbar) : "memory");
}

// After the MMAs' commit (phase 1 of the mbarrier): D stored, the columns freed.
__device__ void finish(std::uint32_t base, std::uint32_t tmem, float* d) {
  wait_parity(base + kMbar, 1);
  asm volatile("tcgen05.fence::after_thread_sync;");
  store_accumulator_128x128(tmem, d);
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  if (threadIdx.x / 32 == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" ::"r"(tmem));
}

template <Variant V>
__device__ void tile_mma(const CUtensorMap* a_map, const CUtensorMap* b_map, float* d) {
  extern __shared__ __align__(1024) std::uint8_t smem[];
  const int tid = threadIdx.x;
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  const std::uint32_t tmem = start(base, smem);
  if (tid == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 32768;" ::"r"(base + kMbar));
    load_tile(base + kA, a_map, base);
    load_tile(base + kB, b_map, base);
  }
  wait_parity(base + kMbar, 0);
  __syncthreads();  // every thread past phase 0 before the commit completes phase 1
  if (tid == 0) {
    // f32 D, bf16 A and B, N = 128 (bits 17-22: N >> 3), M = 128 (bits 24-28: M >> 4); bit 15: A MN-major
    // (the planted transpose).
    // The planted shapes: M >> 4 at bit 23 (the field is bits 24-28), N = 64.
    const std::uint32_t n = V == n_too_small ? 64 : 128;
    const std::uint32_t idesc = (1u << 4) | (1u << 7) | (1u << 10) | ((n >> 3) << 17) |
                                ((128u >> 4) << (V == m_at_bit_23 ? 23 : 24)) |
                                (V == a_transposed_in_idesc ? 1u << 15 : 0u);
    const int layout = V == swizzle_none_in_descriptor ? 0 : 2;
    for (int step = 0; step < 4; ++step) {  // 16 of K per MMA: 32 bytes along the 128-byte swizzled row
      // The planted K steps: never advanced, or by 64 bytes.
      const int k_bytes = V == k_step_not_advanced ? 0 : V == k_step_doubled ? 64 * step : 32 * step;
      std::uint64_t a = make_desc(base + kA + k_bytes, layout), b = make_desc(base + kB + k_bytes, layout);
      if (V == k_step_in_bytes_not_encoded) {  // the planted K step: 32 added to the encoded descriptors
        a = make_desc(base + kA, layout) + 32 * step;
        b = make_desc(base + kB, layout) + 32 * step;
      }
      asm volatile(
          "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
          "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(tmem),
          "l"(a), "l"(b), "r"(idesc), "r"(step));
    }
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(base + kMbar));
  }
  finish(base, tmem, d);
}

// A's row m (64 bf16, 128 bytes) loaded by thread m, four 16-byte loads at a time, and stored to
// lane m with tcgen05.st.32x32b.x16 (two bf16 a column: the TS form's A, PTX
// #tcgen05-matrix-fragments); `Swapped`: the first two loads of each half stored in each other's columns.
// `Words`: half 0 loaded before tcgen05.alloc, while each warp runs converged, its first 16 bytes last,
// as four 4-byte loads, and the planted bug its first two words stored in each other's columns.
template <bool Swapped, bool Words = false>
__device__ void ts_mma(const uint4* a, const CUtensorMap* b_map, float* d) {
  extern __shared__ __align__(1024) std::uint8_t smem[];
  const int tid = threadIdx.x, warp = tid / 32;
  const std::uint32_t base = static_cast<std::uint32_t>(__cvta_generic_to_shared(smem));
  uint4 early[4];  // Words: half 0's (asm volatile keeps the loads in this order, before the alloc)
  if (Words) {
    for (int q = 1; q < 4; ++q)
      asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(early[q].x), "=r"(early[q].y), "=r"(early[q].z), "=r"(early[q].w)
                   : "l"(a + tid * 8 + q));
    std::uint32_t w[4];
    for (int i = 0; i < 4; ++i)
      asm volatile("ld.global.u32 %0, [%1];" : "=r"(w[i]) : "l"(reinterpret_cast<const std::uint32_t*>(a + tid * 8) + i));
    early[0] = make_uint4(w[1], w[0], w[2], w[3]);  // the planted bug
  }
  const std::uint32_t tmem = start(base, smem);
  if (tid == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 16384;" ::"r"(base + kMbar));
    load_tile(base + kB, b_map, base);
  }
  for (int half = 0; half < 2; ++half) {
    uint4 v[4];
    for (int q = 0; q < 4; ++q) v[q] = Words && half == 0 ? early[q] : a[tid * 8 + half * 4 + q];
    if (Swapped) {  // the planted bug
      const uint4 t = v[0];
      v[0] = v[1];
      v[1] = t;
    }
    asm volatile(
        "tcgen05.st.sync.aligned.32x32b.x16.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, "
        "%15, %16};" ::"r"(tmem + (std::uint32_t(32 * warp) << 16) + 128 + 16 * half),
        "r"(v[0].x), "r"(v[0].y), "r"(v[0].z), "r"(v[0].w), "r"(v[1].x), "r"(v[1].y), "r"(v[1].z), "r"(v[1].w),
        "r"(v[2].x), "r"(v[2].y), "r"(v[2].z), "r"(v[2].w), "r"(v[3].x), "r"(v[3].y), "r"(v[3].z), "r"(v[3].w));
  }
  asm volatile("tcgen05.wait::st.sync.aligned;");
  asm volatile("tcgen05.fence::before_thread_sync;");
  wait_parity(base + kMbar, 0);
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  if (tid == 0) {
    const std::uint32_t idesc = (1u << 4) | (1u << 7) | (1u << 10) | ((128u >> 3) << 17) | ((128u >> 4) << 24);
    for (int step = 0; step < 4; ++step)  // K = 16 a step: 8 columns of A, 32 bytes along B's swizzled row
      asm volatile(
          "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
          "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n\t}" ::"r"(tmem),
          "r"(tmem + 128 + 8 * step), "l"(make_desc(base + kB + 32 * step, 2)), "r"(idesc), "r"(step));
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(base + kMbar));
  }
  finish(base, tmem, d);
}

}  // namespace

extern "C" __global__ void provenance_a_stored(const uint4* a, const __grid_constant__ CUtensorMap b, float* d) {
  ts_mma<false>(a, &b, d);
}
extern "C" __global__ void provenance_a_stored_swapped(const uint4* a, const __grid_constant__ CUtensorMap b,
                                                       float* d) {
  ts_mma<true>(a, &b, d);
}
extern "C" __global__ void provenance_a_words_swapped(const uint4* a, const __grid_constant__ CUtensorMap b,
                                                      float* d) {
  ts_mma<false, true>(a, &b, d);
}
extern "C" __global__ void provenance_correct(const __grid_constant__ CUtensorMap a, const __grid_constant__ CUtensorMap b,
                                              float* d) {
  tile_mma<correct>(&a, &b, d);
}
extern "C" __global__ void provenance_swizzle_none(const __grid_constant__ CUtensorMap a,
                                                   const __grid_constant__ CUtensorMap b, float* d) {
  tile_mma<swizzle_none_in_descriptor>(&a, &b, d);
}
extern "C" __global__ void provenance_a_transposed(const __grid_constant__ CUtensorMap a,
                                                   const __grid_constant__ CUtensorMap b, float* d) {
  tile_mma<a_transposed_in_idesc>(&a, &b, d);
}
extern "C" __global__ void provenance_k_step_not_advanced(const __grid_constant__ CUtensorMap a,
                                                          const __grid_constant__ CUtensorMap b, float* d) {
  tile_mma<k_step_not_advanced>(&a, &b, d);
}
extern "C" __global__ void provenance_k_step_in_bytes_not_encoded(const __grid_constant__ CUtensorMap a,
                                                                  const __grid_constant__ CUtensorMap b, float* d) {
  tile_mma<k_step_in_bytes_not_encoded>(&a, &b, d);
}
extern "C" __global__ void provenance_k_step_doubled(const __grid_constant__ CUtensorMap a,
                                                     const __grid_constant__ CUtensorMap b, float* d) {
  tile_mma<k_step_doubled>(&a, &b, d);
}
extern "C" __global__ void provenance_m_at_bit_23(const __grid_constant__ CUtensorMap a,
                                                  const __grid_constant__ CUtensorMap b, float* d) {
  tile_mma<m_at_bit_23>(&a, &b, d);
}
extern "C" __global__ void provenance_n_too_small(const __grid_constant__ CUtensorMap a,
                                                  const __grid_constant__ CUtensorMap b, float* d) {
  tile_mma<n_too_small>(&a, &b, d);
}
