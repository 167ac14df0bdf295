#include "tcgen/sparse_decode/run.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::sparse_decode {

SparseDecodeArrays::SparseDecodeArrays(const SparseDecodeProblem& p, std::span<const std::uint16_t> q) {
  p.validate();
  if (q.size() != p.q_elements())
    fail("q", std::to_string(q.size()) + " values", "expected " + std::to_string(p.q_elements()) + ": [batch, s_q, heads, 512]");
  run.splits = p.split_count();
  run.out.o.assign(p.q_elements(), 0);
  run.out.lse.assign(p.rows(), 0.0f);
  if (run.splits > 1) {
    o_split.assign(static_cast<std::size_t>(run.splits) * p.q_elements(), 0.0f);
    lse_split.assign(static_cast<std::size_t>(run.splits) * p.rows(), 0.0f);
  }
  at.q = q.data();
  at.cache = p.keys.cache.data();
  at.indices = p.keys.indices.data();
  at.lengths = p.keys.lengths.data();
  if (p.extra) {
    at.extra_cache = p.extra->cache.data();
    at.extra_indices = p.extra->indices.data();
    at.extra_lengths = p.extra->lengths.data();
  }
  at.sink = p.sink.data();
  at.o = run.out.o.data();
  at.lse = run.out.lse.data();
  at.o_split = o_split.data();
  at.lse_split = lse_split.data();
  memory = {{q.data(), q.size_bytes(), "Q"},
            {p.keys.cache.data(), p.keys.cache.size(), "cache"},
            {p.keys.indices.data(), p.keys.indices.size_bytes(), "indices"},
            {run.out.o.data(), run.out.o.size() * sizeof(std::uint16_t), "O", true},
            {run.out.lse.data(), run.out.lse.size() * sizeof(float), "LSE", true}};
  if (!p.keys.lengths.empty()) memory.push_back({p.keys.lengths.data(), p.keys.lengths.size_bytes(), "topk_length"});
  if (p.extra) {
    memory.push_back({p.extra->cache.data(), p.extra->cache.size(), "extra cache"});
    memory.push_back({p.extra->indices.data(), p.extra->indices.size_bytes(), "extra indices"});
    if (!p.extra->lengths.empty())
      memory.push_back({p.extra->lengths.data(), p.extra->lengths.size_bytes(), "extra topk_length"});
  }
  if (!p.sink.empty()) memory.push_back({p.sink.data(), p.sink.size_bytes(), "sink"});
  if (run.splits > 1) {
    memory.push_back({o_split.data(), o_split.size() * sizeof(float), "O of the splits", true});
    memory.push_back({lse_split.data(), lse_split.size() * sizeof(float), "LSE of the splits", true});
  }
}

template SparseDecodeRun run(const SparseDecodeProblem&, std::span<const std::uint16_t>, const exec::HostModel&);

}  // namespace tcgen::sparse_decode
