#include "warp_lockstep.hpp"

#include <bit>
#include <tuple>

#include "decode.hpp"
#include "lane_vectors.hpp"
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
      if (row == "nanosleep") return LaneStep::apart;  // it lets others run
      return row == "bra" || row == "ret" || row == "exit" ? LaneStep::lane_jump : LaneStep::lane_local;
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
  lanes_.threads[static_cast<std::size_t>(lane)] = &t;
  lanes_.joined |= 1u << lane;
  if (split_) return;
  exec::CtaRuntime& rt = t.runtime();
  const int leader = t.linear() - lane + leader_;
  if (lanes_.joined != expected_) {
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
  const std::uint32_t joined = lanes_.joined;
  std::array<std::uint32_t, 32>& pcs = lanes_.pcs;
  for (std::size_t lane = 0; lane < 32; ++lane) pcs[lane] = joined >> lane & 1 ? lanes_.threads[lane]->pc() : ~0u;
  lanes_.slack = 0;  // the first group settles the watchdog counts
  std::uint32_t pc = ~0u, next = ~0u, group = 0;
  bool converged = false;  // every lane that runs is at `pc`: no need to look
  for (;;) {
    // The lanes at the lowest pc run on together, up to where the next lanes wait (`next`), to go on
    // with them from there; the rest wait where they are. A branch that splits the warp's lanes
    // thus runs each side in turn until they meet again where the sides join or the loop ends, as a
    // GPU's reconvergence does.
    if (!converged) std::tie(pc, group, next) = lowest(pcs);
    if (pc == ~0u) return split(leader);  // every lane exited
    const Instruction& in = code[pc];
    if (in.lane_step == LaneStep::lane_local || in.lane_step == LaneStep::lane_jump ||
        in.lane_step == LaneStep::branch) {
      converged = Thread::run_group(lanes_, group, pc, next) && next == ~0u;
      if (split_soon_) return split(leader);
      if (converged) pc = pcs[static_cast<std::size_t>(std::countr_zero(group))];
      continue;
    }
    // Only where every lane stopped at one bar.sync whose id and count every lane reads the same and
    // none holds a register pending or undefined (its handler would see it): else each lane runs on
    // by itself.
    if (group != joined || in.lane_step != LaneStep::barrier || in.guard != Operand::kNoReg) return split(leader);
    for (const Operand& o : in.ops)
      if (o.kind != Operand::Kind::imm) return split(leader);
    if (leader.shadowed_lanes() & joined) return split(leader);
    barrier(leader, pc);
    // Every lane after the bar.sync: the leader too, unless its arrival went elsewhere.
    converged = leader.pc() == pc + 1;
    set_lanes(pcs, joined, pc + 1);
    pcs[static_cast<std::size_t>(leader_)] = leader.pc();
    pc = leader.pc();
  }
}

void WarpLockstep::barrier(Thread& leader, std::uint32_t pc) {
  const std::uint32_t others = lanes_.joined & ~(1u << leader_);
  Thread::count_for_warp(lanes_, leader, pc);
  leader.jump(pc);
  leader.set_warp_companions(others);
  leader.step_in_warp();
  leader.set_warp_companions(0);
}

void WarpLockstep::split(Thread& leader) {
  split_ = true;
  Thread::leave_lockstep(lanes_);
  lanes_.running = nullptr;
  for (std::uint32_t m = lanes_.joined & ~(1u << leader_); m; m &= m - 1)
    leader.runtime().unpark(lanes_.threads[static_cast<std::size_t>(std::countr_zero(m))]->linear());
}

}  // namespace tcgen::ptx
