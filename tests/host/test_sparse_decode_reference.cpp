// The fp64 sparse decode reference (tcgen/sparse_decode/reference.hpp) at points
// worked by hand from FlashMLA's definition (tests/ref.py,
// ref_sparse_attn_decode): one key gives its V and its logit as LSE, equal
// logits average, a duplicate index counts twice, a row with no key has O = 0
// and LSE = +inf, the sink scales O by 1 / (1 + e^(sink − LSE)) and leaves
// LSE, the extra cache joins the same softmax; bad indices name the field.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "expect_error.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/sparse_decode/reference.hpp"

using namespace tcgen;
using namespace tcgen::sparse_decode;

namespace {

constexpr int D = 512;

// A cache of one block of four tokens whose latents are exact in MODEL1
// (small integers in the nope tiles, so e4m3 and the power-of-two scales
// keep them): token t has value (t + 1) in column t and 1 in column 500.
struct Fixture {
  Model1Layout layout{4};
  std::vector<std::uint8_t> cache;
  std::array<std::array<float, D>, 4> kv{};
  Fixture() {
    std::vector<float> latent(4 * D, 0.0f);
    for (int t = 0; t < 4; ++t) {
      latent[static_cast<std::size_t>(t) * D + t] = static_cast<float>(t + 1);
      latent[static_cast<std::size_t>(t) * D + 500] = 1.0f;
    }
    cache = quantize_model1(layout, latent);
    for (int t = 0; t < 4; ++t) dequantize_model1(layout, cache, t, kv[t]);
  }
  SparseKeys keys(const std::vector<std::int32_t>& indices, int topk, std::span<const std::int32_t> lengths = {}) const {
    return {layout, cache, topk, indices, lengths};
  }
};

// One query row (batch 1, s_q 1, one head): q[d] at column 0..3 and 500.
std::vector<float> query(std::array<float, 4> first, float col500) {
  std::vector<float> q(D, 0.0f);
  for (int i = 0; i < 4; ++i) q[static_cast<std::size_t>(i)] = first[static_cast<std::size_t>(i)];
  q[500] = col500;
  return q;
}

}  // namespace

TEST_CASE("sparse decode reference: one key gives its V, and its logit is the LSE") {
  const Fixture f;
  const std::vector<std::int32_t> idx{2, -1, -1};
  const SparseDecodeResult r = sparse_decode_reference({1, 1, 1}, query({0, 0, 1.5f, 0}, 2.0f), f.keys(idx, 3),
                                                       std::nullopt, {}, 0.5);
  CHECK(f.kv[2][2] == 3.0f);
  CHECK(r.lse[0] == doctest::Approx(0.5 * (1.5 * 3 + 2.0 * 1)).epsilon(1e-15));
  for (int d = 0; d < D; ++d) CHECK(r.o[static_cast<std::size_t>(d)] == doctest::Approx(f.kv[2][d]).epsilon(1e-15));
}

TEST_CASE("sparse decode reference: equal logits average; a duplicate index counts twice") {
  const Fixture f;
  // q = 0: every logit 0. Keys 0 and 1: O = (v0 + v1) / 2, LSE = ln 2.
  const std::vector<std::int32_t> pair{0, 1};
  SparseDecodeResult r = sparse_decode_reference({1, 1, 1}, query({0, 0, 0, 0}, 0), f.keys(pair, 2), std::nullopt, {}, 1.0);
  CHECK(r.lse[0] == doctest::Approx(std::log(2.0)));
  CHECK(r.o[0] == doctest::Approx(0.5));  // v0[0] = 1
  CHECK(r.o[1] == doctest::Approx(1.0));  // v1[1] = 2
  // Keys 0, 0, 1: weights 2/3 and 1/3, LSE = ln 3.
  const std::vector<std::int32_t> dup{0, 0, 1};
  r = sparse_decode_reference({1, 1, 1}, query({0, 0, 0, 0}, 0), f.keys(dup, 3), std::nullopt, {}, 1.0);
  CHECK(r.lse[0] == doctest::Approx(std::log(3.0)));
  CHECK(r.o[0] == doctest::Approx(2.0 / 3));
  CHECK(r.o[1] == doctest::Approx(2.0 / 3));
}

TEST_CASE("sparse decode reference: no key (all -1, or topk_length 0): O = 0, LSE = +inf") {
  const Fixture f;
  const std::vector<std::int32_t> none{-1, -1}, some{3, 1};
  const std::vector<std::int32_t> zero{0};
  for (const SparseKeys& k : {f.keys(none, 2), f.keys(some, 2, zero)}) {
    const SparseDecodeResult r = sparse_decode_reference({1, 1, 1}, query({1, 1, 1, 1}, 1), k, std::nullopt, {}, 1.0);
    CHECK(r.lse[0] == std::numeric_limits<double>::infinity());
    int nonzero = 0;
    for (double o : r.o) nonzero += o != 0.0;
    CHECK(nonzero == 0);
  }
  // topk_length 1 of {3, 1}: key 3 alone.
  const std::vector<std::int32_t> one{1};
  const SparseDecodeResult r = sparse_decode_reference({1, 1, 1}, query({0, 0, 0, 0}, 0), f.keys(some, 2, one),
                                                       std::nullopt, {}, 1.0);
  CHECK(r.o[3] == doctest::Approx(4.0));
  CHECK(r.lse[0] == doctest::Approx(0.0));
}

TEST_CASE("sparse decode reference: the sink scales O and leaves LSE; the extra cache joins the softmax") {
  const Fixture f;
  const std::vector<std::int32_t> idx{0};
  const std::vector<float> sink{0.0f};
  // One key with logit 0: LSE 0, and the sink e^0 halves O.
  SparseDecodeResult r = sparse_decode_reference({1, 1, 1}, query({0, 0, 0, 0}, 0), f.keys(idx, 1), std::nullopt, sink, 1.0);
  CHECK(r.lse[0] == doctest::Approx(0.0));
  CHECK(r.o[0] == doctest::Approx(0.5));
  // A very large sink takes O to 0 without overflow trouble; LSE stays.
  const std::vector<float> huge{1e4f};
  r = sparse_decode_reference({1, 1, 1}, query({0, 0, 0, 0}, 0), f.keys(idx, 1), std::nullopt, huge, 1.0);
  CHECK(r.o[0] == 0.0);
  CHECK(r.lse[0] == doctest::Approx(0.0));
  // Key 0 from the main cache and key 1 from an extra one: one softmax over both, as for indices {0, 1}.
  const std::vector<std::int32_t> extra_idx{1};
  r = sparse_decode_reference({1, 1, 1}, query({0, 0, 0, 0}, 0), f.keys(idx, 1), f.keys(extra_idx, 1), {}, 1.0);
  CHECK(r.lse[0] == doctest::Approx(std::log(2.0)));
  CHECK(r.o[1] == doctest::Approx(1.0));
}

TEST_CASE("sparse decode reference: bad inputs name their field") {
  const Fixture f;
  const std::vector<std::int32_t> past{4}, short_idx{0};
  CHECK(message_of<Error>([&] {
          sparse_decode_reference({1, 1, 1}, query({0, 0, 0, 0}, 0), f.keys(past, 1), std::nullopt, {}, 1.0);
        }).find("keys.indices = 4 (batch 0, row 0, position 0) is invalid: expected -1 or a token of the cache, 0 to 3") !=
        std::string::npos);
  CHECK(message_of<Error>([&] {
          sparse_decode_reference({1, 2, 1}, std::vector<float>(2 * D), f.keys(short_idx, 1), std::nullopt, {}, 1.0);
        }).find("keys.indices = 1 values is invalid: expected 2: [batch, s_q, topk]") != std::string::npos);
  const std::vector<std::int32_t> lengths{2};
  CHECK(message_of<Error>([&] {
          sparse_decode_reference({1, 1, 1}, query({0, 0, 0, 0}, 0), f.keys(short_idx, 1, lengths), std::nullopt, {}, 1.0);
        }).find("keys.lengths = 2 is invalid: expected 0 to topk, 1") != std::string::npos);
}
