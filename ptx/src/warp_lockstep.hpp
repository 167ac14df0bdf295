#pragma once
// A converged warp on one fiber. A GPU issues each instruction once for a warp's active lanes; the
// interpreter runs a thread per fiber, and a fiber switch per thread at every bar.sync was most of
// the time of the reference kernels silicon-proven programs check themselves with (a 1,024-thread
// block that reduces one thread at a time between __syncthreads). So while a warp is converged, the
// fiber of one of its lanes (the leader: its lowest lane) runs every lane's instructions, each lane
// in turn on its own Thread (its registers, memory, rules and reports exactly as on its own fiber),
// and the other lanes' fibers wait parked (exec::CtaRuntime::park).
//
// Divergence: lanes at different instructions form groups, and the group at the lowest pc runs
// first, so that on structured code the lanes of a forward branch meet again where its paths join
// and a loop's lanes after it, as a GPU's reconvergence has them. bar.sync, when every lane of the warp is at it, is the warp's
// arrival: the other lanes arrive, the leader arrives last and waits. The leader is the lane that
// runs first without lockstep, so that a split warp's lanes go on in the order they would have.
// Any other instruction that waits or that its lanes execute together (shfl, vote, mbarrier,
// tcgen05, ...; Instruction::lane_step says which), a lane's exit, a divergence that lasts
// kDivergedSteps or a lane's livelock watchdog finding no progress (lanes that may wait on each
// other: PTX lets a warp's threads run independently) splits the warp for good: each lane goes on
// from its own pc on its own fiber, as without lockstep. Off under timing, where lane 0 records its
// warp's trace as it runs.
#include <array>
#include <cstdint>
#include <string_view>

#include "tcgen/ptx/instruction.hpp"
#include "tcgen/ptx/opcode_table.hpp"

namespace tcgen::ptx {

class Thread;
struct Opcode;

// How a converged warp runs an opcode of row `row` of family `family` (Instruction::lane_step).
LaneStep lane_step(std::string_view row, Family family, const Opcode& op);

class WarpLockstep {
 public:
  // Consecutive instructions a warp runs diverged before it splits (see above): far below the
  // livelock watchdog's count (exec::LaunchOptions::watchdog), far above a divergent branch's paths.
  static constexpr std::uint64_t kDivergedSteps = std::uint64_t{1} << 20;

  // `lanes`: the warp's threads that run (those of a partial last warp's padding do not).
  explicit WarpLockstep(std::uint32_t lanes);

  // Called by each lane's Thread::run first. Returns when the lane is to go on by itself: once the
  // warp has split (or at once, if it had), the lane exited or not.
  void join(Thread& t);
  // The lane whose instruction the leader's fiber runs now (null once split): where a rule the model
  // raises meanwhile was broken (Thread::where_now).
  const Thread* running() const { return running_; }
  // The warp splits after the instruction running (a lane's watchdog found no progress).
  void split_soon() { split_soon_ = true; }

 private:
  void lead(Thread& leader);
  void split(Thread& leader);
  // The lanes of `members` at the lowest pc, and that pc.
  std::uint32_t lowest(std::uint32_t members, std::uint32_t& pc) const;
  // The leader's turn at a bar.sync of the whole warp.
  void barrier(Thread& leader, std::uint32_t group);
  void step(Thread& lane);  // its next instruction

  std::array<Thread*, 32> lanes_{};
  std::uint32_t expected_;
  std::uint32_t joined_ = 0;
  int leader_;  // its lane
  bool split_ = false, split_soon_ = false;
  const Thread* running_ = nullptr;
};

}  // namespace tcgen::ptx
