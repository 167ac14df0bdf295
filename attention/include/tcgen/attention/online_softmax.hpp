#pragma once
// The online softmax of one row of S, as the FMHA's softmax thread runs it
// (one thread per row, FA4 / CUTLASS example 77): for each K block the thread
// reads its row of the raw S = Q·Kᵀ (no scale: tcgen05.mma applies none),
// updates the running maximum m (in raw score units) and the running sum l,
// writes P = exp2(log2e_scaled · (s − m)) rounded to the A operand type
// (bf16), and returns the factor by which the O accumulated so far must be
// rescaled: exp2(log2e_scaled · (m_old − m_new)). At the end O/l is the output
// and LSE = ln(l) + scale·m (natural log).
//
// Simplifications of this stage: O is rescaled on every block (FA4 skips the
// rescale while the maximum grows by less than 8 in log2 units); exp2 is the
// C library's, not ex2.approx.
//
// Masked columns (col >= valid, the partial last K block) get P = 0 and do not
// enter the maximum. l sums the P values as rounded to bf16, so l matches the
// P the MMA multiplies by V (FA4 sums the unrounded fp32 values; both are
// within bf16 error of the exact softmax).
#include <cmath>
#include <limits>
#include <span>

#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/host_device.hpp"

namespace tcgen::attention {

struct SoftmaxRow {
  float max = -std::numeric_limits<float>::infinity();  // running maximum of the raw scores (unscaled)
  float sum = 0.0f;                                      // running Σ P, relative to exp2(log2e_scaled · max)

  // One K block: s[0, valid) are raw scores, s[valid, s.size()) are masked.
  // p receives s.size() values of P (masked: 0), rounded to `p_type`.
  // Returns the rescale factor for O (1 on the first block).
  TCGEN_HD float update(std::span<const float> s, int valid, SoftmaxScale scale, std::span<float> p,
               ElementType p_type = ElementType::bf16) {
    float block_max = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < valid; ++j) block_max = std::fmax(block_max, s[j]);
    const float new_max = std::fmax(max, block_max);
    const float k = scale.log2e_scaled();
    // Factor 1 while the maximum stays, and on the first valid block (O is
    // still 0 there; -inf - -inf would be NaN); P is 0 while no score is valid.
    const float factor =
        (max == new_max || max == -std::numeric_limits<float>::infinity()) ? 1.0f : std::exp2(k * (max - new_max));
    const float offset = k * new_max;
    float block_sum = 0.0f;
    for (std::size_t j = 0; j < s.size(); ++j) {
      float v = 0.0f;
      if (static_cast<int>(j) < valid && new_max != -std::numeric_limits<float>::infinity())
        v = round_to(p_type, std::exp2(std::fma(k, s[j], -offset)));
      p[j] = v;
      block_sum += v;
    }
    sum = sum * factor + block_sum;
    max = new_max;
    return factor;
  }

  // 1/l, the final normalisation of O (0 for a row that saw no valid score).
  TCGEN_HD float inverse_sum() const { return sum > 0.0f ? 1.0f / sum : 0.0f; }
  // ln Σ exp(scale · s) over the row (-inf for a row with no valid score).
  TCGEN_HD float lse(SoftmaxScale scale) const {
    if (!(sum > 0.0f)) return -std::numeric_limits<float>::infinity();
    return std::log(sum) + scale.value() * max;
  }
};

}  // namespace tcgen::attention
