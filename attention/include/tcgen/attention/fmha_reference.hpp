#pragma once
// Attention for one (batch, head), two ways, both on the host:
//
// - fmha_reference: fp64, the plain formula O = softmax(scale · Q·Kᵀ) · V and
//   LSE = ln Σ_j exp(scale · q·k_j), the reference every FMHA test compares to.
// - fmha_blocked: the FMHA kernel's algorithm in plain C++, block by block as
//   the kernel's warps run it: S = Q·Kᵀ in f32 per 128 x 128 block, the online
//   softmax of SoftmaxRow (one row per thread), P rounded to bf16, O += P·V in
//   f32 after O is rescaled, O/l and LSE at the end. It fixes the arithmetic
//   the tcgen05 kernel must reproduce, apart from the order of the f32 sums.
//
// Q is seq_q x head_dim, K and V are seq_k x head_dim, row-major, values as
// float (bf16 inputs are exactly representable). O is seq_q x head_dim and
// LSE has seq_q entries (natural log). Non-causal, no mask beyond seq_k.
#include <span>
#include <vector>

#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/element_type.hpp"

namespace tcgen::attention {

struct FmhaShape {
  int seq_q = 0, seq_k = 0, head_dim = 0;
};

template <class T>
struct FmhaResult {
  std::vector<T> o;    // seq_q x head_dim
  std::vector<T> lse;  // seq_q
};

// Throws tcgen::Error naming "seq_q", "seq_k", "head_dim", "q", "k" or "v" on bad sizes.
FmhaResult<double> fmha_reference(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                                  FmhaShape shape, SoftmaxScale scale);

// block_n: K/V rows per step (the kernel's kFmhaBlockN, 128); p_type: what P
// is rounded to before P·V (bf16 as in the kernel; f32 checks the algorithm alone).
FmhaResult<float> fmha_blocked(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                               FmhaShape shape, SoftmaxScale scale, int block_n = 128,
                               ElementType p_type = ElementType::bf16);

}  // namespace tcgen::attention
