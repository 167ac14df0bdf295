#include "tcgen/sparse_decode/problem.hpp"

#include <algorithm>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::sparse_decode {

void check_sparse_keys(const SparseKeys& c, int batch, int s_q, const std::string& which) {
  const auto field = [&](const char* name) { return which + "." + name; };
  if (c.layout.block_size < 1 || c.layout.block_size > 4096)
    fail(field("block_size").c_str(), std::to_string(c.layout.block_size), "expected 1 to 4096 tokens a block");
  if (c.cache.empty() || c.cache.size() % c.layout.block_bytes() != 0)
    fail(field("cache").c_str(), std::to_string(c.cache.size()) + " bytes",
         "expected a positive whole number of " + std::to_string(c.layout.block_bytes()) + "-byte blocks (block_size " +
             std::to_string(c.layout.block_size) + ")");
  if (c.topk < 1 || c.topk > (1 << 20)) fail(field("topk").c_str(), std::to_string(c.topk), "expected 1 to 2^20 indices a row");
  const std::size_t want = static_cast<std::size_t>(batch) * s_q * c.topk;
  if (c.indices.size() != want)
    fail(field("indices").c_str(), std::to_string(c.indices.size()) + " values",
         "expected " + std::to_string(want) + ": [batch, s_q, topk]");
  if (!c.lengths.empty()) {
    if (c.lengths.size() != static_cast<std::size_t>(batch))
      fail(field("lengths").c_str(), std::to_string(c.lengths.size()) + " values", "expected one per batch entry");
    for (std::int32_t n : c.lengths)
      if (n < 0 || n > c.topk) fail(field("lengths").c_str(), std::to_string(n), "expected 0 to topk, " + std::to_string(c.topk));
  }
  // Only the positions a row counts are read: past lengths[b] an index may be anything.
  const std::int64_t tokens = c.tokens();
  for (std::size_t i = 0; i < c.indices.size(); ++i) {
    const std::size_t row = i / c.topk;
    const std::size_t counted = c.lengths.empty() ? c.topk : c.lengths[row / s_q];
    if (i % c.topk < counted && (c.indices[i] < -1 || c.indices[i] >= tokens))
      fail(field("indices").c_str(),
           std::to_string(c.indices[i]) + " (batch " + std::to_string(row / s_q) + ", row " +
               std::to_string(row % s_q) + ", position " + std::to_string(i % c.topk) + ")",
           "expected -1 or a token of the cache, 0 to " + std::to_string(tokens - 1) +
               " (FlashMLA's kernel skips an index past the cache as if it were -1; it is more often a wrong block "
               "table than a choice, so it is named here: write -1 for no key)");
  }
}

namespace {

int blocks_of(int keys) { return (keys + kSparseBlockTokens - 1) / kSparseBlockTokens; }

}  // namespace

void SparseDecodeProblem::validate() const {
  if (batch < 1 || batch > 4096) fail("batch", std::to_string(batch), "expected 1 to 4096");
  if (s_q < 1 || s_q > 16) fail("s_q", std::to_string(s_q), "expected 1 to 16 query tokens a batch entry");
  if (heads < kSparseHeadsPerCta || heads % kSparseHeadsPerCta != 0 || heads > 65472)
    fail("heads", std::to_string(heads),
         "expected a multiple of 64 from 64 to 65472 (V4-Flash 64, V4-Pro 128): 64 heads a CTA");
  if (static_cast<long long>(batch) * s_q > 65535)
    fail("batch", std::to_string(batch), "expected batch · s_q at most 65535 (the grid's z)");
  if (static_cast<long long>(batch) * s_q * heads >= (1ll << 31))
    fail("heads", std::to_string(heads), "expected batch · s_q · heads below 2^31 (Q's rows, a TMA coordinate)");
  if (splits < 0 || splits > kSparseMaxSplits)
    fail("splits", std::to_string(splits), "expected 0 (the scheduler's choice) to " + std::to_string(kSparseMaxSplits));
  check_sparse_keys(keys, batch, s_q, "keys");
  if (extra) check_sparse_keys(*extra, batch, s_q, "extra");
  if (!sink.empty() && sink.size() != static_cast<std::size_t>(heads))
    fail("sink", std::to_string(sink.size()) + " values", "expected one per head, " + std::to_string(heads));
}

int SparseDecodeProblem::key_blocks() const { return blocks_of(keys.topk) + (extra ? blocks_of(extra->topk) : 0); }

int SparseDecodeProblem::split_count() const {
  return splits > 0 ? splits : sparse_decode_splits(batch, s_q, heads, key_blocks());
}

int sparse_decode_splits(int batch, int s_q, int heads, int key_blocks) {
  const long long ctas = static_cast<long long>(batch) * s_q * (heads / kSparseHeadsPerCta);
  const long long fill = (kSparseSms + ctas - 1) / ctas;
  return static_cast<int>(std::clamp<long long>(std::min<long long>(fill, key_blocks / 2), 1, kSparseMaxSplits));
}

namespace {
// Σ over rows of the keys they take (valid indices among the first lengths[b]).
double valid_keys(const SparseDecodeProblem& p, const SparseKeys& c) {
  double n = 0;
  for (int b = 0; b < p.batch; ++b)
    for (int s = 0; s < p.s_q; ++s) {
      const int len = c.lengths.empty() ? c.topk : c.lengths[static_cast<std::size_t>(b)];
      for (int j = 0; j < len; ++j)
        n += c.indices[(static_cast<std::size_t>(b) * p.s_q + s) * c.topk + j] >= 0 ? 1 : 0;
    }
  return n;
}
double all_valid_keys(const SparseDecodeProblem& p) { return valid_keys(p, p.keys) + (p.extra ? valid_keys(p, *p.extra) : 0); }
}  // namespace

double SparseDecodeProblem::flops() const { return 4.0 * Model1Layout::kDim * heads * all_valid_keys(*this); }

double SparseDecodeProblem::kv_bytes() const {
  return double(Model1Layout::kTokenBytes + Model1Layout::kScaleBytes) * (heads / kSparseHeadsPerCta) *
         all_valid_keys(*this);
}

}  // namespace tcgen::sparse_decode
