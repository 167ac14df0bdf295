// Barriers, warp collectives, mbarriers and fences
// (PTX #parallel-synchronization-and-communication-instructions): each one
// goes to exec's CTA runtime through HostArch, which gathers a warp's lanes,
// blocks waiting threads and hands ordering to the model.
#include <array>
#include <bit>
#include <cmath>
#include <optional>
#include <vector>

#include "decode.hpp"
#include "thread.hpp"
#include "tcgen/exec/cluster_runtime.hpp"

namespace tcgen::ptx {

namespace {

// bar, barrier and barrier.cluster: .arrive, arriving without waiting (else .sync/.wait).
struct BarrierModifiers {
  bool arrive;
};

// ---- bar / barrier: the count, when given, is ops[1]
void bar(Thread& t, const Instruction& in) {
  const unsigned id = in.ops.empty() ? 0u : t.get<std::uint32_t>(in.ops[0]);
  const unsigned count =
      in.ops.size() > 1 ? t.get<std::uint32_t>(in.ops[1]) : static_cast<unsigned>(t.arch().block_threads());
  if (in.modifiers.get<BarrierModifiers>().arrive) {
    t.runtime().barrier(t.linear(), id, count, false);
    return;
  }
  if (const std::uint32_t lanes = t.warp_companions()) {  // bar.sync for its warp (warp_lockstep.hpp)
    if (t.runtime().enter()) t.runtime().barrier(t.linear(), id, count, true, lanes);
    return;
  }
  t.arch().bar_sync(id, count);
}

// barrier.cluster.arrive[.release|.relaxed][.aligned] / .wait[.acquire][.aligned]
void barrier_cluster(Thread& t, const Instruction& in) {
  if (!t.runtime().enter()) return;
  if (in.modifiers.get<BarrierModifiers>().arrive)
    t.runtime().cluster_arrive(t.linear());
  else
    t.runtime().cluster_wait(t.linear());
}

void bar_warp_sync(Thread& t, const Instruction& in) { t.arch().sync_warp(t.get<std::uint32_t>(in.ops[0])); }

// shfl.sync.mode.b32 d[|p], a, b, c, membermask (PTX #data-movement-and-conversion-instructions-shfl-sync)
enum class ShflMode : std::uint8_t { up, down, bfly, idx };

void shfl(Thread& t, const Instruction& in) {
  const bool has_p = in.ops.size() == 6;
  const std::size_t a = has_p ? 2 : 1;
  // Definedness: the lane, clamp and mask operands' first (an undefined one makes the result undefined),
  // then the value's own, which moves with it to the lane that reads it.
  const std::uint32_t bval = t.get<std::uint32_t>(in.ops[a + 1]) & 31u, cval = t.get<std::uint32_t>(in.ops[a + 2]),
                      mask = t.get<std::uint32_t>(in.ops[a + 3]);
  const std::uint32_t control = t.taint();
  const std::uint32_t value = t.get<std::uint32_t>(in.ops[a]);
  const std::uint64_t own = std::uint64_t{t.origin(in.ops[a])} << 32;
  const int lane = t.lane();
  const int clamp = static_cast<int>(cval & 31u), segmask = static_cast<int>((cval >> 8) & 31u);
  const int max_lane = (lane & segmask) | (clamp & ~segmask), min_lane = lane & segmask;
  int j = lane;
  bool in_range = false;
  switch (in.modifiers.get<ShflMode>()) {
    case ShflMode::up: j = lane - static_cast<int>(bval); in_range = j >= max_lane; break;
    case ShflMode::down: j = lane + static_cast<int>(bval); in_range = j <= max_lane; break;
    case ShflMode::bfly: j = lane ^ static_cast<int>(bval); in_range = j <= max_lane; break;
    case ShflMode::idx: j = min_lane | (static_cast<int>(bval) & ~segmask); in_range = j <= max_lane; break;
  }
  if (!in_range) j = lane;
  const std::uint64_t moved = t.arch().shfl_sync(mask, own | value, j);
  const auto origin = static_cast<std::uint32_t>(moved >> 32);
  t.set<std::uint32_t>(in.ops[0], static_cast<std::uint32_t>(moved), control ? control : origin);
  if (has_p) t.set<bool>(in.ops[1], in_range, control);
  t.clear_taint();  // the value's own origin went with it
}

// vote.sync.{all,any,uni}.pred d, {!}a, membermask; vote.sync.ballot.b32 d, {!}a, membermask
enum class VoteMode : std::uint8_t { all, any, uni, ballot };

void vote(Thread& t, const Instruction& in) {
  const bool p = t.pred(in.ops[1]);
  const std::uint32_t mask = t.get<std::uint32_t>(in.ops[2]);
  switch (in.modifiers.get<VoteMode>()) {
    case VoteMode::all: t.set<bool>(in.ops[0], t.arch().all_sync(mask, p)); break;
    case VoteMode::any: t.set<bool>(in.ops[0], t.arch().any_sync(mask, p)); break;
    case VoteMode::uni: {  // all or none of the lanes that take part (two meetings, the same lanes at both)
      const bool all = t.arch().all_sync(mask, p);
      t.set<bool>(in.ops[0], !t.arch().any_sync(mask, p) || all);
      break;
    }
    case VoteMode::ballot: t.set<std::uint32_t>(in.ops[0], t.arch().ballot_sync(mask, p)); break;
  }
}

// elect.sync d|p, membermask: d the elected lane, p true there.
void elect(Thread& t, const Instruction& in) {
  unsigned leader = 0;
  const bool elected = t.arch().elect_one(t.get<std::uint32_t>(in.ops[2]), &leader);
  t.set<std::uint32_t>(in.ops[0], leader);
  t.set<bool>(in.ops[1], elected);
}

// redux.sync.op.type d, a, membermask (PTX #parallel-synchronization-and-communication-instructions-redux-sync):
// the member lanes reduce a, each gets the result. .u32/.s32: add, min, max; .b32: and, or, xor; .f32
// (sm_100a): min, max, with .abs (of |a|) and .NaN (a NaN wins; without it NaNs are passed over, and all
// NaN gives NaN), -0 below +0, NaN as the canonical 0x7FFFFFFF.
enum class ReduxOp : std::uint8_t { add, min, max, and_, or_, xor_ };
struct ReduxModifiers {
  ReduxOp op;
  bool abs, nan;
};

std::uint32_t redux_f32(const ReduxModifiers& m, const std::vector<std::uint32_t>& v) {
  constexpr std::uint32_t kNaN = 0x7FFFFFFFu;
  bool any = false;
  float r = 0;
  for (std::uint32_t bits : v) {
    if (m.abs) bits &= 0x7FFFFFFFu;
    const float x = std::bit_cast<float>(bits);
    if (std::isnan(x)) {
      if (m.nan) return kNaN;
      continue;
    }
    // x before y: smaller, or -0 against +0.
    const auto before = [](float x, float y) { return x < y || (x == y && std::signbit(x) && !std::signbit(y)); };
    if (!any || (m.op == ReduxOp::min ? before(x, r) : before(r, x))) r = x;
    any = true;
  }
  return any ? std::bit_cast<std::uint32_t>(r) : kNaN;
}

void redux(Thread& t, const Instruction& in) {
  struct Frame {
    std::uint32_t in, out;
  } frame{t.get<std::uint32_t>(in.ops[1]), 0};
  const ReduxModifiers m = in.modifiers.get<ReduxModifiers>();
  const ReduxOp op = m.op;
  t.runtime().collective(t.linear(), {in.opcode, false, t.site(in)}, t.get<std::uint32_t>(in.ops[2]), frame,
                         [&](const std::array<Frame*, 32>& f) {
                           std::vector<std::uint32_t> v;
                           for (const Frame* x : f)
                             if (x) v.push_back(x->in);
                           std::uint32_t r = v[0];
                           if (in.type == Type::f32) {
                             r = redux_f32(m, v);
                           } else {
                             for (std::size_t i = 1; i < v.size(); ++i) {
                               const std::uint32_t b = v[i];
                               const bool s = in.type == Type::s32;
                               const bool less = s ? static_cast<std::int32_t>(b) < static_cast<std::int32_t>(r) : b < r;
                               switch (op) {
                                 case ReduxOp::add: r += b; break;
                                 case ReduxOp::min: r = less ? b : r; break;
                                 case ReduxOp::max: r = less ? r : b; break;
                                 case ReduxOp::and_: r &= b; break;
                                 case ReduxOp::or_: r |= b; break;
                                 case ReduxOp::xor_: r ^= b; break;
                               }
                             }
                           }
                           for (Frame* x : f)
                             if (x) x->out = r;
                         });
  t.set<std::uint32_t>(in.ops[0], frame.out);
}

// activemask.b32 d: the lanes that have not exited, and those that exited after
// meeting this one at its last collective (CtaRuntime::active_lanes).
void activemask(Thread& t, const Instruction& in) {
  t.set<std::uint32_t>(in.ops[0], t.runtime().active_lanes(t.linear()));
}

// ---- mbarrier: the address operand is ops[addr]. Only mbarrier.arrive
// reaches a peer CTA's (.shared::cluster at a mapa address); the rest take
// this CTA's own, as PTX allows.
std::uint32_t mbar_address(Thread& t, const Instruction& in, std::size_t i) {
  return t.shared_address(t.address(in.ops[i]), in);
}

void mbarrier_init(Thread& t, const Instruction& in) {
  t.arch().mbarrier_init(mbar_address(t, in, 0), t.get<std::uint32_t>(in.ops[1]));
}

// mbarrier.arrive[.expect_tx] state|_, [addr][, count | tx]
struct MbarrierArriveModifiers {
  bool expect_tx;
};
// The state is the phase the arrival belongs to, for try_wait/test_wait with a state.
void mbarrier_arrive(Thread& t, const Instruction& in) {
  const std::uint32_t mbar = mbar_address(t, in, 1);
  if (exec::ClusterRuntime::rank_of(mbar) != t.runtime().rank() &&
      in.opcode.find("shared::cluster") != std::string::npos) {
    // A peer's mbarrier: the remote arrive returns no state (PTX: only the sink `_`).
    if (in.modifiers.get<MbarrierArriveModifiers>().expect_tx)
      t.arch().mbarrier_arrive_expect_tx_cluster(mbar, t.get<std::uint32_t>(in.ops[2]));
    else
      t.arch().mbarrier_arrive_cluster(mbar, in.ops.size() > 2 ? t.get<std::uint32_t>(in.ops[2]) : 1u);
    return;
  }
  const model::Cta& cta = t.runtime().cta();
  const std::uint32_t offset = mbar & exec::ClusterRuntime::kOffsetMask;
  const std::uint64_t phase = cta.mbarrier(offset).valid() ? cta.mbarrier(offset).phase() : 0;
  if (in.modifiers.get<MbarrierArriveModifiers>().expect_tx)
    t.arch().mbarrier_arrive_expect_tx(mbar, t.get<std::uint32_t>(in.ops[2]));
  else
    t.arch().mbarrier_arrive(mbar, in.ops.size() > 2 ? t.get<std::uint32_t>(in.ops[2]) : 1u);
  t.set<std::uint64_t>(in.ops[0], phase);
}

// mbarrier.{expect,complete}_tx [addr], tx
struct MbarrierTxModifiers {
  bool complete;  // complete_tx (else expect_tx)
};

void mbarrier_tx(Thread& t, const Instruction& in) {
  const std::uint32_t mbar = mbar_address(t, in, 0), bytes = t.get<std::uint32_t>(in.ops[1]);
  if (in.modifiers.get<MbarrierTxModifiers>().complete)
    t.arch().mbarrier_complete_tx(mbar, bytes);
  else
    t.arch().mbarrier_expect_tx(mbar, bytes);
}

// mbarrier.{try,test}_wait[.parity] p, [addr], parity | state
void mbarrier_wait(Thread& t, const Instruction& in) {
  const std::uint32_t parity = static_cast<std::uint32_t>(t.get<std::uint64_t>(in.ops[2]) & 1u);
  t.set<bool>(in.ops[0], t.arch().mbarrier_try_wait(mbar_address(t, in, 1), parity));
}

void mbarrier_inval(Thread& t, const Instruction& in) {
  t.arch().mbarrier_inval(mbar_address(t, in, 0));
}

void fence_proxy_async(Thread& t, const Instruction&) { t.arch().fence_proxy_async(); }

// ---- clusterlaunchcontrol (PTX #parallel-synchronization-and-communication-instructions-clusterlaunchcontrol-try-cancel)
// try_cancel.async[.shared::cta].mbarrier::complete_tx::bytes[.multicast::cluster::all].b128 [addr], [mbar]
struct TryCancelModifiers {
  bool multicast;
};

void try_cancel(Thread& t, const Instruction& in) {
  t.arch().try_cancel(mbar_address(t, in, 0), mbar_address(t, in, 1), in.modifiers.get<TryCancelModifiers>().multicast);
}

// query_cancel.is_canceled.pred.b128 p, r; .get_first_ctaid.v4.b32.b128 {x, y, z, _}, r;
// .get_first_ctaid::x/y/z.b32.b128 d, r. r: a .b128 register, two slots, low first.
enum class CancelQuery : std::uint8_t { is_canceled, first_ctaid, first_ctaid_x, first_ctaid_y, first_ctaid_z };

void query_cancel(Thread& t, const Instruction& in) {
  const CancelQuery query = in.modifiers.get<CancelQuery>();
  const Operand& r = in.ops[1];
  if (r.kind != Operand::Kind::reg)
    fault("try_cancel_response", in.text, "a .b128 register holding try_cancel's response");
  const std::uint64_t lo = t.read_slot(r.slot), hi = t.read_slot(r.slot + 1);
  const exec::HostArch::CancelResult c = t.arch().query_cancel(
      {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(lo >> 32), static_cast<std::uint32_t>(hi),
       static_cast<std::uint32_t>(hi >> 32)});
  const std::uint32_t xyz[3] = {c.first_cta.x, c.first_cta.y, c.first_cta.z};
  if (query == CancelQuery::is_canceled) {
    t.set<bool>(in.ops[0], c.canceled);
  } else if (query == CancelQuery::first_ctaid) {
    const Operand& v = in.ops[0];
    for (std::uint32_t i = 0; i < v.count && i < 3; ++i) t.set<std::uint32_t>(in.elements[v.first + i], xyz[i]);
  } else {
    t.set<std::uint32_t>(in.ops[0], xyz[static_cast<int>(query) - static_cast<int>(CancelQuery::first_ctaid_x)]);
  }
}

// setmaxnreg.{inc,dec}.sync.aligned.u32 n (PTX #miscellaneous-instructions-setmaxnreg)
struct SetmaxnregModifiers {
  bool increase;  // .inc (else .dec)
};

void setmaxnreg(Thread& t, const Instruction& in) {
  const bool increase = in.modifiers.get<SetmaxnregModifiers>().increase;
  const std::int64_t n = in.ops[0].ival;
  if (n < 24 || n > 256 || n % 8 != 0)
    fault("setmaxnreg register count", std::to_string(n),
          "a multiple of 8 in [24, 256] (PTX #miscellaneous-instructions-setmaxnreg)");
  char frame = 0;  // .sync.aligned: the warp's lanes meet here; the warpgroup's four warps, at the CTA's end
  t.runtime().collective(t.linear(), {in.opcode, true, t.site(in)}, 0xFFFFFFFFu, frame,
                         [&](const std::array<char*, 32>&) {
                           t.cta().register_counts[static_cast<std::size_t>(t.warp())].push_back(increase ? n : -n);
                         });
}

// bar.red.popc.u32 d, a[, b], {!}c / bar.red.{and,or}.pred p, a[, b], {!}c: a bar.sync that also
// reduces c over its threads.
enum class BarReduction : std::uint8_t { popc, and_, or_ };

void bar_red(Thread& t, const Instruction& in) {
  const BarReduction reduction = in.modifiers.get<BarReduction>();
  const unsigned id = t.get<std::uint32_t>(in.ops[1]);
  const bool counted = in.ops.size() == 4;
  const unsigned count = counted ? t.get<std::uint32_t>(in.ops[2]) : static_cast<unsigned>(t.arch().block_threads());
  const bool c = t.pred(in.ops.back());
  const auto key = std::make_pair(id, t.next_reduction(id));
  CtaState::Reduction& r = t.cta().reductions[key];
  r.popc += c;
  r.all = r.all && c;
  r.any = r.any || c;
  ++r.readers;
  t.arch().bar_sync(id, count);
  CtaState::Reduction& done = t.cta().reductions[key];
  if (reduction == BarReduction::popc)
    t.set<std::uint32_t>(in.ops[0], done.popc);
  else
    t.set<bool>(in.ops[0], reduction == BarReduction::and_ ? done.all : done.any);
  if (--done.readers == 0) t.cta().reductions.erase(key);
}

}  // namespace

bool decode_barrier(const Opcode& op, Instruction& in, std::string&) {
  if (op.has("cluster")) {
    in.modifiers.set(BarrierModifiers{.arrive = op.has("arrive")});
    if (!op.has("arrive") && !op.has("wait")) return false;
    in.run = &barrier_cluster;
    return true;
  }
  if (op.has("red")) {
    const int reduction = op.which({"popc", "and", "or"});
    if (reduction < 0 || in.ops.size() < 3) return false;
    in.modifiers.set(static_cast<BarReduction>(reduction));
    in.run = &bar_red;
    return true;
  }
  if (op.has("warp")) {
    in.run = &bar_warp_sync;
    return true;
  }
  in.modifiers.set(BarrierModifiers{.arrive = op.has("arrive")});
  in.run = &bar;
  return true;
}

bool decode_shfl(const Opcode& op, Instruction& in, std::string&) {
  const int mode = op.which({"up", "down", "bfly", "idx"});
  if (mode < 0 || !op.has("sync")) return false;
  in.modifiers.set(static_cast<ShflMode>(mode));
  in.run = &shfl;
  return true;
}

bool decode_vote(const Opcode& op, Instruction& in, std::string&) {
  const int mode = op.which({"all", "any", "uni", "ballot"});
  if (mode < 0 || !op.has("sync")) return false;
  in.modifiers.set(static_cast<VoteMode>(mode));
  in.run = &vote;
  return true;
}

bool decode_redux(const Opcode& op, Instruction& in, std::string& why) {
  const int which = op.which({"add", "min", "max", "and", "or", "xor"});
  const bool f32 = in.type == Type::f32, b32 = in.type == Type::b32, integer = in.type == Type::u32 || in.type == Type::s32;
  const bool fits = f32 ? (which == 1 || which == 2) : b32 ? which >= 3 : integer && which >= 0 && which <= 2;
  if (!op.has("sync") || in.ops.size() != 3 || which < 0 || !fits || (!f32 && (op.has("abs") || op.has("NaN")))) {
    why = "redux.sync.op.type d, a, membermask: add/min/max .u32/.s32, and/or/xor .b32, min/max{.abs}{.NaN} .f32";
    return false;
  }
  in.modifiers.set(ReduxModifiers{.op = static_cast<ReduxOp>(which), .abs = op.has("abs"), .nan = op.has("NaN")});
  in.run = &redux;
  return true;
}

bool decode_elect(const Opcode&, Instruction& in, std::string&) {
  if (in.ops.size() != 3) return false;
  in.run = &elect;
  return true;
}

bool decode_activemask(const Opcode&, Instruction& in, std::string&) {
  in.run = &activemask;
  return true;
}

bool decode_clusterlaunchcontrol(const Opcode& op, Instruction& in, std::string& why) {
  if (op.has("try_cancel") && in.ops.size() == 2) {
    in.modifiers.set(TryCancelModifiers{.multicast = op.has("multicast::cluster::all")});
    in.run = &try_cancel;
    return true;
  }
  if (op.has("query_cancel") && in.ops.size() == 2) {
    const std::optional<CancelQuery> query = op.has("is_canceled")                      ? CancelQuery::is_canceled
                                             : op.has("get_first_ctaid::x")               ? CancelQuery::first_ctaid_x
                                             : op.has("get_first_ctaid::y")               ? CancelQuery::first_ctaid_y
                                             : op.has("get_first_ctaid::z")               ? CancelQuery::first_ctaid_z
                                             : op.has("get_first_ctaid") && op.has("v4") ? CancelQuery::first_ctaid
                                                                                          : std::optional<CancelQuery>();
    if (!query || (query == CancelQuery::first_ctaid && in.ops[0].kind != Operand::Kind::vector)) {
      why = "query_cancel.is_canceled.pred, .get_first_ctaid.v4.b32 {x, y, z, _} or .get_first_ctaid::x/y/z.b32";
      return false;
    }
    in.modifiers.set(*query);
    in.run = &query_cancel;
    return true;
  }
  why = "clusterlaunchcontrol.try_cancel [addr], [mbar] and query_cancel (is_canceled, get_first_ctaid)";
  return false;
}

bool decode_mbarrier_init(const Opcode&, Instruction& in, std::string&) {
  in.run = &mbarrier_init;
  return true;
}

bool decode_mbarrier_inval(const Opcode&, Instruction& in, std::string&) {
  in.run = &mbarrier_inval;
  return true;
}

bool decode_mbarrier_arrive(const Opcode& op, Instruction& in, std::string& why) {
  if (op.has("noComplete")) {
    why = "mbarrier.arrive";
    return false;
  }
  in.modifiers.set(MbarrierArriveModifiers{.expect_tx = op.has("expect_tx")});
  in.run = &mbarrier_arrive;
  return true;
}

// mbarrier.expect_tx and mbarrier.complete_tx.
bool decode_mbarrier_tx(const Opcode& op, Instruction& in, std::string&) {
  in.modifiers.set(MbarrierTxModifiers{.complete = op.parts[1] == "complete_tx"});
  in.run = &mbarrier_tx;
  return true;
}

bool decode_mbarrier_wait(const Opcode&, Instruction& in, std::string&) {
  in.run = &mbarrier_wait;
  return true;
}

bool decode_fence(const Opcode& op, Instruction& in, std::string&) {
  // fence.proxy.async orders the generic proxy's shared-memory writes before the async proxy's reads: the
  // model checks it. The others order memory between threads, which fibers running one at a time always are.
  in.run = op.has("proxy") && op.has("async") ? &fence_proxy_async : &run_nothing;
  return true;
}

bool decode_griddepcontrol(const Opcode&, Instruction& in, std::string&) {
  in.run = &run_nothing;  // programmatic dependent launch: one grid at a time here
  return true;
}

bool decode_setmaxnreg(const Opcode& op, Instruction& in, std::string&) {
  in.modifiers.set(SetmaxnregModifiers{.increase = op.has("inc")});
  in.run = &setmaxnreg;
  return true;
}

}  // namespace tcgen::ptx
