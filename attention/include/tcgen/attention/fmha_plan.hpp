#pragma once
// The FMHA forward kernel's Tensor Memory plan, checked at compile time by
// tmem::Plan (docs/tmem.md). One Q tile of 128 rows in flight (the first
// stage of issue 9; FA4 and CUTLASS example 77 keep two, S0/S1 and O0/O1):
//
//   columns  0 .. 127           S   = Q·Kᵀ, 128 x kBlockN f32 (Layout D, M = 128)
//   columns  0 ..   1 (alias)   vec = row max and row sum, written by the
//                                     softmax for the correction warps (FA4's
//                                     tmem_vec_offset = tmem_s_offset)
//   columns 64 .. 127 (alias)   P   = softmax(S) as bf16, 128 x kBlockN packed
//                                     two per column: the A operand of the
//                                     TS-MMA O += P·V (FA4: tmem_p_offset =
//                                     S + n_block_size / 2)
//   columns 128 .. 128+D-1      O   = Σ P·V, 128 x head_dim f32
//
// P lies in the upper half of S, so a softmax thread that reads its row's S
// columns [0, 128) by 32x32b atoms before writing any P column has read every
// S value before P overwrites it; vec in columns 0, 1 is written after S has
// been read. The plan rejects, at compile time, an alias that does not fit S
// or a layout that needs more than 512 columns (head_dim 256 with two tiles).
#include "tcgen/core/element_type.hpp"
#include "tcgen/tmem/plan.hpp"

namespace tcgen::attention {

inline constexpr int kFmhaBlockM = 128;  // Q rows per tile: one tcgen05.mma M = 128, one row per TMEM lane
inline constexpr int kFmhaBlockN = 128;  // K/V rows per step: S is 128 x 128

template <int HeadDim>
struct FmhaPlan {
  static_assert(HeadDim == 64 || HeadDim == 128, "this stage of the FMHA supports head_dim 64 and 128");
  using Tmem = tmem::Plan<tmem::accumulator("S", {kFmhaBlockM, kFmhaBlockN}),
                          tmem::accumulator("O", {kFmhaBlockM, HeadDim}),
                          tmem::operand("P", kFmhaBlockM, kFmhaBlockN, ElementType::bf16).alias_of("S", kFmhaBlockN / 2),
                          tmem::scratch("vec", kFmhaBlockM, 2).alias_of("S", 0)>;
};

}  // namespace tcgen::attention
