#include "tcgen/fmha/reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include "tcgen/attention/online_softmax.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::fmha {
namespace {

void check_sizes(const FmhaProblem& p, std::span<const float> q, std::span<const float> k, std::span<const float> v) {
  p.check_sizes(q.size(), k.size(), v.size());
}

// Where one (batch, query head) reads and writes: GQA maps query head h to
// K/V head h / (heads / heads_kv), spelled out here as the definition (the
// kernel uses FmhaProblem::kv_head; test_fmha_reference checks this one
// against repeated heads).
struct Head {
  std::size_t q, kv, lse;  // offsets of Q/O row 0, K/V row 0, LSE entry 0
};

Head head(const FmhaProblem& p, int b, int h) {
  const std::size_t bh = std::size_t(b) * p.heads + h;
  const std::size_t bkv = std::size_t(b) * p.heads_kv + h / (p.heads / p.heads_kv);
  return {bh * p.seq_q * p.head_dim, bkv * p.seq_k * p.head_dim, bh * p.seq_q};
}

// The convention of problem.hpp, spelled out on its own (not through
// FmhaMask::keys()) so the reference checks keys() rather than repeating it.
bool sees(const FmhaMask& m, std::int64_t i, std::int64_t j, std::int64_t seq_q, std::int64_t seq_k) {
  const std::int64_t diagonal = m.corner == MaskCorner::top_left ? i : i + (seq_k - seq_q);
  return (m.right < 0 || j <= diagonal + m.right) && (m.left < 0 || j >= diagonal - m.left);
}

}  // namespace

FmhaResult<double> fmha_reference(const CheckedFmhaProblem& checked, std::span<const float> q, std::span<const float> k,
                                  std::span<const float> v) {
  const FmhaProblem& p = checked;
  check_sizes(p, q, k, v);
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const int d = p.head_dim;
  const double sc = p.scale.value();
  FmhaResult<double> r;
  r.o.assign(p.q_elements(), 0.0);
  r.lse.assign(p.lse_elements(), 0.0);
  std::vector<double> s(static_cast<std::size_t>(p.seq_k));
  for (int b = 0; b < p.batch; ++b)
    for (int h = 0; h < p.heads; ++h) {
      const Head at = head(p, b, h);
      for (int i = 0; i < p.seq_q; ++i) {
        const float* qi = &q[at.q + std::size_t(i) * d];
        double mx = -kInf;
        for (int j = 0; j < p.seq_k; ++j) {
          s[j] = -kInf;
          if (!sees(p.mask, i, j, p.seq_q, p.seq_k)) continue;
          const float* kj = &k[at.kv + std::size_t(j) * d];
          double acc = 0;
          for (int c = 0; c < d; ++c) acc += double(qi[c]) * double(kj[c]);
          s[j] = sc * acc;
          mx = std::max(mx, s[j]);
        }
        double* o = &r.o[at.q + std::size_t(i) * d];
        if (mx == -kInf) {  // no key visible: O stays 0
          r.lse[at.lse + i] = -kInf;
          continue;
        }
        double l = 0;
        for (int j = 0; j < p.seq_k; ++j) {
          s[j] = std::exp(s[j] - mx);  // masked: exp(-inf) = 0
          l += s[j];
        }
        for (int j = 0; j < p.seq_k; ++j)
          for (int c = 0; c < d; ++c) o[c] += s[j] * double(v[at.kv + std::size_t(j) * d + c]);
        for (int c = 0; c < d; ++c) o[c] /= l;
        r.lse[at.lse + i] = mx + std::log(l);
      }
    }
  return r;
}

FmhaResult<float> fmha_blocked(const CheckedFmhaProblem& checked, std::span<const float> q, std::span<const float> k,
                               std::span<const float> v, int block_n, ElementType p_type) {
  const FmhaProblem& p = checked;
  check_sizes(p, q, k, v);
  if (block_n <= 0) fail("block_n", block_n, "expected a positive K block");
  const int d = p.head_dim;
  FmhaResult<float> r;
  r.o.assign(p.q_elements(), 0.0f);
  r.lse.assign(p.lse_elements(), 0.0f);
  std::vector<float> s(static_cast<std::size_t>(block_n)), pv(static_cast<std::size_t>(block_n));
  for (int b = 0; b < p.batch; ++b)
    for (int h = 0; h < p.heads; ++h) {
      const Head at = head(p, b, h);
      for (int i = 0; i < p.seq_q; ++i) {  // one softmax thread's row
        const float* qi = &q[at.q + std::size_t(i) * d];
        float* o = &r.o[at.q + std::size_t(i) * d];
        const KeyRange keys = p.mask.keys(i, p.seq_q, p.seq_k);
        attention::SoftmaxRow row;
        // Only the blocks holding the row's keys: a block the mask hides entirely
        // would leave the row unchanged (factor 1, P = 0), so whether the kernel
        // visits it for another row of its tile does not matter.
        for (int n0 = keys.begin - keys.begin % block_n; n0 < keys.end; n0 += block_n) {
          const int valid = std::min(block_n, p.seq_k - n0);
          // S = Q·Kᵀ: the MMA warp's SS-MMA, f32 accumulation; columns past seq_k
          // read K's zero fill; keys the mask hides are -inf, which SoftmaxRow
          // leaves out of the maximum (fmax) and turns into P = exp2(-inf) = 0.
          for (int j = 0; j < block_n; ++j) {
            const int key = n0 + j;
            float acc = 0.0f;
            if (j < valid && (key < keys.begin || key >= keys.end)) acc = -std::numeric_limits<float>::infinity();
            else if (j < valid)
              for (int c = 0; c < d; ++c) acc += qi[c] * k[at.kv + std::size_t(key) * d + c];
            s[j] = acc;
          }
          const float factor = row.update(s, valid, p.scale, pv, p_type);
          // Correction: O *= factor; then the TS-MMA O += P·V.
          for (int c = 0; c < d; ++c) o[c] *= factor;
          for (int j = 0; j < valid; ++j)
            for (int c = 0; c < d; ++c) o[c] += pv[j] * v[at.kv + std::size_t(n0 + j) * d + c];
        }
        const float inv = row.inverse_sum();
        for (int c = 0; c < d; ++c) o[c] *= inv;
        r.lse[at.lse + i] = row.lse(p.scale);
      }
    }
  return r;
}

}  // namespace tcgen::fmha
