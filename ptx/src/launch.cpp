#include "tcgen/ptx/launch.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>

#include "tcgen/core/error.hpp"
#include "tcgen/exec/cluster_runtime.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/exec/unit_pool.hpp"
#include "tcgen/model/shared_memory.hpp"
#include "thread.hpp"
#include "warp_recorder.hpp"

namespace tcgen::ptx {

namespace {

// The parameter buffer: each argument (its size checked by check_launch) at its .param's offset.
std::vector<std::uint8_t> parameters(const Function& f, std::span<const Argument> args) {
  std::vector<std::uint8_t> buffer(f.param_bytes, 0);
  for (std::size_t i = 0; i < args.size(); ++i) std::memcpy(buffer.data() + f.params[i].offset, args[i].data(), f.params[i].bytes);
  return buffer;
}

// setmaxnreg is executed by all four warps of a warpgroup, with the same count
// (PTX #miscellaneous-instructions-setmaxnreg): checked when the CTA is done.
// PTX asks the four warps of a warpgroup to run the same setmaxnreg (.sync.aligned); CUTLASS's FMHA
// (77_blackwell_fmha, B200s) gives its idle warp another count than the MMA, load and epilogue warps of
// its warpgroup, and its generation kernel (77_blackwell_fmha_gen) raises one warp's count (inc 192)
// where the other three lower theirs (dec 24): as many steps, whatever their counts and directions,
// are a PTX letter, counted once per warp that differs; a warp that skips a step stays a fault.
void check_register_counts(CtaState& state, const LaunchConfig& config, const std::string& block) {
  const auto& counts = state.register_counts;
  for (std::size_t w = 0; w < counts.size(); ++w) {
    const std::size_t first = w / 4 * 4;
    if (counts[w] == counts[first]) continue;
    const bool same_steps = counts[w].size() == counts[first].size();
    const auto text = [](const std::vector<std::int64_t>& c) {
      std::string s;
      for (std::int64_t n : c) s += (s.empty() ? "" : ", ") + std::string(n < 0 ? "dec " : "inc ") + std::to_string(n < 0 ? -n : n);
      return s.empty() ? std::string("none") : s;
    };
    const std::string value = "warp " + std::to_string(w) + ": " + text(counts[w]) + "; warp " + std::to_string(first) +
                              ": " + text(counts[first]);
    const std::string expected = "the same setmaxnreg sequence in all four warps of warpgroup " + std::to_string(w / 4) +
                                 " (PTX #miscellaneous-instructions-setmaxnreg)";
    if (!same_steps) fault("setmaxnreg", value, expected);
    state.raise(config, model::Rule::setmaxnreg_not_uniform, block + ", warpgroup " + std::to_string(w / 4), "setmaxnreg", value,
               expected);
  }
}

std::string shape(const exec::Dim3& d) {
  return std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
}
std::uint64_t count(const exec::Dim3& d) { return std::uint64_t{d.x} * d.y * d.z; }

}  // namespace

exec::Dim3 cluster_shape(const Function& entry, const LaunchConfig& config) {
  return launch_bounds(entry).reqnctapercluster.value_or(config.cluster);
}

LaunchBounds launch_bounds(const Function& entry) {
  LaunchBounds b;
  for (const std::string& d : entry.directives) {
    std::optional<exec::Dim3>* into = d.starts_with(".maxntid ")             ? &b.maxntid
                                      : d.starts_with(".reqntid ")           ? &b.reqntid
                                      : d.starts_with(".reqnctapercluster ") ? &b.reqnctapercluster
                                                                             : nullptr;
    if (!into) continue;
    unsigned x = 1, y = 1, z = 1;
    if (std::sscanf(d.c_str() + d.find(' ') + 1, "%u , %u , %u", &x, &y, &z) < 1 || x == 0 || y == 0 || z == 0)
      fail("directive", d, "a directive with 1 to 3 positive dimensions (PTX #performance-tuning-directives)");
    *into = exec::Dim3{x, y, z};
  }
  return b;
}

void check_launch(const Function& entry, const LaunchConfig& config, std::span<const Argument> args) {
  if (!entry.entry) fail("kernel", entry.demangled, "an .entry: a .func cannot be launched");
  const exec::Dim3 &block = config.block, &grid = config.grid;
  // CUDA's limits for compute capability 10.0 (CUDA C++ Programming Guide, Table 23).
  if (count(block) == 0 || count(block) > 1024 || block.x > 1024 || block.y > 1024 || block.z > 64)
    fail("block", shape(block), "1 to 1024 threads, at most 1024 x 1024 x 64");
  const LaunchBounds bounds = launch_bounds(entry);
  if (bounds.maxntid && count(block) > count(*bounds.maxntid))
    fail("block", shape(block), "at most " + std::to_string(count(*bounds.maxntid)) + " threads: the kernel says .maxntid " +
                                    shape(*bounds.maxntid));
  if (bounds.reqntid && (block.x != bounds.reqntid->x || block.y != bounds.reqntid->y || block.z != bounds.reqntid->z))
    fail("block", shape(block), shape(*bounds.reqntid) + ": the kernel says .reqntid " + shape(*bounds.reqntid));
  if (count(grid) == 0 || grid.x > 0x7FFFFFFFu || grid.y > 65535 || grid.z > 65535)
    fail("grid", shape(grid), "1 to 2^31 - 1 CTAs along x, 1 to 65535 along y and z");
  try {
    exec::host::check_cluster(grid, cluster_shape(entry, config));
  } catch (const Error& e) {
    if (!bounds.reqnctapercluster) throw;
    fail(e.field().c_str(), e.value() + " (the kernel's .reqnctapercluster)", e.expected());
  }
  const std::uint64_t smem = std::uint64_t{entry.dynamic_shared_base} - exec::CtaRuntime::kSmemBase + config.dynamic_smem;
  if (smem > model::SharedMemory::kMaxBytes)
    fail("shared memory", std::to_string(entry.static_shared_bytes) + " static + " +
                              std::to_string(config.dynamic_smem) + " dynamic bytes",
         "at most " + std::to_string(model::SharedMemory::kMaxBytes) + " bytes (227 KB) per CTA on sm_100");
  if (args.size() != entry.params.size())
    fail("kernel arguments", std::to_string(args.size()) + " for " + entry.demangled,
         std::to_string(entry.params.size()) + ", one per .param of the entry");
  for (std::size_t i = 0; i < args.size(); ++i)
    if (args[i].size() != entry.params[i].bytes)
      fail(("kernel argument " + std::to_string(i)).c_str(), std::to_string(args[i].size()) + " bytes",
           std::to_string(entry.params[i].bytes) + " bytes, the size of .param " + entry.params[i].name);
}

LaunchStats& LaunchStats::operator+=(const LaunchStats& next) {
  instructions += next.instructions;
  ctas += next.ctas;
  for (const auto& [rule, n] : next.warnings) warnings[rule] += n;
  for (const auto& [rule, text] : next.first_warning) first_warning.try_emplace(rule, text);
  printed += next.printed;
  timing.insert(timing.end(), next.timing.begin(), next.timing.end());
  timelines.insert(timelines.end(), next.timelines.begin(), next.timelines.end());
  if (executed.empty()) {
    executed = next.executed;
  } else if (!next.executed.empty()) {
    if (next.executed.size() != executed.size())
      fail("profile", "launches of two kernels", "the instruction counts of launches of one entry");
    for (std::size_t i = 0; i < executed.size(); ++i) executed[i] += next.executed[i];
  }
  return *this;
}

namespace {

// One launch's run: its grid of clusters, each run as a unit on some OS thread (run_cluster), and
// each finished in the grid's order (finish_cluster), where what its CTAs counted and printed joins
// the launch's statistics; then, under timing, the trace replayed (simulate).
// Whether f issues a tcgen05.mma, the one reader of operand provenance.
bool has_mma(const Function& f) {
  return std::any_of(f.code.begin(), f.code.end(), [](const Instruction& in) { return in.opcode.starts_with("tcgen05.mma"); });
}

class GridRun {
 public:
  GridRun(const Module& module, const Function& entry, const LaunchConfig& config, std::span<const Argument> args,
          std::span<const Allocation> memory)
      : entry_(entry), config_(config),
        lockstep_(config.lockstep && !config.timing),
        // A block of any size up to 1024 threads; the runtime pads the last warp (set_active_threads).
        active_(static_cast<unsigned>(count(config.block))), threads_((active_ + 31) / 32 * 32),
        smem_(static_cast<std::uint32_t>(entry.dynamic_shared_base - exec::CtaRuntime::kSmemBase + config.dynamic_smem)),
        grid_{module, entry, config, parameters(entry, args), {memory.begin(), memory.end()}, {},
              config.options.provenance && has_mma(entry), {}},
        cluster_(cluster_shape(entry, config)),
        clusters_{config.grid.x / cluster_.x, config.grid.y / cluster_.y, config.grid.z / cluster_.z},
        units_(count(clusters_)) {
    grid_.memory.push_back({grid_.params.data(), grid_.params.size(), "the kernel's parameters", false});
    for (const Module::Storage& s : module.storage())
      grid_.memory.push_back({reinterpret_cast<const void*>(s.begin), s.end - s.begin, *s.name, s.writable});
    for (std::size_t i = 0; i < grid_.memory.size(); ++i) grid_.by_start.push_back(i);
    std::sort(grid_.by_start.begin(), grid_.by_start.end(), [&](std::size_t x, std::size_t y) {
      return std::less<const void*>()(grid_.memory[x].data, grid_.memory[y].data);
    });
    grid_.ctas = units_ * count(cluster_);
    // The timing trace: which clusters run (all, or a sample's), and what each left.
    if (config.timing) {
      placement_ = timing::place(*config.timing, units_, static_cast<int>(count(cluster_)), active_, smem_);
      for (std::uint64_t g : placement_->sampled_groups(config.timing_sms, static_cast<int>(count(cluster_))))
        sampled_groups_.insert(g);
    }
  }

  std::uint64_t units() const { return units_; }
  void run_cluster(std::uint64_t index, exec::UnitPool& pool);
  void finish_cluster(std::uint64_t index);
  LaunchStats finish();

 private:
  std::vector<CtaState>& states_of(std::uint64_t index) {
    const std::lock_guard lock(states_lock_);
    return states_[index];
  }

  const Function& entry_;
  const LaunchConfig& config_;
  // Warps in lockstep (warp_lockstep.hpp): not under timing, where lane 0 records its warp's trace as
  // it runs on its own fiber.
  const bool lockstep_;
  const unsigned active_, threads_;
  const std::uint32_t smem_;
  Grid grid_;
  const exec::Dim3 cluster_, clusters_;
  const std::uint64_t units_;
  // Each CTA's state lives from its cluster's run to its finish.
  std::mutex states_lock_;
  std::map<std::uint64_t, std::vector<CtaState>> states_;
  LaunchStats stats_;
  std::optional<timing::Placement> placement_;
  std::set<std::uint64_t> sampled_groups_;
  timing::LaunchTrace trace_;
  TouchedChunks touched_;
  std::mutex trace_lock_;
};

void GridRun::run_cluster(std::uint64_t index, exec::UnitPool& pool) {
  if (placement_ && !sampled_groups_.contains(placement_->group_of(index))) return;  // outside the sample
  exec::LaunchOptions options = config_.options;
  if (options.shuffle_seed) options.shuffle_seed = *options.shuffle_seed + index;
  options.letters_as_errors = options.letters_as_errors || config_.strict;
  exec::ClusterRuntime c(clusters_.at(index), cluster_, config_.grid, static_cast<int>(threads_), smem_, options, &pool);
  c.set_active_threads(static_cast<int>(active_));
  // A rule first broken is placed at the instruction of the thread running then (fiber tags).
  for (int rank = 0; rank < c.size(); ++rank)
    c.cta(rank).cta().set_locator([&rt = c.cta(rank)] {
      const auto* t = static_cast<const Thread*>(rt.fiber_tag());
      return t ? t->where_now() : std::string();
    });
  std::vector<CtaState>& ctas = states_of(index);
  ctas.resize(static_cast<std::size_t>(c.size()));
  for (CtaState& state : ctas) {
    state.uniform.resize(threads_ / 32);
    state.register_counts.resize(threads_ / 32);
    if (config_.profile) state.executed.assign(entry_.code.size(), 0);
    if (config_.timing) state.warp_traces.resize(threads_ / 32);
    if (lockstep_)
      for (unsigned w = 0; w < threads_ / 32; ++w) {
        const unsigned lanes = std::min(32u, active_ - std::min(active_, 32 * w));
        state.lockstep.emplace_back(lanes == 32 ? ~0u : (1u << lanes) - 1);
      }
  }
  // The arrivals and complete_tx an instruction applies: the phases its record completes.
  if (config_.timing)
    for (int rank = 0; rank < c.size(); ++rank)
      c.cta(rank).cta().set_mbarrier_hook([&rt = c.cta(rank), rank](std::uint32_t mbar, std::uint64_t phase) {
        const auto* t = static_cast<const Thread*>(rt.fiber_tag());
        if (t && t->recorder())
          t->recorder()->signal(static_cast<std::uint32_t>(rank), mbar & exec::ClusterRuntime::kOffsetMask, phase);
      });
  // The threads side by side, not each on its fiber's stack: a warp in lockstep runs its 32 in turn,
  // and 32 pages apart they missed the cache and the TLB at every turn.
  std::vector<std::optional<Thread>> threads(static_cast<std::size_t>(c.size()) * threads_);
  const std::size_t warps = (threads_ + kWarpLanes - 1) / kWarpLanes;
  WarpRegisters registers(static_cast<std::size_t>(c.size()) * warps, grid_.function.registers);
  c.run([&](exec::HostArch& arch) {
    if (arch.thread_index() >= active_) return;  // padding of a partial last warp
    const int rank = static_cast<int>(arch.cluster_rank());
    CtaState& state = ctas[static_cast<std::size_t>(rank)];
    std::optional<Thread>& slot = threads[static_cast<std::size_t>(rank) * threads_ + arch.thread_index()];
    struct Ends {
      std::optional<Thread>& slot;
      ~Ends() { slot.reset(); }
    } ends{slot};
    const std::size_t warp = static_cast<std::size_t>(rank) * warps + arch.thread_index() / kWarpLanes;
    Thread& t = slot.emplace(grid_, state, c.cta(rank), static_cast<int>(arch.thread_index()), registers, warp);
    std::optional<WarpRecorder> recorder;
    if (config_.timing && arch.thread_index() % 32 == 0)
      recorder.emplace(state.warp_traces[arch.thread_index() / 32], state.touched, index, static_cast<std::uint32_t>(rank));
    if (config_.timing) t.set_timing(recorder ? &*recorder : nullptr, &state.touched);
    if (!state.lockstep.empty()) t.set_lockstep(&state.lockstep[arch.thread_index() / 32]);
    t.run();
  });
  for (int rank = 0; rank < c.size(); ++rank) {
    CtaState& state = ctas[static_cast<std::size_t>(rank)];
    const exec::Dim3 b = c.cta(rank).block();
    check_register_counts(state, config_,
                          "block (" + std::to_string(b.x) + ", " + std::to_string(b.y) + ", " + std::to_string(b.z) + ")");
    for (const auto& [rule, w] : c.cta(rank).cta().warnings()) {
      state.warnings[model::name(rule)] += w.count;
      state.first_warning.try_emplace(model::name(rule), w.where.empty() ? w.first : w.where + ": " + w.first);
    }
  }
}

void GridRun::finish_cluster(std::uint64_t index) {
  std::vector<CtaState> ctas = [&] {
    const std::lock_guard lock(states_lock_);
    std::vector<CtaState> s = std::move(states_[index]);
    states_.erase(index);
    return s;
  }();
  if (config_.timing && !ctas.empty()) {
    const std::lock_guard lock(trace_lock_);
    timing::ClusterTrace& unit = trace_.clusters.emplace_back();
    unit.index = index;
    for (std::size_t rank = 0; rank < ctas.size(); ++rank) {
      unit.ctas.push_back({static_cast<std::uint32_t>(rank), std::move(ctas[rank].warp_traces)});
      touched_.read.merge(ctas[rank].touched.read);
      touched_.written.merge(ctas[rank].touched.written);
    }
  }
  for (const CtaState& state : ctas) {
    std::fwrite(state.printed.data(), 1, state.printed.size(), stdout);
    stats_.printed += state.printed;
    stats_.instructions += state.instructions;
    grid_.executed.fetch_add(state.instructions % Thread::kBeat, std::memory_order_relaxed);  // beat() had the rest
    grid_.ctas_done.fetch_add(1, std::memory_order_relaxed);
    if (stats_.executed.empty()) stats_.executed.assign(state.executed.size(), 0);
    for (std::size_t i = 0; i < state.executed.size(); ++i) stats_.executed[i] += state.executed[i];
    for (const auto& [rule, n] : state.warnings) stats_.warnings[rule] += n;
    for (const auto& [rule, text] : state.first_warning) stats_.first_warning.try_emplace(rule, text);
    ++stats_.ctas;
  }
  std::fflush(stdout);
  if (config_.options.progress) config_.options.progress(index + 1, units_);
  // A grid of many short CTAs beats here: none of them may reach Thread::kBeat on its own.
  if (config_.heartbeat)
    config_.heartbeat({grid_.executed.load(std::memory_order_relaxed), grid_.ctas_done.load(std::memory_order_relaxed),
                       grid_.ctas});
}

LaunchStats GridRun::finish() {
  if (!config_.timing) return std::move(stats_);
  trace_.kernel = entry_.demangled;
  const exec::Dim3 dims[3] = {config_.grid, config_.block, cluster_};
  std::uint32_t* into[3] = {trace_.grid, trace_.block, trace_.cluster};
  for (int i = 0; i < 3; ++i) into[i][0] = dims[i].x, into[i][1] = dims[i].y, into[i][2] = dims[i].z;
  trace_.threads = active_;
  trace_.smem_bytes = smem_;
  trace_.clusters_total = units_;
  for (const Allocation& a : grid_.memory) {
    const auto begin = reinterpret_cast<std::uint64_t>(a.data) >> 12,
               end = (reinterpret_cast<std::uint64_t>(a.data) + a.bytes + 4095) >> 12;
    timing::MemoryUse use{a.name, a.bytes, 0, 0};
    for (std::uint64_t c : touched_.read) use.chunks_read += c >= begin && c < end;
    for (std::uint64_t c : touched_.written) use.chunks_written += c >= begin && c < end;
    if (use.chunks_read || use.chunks_written) trace_.memory.push_back(use);
  }
  std::vector<timing::Span> spans;
  stats_.timing.push_back(timing::simulate(trace_, *placement_, *config_.timing, config_.timeline ? &spans : nullptr));
  if (config_.timeline) stats_.timelines.push_back(std::move(spans));
  return std::move(stats_);
}

}  // namespace

LaunchStats launch(const Module& module, const Function& entry, const LaunchConfig& config,
                   std::span<const Argument> args, std::span<const Allocation> memory) {
  check_launch(entry, config, args);
  GridRun run(module, entry, config, args, memory);
  exec::UnitPool pool(run.units(), config.options.threads);
  // clusterlaunchcontrol.try_cancel finds no cluster under timing: the host runs two or so clusters at
  // once, which would take every other's work; each then runs its own, placed as the hardware launches.
  if (config.timing) pool.refuse_cancels();
  pool.run([&](std::uint64_t index) { run.run_cluster(index, pool); },
           [&](std::uint64_t index) { run.finish_cluster(index); });
  return run.finish();
}

}  // namespace tcgen::ptx
