#pragma once
// DeepSeek-V4's sparse decode attention, FlashMLA's semantics
// (flash_mla_with_kvcache with `indices`; its tests/ref.py,
// ref_sparse_attn_decode), in fp64 on the host: the reference the sparse
// decode kernel is held to.
//
// For query row (b, s) and head h, the keys are the cache tokens its indices
// name: indices[b, s, j] for j < topk_length[b] (all topk without lengths),
// −1 meaning none, and as many again from an extra cache (V4's sliding
// window beside the compressed top-k) in the same softmax. K = V = the
// dequantised 512-wide latent (model1_cache.hpp). With logits
// x_j = scale · q·k_j over those keys,
//   LSE = ln Σ_j exp(x_j),  O = Σ_j exp(x_j − LSE) · v_j,
// then a sink scales O by 1 / (1 + exp(sink[h] − LSE)) and leaves LSE as it
// is. A row with no key has O = 0 and LSE = +inf (FlashMLA's convention).
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "tcgen/sparse_decode/model1_cache.hpp"
#include "tcgen/sparse_decode/problem.hpp"

namespace tcgen::sparse_decode {

struct SparseDecodeShape {
  int batch = 1, s_q = 1, heads = 64;
};

struct SparseDecodeResult {
  std::vector<double> o;    // [batch, s_q, heads, 512]
  std::vector<double> lse;  // [batch, s_q, heads], natural log; +inf for a row with no key
};

// q: [batch, s_q, heads, 512]; sink: [heads] or empty. Throws tcgen::Error
// naming the field: "q" or "sink" of the wrong size, "indices" of the wrong
// size or naming a token outside its cache, "lengths" of the wrong size or
// outside [0, topk], "topk" below 1.
SparseDecodeResult sparse_decode_reference(const SparseDecodeShape& shape, std::span<const float> q,
                                           const SparseKeys& keys, const std::optional<SparseKeys>& extra,
                                           std::span<const float> sink, double scale);

}  // namespace tcgen::sparse_decode
