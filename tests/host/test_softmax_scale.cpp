#include <doctest/doctest.h>

#include <cmath>

#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/error.hpp"

using tcgen::attention::SoftmaxScale;

TEST_CASE("the default scale is 1/sqrt(head_dim): the user's 4x at head_dim 16, 8x at 64") {
  CHECK(SoftmaxScale::for_head_dim(16).value() == 0.25f);
  CHECK(SoftmaxScale::for_head_dim(64).value() == 0.125f);
  CHECK(SoftmaxScale::for_head_dim(128).value() == doctest::Approx(1.0 / std::sqrt(128.0)).epsilon(1e-7));
}

TEST_CASE("exp2 with log2(e) folded in equals exp of the scaled score") {
  const SoftmaxScale s = SoftmaxScale::for_head_dim(128);
  for (double x : {-30.0, -1.5, 0.0, 0.75, 12.0})
    CHECK(std::exp2(s.log2e_scaled() * x) == doctest::Approx(std::exp(s.value() * x)).epsilon(1e-6));
}

TEST_CASE("a bad scale or head_dim is an error naming it") {
  CHECK_THROWS_WITH_AS(SoftmaxScale::for_head_dim(0), doctest::Contains("head_dim"), tcgen::Error);
  CHECK_THROWS_WITH_AS(SoftmaxScale::explicit_value(-1.0f), doctest::Contains("scale"), tcgen::Error);
  CHECK_THROWS_AS(SoftmaxScale::explicit_value(NAN), tcgen::Error);
}
