#include "tcgen/attention/softmax_scale.hpp"

#include <cmath>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::attention {

SoftmaxScale SoftmaxScale::for_head_dim(int head_dim) {
  if (head_dim <= 0) fail("head_dim", head_dim, "expected a positive head dimension");
  return SoftmaxScale(static_cast<float>(1.0 / std::sqrt(static_cast<double>(head_dim))));
}

SoftmaxScale SoftmaxScale::explicit_value(float scale) {
  if (!std::isfinite(scale) || scale <= 0.0f)
    fail("scale", std::to_string(scale), "expected a finite positive softmax scale");
  return SoftmaxScale(scale);
}

}  // namespace tcgen::attention
