#pragma once
// The online softmax of one row of S, as the FMHA's softmax thread runs it
// (one thread per row, FA4 / CUTLASS example 77). Per K block the thread
//   1. finds the block's maximum raw score over the keys its mask lets
//      through (tcgen05.mma applies no scale, so S is raw Q·Kᵀ) and calls
//      rescale_to(), which may raise the running maximum m and returns the
//      factor by which O and l accumulated so far must be multiplied;
//   2. computes P = exp2(log2e_scaled · s − log2e_scaled · m) per visible key
//      (probability(); masked keys: 0), adds it to l (add()) and rounds it to
//      the P operand type for the TS-MMA.
// At the end O/l is the output and LSE = ln(l) + scale·m (natural log).
//
// Conditional rescale (FA4, flash_fwd_sm100: rescale_threshold 8.0): m is
// only raised when the block's maximum exceeds it by more than 8 in log2
// units. Otherwise m stays stale, P ≤ 2^8 (well within bf16, fp16 and f32
// range), the factor is 1 and the correction warps skip O's TMEM round trip.
// The result is the same softmax: every P and l share the one stale m.
//
// l sums the f32 values of P, before rounding (as FA4 does): LSE is then
// accurate to f32, also for rows that see few keys, where the rounding of
// P to bf16 (2^-9) would move ln l by up to ~2e-3. O = Σ round(P)·V / l stays
// within the P type's error of the exact softmax.
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/host_device.hpp"

namespace tcgen::attention {

inline constexpr float kRescaleThresholdLog2 = 8.0f;

// 2^x as the softmax computes P: on the GPU the hardware's approximation,
// one MUFU.EX2 (PTX #floating-point-instructions-ex2: ex2.approx.ftz.f32, as
// FA4 uses), not the libm sequence, which costs registers in the unrolled row
// loop; on the host the C library's. Its error is far below P's rounding to
// bf16 or fp16 for the TS-MMA.
TCGEN_HD inline float exp2_approx(float x) {
#if defined(__CUDA_ARCH__)
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
#else
  return std::exp2(x);
#endif
}

struct SoftmaxRow {
  float max = -std::numeric_limits<float>::infinity();  // running maximum of the raw scores (unscaled)
  float sum = 0.0f;                                      // running Σ P, relative to exp2(log2e_scaled · max)

  // Step 1 of a block whose visible scores have maximum `block_max` (-inf:
  // none visible). Returns O's rescale factor (1: O stays as it is).
  TCGEN_HD float rescale_to(float block_max, SoftmaxScale scale) {
    constexpr float kNone = -std::numeric_limits<float>::infinity();
    if (max == kNone) {  // the first visible score: O and l are still 0, nothing to rescale
      max = block_max;
      return 1.0f;
    }
    const float k = scale.log2e_scaled();
    if (block_max == kNone || k * (block_max - max) <= kRescaleThresholdLog2) return 1.0f;
    const float factor = std::exp2(k * (max - block_max));
    max = block_max;
    sum *= factor;
    return factor;
  }

  // Step 2: P of one visible raw score, in f32 (the caller adds it to l
  // with add() and rounds it to the P type for the MMA).
  TCGEN_HD float probability(float s, SoftmaxScale scale) const {
    const float k = scale.log2e_scaled();
    return exp2_approx(std::fma(k, s, -k * max));
  }
  TCGEN_HD void add(float p) { sum += p; }

  // Both steps for a block held in memory: s[0, valid) are raw scores, the
  // rest (or any -inf) masked. p receives s.size() values of P (masked: 0),
  // rounded to `p_type`. Returns the rescale factor for O.
  TCGEN_HD float update(std::span<const float> s, int valid, SoftmaxScale scale, std::span<float> p,
                        ElementType p_type = ElementType::bf16) {
    float block_max = -std::numeric_limits<float>::infinity();
    for (int j = 0; j < valid; ++j) block_max = std::fmax(block_max, s[j]);
    const float factor = rescale_to(block_max, scale);
    for (std::size_t j = 0; j < s.size(); ++j) {
      const bool visible = static_cast<int>(j) < valid && s[j] != -std::numeric_limits<float>::infinity();
      const float unrounded = visible ? probability(s[j], scale) : 0.0f;
      add(unrounded);
      p[j] = round_to(p_type, unrounded);
    }
    return factor;
  }

  // 1/l, the final normalisation of O (0 for a row that saw no visible key).
  TCGEN_HD float inverse_sum() const { return sum > 0.0f ? 1.0f / sum : 0.0f; }
  // ln Σ exp(scale · s) over the row (-inf for a row that saw no visible key).
  TCGEN_HD float lse(SoftmaxScale scale) const {
    if (!(sum > 0.0f)) return -std::numeric_limits<float>::infinity();
    return std::log(sum) + scale.value() * max;
  }
};

}  // namespace tcgen::attention
