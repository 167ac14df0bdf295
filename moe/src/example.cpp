#include "tcgen/moe/example.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::moe {

Routing parse_routing(std::string_view text) {
  if (text == "random") return Routing::random;
  if (text == "balanced") return Routing::balanced;
  if (text == "one-expert") return Routing::one_expert;
  fail("routing", std::string(text), "expected random, balanced or one-expert");
}
Projection parse_projection(std::string_view text) {
  if (text == "up") return Projection::up;
  if (text == "down") return Projection::down;
  fail("projection", std::string(text), "expected up (gate and up, SwiGLU fused) or down");
}
const char* name(Routing r) {
  return r == Routing::random ? "random" : r == Routing::balanced ? "balanced" : "one-expert";
}
const char* name(Projection p) { return p == Projection::up ? "up" : "down"; }

void MoeExample::validate() const {
  if (experts < 1 || experts > 4096) fail("experts", experts, "expected 1 to 4096");
  if (topk < 1 || topk > experts) fail("topk", topk, "expected 1 to the experts' count");
  if (batch < 1 || batch > (1 << 20)) fail("batch", batch, "expected 1 to 2^20 tokens");
  if (hidden < 128 || hidden % 128 != 0) fail("hidden", hidden, "expected a positive multiple of 128 (a tile, a K block)");
  if (intermediate < 128 || intermediate % 128 != 0)
    fail("intermediate", intermediate, "expected a positive multiple of 128 (a tile, a K block)");
}

namespace {

// x[i] uniform in [-1, 1) times 2^e, e uniform in -4 .. 4 per 32 elements.
void draw(std::mt19937_64& rng, std::vector<float>& x) {
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<int> e(-4, 4);
  for (std::size_t i = 0; i < x.size(); i += 32) {
    const float s = std::ldexp(1.0f, e(rng));
    for (std::size_t j = i; j < std::min(i + 32, x.size()); ++j) x[j] = u(rng) * s;
  }
}

}  // namespace

MoeInputs random_moe_inputs(const MoeExample& ex, std::uint64_t seed) {
  ex.validate();
  std::mt19937_64 rng(seed);
  MoeInputs in;
  in.n = ex.n();
  in.k = ex.k();
  const std::size_t k = static_cast<std::size_t>(in.k);
  // Routing: token t's topk experts; then the assignments grouped by expert, tokens in order.
  std::vector<std::vector<int>> tokens_of(static_cast<std::size_t>(ex.experts));
  std::vector<int> order(static_cast<std::size_t>(ex.experts));
  std::iota(order.begin(), order.end(), 0);
  for (int t = 0; t < ex.batch; ++t) {
    if (ex.routing == Routing::one_expert) {
      tokens_of[0].push_back(t);
      continue;
    }
    if (ex.routing == Routing::balanced) {
      for (int j = 0; j < ex.topk; ++j) tokens_of[(static_cast<std::int64_t>(t) * ex.topk + j) % ex.experts].push_back(t);
      continue;
    }
    for (int j = 0; j < ex.topk; ++j) {  // a partial Fisher-Yates shuffle: topk distinct experts
      std::uniform_int_distribution<int> pick(j, ex.experts - 1);
      std::swap(order[j], order[pick(rng)]);
      tokens_of[order[j]].push_back(t);
    }
  }
  std::vector<float> activations(static_cast<std::size_t>(ex.batch) * k);
  draw(rng, activations);
  std::vector<float> rows;
  for (const std::vector<int>& tokens : tokens_of) {
    in.counts.push_back(static_cast<int>(tokens.size()));
    for (const int t : tokens)
      rows.insert(rows.end(), activations.begin() + t * k, activations.begin() + (t + 1) * k);
  }
  in.a = quantise_grouped(rows, in.counts, in.k, kMxfp8);
  // The weights an expert at a time (an fp32 copy of all of V4's would not fit), one blocked layout over all rows.
  std::vector<float> w(static_cast<std::size_t>(in.n) * k);
  for (int e = 0; e < ex.experts; ++e) {
    draw(rng, w);
    const Quantised q = quantise(w, in.n, in.k, kMxfp4);
    if (e == 0) {
      in.w = q;
      in.w.rows = ex.experts * in.n;
      in.w.data.reserve(q.data.size() * ex.experts);
      in.w.scales.reserve(q.scales.size() * ex.experts);
    } else {
      in.w.data.insert(in.w.data.end(), q.data.begin(), q.data.end());
      in.w.scales.insert(in.w.scales.end(), q.scales.begin(), q.scales.end());
    }
  }
  return in;
}

}  // namespace tcgen::moe
