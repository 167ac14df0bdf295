#pragma once
// A warp's lanes on one fiber, an instruction at a time. A thread per fiber switched fibers at
// every bar.sync, once per thread, and ran its instructions alone, one handler after another; a GPU
// passes a barrier once per warp and issues an instruction once for its lanes. So the fiber of a
// warp's lowest lane (the leader) runs its lanes while the other lanes' fibers wait parked
// (exec::CtaRuntime::park): the lanes at the warp's lowest pc run its instruction, one after
// another on their own Threads (registers, memory, rules and reports as on their own fibers) or at
// once through the handler's warp form (Instruction::warp, decode.hpp), then the next, until a
// branch or the pc where other lanes wait; the rest wait where they are. The two sides of a branch
// thus run in turn and meet where they join or the loop ends, as a GPU's reconvergence has them (a
// forward branch some lanes take waits for the others at its target within the group:
// thread_lockstep.cpp); a lane that exits leaves the others. Meanwhile the lanes' pcs and
// instruction counts are the warp's (LockstepLanes), given back to their Threads when it splits. When every lane has stopped at the same bar.sync (PTX
// #parallel-synchronization-and-communication-instructions-bar) with immediate id and count, that
// is the warp's arrival: the other lanes count it, the leader's arrival brings theirs, and it
// waits; then the lanes run on. Any other stop (shfl, vote, mbarrier, tcgen05, ...:
// Instruction::lane_step), a stop where not every lane is (or some exited), a bar.sync with
// register operands, or a lane's livelock watchdog running out (its warp-mates, held back, may be
// what it waits for) splits the warp for good: each lane goes on from its own pc on its own fiber,
// as without lockstep. Off under timing, where lane 0 records its warp's trace as it runs.
#include <array>
#include <cstdint>
#include <string_view>

#include "tcgen/ptx/instruction.hpp"
#include "tcgen/ptx/opcode_table.hpp"

namespace tcgen::ptx {

class Thread;
struct Opcode;

// How a warp in lockstep runs an opcode of row `row` of family `family` (Instruction::lane_step).
LaneStep lane_step(std::string_view row, Family family, const Opcode& op);

// What a warp in lockstep keeps of its lanes while its leader runs them, in place of their Threads'
// own pc and watchdog count, which it brings up to date when the warp splits (and a watchdog count
// when one may run out: Thread::settle).
struct LockstepLanes {
  std::array<Thread*, 32> threads{};
  std::uint32_t joined = 0;                 // the lanes that came (threads[l] set)
  std::array<std::uint32_t, 32> pcs{};      // each lane's pc, ~0 once it exited or if it never runs
  std::array<std::uint64_t, 32> ran{};      // instructions each ran since its watchdog count was settled
  std::uint64_t slack = 0;                  // instructions any lane may run before a count could run out
  const Thread* running = nullptr;          // the lane whose handler runs (WarpLockstep::running)
};

class WarpLockstep {
 public:
  // `lanes`: the warp's threads that run (those of a partial last warp's padding do not).
  explicit WarpLockstep(std::uint32_t lanes);

  // Called by each lane's Thread::run first. Returns when the lane is to go on by itself: once the
  // warp has split (or at once, if it had), the lane exited or not.
  void join(Thread& t);
  // The lane the leader's fiber runs now (null once split): where a rule the model raises
  // meanwhile was broken (Thread::where_now).
  const Thread* running() const { return lanes_.running; }
  // The warp splits once the lanes running stop (a lane's livelock watchdog ran out).
  void split_soon() { split_soon_ = true; }

 private:
  void lead(Thread& leader);
  void split(Thread& leader);
  // The leader's turn at the bar.sync at `pc` where every lane stopped.
  void barrier(Thread& leader, std::uint32_t pc);

  LockstepLanes lanes_;
  std::uint32_t expected_;
  int leader_;  // its lane
  bool split_ = false, split_soon_ = false;
};

}  // namespace tcgen::ptx
