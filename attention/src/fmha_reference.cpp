#include "tcgen/attention/fmha_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "tcgen/attention/online_softmax.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::attention {
namespace {

void check_inputs(std::span<const float> q, std::span<const float> k, std::span<const float> v, FmhaShape s) {
  if (s.seq_q <= 0) fail("seq_q", s.seq_q, "expected a positive query length");
  if (s.seq_k <= 0) fail("seq_k", s.seq_k, "expected a positive key length");
  if (s.head_dim <= 0) fail("head_dim", s.head_dim, "expected a positive head dimension");
  const std::size_t d = static_cast<std::size_t>(s.head_dim);
  if (q.size() != static_cast<std::size_t>(s.seq_q) * d)
    fail("q", std::to_string(q.size()) + " elements", "expected seq_q x head_dim");
  if (k.size() != static_cast<std::size_t>(s.seq_k) * d)
    fail("k", std::to_string(k.size()) + " elements", "expected seq_k x head_dim");
  if (v.size() != static_cast<std::size_t>(s.seq_k) * d)
    fail("v", std::to_string(v.size()) + " elements", "expected seq_k x head_dim");
}

}  // namespace

FmhaResult<double> fmha_reference(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                                  FmhaShape shape, SoftmaxScale scale) {
  check_inputs(q, k, v, shape);
  const int d = shape.head_dim;
  const double sc = scale.value();
  FmhaResult<double> r;
  r.o.assign(static_cast<std::size_t>(shape.seq_q) * d, 0.0);
  r.lse.assign(static_cast<std::size_t>(shape.seq_q), 0.0);
  std::vector<double> s(static_cast<std::size_t>(shape.seq_k));
  for (int i = 0; i < shape.seq_q; ++i) {
    double mx = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < shape.seq_k; ++j) {
      double acc = 0;
      for (int c = 0; c < d; ++c) acc += double(q[std::size_t(i) * d + c]) * double(k[std::size_t(j) * d + c]);
      s[j] = sc * acc;
      mx = std::max(mx, s[j]);
    }
    double l = 0;
    for (int j = 0; j < shape.seq_k; ++j) {
      s[j] = std::exp(s[j] - mx);
      l += s[j];
    }
    double* o = &r.o[std::size_t(i) * d];
    for (int j = 0; j < shape.seq_k; ++j)
      for (int c = 0; c < d; ++c) o[c] += s[j] * double(v[std::size_t(j) * d + c]);
    for (int c = 0; c < d; ++c) o[c] /= l;
    r.lse[i] = mx + std::log(l);
  }
  return r;
}

FmhaResult<float> fmha_blocked(std::span<const float> q, std::span<const float> k, std::span<const float> v,
                               FmhaShape shape, SoftmaxScale scale, int block_n,
                               ElementType p_type) {
  check_inputs(q, k, v, shape);
  if (block_n <= 0) fail("block_n", block_n, "expected a positive K block");
  const int d = shape.head_dim;
  FmhaResult<float> r;
  r.o.assign(static_cast<std::size_t>(shape.seq_q) * d, 0.0f);
  r.lse.assign(static_cast<std::size_t>(shape.seq_q), 0.0f);
  std::vector<float> s(static_cast<std::size_t>(block_n)), p(static_cast<std::size_t>(block_n));
  for (int i = 0; i < shape.seq_q; ++i) {  // one softmax thread's row
    SoftmaxRow row;
    float* o = &r.o[std::size_t(i) * d];
    for (int n0 = 0; n0 < shape.seq_k; n0 += block_n) {
      const int valid = std::min(block_n, shape.seq_k - n0);
      // S = Q·Kᵀ: the MMA warp's SS-MMA, f32 accumulation; masked columns read K's zero fill.
      for (int j = 0; j < block_n; ++j) {
        float acc = 0.0f;
        if (j < valid)
          for (int c = 0; c < d; ++c) acc += q[std::size_t(i) * d + c] * k[std::size_t(n0 + j) * d + c];
        s[j] = acc;
      }
      const float factor = row.update(s, valid, scale, p, p_type);
      // Correction: O *= factor; then the TS-MMA O += P·V.
      for (int c = 0; c < d; ++c) o[c] *= factor;
      for (int j = 0; j < valid; ++j)
        for (int c = 0; c < d; ++c) o[c] += p[j] * v[std::size_t(n0 + j) * d + c];
    }
    const float inv = row.inverse_sum();
    for (int c = 0; c < d; ++c) o[c] *= inv;
    r.lse[i] = row.lse(scale);
  }
  return r;
}

}  // namespace tcgen::attention
