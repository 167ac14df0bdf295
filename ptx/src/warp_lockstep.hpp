#pragma once
// A warp's lanes on one fiber. A thread per fiber switched fibers at every bar.sync, once per thread,
// and that was most of the time of the reference kernels silicon-proven programs check themselves
// with (a 1,024-thread block that reduces one thread at a time between __syncthreads). A GPU passes
// a barrier once per warp. So the fiber of a warp's lowest lane (the leader) runs its lanes, each
// in turn on its own Thread (its registers, memory, rules and reports exactly as on its own fiber),
// while the other lanes' fibers wait parked (exec::CtaRuntime::park): each lane runs until its next
// instruction is one that waits or that the warp's lanes execute together, as it would on its own
// fiber until it blocked, in the same order. When every lane has stopped at the same bar.sync
// (PTX #parallel-synchronization-and-communication-instructions-bar) with immediate id and count,
// that is the warp's arrival: the other lanes count it, the leader's arrival brings theirs, and it
// waits; then the lanes run on. Any other stop
// (shfl, vote, mbarrier, tcgen05, ...: Instruction::lane_step), lanes stopped at different
// instructions, a bar.sync with register operands, a lane's exit, or a lane's livelock watchdog
// running out (its warp-mates, held back, may be what it waits for) splits the warp for good: each lane goes on from its own pc
// on its own fiber, as without lockstep. Off under timing, where lane 0 records its warp's trace
// as it runs, and for a kernel without bar.sync, whose lanes would each run to the end anyway.
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

class WarpLockstep {
 public:
  // `lanes`: the warp's threads that run (those of a partial last warp's padding do not).
  explicit WarpLockstep(std::uint32_t lanes);

  // Called by each lane's Thread::run first. Returns when the lane is to go on by itself: once the
  // warp has split (or at once, if it had), the lane exited or not.
  void join(Thread& t);
  // The lane the leader's fiber runs now (null once split): where a rule the model raises
  // meanwhile was broken (Thread::where_now).
  const Thread* running() const { return running_; }
  // The warp splits once the lane running stops (its livelock watchdog ran out).
  void split_soon() { split_soon_ = true; }

 private:
  void lead(Thread& leader);
  void split(Thread& leader);
  // The leader's turn at a bar.sync where every lane stopped.
  void barrier(Thread& leader);

  std::array<Thread*, 32> lanes_{};
  std::uint32_t expected_;
  std::uint32_t joined_ = 0;
  int leader_;  // its lane
  bool split_ = false, split_soon_ = false;
  const Thread* running_ = nullptr;
};

}  // namespace tcgen::ptx
