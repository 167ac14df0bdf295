#pragma once
// The inputs of one sparse decode problem, owned: Q, the caches in MODEL1
// bytes, the index lists, the sinks. random_sparse_decode_inputs() draws the
// built-in example the CLI, the benchmark and the tests run: a random bf16
// latent per token (nope tiles of varied magnitude, so that the 7 scales of a
// token differ) quantised by tcgen's own quantiser, random indices with −1
// among them, random topk_length, an extra cache, sinks.
#include <cstdint>
#include <span>
#include <vector>

#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/sparse_decode/model1_cache.hpp"
#include "tcgen/sparse_decode/problem.hpp"
#include "tcgen/sparse_decode/reference.hpp"

namespace tcgen::sparse_decode {

struct SparseDecodeExample {
  int batch = 2, s_q = 2, heads = 64;
  int topk = 200, block_size = 64, num_blocks = 8;
  int extra_topk = 70, extra_block_size = 64, extra_num_blocks = 2;  // extra_topk 0: no extra cache
  bool lengths = true;  // random topk_length (and extra_topk_length) in [0, topk]
  bool sink = true;     // sinks uniform in [-2, 2)
};

struct SparseDecodeInputs {
  int batch = 1, s_q = 1, heads = 64;
  std::vector<float> q;               // [batch, s_q, heads, 512], bf16 values
  std::vector<std::uint16_t> q_bits;  // the same as bf16 bit patterns
  struct Cache {
    Model1Layout layout;
    std::vector<std::uint8_t> bytes;
    int topk = 0;
    std::vector<std::int32_t> indices, lengths;  // lengths empty: none
  } keys, extra;                                 // extra.topk 0: none
  std::vector<float> sink;                       // empty: none

  // The problem over these arrays (spans into them: keep the inputs alive).
  SparseDecodeProblem problem(attention::SoftmaxScale scale, int splits = 0) const;
};

SparseDecodeInputs random_sparse_decode_inputs(const SparseDecodeExample& example, std::uint64_t seed);

// The fp64 reference of a problem (sparse_decode_reference) over Q's values.
SparseDecodeResult sparse_decode_reference(const SparseDecodeProblem& problem, std::span<const float> q);

}  // namespace tcgen::sparse_decode
