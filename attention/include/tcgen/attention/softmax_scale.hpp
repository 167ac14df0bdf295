#pragma once
// The softmax scale of attention, always explicit. tcgen05.mma returns the raw
// Q·Kᵀ and applies no scale (PTX #tcgen05-mma: only scale-input-d, which
// scales the old D), so the scale belongs to the softmax, named and printed.
// The user's "MMA is exactly 4× the reference" at head_dim 16 was this scale,
// 1/sqrt(16), applied on one side only (../shared/seed/README.md).
#include "tcgen/core/host_device.hpp"

namespace tcgen::attention {

class SoftmaxScale {
 public:
  // The usual default, 1/sqrt(head_dim).
  static SoftmaxScale for_head_dim(int head_dim);
  static SoftmaxScale explicit_value(float scale);

  constexpr TCGEN_HD float value() const { return scale_; }
  // exp(scale·x) == exp2(log2e_scaled·x): the kernel folds log2(e) into the
  // scale once and uses exp2 (ex2.approx) per element.
  constexpr TCGEN_HD float log2e_scaled() const { return scale_ * 1.4426950408889634f; }

 private:
  constexpr explicit SoftmaxScale(float s) : scale_(s) {}
  float scale_;
};

}  // namespace tcgen::attention
