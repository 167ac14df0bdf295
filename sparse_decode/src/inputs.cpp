#include "tcgen/sparse_decode/inputs.hpp"

#include <cmath>
#include <random>

#include "tcgen/core/element_type.hpp"

namespace tcgen::sparse_decode {

namespace {

SparseKeys keys_of(const SparseDecodeInputs::Cache& c) { return {c.layout, c.bytes, c.topk, c.indices, c.lengths}; }

SparseDecodeInputs::Cache random_cache(int batch, int s_q, int topk, int block_size, int num_blocks, bool lengths,
                                       std::mt19937_64& rng) {
  constexpr int D = Model1Layout::kDim;
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> octave(-3, 3);
  SparseDecodeInputs::Cache c;
  c.layout = Model1Layout{block_size};
  const int tokens = block_size * num_blocks;
  std::vector<float> latent(static_cast<std::size_t>(tokens) * D);
  for (int t = 0; t < tokens; ++t) {
    for (int g = 0; g < Model1Layout::kTiles; ++g) {
      const float magnitude = std::ldexp(1.0f, octave(rng));
      for (int i = 0; i < Model1Layout::kTile; ++i)
        latent[static_cast<std::size_t>(t) * D + g * Model1Layout::kTile + i] = magnitude * unit(rng);
    }
    for (int i = Model1Layout::kNope; i < D; ++i)
      latent[static_cast<std::size_t>(t) * D + i] = decode(ElementType::bf16, encode(ElementType::bf16, unit(rng)));
  }
  c.bytes = quantize_model1(c.layout, latent);
  c.topk = topk;
  std::uniform_int_distribution<int> token(0, tokens - 1), none(0, 7);
  c.indices.resize(static_cast<std::size_t>(batch) * s_q * topk);
  for (std::int32_t& i : c.indices) i = none(rng) == 0 ? -1 : token(rng);
  if (lengths) {
    std::uniform_int_distribution<int> length(0, topk);
    c.lengths.resize(static_cast<std::size_t>(batch));
    for (std::int32_t& n : c.lengths) n = length(rng);
  }
  return c;
}

}  // namespace

SparseDecodeProblem SparseDecodeInputs::problem(attention::SoftmaxScale scale, int splits) const {
  SparseDecodeProblem p;
  p.batch = batch;
  p.s_q = s_q;
  p.heads = heads;
  p.keys = keys_of(keys);
  if (extra.topk > 0) p.extra = keys_of(extra);
  p.sink = sink;
  p.scale = scale;
  p.splits = splits;
  return p;
}

SparseDecodeInputs random_sparse_decode_inputs(const SparseDecodeExample& e, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f), sink(-2.0f, 2.0f);
  SparseDecodeInputs in;
  in.batch = e.batch;
  in.s_q = e.s_q;
  in.heads = e.heads;
  const std::size_t n = static_cast<std::size_t>(e.batch) * e.s_q * e.heads * Model1Layout::kDim;
  in.q.resize(n);
  in.q_bits.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    in.q_bits[i] = static_cast<std::uint16_t>(encode(ElementType::bf16, unit(rng)));
    in.q[i] = decode(ElementType::bf16, in.q_bits[i]);
  }
  in.keys = random_cache(e.batch, e.s_q, e.topk, e.block_size, e.num_blocks, e.lengths, rng);
  if (e.extra_topk > 0)
    in.extra = random_cache(e.batch, e.s_q, e.extra_topk, e.extra_block_size, e.extra_num_blocks, e.lengths, rng);
  if (e.sink) {
    in.sink.resize(static_cast<std::size_t>(e.heads));
    for (float& s : in.sink) s = sink(rng);
  }
  return in;
}

SparseDecodeResult sparse_decode_reference(const SparseDecodeProblem& p, std::span<const float> q) {
  return sparse_decode_reference({p.batch, p.s_q, p.heads}, q, p.keys, p.extra, p.sink, p.scale.value());
}

}  // namespace tcgen::sparse_decode
