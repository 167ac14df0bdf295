// The livelock watchdog (exec::LaunchOptions::watchdog) and the launch's heartbeat. A kernel whose
// thread branches to itself never blocks, so the deadlock check, which looks only when no fiber can
// run, never sees it: the program printed nothing, forever. The interpreter's loop counts each
// thread's instructions down; this is what happens when the count runs out. The heartbeat tells a
// display, meanwhile, that the launch is alive.
#include <sstream>

#include "thread.hpp"
#include "warp_lockstep.hpp"

namespace tcgen::ptx {

// Whether anything moved since the last look: a write or a block, wake or end of a fiber of this
// cluster, or another cluster's progress. This cluster's own progress is told to the others.
bool Thread::progressed() {
  const std::uint64_t local = cta_.writes + rt_.scheduler_events();
  bool moved = local != seen_local_;
  if (moved) grid_.progress.fetch_add(1, std::memory_order_relaxed);
  const std::uint64_t global = grid_.progress.load(std::memory_order_relaxed);
  moved = moved || global != seen_grid_;
  seen_local_ = local;
  seen_grid_ = global;
  return moved;
}

void Thread::beat() {
  const std::uint64_t executed = grid_.executed.fetch_add(kBeat, std::memory_order_relaxed) + kBeat;
  if (grid_.config.heartbeat)
    grid_.config.heartbeat({executed, grid_.ctas_done.load(std::memory_order_relaxed), grid_.ctas});
}

void Thread::watchdog(const Instruction& in) {
  watchdog_left_ = grid_.config.options.watchdog;
  // A warp in lockstep holds its other lanes back while this one runs: one of them may be what it
  // waits for, and progress elsewhere would not free it. The warp splits, and each lane goes on by
  // itself, before any look at progress.
  if (lockstep_ && lockstep_->running()) return lockstep_->split_soon();
  if (progressed()) return;
  // A GPU runs the other warps beside this one, and one of them may be about to set what it waits
  // for: let them run until they block, then look again.
  rt_.yield();
  if (progressed()) return;
  livelock(in);
}

namespace {

// The innermost loop around instruction `at`: the first backward branch at or after it that jumps to
// or before it, as [target, branch]; {at, at} if none (the pc left the loop's body for a moment).
std::pair<std::size_t, std::size_t> loop_around(const Function& f, std::size_t at) {
  for (std::size_t b = at; b < f.code.size(); ++b) {
    const Instruction& in = f.code[b];
    if (!in.opcode.starts_with("bra") || in.ops.empty() || in.ops[0].kind != Operand::Kind::label) continue;
    if (in.ops[0].ival >= 0 && static_cast<std::size_t>(in.ops[0].ival) <= at)
      return {static_cast<std::size_t>(in.ops[0].ival), b};
  }
  return {at, at};
}

}  // namespace

void Thread::livelock(const Instruction& in) {
  const Function& f = grid_.function;
  const auto [first, last] = loop_around(f, static_cast<std::size_t>(&in - f.code.data()));
  const Instruction &top = f.code[first], &bottom = f.code[last];
  std::ostringstream s;
  s << "warp " << warp() << " ran " << grid_.config.options.watchdog
    << " instructions in a row (per thread) with no memory write, no barrier and no progress of another "
       "warp: a livelock in the loop from PTX line "
    << top.line << " to " << bottom.line << " (" << bottom.text << ")";
  const std::string source = grid_.module.source_position(f, top.loc);
  if (!source.empty()) s << ", at " << source;
  std::string threads = rt_.threads_report(linear_);
  if (threads.ends_with('\n')) threads.pop_back();
  report(ThreadFault(FaultKind::launch_failure, "watchdog", s.str(),
                     "a loop that ends, or one that waits on a barrier or mbarrier (--watchdog N allows N "
                     "instructions, 0 never stops). The CTA's threads:\n" + threads),
         in);
}

}  // namespace tcgen::ptx
