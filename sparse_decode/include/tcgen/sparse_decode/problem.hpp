#pragma once
// One DeepSeek-V4 sparse decode problem (FlashMLA's flash_mla_with_kvcache
// with `indices`; semantics in reference.hpp), as the kernel,
// its runners and the CLI take it: the shapes, the caches and their index
// lists, the sinks, the scale and the KV split.
//
// Arrays (row-major):
//   Q, O            [batch, s_q, heads, 512]   bf16 bit patterns
//   LSE             [batch, s_q, heads]        float, natural log; +inf for a row with no key
//   cache           [num_blocks, block_bytes]  MODEL1 bytes (model1_cache.hpp)
//   indices         [batch, s_q, topk]         int32, block · block_size + slot, or −1
//   topk_length     [batch]                    int32, optional: the first n indices count
//   sink            [heads]                    float, optional
// and the same three for an optional extra cache (V4's sliding-window keys),
// attended to in the same softmax.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/exec/backend.hpp"
#include "tcgen/sparse_decode/model1_cache.hpp"

namespace tcgen::sparse_decode {

inline constexpr int kSparseHeadsPerCta = 64;   // one M = 64 accumulator of heads
inline constexpr int kSparseBlockTokens = 64;   // keys a pipeline step: S is 64 × 64
inline constexpr int kSparseMaxSplits = 128;
inline constexpr int kSparseSms = 148;          // a B200's SMs, the grid the scheduler fills

// One cache and the keys each query row takes from it.
struct SparseKeys {
  Model1Layout layout;
  std::span<const std::uint8_t> cache;     // [num_blocks, layout.block_bytes()]
  int topk = 0;
  std::span<const std::int32_t> indices;   // [batch, s_q, topk]: block · block_size + slot, or −1
  std::span<const std::int32_t> lengths;   // [batch]: the first lengths[b] indices count; empty: all topk
  std::int64_t tokens() const {
    return static_cast<std::int64_t>(cache.size() / layout.block_bytes()) * layout.block_size;
  }
};

// Throws tcgen::Error naming `which`.field ("topk", "block_size", "cache",
// "indices", "lengths") for keys that batch · s_q query rows cannot take:
// every index must be −1 or a token of the cache.
void check_sparse_keys(const SparseKeys& keys, int batch, int s_q, const std::string& which);

struct SparseDecodeProblem {
  int batch = 1, s_q = 1, heads = 64;
  SparseKeys keys;
  std::optional<SparseKeys> extra;
  std::span<const float> sink;             // [heads], or empty: no sink
  attention::SoftmaxScale scale = attention::SoftmaxScale::explicit_value(0.044194173824159216f);  // 1/sqrt(512)
  int splits = 0;                          // CTAs per query row's keys; 0: sparse_decode_splits()

  // Throws tcgen::Error naming the field ("batch", "s_q", "heads", "splits",
  // "keys.topk", "keys.block_size", "keys.cache", "keys.indices",
  // "keys.lengths", the same under "extra.", "sink") with the value and what
  // was expected. Every index is checked against its cache: the kernel
  // trusts them.
  void validate() const;
  std::size_t q_elements() const { return rows() * Model1Layout::kDim; }
  std::size_t rows() const { return static_cast<std::size_t>(batch) * s_q * heads; }
  // Key blocks of kSparseBlockTokens one query row walks at most: its topk, then the extra topk.
  int key_blocks() const;
  // The splits a launch uses: `splits`, or the scheduler's choice.
  int split_count() const;
  // 4 · 512 FLOPs per (head, valid key) pair: S = Q·Kᵀ and O = P·V.
  double flops() const;
  // The cache bytes the valid keys read (584 a token, once per head group of 64).
  double kv_bytes() const;
};

// The scheduler: enough splits of each query row's key blocks that the grid
// (batch · s_q · heads / 64 · splits CTAs) fills kSparseSms SMs, with at least
// two key blocks a split, so that loading Q and writing a partial O stays a
// small part of a CTA's work; 1 (no combine step) where the grid is full already.
int sparse_decode_splits(int batch, int s_q, int heads, int key_blocks);

struct SparseDecodeOutput {
  std::vector<std::uint16_t> o;  // [batch, s_q, heads, 512] bf16
  std::vector<float> lse;        // [batch, s_q, heads]
};

struct SparseDecodeRun {
  SparseDecodeOutput out;
  int splits = 1;
  exec::RunStats stats;
};

}  // namespace tcgen::sparse_decode
