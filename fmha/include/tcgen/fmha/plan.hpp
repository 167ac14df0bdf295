#pragma once
// The FMHA forward kernel's Tensor Memory plan, checked at compile time by
// tmem::Plan (docs/tmem.md). Two Q tiles of 128 rows are in flight for
// head_dim 64 and 128, as in FA4 and CUTLASS example 77 (S0/S1, O0/O1; here
// copies 0 and 1 of the regions S, O and P):
//
//   columns   0 .. 127     S0 = Q0·Kᵀ, 128 x kBlockN f32 (Layout D, M = 128)
//   columns  64 .. 127     P0 (alias in S0) = softmax(S0) as bf16/fp16, packed
//                          two per column: the A operand of the TS-MMA
//                          O0 += P0·V (FA4: tmem_p_offset = S + n_block_size/2)
//   columns 128 .. 255     S1, P1 likewise for the second Q tile
//   columns 256 .. 255+D   O0 = Σ P0·V, 128 x head_dim f32;  O1 after it
//
// head_dim 256 keeps one tile in flight: S, O0 = 128 + 256 columns, since
// two would need 768 of the 512 (the plan refuses that at compile time).
//
// P lies in the upper half of S. The softmax thread reads its row's S by
// 32-column chunks from the last to the first and writes each chunk's 32 P
// values (16 columns) at 64 + 16·c: chunk c's P lands on S columns
// [64 + 16c, 80 + 16c), all ≥ 32c, which it has already read (c ≤ 3).
#include "tcgen/core/element_type.hpp"
#include "tcgen/tmem/plan.hpp"

namespace tcgen::fmha {

inline constexpr int kFmhaBlockM = 128;  // Q rows per tile: one tcgen05.mma M = 128, one row per TMEM lane
inline constexpr int kFmhaBlockN = 128;  // K/V rows per step: S is 128 x 128

// Q tiles one CTA keeps in flight: two where S and O of both fit in 512 columns.
constexpr int fmha_q_tiles(int head_dim) { return 2 * (kFmhaBlockN + head_dim) <= 512 ? 2 : 1; }

// Tile t's S, O and P are copy t of counted regions (tmem::Region::count).
template <int HeadDim, ElementType P, int QTiles = fmha_q_tiles(HeadDim)>
struct FmhaPlan {
  using Tmem = tmem::Plan<tmem::accumulator("S", {kFmhaBlockM, kFmhaBlockN}).count(QTiles),
                          tmem::accumulator("O", {kFmhaBlockM, HeadDim}).count(QTiles),
                          tmem::operand("P", kFmhaBlockM, kFmhaBlockN, P).count(QTiles).alias_of("S", kFmhaBlockN / 2)>;
  static constexpr TCGEN_HD auto s(tmem::TmemAddress base, int t) { return Tmem::template tile<"S">(base, t); }
  static constexpr TCGEN_HD auto o(tmem::TmemAddress base, int t) { return Tmem::template tile<"O">(base, t); }
  static constexpr TCGEN_HD auto p(tmem::TmemAddress base, int t) { return Tmem::template tile<"P">(base, t); }
};

}  // namespace tcgen::fmha
