// FlashMLA's MODEL1 FP8 KV cache (tcgen/sparse_decode/model1_cache.hpp) against its definition in
// FlashMLA tests/quant.py (quantize_k_cache, FP8KVCacheLayout.MODEL1_FP8Sparse):
// bytes_per_token = 448 + 2·64 + 7 + 1, a block's tokens' values first and
// their scales after, padded to a multiple of 576; hand-computed bytes; the
// round trip within e4m3's rounding.
#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "expect_error.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/sparse_decode/model1_cache.hpp"

using namespace tcgen;
using namespace tcgen::sparse_decode;

TEST_CASE("MODEL1 cache: block sizes as quant.py computes them") {
  // size_per_block_padded = (block_size·584 + 575) // 576 · 576
  CHECK(Model1Layout{64}.block_bytes() == 37440);  // 37376 bytes used
  CHECK(Model1Layout{1}.block_bytes() == 1152);
  CHECK(Model1Layout{72}.block_bytes() == 42048);  // 72·584 = 42048 = 73·576 exactly
  CHECK(Model1Layout{64}.scale_offset(0) == 64 * 576);
  CHECK(Model1Layout{64}.scale_offset(3) == 64 * 576 + 24);
}

TEST_CASE("MODEL1 cache: a hand-built token's bytes and scales") {
  const Model1Layout layout{2};
  std::vector<float> latent(2 * 512, 0.0f);
  float* t1 = latent.data() + 512;  // block 0, slot 1
  t1[0] = 448.0f;                   // tile 0: amax 448 -> scale 2^0 (byte 127), 448 -> e4m3 0x7E
  t1[1] = -1.0f;                    //         -1 -> 0xB8
  t1[64] = 3.0f;                    // tile 1: amax 3 -> 3/448 = 2^-7.22 -> scale 2^-7 (byte 120); 3 / 2^-7 = 384 -> 0x7C
  t1[65] = 0.0234375f;              //         3/128 / 2^-7 = 3 -> 0x44
  for (int i = 0; i < 64; ++i) t1[448 + i] = static_cast<float>(i) - 31.5f;  // rope: exact in bf16
  const std::vector<std::uint8_t> cache = quantize_model1(layout, latent);
  REQUIRE(cache.size() == layout.block_bytes());
  const std::uint8_t* v = cache.data() + 576;
  CHECK(v[0] == 0x7E);
  CHECK(v[1] == 0xB8);
  CHECK(v[64] == 0x7C);
  CHECK(v[65] == 0x44);
  const std::uint8_t* s = cache.data() + 2 * 576 + 8;
  CHECK(s[0] == 127);
  CHECK(s[1] == 120);
  for (int tile = 2; tile < 7; ++tile) CHECK(s[tile] == 114);  // all zeros: 1e-4 -> 2^-13
  CHECK(s[7] == 0);                                             // the pad byte
  // Rope value i: bf16 of i - 31.5, little-endian at 448 + 2i.
  for (int i = 0; i < 64; ++i)
    CHECK((v[448 + 2 * i] | v[448 + 2 * i + 1] << 8) == encode(ElementType::bf16, static_cast<float>(i) - 31.5f));
  // The block's padding (2·584 = 1168 bytes used of 1728) is zero.
  for (std::size_t i = 2 * 584; i < cache.size(); ++i) CHECK(cache[i] == 0);
  std::array<float, 512> back{};
  dequantize_model1(layout, cache, 1, back);
  CHECK(back[0] == 448.0f);
  CHECK(back[64] == 3.0f);
  CHECK(back[65] == 0.0234375f);
  CHECK(back[448] == -31.5f);
}

TEST_CASE("MODEL1 cache: the round trip of random bf16 latents, within e4m3's rounding, the last padded block included") {
  const Model1Layout layout{5};  // 5·584 = 2920 -> 3456: 536 bytes of padding a block
  std::mt19937 rng(0x5eed);
  std::normal_distribution<float> n(0.0f, 1.0f);
  const int blocks = 3, tokens = blocks * layout.block_size;
  std::vector<float> latent(static_cast<std::size_t>(tokens) * 512);
  for (std::size_t i = 0; i < latent.size(); ++i)  // tiles of different magnitudes
    latent[i] = decode(ElementType::bf16, encode(ElementType::bf16, n(rng) * std::ldexp(1.0f, static_cast<int>(i / 64 % 9) - 4)));
  const std::vector<std::uint8_t> cache = quantize_model1(layout, latent);
  REQUIRE(cache.size() == static_cast<std::size_t>(blocks) * 3456);
  int wrong = 0;
  std::array<float, 512> back{};
  for (int t = 0; t < tokens; ++t) {
    dequantize_model1(layout, cache, t, back);
    const float* v = latent.data() + static_cast<std::size_t>(t) * 512;
    for (int tile = 0; tile < 7; ++tile) {
      float amax = 0;
      for (int i = 0; i < 64; ++i) amax = std::max(amax, std::fabs(v[tile * 64 + i]));
      const float scale = std::ldexp(1.0f, std::ceil(std::log2(std::max(amax / 448.0f, 1e-4f))));
      for (int i = 0; i < 64; ++i) {
        const float x = v[tile * 64 + i], err = std::fabs(back[tile * 64 + i] - x);
        // Half an e4m3 ulp: 2^-4 of |x| for normals, 2^-10 · scale below (subnormal step 2^-9).
        wrong += !(err <= std::max(std::ldexp(std::fabs(x), -4), std::ldexp(scale, -10)));
      }
    }
    for (int i = 448; i < 512; ++i) wrong += back[i] != v[i];
  }
  CHECK(wrong == 0);
  CHECK(message_of<Error>([&] { dequantize_model1(layout, cache, tokens, back); })
            .find("index = 15 is invalid: a token of the cache, 0 to 14") != std::string::npos);
  CHECK(message_of<Error>([&] { quantize_model1(layout, std::vector<float>(512 * 4)); })
            .find("latent = 2048 values is invalid: a whole number of blocks of 5 tokens") != std::string::npos);
}
