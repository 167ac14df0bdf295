// Block-scaled GEMM tiles written the way an NVFP4 / MXFP8 kernel author
// writes them: raw CUDA with inline tcgen05 PTX and no tcgen library. One
// CTA of 128 threads computes D (128 × 128, f32) = Σ_k (A·scale_A)(B·scale_B)ᵀ:
//   - A and B arrive row-major (K contiguous), FP4 packed two to a byte
//     (low nibble first) or FP8 one to a byte; the threads copy them into the
//     canonical K-major layout without swizzle (16-byte chunk c of row r at
//     c·LBO + (r/8)·SBO + (r%8)·16, LBO = 128 rows · 16 B, SBO = 128 B);
//   - the scale factors arrive in the layout cuBLAS and CUTLASS use (512-byte
//     blocks of 128 rows × 4 K-blocks) and go to Tensor Memory with
//     tcgen05.cp.32x128b.warpx4, which copies each block to all four 32-lane
//     partitions, as the PTX requires;
//   - one elected thread issues the MMAs, the commit and the copies; every
//     warp reads its 32 lanes of D with 32x32b loads.
// NVFP4: kind::mxf4nvf4, .scale_vec::4X, UE4M3 factors per 16 elements, two
// MMAs of K = 64. MXFP8: kind::mxf8f6f4 e4m3, .block32 (1X), UE8M0 factors
// per 32 elements, four MMAs of K = 32 whose scale IDs step through the
// bytes of one word. A third kernel carries a planted bug: the NVFP4 tile
// with its factors copied by tcgen05.cp.128x128b, which fills lanes 32-127
// with the bytes after each block instead of copies of it.
#include <cstdint>

namespace {

constexpr int kM = 128, kN = 128, kK = 128;
constexpr std::uint32_t kA = 0, kB = 16384, kSfa = 32768, kSfb = 33792, kMbar = 34816, kSlot = 34824;  // shared
constexpr std::uint32_t kLbo = 128 * 16, kSbo = 128;
constexpr std::uint32_t kSfaColumn = 128, kSfbColumn = 136;  // TMEM: D in columns 0-127, then the factors

enum Format { nvfp4, mxfp8 };
enum Copy { warpx4, plain_128x128b };

__device__ std::uint32_t smem_u32(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }

__device__ std::uint64_t make_desc(std::uint32_t addr, std::uint32_t lbo, std::uint32_t sbo) {
  return ((addr & 0x3FFFF) >> 4) | (std::uint64_t((lbo >> 4) & 0x3FFF) << 16) |
         (std::uint64_t((sbo >> 4) & 0x3FFF) << 32) | (1ull << 46);
}

// PTX Tables 43/44: B scale ID at 4, atype 7, btype 10, N >> 3 at 17, scale
// type at 23 (UE8M0 = 1, UE4M3 = 0), M >> 7 at 27, A scale ID at 29.
__device__ std::uint32_t make_idesc(Format f, std::uint32_t sf_id) {
  const std::uint32_t type = f == nvfp4 ? 1u : 0u;  // E2M1 = 1 (Table 44), E4M3 = 0 (Table 43)
  return sf_id << 4 | type << 7 | type << 10 | (kN >> 3) << 17 | (f == mxfp8 ? 1u : 0u) << 23 | (kM >> 7) << 27 |
         sf_id << 29;
}

__device__ bool elect_one() {
  std::uint32_t pred = 0;
  asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(pred));
  return pred != 0;
}

template <Format F, Copy C = warpx4>
__device__ void tile(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* sfa, const std::uint8_t* sfb,
                     float* d) {
  extern __shared__ __align__(1024) std::uint8_t smem[];
  constexpr int row_bytes = F == nvfp4 ? kK / 2 : kK;  // bytes of one row of A or B
  constexpr int sf_blocks = F == nvfp4 ? 2 : 1;        // K-blocks of 16 (NVFP4) or 32 (MXFP8), 4 per 512 B
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
  const std::uint32_t base = smem_u32(smem);

  if (warp == 0) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 256;" ::"r"(base + kSlot));
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;");
  }
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(base + kMbar));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  for (int i = tid; i < kM * row_bytes / 16; i += 128) {  // one 16-byte chunk per step
    const int r = i / (row_bytes / 16), c = i % (row_bytes / 16);
    const std::uint32_t off = c * kLbo + (r / 8) * kSbo + (r % 8) * 16;
    *reinterpret_cast<uint4*>(smem + kA + off) = *reinterpret_cast<const uint4*>(a + r * row_bytes + 16 * c);
    *reinterpret_cast<uint4*>(smem + kB + off) = *reinterpret_cast<const uint4*>(b + r * row_bytes + 16 * c);
  }
  for (int i = tid; i < 512 * sf_blocks / 16; i += 128) {
    *reinterpret_cast<uint4*>(smem + kSfa + 16 * i) = *reinterpret_cast<const uint4*>(sfa + 16 * i);
    *reinterpret_cast<uint4*>(smem + kSfb + 16 * i) = *reinterpret_cast<const uint4*>(sfb + 16 * i);
  }
  asm volatile("fence.proxy.async.shared::cta;");
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;");
  const std::uint32_t tmem = *reinterpret_cast<volatile std::uint32_t*>(smem + kSlot);

  if (warp == 0 && elect_one()) {
    // Each 512-byte block: 32 rows of 16 bytes, to lanes r + 32q, 4 columns.
    for (int blk = 0; blk < sf_blocks; ++blk) {
      if constexpr (C == warpx4) {
        asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(tmem + kSfaColumn + 4 * blk),
                     "l"(make_desc(base + kSfa + 512 * blk, 0, 128)));
        asm volatile("tcgen05.cp.cta_group::1.32x128b.warpx4 [%0], %1;" ::"r"(tmem + kSfbColumn + 4 * blk),
                     "l"(make_desc(base + kSfb + 512 * blk, 0, 128)));
      } else {
        asm volatile("tcgen05.cp.cta_group::1.128x128b [%0], %1;" ::"r"(tmem + kSfaColumn + 4 * blk),
                     "l"(make_desc(base + kSfa + 512 * blk, 0, 128)));
        asm volatile("tcgen05.cp.cta_group::1.128x128b [%0], %1;" ::"r"(tmem + kSfbColumn + 4 * blk),
                     "l"(make_desc(base + kSfb + 512 * blk, 0, 128)));
      }
    }
    if constexpr (F == nvfp4) {
      for (int step = 0; step < 2; ++step) {  // K = 64 per MMA: two chunks of 32 values
        const std::uint64_t ad = make_desc(base + kA + step * 2 * kLbo, kLbo, kSbo);
        const std::uint64_t bd = make_desc(base + kB + step * 2 * kLbo, kLbo, kSbo);
        asm volatile(
            "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
            "tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X [%0], %1, %2, %3, [%4], [%5], p;\n\t}"
            ::"r"(tmem), "l"(ad), "l"(bd), "r"(make_idesc(F, 0)), "r"(tmem + kSfaColumn + 4 * step),
            "r"(tmem + kSfbColumn + 4 * step), "r"(step));
      }
    } else {
      for (int step = 0; step < 4; ++step) {  // K = 32 per MMA: two chunks of 16 values; scale ID = step
        const std::uint64_t ad = make_desc(base + kA + step * 2 * kLbo, kLbo, kSbo);
        const std::uint64_t bd = make_desc(base + kB + step * 2 * kLbo, kLbo, kSbo);
        asm volatile(
            "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t"
            "tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.block32 [%0], %1, %2, %3, [%4], [%5], p;\n\t}"
            ::"r"(tmem), "l"(ad), "l"(bd), "r"(make_idesc(F, step)), "r"(tmem + kSfaColumn),
            "r"(tmem + kSfbColumn), "r"(step));
      }
    }
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(base + kMbar));
  }
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\t"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t"
      "@!done bra WAIT;\n\t}" ::"r"(base + kMbar));
  asm volatile("tcgen05.fence::after_thread_sync;");
  for (int c = 0; c < kN; c += 8) {
    std::uint32_t r[8];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                 : "r"(tmem + (std::uint32_t(32 * warp) << 16) + c));
    asm volatile("tcgen05.wait::ld.sync.aligned;");
    for (int j = 0; j < 8; ++j) d[(32 * warp + lane) * kN + c + j] = __uint_as_float(r[j]);
  }
  asm volatile("tcgen05.fence::before_thread_sync;");
  __syncthreads();
  if (warp == 0) asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, 256;" ::"r"(tmem));
}

}  // namespace

extern "C" __global__ void nvfp4_tile(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* sfa,
                                      const std::uint8_t* sfb, float* d) {
  tile<nvfp4>(a, b, sfa, sfb, d);
}
extern "C" __global__ void mxfp8_tile(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* sfa,
                                      const std::uint8_t* sfb, float* d) {
  tile<mxfp8>(a, b, sfa, sfb, d);
}
extern "C" __global__ void nvfp4_tile_sf_not_duplicated(const std::uint8_t* a, const std::uint8_t* b,
                                                        const std::uint8_t* sfa, const std::uint8_t* sfb, float* d) {
  tile<nvfp4, plain_128x128b>(a, b, sfa, sfb, d);
}
