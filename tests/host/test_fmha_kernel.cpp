#include <doctest/doctest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "tcgen/attention/fmha_host.hpp"
#include "tcgen/attention/fmha_reference.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/core/element_type.hpp"

using namespace tcgen;
using namespace tcgen::attention;

namespace {

std::uint32_t fresh_seed() {
  static const std::uint32_t seed = std::random_device{}();
  return seed;
}

struct Head {
  int seq_q, seq_k, d;
  std::vector<float> q, k, v;               // values (exact bf16)
  std::vector<std::uint16_t> qb, kb, vb;    // their bf16 bit patterns
};

// Q, K in [-2, 2]; V in [0.25, 1.75] (test_fmha.cpp says why: bf16 P and
// an element-wise relative error).
Head make_head(int seq_q, int seq_k, int d, std::uint32_t salt) {
  std::mt19937 g(fresh_seed() ^ (salt * 2654435761u));
  Head h{seq_q, seq_k, d, {}, {}, {}, {}, {}, {}};
  const auto fill = [&](std::vector<float>& x, std::vector<std::uint16_t>& b, std::size_t n, float lo, float hi) {
    std::uniform_real_distribution<float> u(lo, hi);
    x.resize(n);
    b.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      b[i] = static_cast<std::uint16_t>(encode(ElementType::bf16, u(g)));
      x[i] = decode(ElementType::bf16, b[i]);
    }
  };
  fill(h.q, h.qb, std::size_t(seq_q) * d, -2.0f, 2.0f);
  fill(h.k, h.kb, std::size_t(seq_k) * d, -2.0f, 2.0f);
  fill(h.v, h.vb, std::size_t(seq_k) * d, 0.25f, 1.75f);
  return h;
}

template <int D>
void check_kernel(int seq_q, int seq_k, const exec::LaunchOptions& options = {}) {
  INFO("seed " << fresh_seed());
  CAPTURE(seq_q);
  CAPTURE(seq_k);
  CAPTURE(D);
  const Head h = make_head(seq_q, seq_k, D, std::uint32_t(seq_q * 131 + seq_k * 7 + D));
  const SoftmaxScale scale = SoftmaxScale::for_head_dim(D);
  MESSAGE("FMHA kernel on the host model: seq_q " << seq_q << " seq_k " << seq_k << " head_dim " << D << " scale "
                                                  << scale.value());
  const FmhaHostOutput got = run_fmha_host<D>(h.qb, h.kb, h.vb, seq_q, seq_k, scale, options);
  std::vector<float> o(got.o.size());
  for (std::size_t i = 0; i < o.size(); ++i) o[i] = decode(ElementType::bf16, got.o[i]);
  const auto ref = fmha_reference(h.q, h.k, h.v, {seq_q, seq_k, D}, scale);
  const CompareReport ro = compare(o, ref.o, seq_q, D, 1e-2);
  CHECK_MESSAGE(ro.ok, ro.text());
  MESSAGE("max relative error of O " << ro.max_rel_error);
  const CompareReport rl = compare(got.lse, ref.lse, seq_q, 1, 1e-3);
  CHECK_MESSAGE(rl.ok, rl.text());
  // Breaking the scale once: the same output against a reference with 2x the
  // scale must fail (O only when there are two keys or more: one key gives O = V at any scale).
  const auto wrong = fmha_reference(h.q, h.k, h.v, {seq_q, seq_k, D}, SoftmaxScale::explicit_value(2 * scale.value()));
  if (seq_k > 1) CHECK_FALSE(compare(o, wrong.o, seq_q, D, 1e-2).ok);
  CHECK_FALSE(compare(got.lse, wrong.lse, seq_q, 1, 1e-3).ok);
}

}  // namespace

TEST_CASE("FMHA kernel on the host model, head_dim 64: one full K block") { check_kernel<64>(128, 128); }
TEST_CASE("FMHA kernel on the host model, head_dim 64: partial K blocks, two Q tiles") { check_kernel<64>(256, 77); }
TEST_CASE("FMHA kernel on the host model, head_dim 64: seq_k 300 (three blocks, the last partial)") {
  check_kernel<64>(128, 300);
}
TEST_CASE("FMHA kernel on the host model, head_dim 128: seq_k 200") { check_kernel<128>(128, 200); }
TEST_CASE("FMHA kernel on the host model, head_dim 128: seq_k 1, shuffled schedule") {
  exec::LaunchOptions options;
  options.shuffle_seed = fresh_seed();
  check_kernel<128>(128, 1, options);
}
TEST_CASE("FMHA kernel on the host model, head_dim 128: 1024 x 1000 (eight Q tiles, the last K block partial)") {
  check_kernel<128>(1024, 1000);
}
TEST_CASE("FMHA kernel on the host model, head_dim 64: 256 x 333, shuffled schedule") {
  exec::LaunchOptions options;
  options.shuffle_seed = fresh_seed() + 1;
  check_kernel<64>(256, 333, options);
}
