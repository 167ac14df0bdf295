#pragma once
// Attention for a whole FmhaProblem (every batch and head, GQA, the mask), two
// ways, both on the host:
//
// - fmha_reference: fp64, the plain formula O = softmax(scale · Q·Kᵀ) · V and
//   LSE = ln Σ_j exp(scale · q·k_j) over the keys the mask lets through, the
//   reference every FMHA test compares to. Its mask is written from the
//   convention in problem.hpp, apart from FmhaMask::keys(), so that the
//   two check each other.
// - fmha_blocked: the FMHA kernel's algorithm in plain C++, block by block as
//   the kernel's warps run it: S = Q·Kᵀ in f32 per 128 x 128 block, the online
//   softmax of SoftmaxRow (one row per thread), P rounded to p_type, O += P·V in
//   f32 after O is rescaled, O/l and LSE at the end. It fixes the arithmetic
//   the tcgen05 kernel must reproduce, apart from the order of the f32 sums.
//
// Arrays as in problem.hpp, values as float (bf16 and fp16 inputs are
// exactly representable): Q [batch, heads, seq_q, head_dim], K and V
// [batch, heads_kv, seq_k, head_dim]. A row that sees no key has O = 0 and
// LSE = -inf.
#include <span>
#include <vector>

#include "tcgen/core/element_type.hpp"
#include "tcgen/fmha/problem.hpp"

namespace tcgen::fmha {

template <class T>
struct FmhaResult {
  std::vector<T> o;    // [batch, heads, seq_q, head_dim]
  std::vector<T> lse;  // [batch, heads, seq_q], natural log
};

// Throws tcgen::Error from validating a plain FmhaProblem, or naming "q", "k" or "v" when an
// array's size is not p.q_elements() / p.kv_elements().
FmhaResult<double> fmha_reference(const CheckedFmhaProblem& p, std::span<const float> q, std::span<const float> k,
                                  std::span<const float> v);

// block_n: K/V rows per step (the kernel's kFmhaBlockN, 128); p_type: what P
// is rounded to before P·V (bf16 as in the kernel; f32 checks the algorithm alone).
FmhaResult<float> fmha_blocked(const CheckedFmhaProblem& p, std::span<const float> q, std::span<const float> k,
                               std::span<const float> v, int block_n = 128, ElementType p_type = ElementType::bf16);

}  // namespace tcgen::fmha
