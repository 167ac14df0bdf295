// Barriers, warp collectives, mbarriers and fences
// (PTX #parallel-synchronization-and-communication-instructions): each one
// goes to exec's CTA runtime through HostArch, which gathers a warp's lanes,
// blocks waiting threads and hands ordering to the model.
#include <array>
#include <bit>
#include <cmath>
#include <vector>

#include "decode.hpp"
#include "thread.hpp"
#include "tcgen/exec/cluster_runtime.hpp"

namespace tcgen::ptx {

namespace {

// ---- bar / barrier: aux 1 = arrive only; the count, when given, is ops[1]
void bar(Thread& t, const Instruction& in) {
  const unsigned id = in.ops.empty() ? 0u : t.get<std::uint32_t>(in.ops[0]);
  const unsigned count =
      in.ops.size() > 1 ? t.get<std::uint32_t>(in.ops[1]) : static_cast<unsigned>(t.arch().block_threads());
  if (in.aux) {
    t.runtime().barrier(t.linear(), id, count, false);
    return;
  }
  t.arch().bar_sync(id, count);
}

// barrier.cluster.arrive[.release|.relaxed][.aligned] / .wait[.acquire][.aligned]: aux 1 = arrive.
void barrier_cluster(Thread& t, const Instruction& in) {
  if (!t.runtime().enter()) return;
  if (in.aux)
    t.runtime().cluster_arrive(t.linear());
  else
    t.runtime().cluster_wait(t.linear());
}

void bar_warp_sync(Thread& t, const Instruction& in) { t.arch().sync_warp(t.get<std::uint32_t>(in.ops[0])); }

// shfl.sync.mode.b32 d[|p], a, b, c, membermask (PTX #data-movement-and-conversion-instructions-shfl-sync)
void shfl(Thread& t, const Instruction& in) {
  const bool has_p = in.ops.size() == 6;
  const std::size_t a = has_p ? 2 : 1;
  const std::uint32_t value = t.get<std::uint32_t>(in.ops[a]), bval = t.get<std::uint32_t>(in.ops[a + 1]) & 31u,
                      cval = t.get<std::uint32_t>(in.ops[a + 2]), mask = t.get<std::uint32_t>(in.ops[a + 3]);
  const int lane = t.lane();
  const int clamp = static_cast<int>(cval & 31u), segmask = static_cast<int>((cval >> 8) & 31u);
  const int max_lane = (lane & segmask) | (clamp & ~segmask), min_lane = lane & segmask;
  int j = lane;
  bool in_range = false;
  switch (in.aux) {
    case 0: j = lane - static_cast<int>(bval); in_range = j >= max_lane; break;                // up
    case 1: j = lane + static_cast<int>(bval); in_range = j <= max_lane; break;                // down
    case 2: j = lane ^ static_cast<int>(bval); in_range = j <= max_lane; break;                // bfly
    default: j = min_lane | (static_cast<int>(bval) & ~segmask); in_range = j <= max_lane; break;  // idx
  }
  if (!in_range) j = lane;
  t.set<std::uint32_t>(in.ops[0], t.arch().shfl_sync(mask, value, j));
  if (has_p) t.set<bool>(in.ops[1], in_range);
}

// vote.sync.{all,any,uni}.pred d, {!}a, membermask; vote.sync.ballot.b32 d, {!}a, membermask
void vote(Thread& t, const Instruction& in) {
  const bool p = t.pred(in.ops[1]);
  const std::uint32_t mask = t.get<std::uint32_t>(in.ops[2]);
  switch (in.aux) {
    case 0: t.set<bool>(in.ops[0], t.arch().all_sync(mask, p)); break;
    case 1: t.set<bool>(in.ops[0], t.arch().any_sync(mask, p)); break;
    case 2: {  // uni: all or none of the lanes that take part (two meetings, the same lanes at both)
      const bool all = t.arch().all_sync(mask, p);
      t.set<bool>(in.ops[0], !t.arch().any_sync(mask, p) || all);
      break;
    }
    default: t.set<std::uint32_t>(in.ops[0], t.arch().ballot_sync(mask, p)); break;
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
// NaN gives NaN), -0 below +0, NaN as the canonical 0x7FFFFFFF. aux: the op; flags 1 .abs, 2 .NaN.
enum class ReduxOp { add, min, max, and_, or_, xor_ };

std::uint32_t redux_f32(ReduxOp op, std::uint32_t flags, const std::vector<std::uint32_t>& v) {
  constexpr std::uint32_t kNaN = 0x7FFFFFFFu;
  bool any = false;
  float r = 0;
  for (std::uint32_t bits : v) {
    if (flags & 1) bits &= 0x7FFFFFFFu;
    const float x = std::bit_cast<float>(bits);
    if (std::isnan(x)) {
      if (flags & 2) return kNaN;
      continue;
    }
    // x before y: smaller, or -0 against +0.
    const auto before = [](float x, float y) { return x < y || (x == y && std::signbit(x) && !std::signbit(y)); };
    if (!any || (op == ReduxOp::min ? before(x, r) : before(r, x))) r = x;
    any = true;
  }
  return any ? std::bit_cast<std::uint32_t>(r) : kNaN;
}

void redux(Thread& t, const Instruction& in) {
  struct Frame {
    std::uint32_t in, out;
  } frame{t.get<std::uint32_t>(in.ops[1]), 0};
  const auto op = static_cast<ReduxOp>(in.aux);
  t.runtime().collective(t.linear(), {in.opcode, false, t.site(in)}, t.get<std::uint32_t>(in.ops[2]), frame,
                         [&](const std::array<Frame*, 32>& f) {
                           std::vector<std::uint32_t> v;
                           for (const Frame* x : f)
                             if (x) v.push_back(x->in);
                           std::uint32_t r = v[0];
                           if (in.type == Type::f32) {
                             r = redux_f32(op, in.flags, v);
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

// mbarrier.arrive[.expect_tx] state|_, [addr][, count | tx]; aux 1 = expect_tx.
// The state is the phase the arrival belongs to, for try_wait/test_wait with a state.
void mbarrier_arrive(Thread& t, const Instruction& in) {
  const std::uint32_t mbar = mbar_address(t, in, 1);
  if (exec::ClusterRuntime::rank_of(mbar) != t.runtime().rank() &&
      in.opcode.find("shared::cluster") != std::string::npos) {
    // A peer's mbarrier: the remote arrive returns no state (PTX: only the sink `_`).
    if (in.aux)
      t.arch().mbarrier_arrive_expect_tx_cluster(mbar, t.get<std::uint32_t>(in.ops[2]));
    else
      t.arch().mbarrier_arrive_cluster(mbar, in.ops.size() > 2 ? t.get<std::uint32_t>(in.ops[2]) : 1u);
    return;
  }
  const model::Cta& cta = t.runtime().cta();
  const std::uint32_t offset = mbar & exec::ClusterRuntime::kOffsetMask;
  const std::uint64_t phase = cta.mbarrier(offset).valid() ? cta.mbarrier(offset).phase() : 0;
  if (in.aux)
    t.arch().mbarrier_arrive_expect_tx(mbar, t.get<std::uint32_t>(in.ops[2]));
  else
    t.arch().mbarrier_arrive(mbar, in.ops.size() > 2 ? t.get<std::uint32_t>(in.ops[2]) : 1u);
  t.set<std::uint64_t>(in.ops[0], phase);
}

// mbarrier.{expect,complete}_tx [addr], tx: aux 1 = complete_tx.
void mbarrier_tx(Thread& t, const Instruction& in) {
  const std::uint32_t mbar = mbar_address(t, in, 0), bytes = t.get<std::uint32_t>(in.ops[1]);
  if (in.aux)
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
// try_cancel.async[.shared::cta].mbarrier::complete_tx::bytes[.multicast::cluster::all].b128 [addr], [mbar];
// aux 1: multicast.
void try_cancel(Thread& t, const Instruction& in) {
  t.arch().try_cancel(mbar_address(t, in, 0), mbar_address(t, in, 1), in.aux != 0);
}

// query_cancel.is_canceled.pred.b128 p, r (aux 0); .get_first_ctaid.v4.b32.b128 {x, y, z, _}, r (aux 1);
// .get_first_ctaid::x/y/z.b32.b128 d, r (aux 2, 3, 4). r: a .b128 register, two slots, low first.
void query_cancel(Thread& t, const Instruction& in) {
  const Operand& r = in.ops[1];
  if (r.kind != Operand::Kind::reg)
    fault("try_cancel_response", in.text, "a .b128 register holding try_cancel's response");
  const std::uint64_t lo = t.slot(r.slot), hi = t.slot(r.slot + 1);
  const exec::HostArch::CancelResult c = t.arch().query_cancel(
      {static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(lo >> 32), static_cast<std::uint32_t>(hi),
       static_cast<std::uint32_t>(hi >> 32)});
  const std::uint32_t xyz[3] = {c.first_cta.x, c.first_cta.y, c.first_cta.z};
  if (in.aux == 0) {
    t.set<bool>(in.ops[0], c.canceled);
  } else if (in.aux == 1) {
    const Operand& v = in.ops[0];
    for (std::uint32_t i = 0; i < v.count && i < 3; ++i) t.set<std::uint32_t>(in.elements[v.first + i], xyz[i]);
  } else {
    t.set<std::uint32_t>(in.ops[0], xyz[in.aux - 2]);
  }
}

// setmaxnreg.{inc,dec}.sync.aligned.u32 n (PTX #miscellaneous-instructions-setmaxnreg)
void setmaxnreg(Thread& t, const Instruction& in) {
  const std::int64_t n = in.ops[0].ival;
  if (n < 24 || n > 256 || n % 8 != 0)
    fault("setmaxnreg register count", std::to_string(n),
          "a multiple of 8 in [24, 256] (PTX #miscellaneous-instructions-setmaxnreg)");
  char frame = 0;  // .sync.aligned: the warp's lanes meet here; the warpgroup's four warps, at the CTA's end
  t.runtime().collective(t.linear(), {in.opcode, true, t.site(in)}, 0xFFFFFFFFu, frame,
                         [&](const std::array<char*, 32>&) {
                           t.cta().register_counts[static_cast<std::size_t>(t.warp())].push_back(in.aux ? n : -n);
                         });
}

// bar.red.popc.u32 d, a[, b], {!}c / bar.red.{and,or}.pred p, a[, b], {!}c: a bar.sync that also
// reduces c over its threads. aux: 0 popc, 1 and, 2 or.
void bar_red(Thread& t, const Instruction& in) {
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
  if (in.aux == 0)
    t.set<std::uint32_t>(in.ops[0], done.popc);
  else
    t.set<bool>(in.ops[0], in.aux == 1 ? done.all : done.any);
  if (--done.readers == 0) t.cta().reductions.erase(key);
}

}  // namespace

bool decode_barrier(const Opcode& op, Instruction& in, std::string&) {
  if (op.has("cluster")) {
    in.aux = op.has("arrive");
    if (!in.aux && !op.has("wait")) return false;
    in.run = &barrier_cluster;
    return true;
  }
  if (op.has("red")) {
    in.aux = op.has("popc") ? 0 : op.has("and") ? 1 : op.has("or") ? 2 : -1;
    if (in.aux < 0 || in.ops.size() < 3) return false;
    in.run = &bar_red;
    return true;
  }
  if (op.has("warp")) {
    in.run = &bar_warp_sync;
    return true;
  }
  in.aux = op.has("arrive");
  in.run = &bar;
  return true;
}

bool decode_shfl(const Opcode& op, Instruction& in, std::string&) {
  in.aux = op.which({"up", "down", "bfly", "idx"});
  if (in.aux < 0 || !op.has("sync")) return false;
  in.run = &shfl;
  return true;
}

bool decode_vote(const Opcode& op, Instruction& in, std::string&) {
  in.aux = op.which({"all", "any", "uni", "ballot"});
  if (in.aux < 0 || !op.has("sync")) return false;
  in.run = &vote;
  return true;
}

bool decode_redux(const Opcode& op, Instruction& in, std::string& why) {
  in.aux = op.which({"add", "min", "max", "and", "or", "xor"});
  const bool f32 = in.type == Type::f32, b32 = in.type == Type::b32, integer = in.type == Type::u32 || in.type == Type::s32;
  const bool fits = f32 ? (in.aux == 1 || in.aux == 2) : b32 ? in.aux >= 3 : integer && in.aux >= 0 && in.aux <= 2;
  if (!op.has("sync") || in.ops.size() != 3 || in.aux < 0 || !fits || (!f32 && (op.has("abs") || op.has("NaN")))) {
    why = "redux.sync.op.type d, a, membermask: add/min/max .u32/.s32, and/or/xor .b32, min/max{.abs}{.NaN} .f32";
    return false;
  }
  in.flags = (op.has("abs") ? 1u : 0u) | (op.has("NaN") ? 2u : 0u);
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
    in.aux = op.has("multicast::cluster::all");
    in.run = &try_cancel;
    return true;
  }
  if (op.has("query_cancel") && in.ops.size() == 2) {
    in.aux = op.has("is_canceled")                 ? 0
             : op.has("get_first_ctaid::x")        ? 2
             : op.has("get_first_ctaid::y")        ? 3
             : op.has("get_first_ctaid::z")        ? 4
             : op.has("get_first_ctaid") && op.has("v4") ? 1
                                                   : -1;
    if (in.aux < 0 || (in.aux == 1 && in.ops[0].kind != Operand::Kind::vector)) {
      why = "query_cancel.is_canceled.pred, .get_first_ctaid.v4.b32 {x, y, z, _} or .get_first_ctaid::x/y/z.b32";
      return false;
    }
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
  in.aux = op.has("expect_tx");
  in.run = &mbarrier_arrive;
  return true;
}

// mbarrier.expect_tx and mbarrier.complete_tx: aux says which.
bool decode_mbarrier_tx(const Opcode& op, Instruction& in, std::string&) {
  in.aux = op.parts[1] == "complete_tx";
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
  in.aux = op.has("inc");
  in.run = &setmaxnreg;
  return true;
}

}  // namespace tcgen::ptx
