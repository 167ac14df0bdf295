#include "tcgen/fmha/inputs.hpp"

#include <random>

#include "tcgen/core/element_type.hpp"

namespace tcgen::fmha {

FmhaInputs random_fmha_inputs(const CheckedFmhaProblem& checked, std::uint64_t seed, bool rising) {
  const FmhaProblem& p = checked;
  std::mt19937_64 g(seed);
  const auto fill = [&](std::vector<float>& x, std::vector<std::uint16_t>& bits, std::size_t n, float bound,
                        int seq, bool gain) {
    std::uniform_real_distribution<float> u(-bound, bound);
    x.resize(n);
    bits.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t row = i / static_cast<std::size_t>(p.head_dim) % static_cast<std::size_t>(seq);
      const float value = u(g) * (gain ? 1.0f + static_cast<float>(row) / 128 : 1.0f);
      bits[i] = static_cast<std::uint16_t>(encode(p.dtype, value));
      x[i] = decode(p.dtype, bits[i]);
    }
  };
  FmhaInputs in;
  fill(in.q, in.qb, p.q_elements(), 2.0f, p.seq_q, false);
  fill(in.k, in.kb, p.kv_elements(), 2.0f, p.seq_k, rising);
  fill(in.v, in.vb, p.kv_elements(), 1.0f, p.seq_k, false);
  return in;
}

}  // namespace tcgen::fmha
