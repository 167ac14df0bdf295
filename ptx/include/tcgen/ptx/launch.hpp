#pragma once
// Running one .entry of a loaded PTX module over a grid on the host model,
// as cudaLaunchKernel would on a B200: every thread a fiber (exec's CTA
// runtime), every tcgen05, mbarrier and TMA instruction through the model
// with its rules, every global access checked against the memory the caller
// declares.
//
//   std::vector<ptx::Argument> args = {ptx::argument(params)};
//   ptx::launch(module, module.entry_instance("tcgen::gemm::gemm_kernel", typeid(G)),
//               {.grid = {n, 1, 1}, .block = {192, 1, 1}, .dynamic_smem = bytes}, args,
//               {{a.data(), a_bytes, "A"}, {d.data(), d_bytes, "D", true}});
//
// A broken rule stops the launch with ExecutionError (execution_error.hpp).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/launch_options.hpp"
#include "tcgen/ptx/module.hpp"
#include "tcgen/timing/machine.hpp"
#include "tcgen/timing/prediction.hpp"
#include "tcgen/timing/simulate.hpp"

namespace tcgen::ptx {

// Where a running launch stands, for a display that it is alive (LaunchConfig::heartbeat).
struct LaunchProgress {
  std::uint64_t instructions = 0;  // executed so far by all threads (to within 2^20 per CTA running)
  std::uint64_t ctas_done = 0, ctas = 0;
};

struct LaunchConfig {
  exec::Dim3 grid{1, 1, 1};
  exec::Dim3 block{32, 1, 1};        // its threads: a multiple of 32, at most 1024
  exec::Dim3 cluster{1, 1, 1};       // CTAs per cluster, dividing the grid; 16 at most (exec::host::check_cluster)
  std::uint32_t dynamic_smem = 0;    // bytes, as <<<grid, block, dynamic_smem>>>
  exec::LaunchOptions options{};     // schedule, strict mma pipelining
  // PTX-letter rules (those silicon-proven kernels break: the model's and
  // the interpreter's own) as errors, not counted warnings (docs/model.md,
  // severities); sets options.letters_as_errors too.
  bool strict = false;
  // The B200 timing model (docs/timing.md): each warp's trace is kept and replayed once the grid is
  // done. timing_sms > 0 runs only the clusters that SM count would run (a sample: the rest of the
  // grid is not computed); timeline keeps the spans of the first SM group for a trace file.
  const timing::Machine* timing = nullptr;
  int timing_sms = 0;
  bool timeline = false;
  // Called each time a CTA has executed another 2^20 instructions (about a tenth of a second), and
  // when a cluster is done, from the OS thread running it, so from several at once: a kernel that
  // spins, or runs for hours, shows that it does (tcgen run's progress line). May be empty.
  std::function<void(const LaunchProgress&)> heartbeat{};
  // Count the executions of each instruction (LaunchStats::executed): where a launch's time goes.
  bool profile = false;
  // A warp's lanes run in turn on one fiber and pass bar.sync as one (ptx/src/warp_lockstep.hpp), not
  // one fiber per thread; false: every thread on its own throughout. Off under timing and for a
  // kernel without bar.sync.
  bool lockstep = true;
  // %nsmid: the SMs of the device the program sees (a B200's 148, or fewer under tcgen run --sms).
  int sms = 148;
};

// One kernel argument's bytes, as cudaLaunchKernel's args[i] points to them.
using Argument = std::span<const std::uint8_t>;
template <class T>
Argument argument(const T& value) {
  static_assert(std::is_trivially_copyable_v<T>, "a kernel argument is copied byte for byte");
  return {reinterpret_cast<const std::uint8_t*>(&value), sizeof(T)};
}

// Host memory the kernel may access as global memory.
struct Allocation {
  const void* data = nullptr;
  std::uint64_t bytes = 0;
  std::string name;
  bool writable = false;
};

struct LaunchStats {
  std::uint64_t instructions = 0;  // executed by all threads, guards that failed included
  std::uint64_t ctas = 0;
  std::map<std::string, std::uint64_t> warnings;  // PTX-letter rules broken: rule → times
  // rule → where it was first broken (the CTA first in grid order that broke it): the CUDA file:line,
  // the PTX line, kernel, block, warp and lane, then the rule's message.
  std::map<std::string, std::string> first_warning;
  std::string printed;                             // what device printf wrote (also to stdout), in order
  std::vector<timing::Prediction> timing;          // under LaunchConfig::timing, one per launch
  std::vector<std::vector<timing::Span>> timelines;  // under LaunchConfig::timeline, one per launch
  // Under LaunchConfig::profile: per instruction of the entry (Function::code, by index), the threads
  // that executed it, guards that failed included; they add up to `instructions`.
  std::vector<std::uint64_t> executed;

  // A later launch's counts added to these (a kernel's follow-up launch: the
  // sparse decode's combine step); a rule's first break stays the earlier one.
  // `executed` adds up only over launches of one entry: another's is an error.
  LaunchStats& operator+=(const LaunchStats& next);
};

// The launch-shape directives of an entry (PTX #performance-tuning-directives):
// .maxntid, .reqntid and .reqnctapercluster as x, y, z (missing dimensions 1);
// unset when absent. Throws tcgen::Error for one that does not parse.
struct LaunchBounds {
  std::optional<exec::Dim3> maxntid, reqntid, reqnctapercluster;
};
LaunchBounds launch_bounds(const Function& entry);
// The CTAs per cluster a launch runs with: the kernel's .reqnctapercluster, else the config's.
exec::Dim3 cluster_shape(const Function& entry, const LaunchConfig& config);

// What a device refuses before the kernel starts, as launch() checks it:
// an .entry; block dimensions at most 1024 × 1024 × 64 and 1024 threads, and
// within the kernel's .maxntid/.reqntid; grid dimensions at most
// (2^31 - 1) × 65535 × 65535; a cluster shape (cluster_shape) of 1 to 16
// CTAs that divides the grid; at most 227 KB of shared memory; one
// argument of the right size per .param. Throws tcgen::Error naming the field.
void check_launch(const Function& entry, const LaunchConfig& config, std::span<const Argument> args);

// check_launch, then the grid. Throws tcgen::Error for a launch the kernel
// cannot take; once a thread runs, ExecutionError for what a thread does, and
// a DeadlockError or tcgen::Error of the runtime for what the CTA does
// (a deadlock, a setmaxnreg mismatch).
LaunchStats launch(const Module& module, const Function& entry, const LaunchConfig& config,
                   std::span<const Argument> args, std::span<const Allocation> memory);

}  // namespace tcgen::ptx
