// A warp in lockstep's instructions (warp_lockstep.hpp), run by its leader's fiber: a group of lanes
// at one pc runs an instruction through its handler's warp form or its handler lane by lane, the
// lanes' pcs and watchdog counts kept in the warp's LockstepLanes, not in their Threads, until the
// warp splits. A plain branch moves the lanes' pcs itself, as a GPU's branch unit would.
#include <algorithm>
#include <bit>
#include <utility>

#include "lane_vectors.hpp"
#include "thread.hpp"
#include "warp_form.hpp"

namespace tcgen::ptx {


void Thread::lanes_step(LockstepLanes& w, const Instruction& in, std::uint32_t pc, std::uint32_t lanes, bool jumps) {
  for (std::uint32_t m = lanes; m; m &= m - 1) {
    const auto lane = static_cast<std::size_t>(std::countr_zero(m));
    Thread& t = *w.threads[lane];
    w.running = &t;
    t.current_ = &in;
    t.pc_ = pc + 1;  // a branch's handler moves it
    if (t.undefined_ | t.taint_) [[unlikely]]
      t.run_shadowed(in);
    else if (in.guard == Operand::kNoReg || ((t.slot(in.guard) & 1u) != 0) != in.guard_negated)
      in.run(t, in);
    if (jumps) w.pcs[lane] = t.exited_ ? ~0u : t.pc_;
  }
}

template <bool kCount>
bool Thread::group_steps(LockstepLanes& w, std::uint32_t group, std::uint32_t pc, std::uint32_t stop) {
  Thread& first = *w.threads[static_cast<std::size_t>(std::countr_zero(group))];
  const Instruction* code = first.code_;
  CtaState& cta = first.cta_;
  std::uint64_t ran = 0, segment = 0;  // instructions run: in all, and since `group` last changed
  auto n = static_cast<std::uint64_t>(std::popcount(group));  // its lanes
  const Instruction* last = nullptr;
  // A forward branch that splits the group before `stop`: the lanes it takes wait at its target
  // (parked, rejoin) while the others run up to it, then all go on together, as the warp's
  // reconvergence would have them, without leaving the group (one level deep).
  std::uint32_t parked = 0, rejoin = ~0u;
  bool jumped = false;
  w.running = &first;
  // What step does for one instruction, done once for the group where it is the same for every
  // lane: the count (the CTA's clock), the profile, the pc and the watchdog's count (at the end).
  while (!jumped) {
    if (pc == rejoin) {
      add_lanes(w.ran, group, segment);
      segment = 0;
      group |= std::exchange(parked, 0);
      rejoin = ~0u;
      n = static_cast<std::uint64_t>(std::popcount(group));
    }
    const Instruction& in = code[pc];
    if (pc == stop || (in.lane_step != LaneStep::lane_local && in.lane_step != LaneStep::lane_jump &&
                       in.lane_step != LaneStep::branch))
      break;
    if constexpr (kCount) cta.executed[pc] += n;
    const std::uint64_t before = cta.instructions;
    cta.instructions += n;
    if (((before ^ cta.instructions) & ~(kBeat - 1)) != 0) [[unlikely]] first.beat();
    ++ran, ++segment;
    last = &in;
    jumped = in.lane_step != LaneStep::lane_local;
    // The handler's warp form, where it has one, for as many lanes as it can; for the rest the handler
    // for every lane in a row (its indirect call predicted, as a lane's own run of different handlers
    // was not). A branch's lanes whose guard may be undefined are the handler's.
    std::uint32_t each = group;
    if (in.lane_step == LaneStep::branch) {
      each = group & first.shadowed_lanes();
      const std::uint32_t plain = group & ~each, taken = guarded(first.warp_registers(), plain, in);
      const auto target = static_cast<std::uint32_t>(in.ops[0].ival);
      if (each == 0 && parked == 0 && taken != 0 && taken != plain && target > pc + 1 && target <= stop &&
          ran < w.slack) {
        add_lanes(w.ran, group, segment);
        segment = 0;
        parked = taken, rejoin = target, group = plain & ~taken, jumped = false;
        n = static_cast<std::uint64_t>(std::popcount(group));
        ++pc;
        continue;
      }
      set_lanes(w.pcs, taken, target);
      set_lanes(w.pcs, plain & ~taken, pc + 1);
    } else if (in.warp) {
      each = in.warp(w.threads.data(), group, in);
    }
    lanes_step(w, in, pc, each, jumped);
    ++pc;
  }
  if (ran == 0) return false;
  if (!jumped) set_lanes(w.pcs, group, pc);
  set_lanes(w.pcs, parked, rejoin);
  add_lanes(w.ran, group, segment);
  if (ran < w.slack) w.slack -= ran;
  else settle(w, *last);
  const std::uint32_t at = w.pcs[static_cast<std::size_t>(std::countr_zero(group | parked))];
  return at != ~0u && all_at(w.pcs, group | parked, at);
}

bool Thread::run_group(LockstepLanes& w, std::uint32_t group, std::uint32_t pc, std::uint32_t stop) {
  try {
    if (w.threads[static_cast<std::size_t>(std::countr_zero(group))]->cta_.executed.empty())
      return group_steps<false>(w, group, pc, stop);
    return group_steps<true>(w, group, pc, stop);
  } catch (const Error& e) {
    if (dynamic_cast<const ExecutionError*>(&e)) throw;
    w.running->report(e, *w.running->current_);
    return false;
  }
}

void Thread::count_for_warp(LockstepLanes& w, Thread& leader, std::uint32_t pc) {
  const std::uint32_t others = w.joined & ~(1u << leader.lane());
  CtaState& cta = leader.cta_;
  const Instruction& in = leader.code_[pc];
  leader.current_ = &in;  // where a report from the heartbeat points
  w.running = &leader;
  const auto n = static_cast<std::uint64_t>(std::popcount(others));
  if (!cta.executed.empty()) cta.executed[pc] += n;
  const std::uint64_t before = cta.instructions;
  cta.instructions += n;
  if (((before ^ cta.instructions) & ~(kBeat - 1)) != 0) [[unlikely]] leader.reporting([&] { leader.beat(); });
  add_lanes(w.ran, others, 1);
  // The leader counts its own step down itself: one less for every lane.
  if (w.slack > 1) w.slack -= 1;
  else leader.reporting([&] { settle(w, in); });
}

void Thread::settle(LockstepLanes& w, const Instruction& last) {
  std::uint64_t slack = ~std::uint64_t{0};
  for (std::uint32_t m = w.joined; m; m &= m - 1) {
    const auto lane = static_cast<std::size_t>(std::countr_zero(m));
    Thread& t = *w.threads[lane];
    if (t.exited_) continue;
    if (t.watchdog_left_ > w.ran[lane]) {
      t.watchdog_left_ -= w.ran[lane];
    } else {
      w.running = &t;
      t.watchdog(last);
    }
    w.ran[lane] = 0;
    slack = std::min(slack, t.watchdog_left_);
  }
  w.slack = slack;
}

void Thread::leave_lockstep(LockstepLanes& w) {
  for (std::uint32_t m = w.joined; m; m &= m - 1) {
    const auto lane = static_cast<std::size_t>(std::countr_zero(m));
    Thread& t = *w.threads[lane];
    if (t.exited_) continue;
    t.pc_ = w.pcs[lane];
    // A count that ran out since the last settle (none should) runs out at the lane's next step.
    t.watchdog_left_ = t.watchdog_left_ > w.ran[lane] ? t.watchdog_left_ - w.ran[lane] : 1;
    w.ran[lane] = 0;
  }
}

}  // namespace tcgen::ptx
