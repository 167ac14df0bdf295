#include "tcgen/attention/sparse_decode_runner.hpp"

#include <chrono>
#include <limits>
#include <string>
#include <vector>

#include "tcgen/attention/sparse_decode_combine.hpp"
#include "tcgen/attention/sparse_decode_kernel.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/ptx/device_layout.hpp"

namespace tcgen::attention {

namespace {

// The outputs and the split workspace of one run, and where the kernels find every array.
struct Arrays {
  SparseDecodeRun run;
  std::vector<float> o_split, lse_split;
  SparseDecodeBuffers at;

  Arrays(const SparseDecodeProblem& p, std::span<const std::uint16_t> q) {
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
  }
  SparseDecodeCombine::Params combine(const SparseDecodeProblem& p) const {
    return {at.o_split, at.lse_split, run.splits, p.heads, p.rows(), at.sink, at.o, at.lse};
  }
};

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

SparseDecodeRun run(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q, const exec::HostModel& backend) {
  Arrays x(problem, q);
  const auto start = std::chrono::steady_clock::now();
  const auto p = SparseDecode::params<exec::HostArch>(problem, exec::host_tensor_map_of, x.at);
  exec::host::launch(SparseDecode::grid(problem), SparseDecode::kThreads, SparseDecode::kSmemBytes,
                     [&](exec::HostArch& a) { SparseDecode::run(a, p); }, backend.launch);
  if (x.run.splits > 1) {
    const SparseDecodeCombine::Params c = x.combine(problem);
    exec::host::launch(SparseDecodeCombine::grid(c.rows), SparseDecodeCombine::kThreads, 0,
                       [&](exec::HostArch& a) { SparseDecodeCombine::run(a, c); }, backend.launch);
  }
  x.run.stats.seconds = since(start);
  return std::move(x.run);
}

SparseDecodeRun run(const SparseDecodeProblem& problem, std::span<const std::uint16_t> q, const ptx::Interpreter& backend) {
  Arrays x(problem, q);
  const auto encode = [](const tma::TensorMapSpec& spec, const void* tensor) { return ptx::encode_tensor_map(spec, tensor); };
  const ptx::Module& module = backend.module;
  const auto start = std::chrono::steady_clock::now();
  const auto p = SparseDecode::params<ptx::DeviceLayout>(problem, encode, x.at);
  std::vector<ptx::Allocation> memory = {
      {q.data(), q.size_bytes(), "Q"},
      {problem.keys.cache.data(), problem.keys.cache.size(), "cache"},
      {problem.keys.indices.data(), problem.keys.indices.size_bytes(), "indices"},
      {x.run.out.o.data(), x.run.out.o.size() * sizeof(std::uint16_t), "O", true},
      {x.run.out.lse.data(), x.run.out.lse.size() * sizeof(float), "LSE", true}};
  if (!problem.keys.lengths.empty()) memory.push_back({problem.keys.lengths.data(), problem.keys.lengths.size_bytes(), "topk_length"});
  if (problem.extra) {
    memory.push_back({problem.extra->cache.data(), problem.extra->cache.size(), "extra cache"});
    memory.push_back({problem.extra->indices.data(), problem.extra->indices.size_bytes(), "extra indices"});
    if (!problem.extra->lengths.empty())
      memory.push_back({problem.extra->lengths.data(), problem.extra->lengths.size_bytes(), "extra topk_length"});
  }
  if (!problem.sink.empty()) memory.push_back({problem.sink.data(), problem.sink.size_bytes(), "sink"});
  if (x.run.splits > 1) {
    memory.push_back({x.o_split.data(), x.o_split.size() * sizeof(float), "O of the splits", true});
    memory.push_back({x.lse_split.data(), x.lse_split.size() * sizeof(float), "LSE of the splits", true});
  }
  const ptx::Argument args[] = {ptx::argument(p)};
  // As exec::device::launch: 1 KiB beyond the kernel's bytes for smem_base() to align.
  const ptx::LaunchStats s = ptx::launch(
      module, module.entry_instance("tcgen::attention::sparse_decode_kernel", typeid(SparseDecode)),
      {.grid = SparseDecode::grid(problem), .block = {SparseDecode::kThreads, 1, 1},
       .dynamic_smem = SparseDecode::kSmemBytes + exec::kSmemAlignment, .options = backend.launch, .strict = backend.strict},
      args, memory);
  x.run.stats = ptx::run_stats(s, 0);
  if (x.run.splits > 1) {
    const SparseDecodeCombine::Params c = x.combine(problem);
    const ptx::Argument combine_args[] = {ptx::argument(c)};
    const ptx::LaunchStats sc = ptx::launch(
        module, module.entry_instance("tcgen::attention::sparse_decode_combine_kernel", typeid(SparseDecodeCombine)),
        {.grid = SparseDecodeCombine::grid(c.rows), .block = {SparseDecodeCombine::kThreads, 1, 1},
         .dynamic_smem = 0, .options = backend.launch, .strict = backend.strict},
        combine_args, memory);
    x.run.stats.ptx_instructions += sc.instructions;
    x.run.stats.ptx_ctas += sc.ctas;
    for (const auto& [rule, n] : sc.warnings) x.run.stats.ptx_warnings[rule] += n;
    for (const auto& [rule, text] : sc.first_warning) x.run.stats.ptx_first_warning.try_emplace(rule, text);
  }
  x.run.stats.seconds = since(start);
  return std::move(x.run);
}

}  // namespace tcgen::attention
