#pragma once
// How the host runs a kernel's threads.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

namespace tcgen::exec {

struct LaunchOptions {
  // Unset: deterministic. A thread runs until it blocks (a barrier, an
  // mbarrier wait, a warp collective whose other lanes have not arrived),
  // then the next runnable thread in index order runs.
  // Set: every call a thread makes into the architecture is a scheduling
  // point, and the next thread is drawn from the runnable ones with this
  // seed, so a race shows up as a different result under another seed; the
  // same seed repeats the run exactly.
  std::optional<std::uint64_t> shuffle_seed;
  // Each thread's stack: the kernel's frames and the model's calls run on it.
  std::size_t stack_bytes = 256 * 1024;
  // Holds tcgen05.mma → tcgen05.mma ordering to PTX's pipelined pairs (same
  // accumulator and shape): model::CtaConfig::strict_mma_pipelining. Off, the
  // model orders any two mma of one thread, as FA4 does (docs/model.md).
  bool strict_mma_pipelining = false;
  // PTX-letter rules (model/rule.hpp, severity) as errors:
  // model::CtaConfig::letters_as_errors. Off, they are counted warnings.
  bool letters_as_errors = false;
  // Operand provenance at each MMA: model::CtaConfig::provenance (docs/model.md, operand_not_a_tile).
  bool provenance = true;
  // The OS threads that run the grid's clusters at once, each on one of them
  // with its own schedule and seed (unit_pool.hpp): the same bits on any
  // number, unless CTAs meet through global memory or clusterlaunchcontrol
  // (which cluster takes a tile follows the OS threads). 0: one per core.
  unsigned threads = 0;
  // Called after each cluster (a CTA when each is its own), in the grid's
  // order, with the clusters done and the grid's total (a progress display);
  // may be empty.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  // The livelock watchdog: a thread that executes this many instructions in a row with no memory
  // write, no barrier and no progress of another warp is reported (0: never). Counted per thread, the
  // interpreter's unit; a warp's 32 threads run the same instructions, so it is also per warp. 2^27 is
  // 100 to 10,000 times what a thread of a real kernel executes between two stores or barriers, and
  // the interpreter (about 10 M instructions/s, bench_ptx) reaches it in about 15 s.
  std::uint64_t watchdog = std::uint64_t{1} << 27;
};

}  // namespace tcgen::exec
