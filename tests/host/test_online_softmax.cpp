#include <doctest/doctest.h>

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "tcgen/attention/online_softmax.hpp"
#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/element_type.hpp"

using namespace tcgen;
using namespace tcgen::attention;

TEST_CASE("SoftmaxRow over one block is the softmax with the scale folded into exp2") {
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(64);
  const std::vector<float> s = {3.0f, -1.0f, 7.5f, 0.25f, 12.0f, -20.0f};
  std::vector<float> p(s.size());
  SoftmaxRow row;
  CHECK(row.update(s, int(s.size()), scale, p, ElementType::f32) == 1.0f);
  double mx = 12.0, l = 0;
  for (float x : s) l += std::exp(scale.value() * (x - mx));
  for (std::size_t j = 0; j < s.size(); ++j)
    CHECK(p[j] == doctest::Approx(std::exp(scale.value() * (s[j] - mx))).epsilon(1e-6));
  CHECK(row.sum == doctest::Approx(l).epsilon(1e-6));
  CHECK(row.lse(scale) == doctest::Approx(scale.value() * mx + std::log(l)).epsilon(1e-6));
}

TEST_CASE("SoftmaxRow over two blocks rescales when the maximum grows by more than 8 in log2 units") {
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(128);
  const float k = scale.log2e_scaled();
  const std::vector<float> a = {1.0f, 2.0f, -3.0f, 0.5f};
  const std::vector<float> b = {80.0f, 4.0f, 1e30f, -1e30f};  // last two masked (valid = 2)
  REQUIRE(k * (80.0f - 2.0f) > kRescaleThresholdLog2);
  std::vector<float> pa(4), pb(4);
  SoftmaxRow row;
  CHECK(row.update(a, 4, scale, pa, ElementType::f32) == 1.0f);
  const float factor = row.update(b, 2, scale, pb, ElementType::f32);
  CHECK(factor == doctest::Approx(std::exp(scale.value() * (2.0 - 80.0))).epsilon(1e-6));
  CHECK(row.max == 80.0f);
  CHECK(pb[2] == 0.0f);
  CHECK(pb[3] == 0.0f);
  double l = 0;
  for (float x : {1.0f, 2.0f, -3.0f, 0.5f, 80.0f, 4.0f}) l += std::exp(scale.value() * (x - 80.0));
  CHECK(row.sum == doctest::Approx(l).epsilon(1e-6));
  // The blocked sum equals the one-block sum: a's P, times the factor, are relative to the new maximum.
  CHECK(pa[1] * factor == doctest::Approx(std::exp(scale.value() * (2.0 - 80.0))).epsilon(1e-6));
}

TEST_CASE("SoftmaxRow keeps a stale maximum for growth up to 8 in log2 units: factor 1, the same softmax") {
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(128);
  const std::vector<float> a = {1.0f, 2.0f}, b = {9.0f, 4.0f};
  REQUIRE(scale.log2e_scaled() * (9.0f - 2.0f) <= kRescaleThresholdLog2);
  std::vector<float> p(2);
  SoftmaxRow row;
  row.update(a, 2, scale, p, ElementType::f32);
  CHECK(row.update(b, 2, scale, p, ElementType::f32) == 1.0f);
  CHECK(row.max == 2.0f);
  CHECK(p[0] == doctest::Approx(std::exp(scale.value() * (9.0 - 2.0))).epsilon(1e-6));  // P above 1
  double l = 0;
  for (float x : {1.0f, 2.0f, 9.0f, 4.0f}) l += std::exp(scale.value() * x);
  CHECK(row.lse(scale) == doctest::Approx(std::log(l)).epsilon(1e-6));
}

TEST_CASE("SoftmaxRow: -inf scores (fmha_blocked's mask) get P = 0 and stay out of the maximum") {
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(64);
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> s = {-inf, 3.0f, -inf, 1.0f};
  std::vector<float> p(4);
  SoftmaxRow row;
  CHECK(row.update(s, 4, scale, p, ElementType::f32) == 1.0f);
  CHECK(row.max == 3.0f);
  CHECK(p[0] == 0.0f);
  CHECK(p[2] == 0.0f);
  CHECK(row.lse(scale) ==
        doctest::Approx(std::log(std::exp(scale.value() * 3.0) + std::exp(scale.value() * 1.0))).epsilon(1e-6));
  SoftmaxRow none;  // a row whose block is all -inf: nothing seen yet
  CHECK(none.update(std::vector<float>(4, -inf), 4, scale, p) == 1.0f);
  CHECK(none.sum == 0.0f);
  CHECK(std::isinf(none.lse(scale)));
}

TEST_CASE("SoftmaxRow: a fully masked block changes nothing; P is rounded to bf16 by default") {
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(64);
  std::vector<float> s = {0.3f, 1.7f, 2.9f}, p(3);
  SoftmaxRow row;
  CHECK(row.update(s, 0, scale, p) == 1.0f);
  CHECK(row.sum == 0.0f);
  CHECK(row.inverse_sum() == 0.0f);
  CHECK(std::isinf(row.lse(scale)));
  row.update(s, 3, scale, p);
  for (float x : p) CHECK(x == round_to(ElementType::bf16, x));
}
