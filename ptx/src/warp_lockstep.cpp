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
    case Family::control: return row == "nanosleep" ? LaneStep::apart : LaneStep::lane_local;  // it lets others run
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

void WarpLockstep::lead(Thread& leader) {
  const Instruction* code = leader.grid().function.code.data();
  for (;;) {
    bool exited = false;
    for (std::uint32_t m = joined_; m && !split_soon_; m &= m - 1) {
      Thread& lane = *lanes_[static_cast<std::size_t>(std::countr_zero(m))];
      running_ = &lane;
      lane.run_in_warp();
      exited = exited || lane.exited();
    }
    if (exited || split_soon_) return split(leader);
    const std::uint32_t pc = leader.pc();
    for (std::uint32_t m = joined_; m; m &= m - 1)
      if (lanes_[static_cast<std::size_t>(std::countr_zero(m))]->pc() != pc) return split(leader);
    if (code[pc].lane_step != LaneStep::barrier || code[pc].guard != Operand::kNoReg) return split(leader);
    // Only where every lane reads the same id and count and none holds a register pending or
    // undefined (its handler would see it): else each lane runs its bar.sync on its own fiber.
    for (const Operand& o : code[pc].ops)
      if (o.kind != Operand::Kind::imm) return split(leader);
    for (std::uint32_t m = joined_; m; m &= m - 1)
      if (lanes_[static_cast<std::size_t>(std::countr_zero(m))]->shadowed()) return split(leader);
    barrier(leader);
  }
}

void WarpLockstep::barrier(Thread& leader) {
  const std::uint32_t others = joined_ & ~(1u << leader_);
  for (std::uint32_t m = others; m; m &= m - 1) {
    Thread& lane = *lanes_[static_cast<std::size_t>(std::countr_zero(m))];
    running_ = &lane;
    lane.count_for_warp();
  }
  running_ = &leader;
  leader.set_warp_companions(others);
  leader.step_in_warp();
  leader.set_warp_companions(0);
}

void WarpLockstep::split(Thread& leader) {
  split_ = true;
  running_ = nullptr;
  for (std::uint32_t m = joined_ & ~(1u << leader_); m; m &= m - 1)
    leader.runtime().unpark(lanes_[static_cast<std::size_t>(std::countr_zero(m))]->linear());
}

}  // namespace tcgen::ptx
