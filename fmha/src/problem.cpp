#include "tcgen/fmha/problem.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::fmha {

FmhaProblem FmhaProblem::make(int batch, int heads, int heads_kv, int seq_q, int seq_k, int head_dim, FmhaMask mask,
                              ElementType dtype) {
  FmhaProblem p;
  p.batch = batch;
  p.heads = heads;
  p.heads_kv = heads_kv;
  p.seq_q = seq_q;
  p.seq_k = seq_k;
  p.head_dim = head_dim;
  p.dtype = dtype;
  p.mask = mask;
  p.scale = attention::SoftmaxScale::for_head_dim(head_dim);
  return p;
}

void FmhaProblem::validate() const {
  // The kernel's grid is (Q tiles, heads, batch); CUDA allows 65535 in y and z.
  if (batch <= 0 || batch > 65535) fail("batch", batch, "expected a batch size from 1 to 65535");
  if (heads <= 0 || heads > 65535) fail("heads", heads, "expected 1 to 65535 query heads");
  if (heads_kv <= 0 || heads % heads_kv != 0)
    fail("heads_kv", std::to_string(heads_kv),
         "expected a positive divisor of the number of query heads, " + std::to_string(heads) +
             " (grouped-query attention: each K/V head serves heads / heads_kv of them)");
  if (seq_q <= 0) fail("seq_q", seq_q, "expected a positive query length");
  if (seq_k <= 0) fail("seq_k", seq_k, "expected a positive key length");
  if (head_dim != 64 && head_dim != 128 && head_dim != 256) fail("head_dim", head_dim, "expected 64, 128 or 256");
  if (dtype != ElementType::bf16 && dtype != ElementType::fp16)
    fail("dtype", name(dtype), "expected bf16 or fp16");
  if (mask.left < -1) fail("mask.left", mask.left, "expected -1 (unbounded) or a window extent >= 0");
  if (mask.right < -1) fail("mask.right", mask.right, "expected -1 (unbounded) or a window extent >= 0");
}

std::size_t FmhaProblem::q_elements() const { return std::size_t(batch) * heads * seq_q * head_dim; }
std::size_t FmhaProblem::kv_elements() const { return std::size_t(batch) * heads_kv * seq_k * head_dim; }
std::size_t FmhaProblem::lse_elements() const { return std::size_t(batch) * heads * seq_q; }

void FmhaProblem::check_sizes(std::size_t q, std::size_t k, std::size_t v) const {
  const auto count = [](std::size_t n) { return std::to_string(n) + " elements"; };
  if (q != q_elements()) fail("q", count(q), "batch x heads x seq_q x head_dim = " + std::to_string(q_elements()));
  const std::string kv = "batch x heads_kv x seq_k x head_dim = " + std::to_string(kv_elements());
  if (k != kv_elements()) fail("k", count(k), kv);
  if (v != kv_elements()) fail("v", count(v), kv);
}

double FmhaProblem::flops() const {
  std::int64_t pairs = 0;
  for (int i = 0; i < seq_q; ++i) {
    const KeyRange r = mask.keys(i, seq_q, seq_k);
    pairs += std::max(0, r.end - r.begin);
  }
  // Two GEMMs (S = Q·Kᵀ and O += P·V), 2 FLOPs per multiply-add, head_dim each.
  return 4.0 * head_dim * double(pairs) * batch * heads;
}

}  // namespace tcgen::fmha
