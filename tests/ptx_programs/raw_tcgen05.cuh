// Steps the raw-PTX test kernels share (seed_kernels.cu, provenance_kernels.cu),
// written as the seed's user writes them: inline PTX, no tcgen library. The
// instructions a test plants a bug in stay in each kernel's own file, so that
// the model reports them at that file's line.
#pragma once

#include <cstdint>

// mbarrier.try_wait.parity until the phase of that parity completes.
__device__ inline void wait_parity(std::uint32_t mbar, std::uint32_t parity) {
  std::uint32_t done = 0;
  while (!done)
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(mbar), "r"(parity));
}

// A 128 × 128 f32 accumulator at tmem into out, row-major: warp w reads lanes 32w … 32w + 31 (its
// quarter), 8 columns per 32x32b load.
__device__ inline void store_accumulator_128x128(std::uint32_t tmem, float* out) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int c = 0; c < 128; c += 8) {
    std::uint32_t r[8];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                 : "r"(tmem + (std::uint32_t(32 * warp) << 16) + c));
    asm volatile("tcgen05.wait::ld.sync.aligned;");
    for (int j = 0; j < 8; ++j) out[(32 * warp + lane) * 128 + c + j] = __uint_as_float(r[j]);
  }
}
