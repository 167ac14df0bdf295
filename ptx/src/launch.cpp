#include "tcgen/ptx/launch.hpp"

#include <cstdio>
#include <cstring>

#include "tcgen/core/error.hpp"
#include "tcgen/exec/cta_runtime.hpp"
#include "tcgen/model/shared_memory.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

// The parameter buffer: each argument at its .param's offset, its size checked.
std::vector<std::uint8_t> parameters(const Function& f, std::span<const Argument> args) {
  if (args.size() != f.params.size())
    fail("kernel arguments", std::to_string(args.size()) + " for " + f.demangled,
         std::to_string(f.params.size()) + ", one per .param of the entry");
  std::vector<std::uint8_t> buffer(f.param_bytes, 0);
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Param& p = f.params[i];
    if (args[i].size() != p.bytes)
      fault("kernel argument " + std::to_string(i), std::to_string(args[i].size()) + " bytes",
           std::to_string(p.bytes) + " bytes, the size of .param " + p.name);
    std::memcpy(buffer.data() + p.offset, args[i].data(), p.bytes);
  }
  return buffer;
}

// setmaxnreg is executed by all four warps of a warpgroup, with the same count
// (PTX #miscellaneous-instructions-setmaxnreg): checked when the CTA is done.
void check_register_counts(const CtaState& state) {
  const auto& counts = state.register_counts;
  for (std::size_t w = 0; w < counts.size(); ++w) {
    const std::size_t first = w / 4 * 4;
    if (counts[w] == counts[first]) continue;
    const auto text = [](const std::vector<std::int64_t>& c) {
      std::string s;
      for (std::int64_t n : c) s += (s.empty() ? "" : ", ") + std::string(n < 0 ? "dec " : "inc ") + std::to_string(n < 0 ? -n : n);
      return s.empty() ? std::string("none") : s;
    };
    fault("setmaxnreg", "warp " + std::to_string(w) + ": " + text(counts[w]) + "; warp " + std::to_string(first) + ": " +
                            text(counts[first]),
          "the same setmaxnreg sequence in all four warps of warpgroup " + std::to_string(w / 4) +
              " (PTX #miscellaneous-instructions-setmaxnreg)");
  }
}

// .maxntid bounds the CTA's threads, .reqntid fixes each dimension (PTX
// #performance-tuning-directives-maxntid, -reqntid): a launch against them
// fails on the device, so it fails here.
void check_thread_directives(const Function& entry, const exec::Dim3& block) {
  for (const std::string& d : entry.directives) {
    const bool max = d.starts_with(".maxntid "), req = d.starts_with(".reqntid ");
    if (!max && !req) continue;
    unsigned dims[3] = {1, 1, 1};
    std::sscanf(d.c_str() + 9, "%u , %u , %u", &dims[0], &dims[1], &dims[2]);
    const std::string shape = std::to_string(block.x) + "x" + std::to_string(block.y) + "x" + std::to_string(block.z);
    if (max && block.count() > dims[0] * dims[1] * dims[2])
      fail("block", shape, "at most " + std::to_string(dims[0] * dims[1] * dims[2]) + " threads: the kernel says " + d);
    if (req && (block.x != dims[0] || block.y != dims[1] || block.z != dims[2]))
      fail("block", shape,
           std::to_string(dims[0]) + "x" + std::to_string(dims[1]) + "x" + std::to_string(dims[2]) +
               ": the kernel says " + d);
  }
}

}  // namespace

LaunchStats launch(const Module& module, const Function& entry, const LaunchConfig& config,
                   std::span<const Argument> args, std::span<const Allocation> memory) {
  if (!entry.entry) fail("kernel", entry.demangled, "an .entry: a .func cannot be launched");
  // A block of any size up to 1024 threads; the runtime pads the last warp (set_active_threads).
  const unsigned active = config.block.count(), threads = (active + 31) / 32 * 32;
  if (active == 0 || active > 1024)
    fail("block", std::to_string(config.block.x) + "x" + std::to_string(config.block.y) + "x" +
                      std::to_string(config.block.z),
         "1 to 1024 threads");
  check_thread_directives(entry, config.block);
  if (config.grid.count() == 0) fail("grid", 0, "at least one CTA in each dimension");
  if (config.cluster.count() != 1)
    fail("cluster", std::to_string(config.cluster.x) + "x" + std::to_string(config.cluster.y) + "x" +
                        std::to_string(config.cluster.z),
         "1x1x1: the host model runs clusters of one CTA (cta_group::2, multicast and distributed shared memory "
         "are not modelled)");
  const std::uint32_t smem = entry.dynamic_shared_base - exec::CtaRuntime::kSmemBase + config.dynamic_smem;
  if (smem > model::SharedMemory::kMaxBytes)
    fail("shared memory", std::to_string(entry.static_shared_bytes) + " static + " +
                              std::to_string(config.dynamic_smem) + " dynamic bytes",
         "at most 232448 bytes (227 KB) per CTA on sm_100");

  Grid grid{module, entry, config, parameters(entry, args), {memory.begin(), memory.end()}, 0, {}, {}};
  grid.memory.push_back({grid.params.data(), grid.params.size(), "the kernel's parameters", false});
  for (const Module::Storage& s : module.storage())
    grid.memory.push_back({reinterpret_cast<const void*>(s.begin), s.end - s.begin, *s.name, s.writable});

  LaunchStats stats;
  std::uint64_t index = 0;
  for (unsigned z = 0; z < config.grid.z; ++z)
    for (unsigned y = 0; y < config.grid.y; ++y)
      for (unsigned x = 0; x < config.grid.x; ++x, ++index) {
        exec::LaunchOptions options = config.options;
        if (options.shuffle_seed) options.shuffle_seed = *options.shuffle_seed + index;
        options.letters_as_errors = options.letters_as_errors || config.strict;
        exec::CtaRuntime cta({x, y, z}, config.grid, static_cast<int>(threads), smem, options);
        cta.set_active_threads(static_cast<int>(active));
        CtaState state;
        state.uniform.resize(threads / 32);
        state.register_counts.resize(threads / 32);
        cta.run([&](exec::HostArch& arch) {
          if (arch.thread_index() >= active) return;  // padding of a partial last warp
          Thread t(grid, state, cta, arch, static_cast<int>(arch.thread_index()));
          t.run();
        });
        check_register_counts(state);
        for (const auto& [rule, w] : cta.cta().warnings()) grid.warnings[model::name(rule)] += w.count;
        ++stats.ctas;
      }
  stats.instructions = grid.instructions;
  stats.warnings = grid.warnings;
  stats.printed = grid.printed;
  return stats;
}

}  // namespace tcgen::ptx
