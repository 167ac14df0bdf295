#pragma once
// DeepSeek-V4's FP8 KV cache, FlashMLA's "MODEL1" layout (FlashMLA
// tests/quant.py, FP8KVCacheLayout::MODEL1_FP8Sparse), written from that
// description: each 512-wide latent token is 448 "nope" values in e4m3, with
// one UE8M0 scale per 64 of them (7 tiles), and 64 "rope" values in bf16.
// The cache is paged in blocks of `block_size` tokens; a block holds
//
//   [0, 576·block_size)                  token t at 576·t: its 448 e4m3 bytes, then its 64 bf16 (128 bytes)
//   [576·block_size, 584·block_size)     token t at 8·t: its 7 scale bytes (2^(byte − 127)), then a pad byte
//
// padded to a multiple of 576 bytes. Quantising a tile: its scale is the
// power of two 2^ceil(log2(max(amax / 448, 1e-4))) (FlashMLA's
// _cast_scale_inv_to_ue8m0), each value is value / scale rounded to e4m3
// (nearest, ties to even; |value / scale| ≤ 448 by the choice of scale).
// Dequantising: e4m3 × 2^(byte − 127), exact in fp32 and bf16.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tcgen::sparse_decode {

struct Model1Layout {
  static constexpr int kDim = 512, kNope = 448, kRope = 64, kTile = 64, kTiles = 7;
  static constexpr std::size_t kTokenBytes = kNope + 2 * kRope;  // 576: e4m3 nope, then bf16 rope
  static constexpr std::size_t kScaleBytes = kTiles + 1;          // 8: the tiles' UE8M0 scales and a pad byte
  static constexpr std::size_t kBlockAlign = 576;

  int block_size = 64;  // tokens a block

  // One block's bytes: block_size · 584, rounded up to a multiple of 576.
  constexpr std::size_t block_bytes() const {
    const std::size_t used = static_cast<std::size_t>(block_size) * (kTokenBytes + kScaleBytes);
    return (used + kBlockAlign - 1) / kBlockAlign * kBlockAlign;
  }
  // Where token `slot` of a block keeps its values and its scales, from the block's first byte.
  constexpr std::size_t token_offset(int slot) const { return static_cast<std::size_t>(slot) * kTokenBytes; }
  constexpr std::size_t scale_offset(int slot) const {
    return static_cast<std::size_t>(block_size) * kTokenBytes + static_cast<std::size_t>(slot) * kScaleBytes;
  }
};

// The scale of a tile whose largest magnitude is `amax`, as its UE8M0 byte:
// 2^(byte − 127) = 2^ceil(log2(max(amax / 448, 1e-4))).
std::uint8_t model1_scale_byte(float amax);

// tokens × 512 latent values (row-major; num_blocks · block_size tokens, token
// i in block i / block_size, slot i % block_size) as the cache's bytes, each
// block block_bytes() long; the padding is zero. Throws tcgen::Error naming
// "latent" when its size is not a whole number of blocks of tokens, or a
// value is not finite.
std::vector<std::uint8_t> quantize_model1(const Model1Layout& layout, std::span<const float> latent);

// Token `index` (block · block_size + slot) of a cache, dequantised: 512
// values into `out`. Throws tcgen::Error naming "index" outside the cache.
void dequantize_model1(const Model1Layout& layout, std::span<const std::uint8_t> cache, std::int64_t index,
                       std::span<float, Model1Layout::kDim> out);

}  // namespace tcgen::sparse_decode
