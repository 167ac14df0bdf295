#pragma once
// Which GEMM a kernel instance computes: D = A·Bᵀ (+ C), A M × K, B N × K,
// fp32 accumulation in Tensor Memory. The config is the kernel's template
// argument (kernel.hpp); the problem's sizes and pointers are run-time values
// (problem.hpp).
#include <string>

#include "tcgen/core/element_type.hpp"
#include "tcgen/layout/smem_operand.hpp"

namespace tcgen::gemm {

struct Config {
  ElementType ab = ElementType::bf16;        // A and B: bf16 or fp16 (tcgen05.mma kind::f16)
  layout::Major a_major = layout::Major::K;  // K: A stored M × K, K contiguous; MN: stored K × M
  layout::Major b_major = layout::Major::K;  // K: B stored N × K, K contiguous; MN: stored K × N
  ElementType d = ElementType::f32;          // D and C: f32, bf16 or fp16
  int tile_n = 256;                          // UMMA N of one tile: a multiple of 16 in [16, 256]
                                             // (of 64 for an MN-major B: whole swizzle atoms)
  int stages = 4;                            // shared-memory stages in flight, at least 2
  int cta_group = 1;                         // 1: a CTA per 128 × tile_n tile; 2: a CTA pair (a cluster
                                             // of 2) per 256 × tile_n tile, tcgen05 .cta_group::2
  friend constexpr bool operator==(const Config&, const Config&) = default;
};

// "bf16 x bf16 -> f32, A K-major, B MN-major, tile 128x256, 4 stages" (host only).
std::string describe(const Config& c);

}  // namespace tcgen::gemm
