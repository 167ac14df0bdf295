#include "tcgen/sparse_decode/model1_cache.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::sparse_decode {

std::uint8_t model1_scale_byte(float amax) {
  // FlashMLA: torch.pow(2, torch.clamp_min(amax / 448, 1e-4).log2().ceil()), in float32.
  const float exponent = std::ceil(std::log2(std::max(amax / 448.0f, 1e-4f)));
  return static_cast<std::uint8_t>(static_cast<int>(exponent) + 127);
}

std::vector<std::uint8_t> quantize_model1(const Model1Layout& layout, std::span<const float> latent) {
  using L = Model1Layout;
  const std::size_t per_block = static_cast<std::size_t>(layout.block_size) * L::kDim;
  if (layout.block_size < 1) fail("block_size", layout.block_size, "a positive number of tokens a block");
  if (latent.empty() || latent.size() % per_block != 0)
    fail("latent", std::to_string(latent.size()) + " values",
         "a whole number of blocks of " + std::to_string(layout.block_size) + " tokens of 512 values");
  const std::size_t blocks = latent.size() / per_block;
  std::vector<std::uint8_t> cache(blocks * layout.block_bytes(), 0);
  for (std::size_t token = 0; token < blocks * static_cast<std::size_t>(layout.block_size); ++token) {
    const float* v = latent.data() + token * L::kDim;
    for (int i = 0; i < L::kDim; ++i)
      if (!std::isfinite(v[i]))
        fail("latent", "token " + std::to_string(token) + ", value " + std::to_string(i), "a finite value");
    std::uint8_t* block = cache.data() + token / layout.block_size * layout.block_bytes();
    const int slot = static_cast<int>(token % layout.block_size);
    std::uint8_t* values = block + layout.token_offset(slot);
    std::uint8_t* scales = block + layout.scale_offset(slot);
    for (int tile = 0; tile < L::kTiles; ++tile) {
      float amax = 0;
      for (int i = 0; i < L::kTile; ++i) amax = std::max(amax, std::fabs(v[tile * L::kTile + i]));
      scales[tile] = model1_scale_byte(amax);
      const float scale = std::ldexp(1.0f, scales[tile] - 127);
      for (int i = 0; i < L::kTile; ++i)
        values[tile * L::kTile + i] = static_cast<std::uint8_t>(encode(ElementType::e4m3, v[tile * L::kTile + i] / scale));
    }
    for (int i = 0; i < L::kRope; ++i) {
      const std::uint32_t bits = encode(ElementType::bf16, v[L::kNope + i]);
      values[L::kNope + 2 * i] = static_cast<std::uint8_t>(bits);
      values[L::kNope + 2 * i + 1] = static_cast<std::uint8_t>(bits >> 8);
    }
  }
  return cache;
}

void dequantize_model1(const Model1Layout& layout, std::span<const std::uint8_t> cache, std::int64_t index,
                       std::span<float, Model1Layout::kDim> out) {
  using L = Model1Layout;
  if (layout.block_size < 1) fail("block_size", layout.block_size, "a positive number of tokens a block");
  const auto tokens = static_cast<std::int64_t>(cache.size() / layout.block_bytes()) * layout.block_size;
  if (index < 0 || index >= tokens)
    fail("index", std::to_string(index), "a token of the cache, 0 to " + std::to_string(tokens - 1));
  const std::uint8_t* block = cache.data() + static_cast<std::size_t>(index / layout.block_size) * layout.block_bytes();
  const int slot = static_cast<int>(index % layout.block_size);
  const std::uint8_t* values = block + layout.token_offset(slot);
  const std::uint8_t* scales = block + layout.scale_offset(slot);
  for (int i = 0; i < L::kNope; ++i)
    out[i] = std::ldexp(decode(ElementType::e4m3, values[i]), scales[i / L::kTile] - 127);
  for (int i = 0; i < L::kRope; ++i)
    out[L::kNope + i] = decode(ElementType::bf16, values[L::kNope + 2 * i] | values[L::kNope + 2 * i + 1] << 8);
}

}  // namespace tcgen::sparse_decode
