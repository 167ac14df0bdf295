#include "warp_lockstep.hpp"

#include <bit>

#include "decode.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

LaneStep lane_step(std::string_view row, Family family, const Opcode& op) {
  switch (family) {
    case Family::arithmetic:
    case Family::special_function:
    case Family::logic:
    case Family::comparison:
    case Family::move:
    case Family::conversion:
    case Family::address_space: return LaneStep::lane_local;
    case Family::memory:
      // st.async and red.async arrive on a peer's mbarrier, ldmatrix and stmatrix are the warp's.
      if (row == "st.async" || row == "red.async" || row == "ldmatrix" || row == "stmatrix") return LaneStep::apart;
      return LaneStep::lane_local;
    case Family::control:
      if (row == "bra" || row == "ret" || row == "exit") return LaneStep::branch;
      return row == "nanosleep" ? LaneStep::apart : LaneStep::lane_local;  // nanosleep lets the others run
    case Family::sync:
      // bar.sync and barrier.sync (PTX #parallel-synchronization-and-communication-instructions-bar); not
      // bar.arrive, bar.red (a reduction of the warp's lanes), bar.warp.sync or barrier.cluster.
      if ((row == "bar" || row == "barrier") && op.has("sync") && !op.has("warp") && !op.has("red") &&
          !op.has("cluster"))
        return LaneStep::barrier;
      return op.base() == "fence" || op.base() == "membar" ? LaneStep::lane_local : LaneStep::apart;
    default: return LaneStep::apart;
  }
}

WarpLockstep::WarpLockstep(std::uint32_t lanes)
    : expected_(lanes), leader_(std::countr_zero(lanes)) {}

void WarpLockstep::join(Thread& t) {
  const int lane = t.lane();
  lanes_[static_cast<std::size_t>(lane)] = &t;
  joined_ |= 1u << lane;
  if (split_) return;
  exec::CtaRuntime& rt = t.runtime();
  const int leader = t.linear() - lane + leader_;
  if (joined_ != expected_) {
    rt.park(t.linear(), leader);  // the leader: woken by the last lane to come; the rest: by the split
    if (lane != leader_ || split_) return;
  } else if (lane != leader_) {
    rt.unpark(leader);
    rt.park(t.linear(), leader);
    return;
  }
  lead(t);
}

std::uint32_t WarpLockstep::lowest(std::uint32_t members, std::uint32_t& pc) const {
  std::uint32_t group = 0;
  pc = ~0u;
  for (std::uint32_t m = members; m; m &= m - 1) {
    const int lane = std::countr_zero(m);
    const std::uint32_t at = lanes_[static_cast<std::size_t>(lane)]->pc();
    if (at < pc) pc = at, group = 0;
    if (at == pc) group |= 1u << lane;
  }
  return group;
}

void WarpLockstep::lead(Thread& leader) {
  const Instruction* code = leader.grid().function.code.data();
  const std::uint32_t members = joined_;
  std::uint32_t pc = 0;
  std::uint32_t group = lowest(members, pc);
  std::uint64_t diverged = 0;
  for (;;) {
    const Instruction& in = code[pc];
    if (in.lane_step == LaneStep::apart) return split(leader);
    if (in.lane_step == LaneStep::barrier) {
      if (group != members || in.guard != Operand::kNoReg) return split(leader);
      barrier(leader, group);
    } else {
      for (std::uint32_t m = group; m; m &= m - 1) step(*lanes_[static_cast<std::size_t>(std::countr_zero(m))]);
    }
    if (in.lane_step == LaneStep::branch) {
      for (std::uint32_t m = group; m; m &= m - 1)
        if (lanes_[static_cast<std::size_t>(std::countr_zero(m))]->exited()) return split(leader);
      group = lowest(members, pc);
    } else {
      ++pc;
      if (group != members) group = lowest(members, pc);  // lanes waiting there join the group
    }
    diverged = group == members ? 0 : diverged + 1;
    if (diverged > kDivergedSteps || split_soon_) return split(leader);
  }
}

void WarpLockstep::step(Thread& lane) {
  running_ = &lane;
  lane.step_in_warp();
}

void WarpLockstep::barrier(Thread& leader, std::uint32_t group) {
  for (std::uint32_t m = group & ~(1u << leader_); m; m &= m - 1) {
    Thread& lane = *lanes_[static_cast<std::size_t>(std::countr_zero(m))];
    lane.set_arrives_for_warp(true);
    step(lane);
    lane.set_arrives_for_warp(false);
  }
  step(leader);
}

void WarpLockstep::split(Thread& leader) {
  split_ = true;
  running_ = nullptr;
  for (std::uint32_t m = joined_ & ~(1u << leader_); m; m &= m - 1)
    leader.runtime().unpark(lanes_[static_cast<std::size_t>(std::countr_zero(m))]->linear());
}

}  // namespace tcgen::ptx
