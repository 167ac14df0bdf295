// The checks that order Tensor Memory and shared-memory accesses against the
// asynchronous operations before them (PTX #tcgen05-memory-consistency-model,
// tcgen05-facts.md §7), and the check that a read finds written cells.
#include <algorithm>
#include <string>

#include "tcgen/model/cta.hpp"
#include "tcgen/core/hex.hpp"

namespace tcgen::model {

namespace {

std::string cell_name(int lane, int column) {
  return "lane " + std::to_string(lane) + ", column " + std::to_string(column);
}

std::string by(int warp, int lane) {
  return "warp " + std::to_string(warp) + (lane >= 0 ? ", lane " + std::to_string(lane) : "");
}

// "accumulator lane 0, column 128, M128 N256, kind::f16"
std::string shape_name(std::uint32_t d_tmem, int m, int n, MmaKind kind) {
  return "accumulator lane " + std::to_string(d_tmem >> 16) + ", column " + std::to_string(d_tmem & 0xFFFF) + ", M" +
         std::to_string(m) + " N" + std::to_string(n) + ", kind::" + name(kind);
}

// The two rules of a tcgen05.st or ld that another warp's access finds unwaited, and its wait.
struct WaitRules {
  std::uint64_t done;  // the issuing warp's own st or ld with id below this are complete
  Rule without_wait, published_unwaited;
  const char* wait;
  const char* touched;
};

}  // namespace

std::string Cta::commit_state(const AsyncOp& op, std::uint32_t id, int warp) const {
  const auto it = commits_.find(op.issuer);
  if (it != commits_.end())
    for (const Commit& c : it->second)
      if (c.bound > id)
        return "committed to the mbarrier at " + hex(c.mbar) + " in its phase " + std::to_string(c.phase) +
               "; " + warp_name(warp) + " has not seen that phase complete (mbarrier.try_wait.parity " +
               std::to_string(c.phase & 1) + ")";
  return "no tcgen05.commit by that thread has been issued since";
}

void Cta::unfenced_wait(const Issue& issue, int warp, int lane, int column, const AsyncOp& op, const char* touched) {
  raise(ModelError(issue, Rule::missing_after_thread_sync, "cell", cell_name(lane, column),
                    warp_name(warp) + " has waited for the " + op.instruction + " of " + by(op.warp, op.lane) +
                        " that " + touched + " it, but has not executed tcgen05.fence::after_thread_sync since that "
                        "wait."));
  WarpState& w = state(warp);
  w.effective.merge(w.pending);
}

// One access's checks against a cell's last writer and last reader (Cta::check_order): the facts
// each rule's check needs, held once.
class Cta::OrderCheck {
 public:
  OrderCheck(Cta& cta, const Issue& issue, Touch touch, int warp, int issuer, int lane, int column,
             const MmaShape* mma)
      : cta_(cta), issue_(issue), touch_(touch), warp_(warp), issuer_(issuer), lane_(lane), column_(column),
        mma_(mma), w_(cta.state(warp)) {}

  void after_writer(std::uint32_t id) {
    const AsyncOp& op = cta_.ops_[id - 1];
    if (op.kind == OpKind::st && touch_ != Touch::st) return after_st(op, id);
    const bool by_mma = touch_ == Touch::mma_read || touch_ == Touch::mma_write;
    if (by_mma && op.kind == OpKind::mma && cta_.config_.strict_mma_pipelining && mma_ && !(op.shape == *mma_)) {
      // Strict mode: not a pipelined pair, so the earlier mma must be complete.
      return require(w_.effective.knows_complete(op.issuer, id), [&] { return w_.pending.knows_complete(op.issuer, id); },
                     op, Rule::mma_not_pipelined, [&] {
                       const char* later = touch_ == Touch::mma_read ? "reads it as its A operand" : "overwrites it";
                       return cta_.unpipelined(op, "wrote it", later, *mma_, id, warp_, issuer_);
                     });
    }
    if (op.kind == OpKind::mma || op.kind == OpKind::cp) after_mma_or_cp(op, id, by_mma);
  }

  // An MMA or cp overwriting cells a tcgen05.ld still reads (WAR).
  void after_reader(std::uint32_t id) {
    const AsyncOp& op = cta_.ops_[id - 1];
    auto reader = [&] { return "it is read by " + op.instruction + " of " + by(op.warp, -1); };
    if (!same_warp(op))
      return require_waited(op, id, {cta_.warps_[op.warp].ld_done, Rule::ld_without_wait, Rule::ld_published_unwaited,
                                     "tcgen05.wait::ld", "read"},
                            reader, ", and nothing orders this write after that read.");
    if (id >= cta_.warps_[op.warp].ld_done)
      fail(Rule::ld_without_wait, reader() + ", which has not executed tcgen05.wait::ld since.");
  }

 private:
  void fail(Rule rule, const std::string& why) {
    cta_.raise(ModelError(issue_, rule, "cell", cell_name(lane_, column_), why));
  }
  // The peer's warp (acting_) issued none of this CTA's tcgen05.ld/st.
  bool same_warp(const AsyncOp& op) const { return !cta_.acting_ && op.warp == warp_; }
  WarpState& state() { return cta_.state(warp_); }

  // Fails unless `known` holds in the warp's fenced knowledge; `why` says what is missing. A wait
  // without the fence after it is a PTX letter: unless it is an error, the warp goes on as if it had
  // fenced. `waited` is asked only when the fenced knowledge falls short.
  template <class Waited, class Why>
  void require(bool known, Waited waited, const AsyncOp& op, Rule rule, Why why) {
    if (known) return;
    if (waited()) return cta_.unfenced_wait(issue_, warp_, lane_, column_, op, "wrote or read");
    fail(rule, why());
  }

  // A tcgen05.st or ld of another warp, which must be complete: known through the issuer's fence, or,
  // a PTX letter, through its wait::st / wait::ld and a barrier or mbarrier with no fence on either side.
  template <class Why>
  void require_complete(const AsyncOp& op, std::uint32_t id, const char* touched, Why why) {
    const int unfenced = Issuers::unfenced(op.issuer);
    if (w_.effective.knows_complete(op.issuer, id)) return;
    if (w_.pending.knows_complete(op.issuer, id)) return cta_.unfenced_wait(issue_, warp_, lane_, column_, op, touched);
    if (!w_.effective.knows_complete(unfenced, id) && !w_.pending.knows_complete(unfenced, id))
      fail(Rule::unordered_tmem_access, why());
    const std::string after = w_.effective.knows_complete(unfenced, id)
                                  ? std::string(".")
                                  : ", nor has " + cta_.warp_name(warp_) + " run tcgen05.fence::after_thread_sync since its wait.";
    fail(Rule::missing_before_thread_sync,
         "the " + op.instruction + " of " + by(op.warp, -1) + " that " + touched +
             " it was waited for and then published by a barrier or mbarrier, but that warp ran no "
             "tcgen05.fence::before_thread_sync between the wait and the publishing" + after);
    // Unless an error, the warp goes on as if both fences had run: the rest of these cells pass.
    WarpState& ws = state();
    ws.effective.complete.raise(op.issuer, std::max(ws.effective.complete.at(unfenced), ws.pending.complete.at(unfenced)));
  }

  // Another warp's tcgen05.st or ld, which must be complete (require_complete). Where only its issue
  // reached this warp, through the issuer's barrier or arrival before its wait::st or wait::ld, a PTX
  // letter: as if waited (77_blackwell_fmha's statistics tcgen05.st, 77_blackwell_fmha_gen's
  // correction tcgen05.ld).
  template <class Said>
  void require_waited(const AsyncOp& op, std::uint32_t id, const WaitRules& rules, Said said, const char* unordered) {
    const auto known = [&](int key) { return w_.effective.knows_complete(key, id) || w_.pending.knows_complete(key, id); };
    const bool waited = known(op.issuer) || known(Issuers::unfenced(op.issuer));
    if (!waited && known(Issuers::issued(op.issuer))) {
      fail(rules.published_unwaited, said() + ", which then reached " + cta_.warp_name(warp_) +
                                         " through a barrier or mbarrier arrival without " + rules.wait + " before it.");
      state().effective.complete.raise(op.issuer, id + 1);  // unless an error, as if waited and fenced
      return;
    }
    if (!waited && id >= rules.done) fail(rules.without_wait, said() + ", which has not executed " + rules.wait + " since.");
    require_complete(op, id, rules.touched, [&] { return said() + unordered; });
  }

  void after_st(const AsyncOp& op, std::uint32_t id) {
    auto writer = [&] { return "it was written by " + op.instruction + " of " + by(op.warp, op.lane); };
    if (!same_warp(op))
      return require_waited(op, id, {cta_.warps_[op.warp].st_done, Rule::st_without_wait, Rule::st_published_unwaited,
                                     "tcgen05.wait::st", "wrote"},
                            writer, ", and nothing orders this access after it.");
    if (id < cta_.warps_[op.warp].st_done || w_.effective.knows_complete(op.issuer, id)) return;
    if (touch_ != Touch::ld) return fail(Rule::st_without_wait, writer() + ", which has not executed tcgen05.wait::st since.");
    // One warp's st then ld of the same cells: PTX orders them only through wait::st; CUTLASS's
    // stream-K reduction relies on the warp's own order. Unless an error, as if it had waited.
    fail(Rule::st_read_back_unwaited, writer() + ", which reads it back with no tcgen05.wait::st between.");
    state().effective.complete.raise(op.issuer, id + 1);
  }

  void after_mma_or_cp(const AsyncOp& op, std::uint32_t id, bool by_mma) {
    auto writer = [&] { return "it was written by " + op.instruction + " of " + by(op.warp, op.lane); };
    // mma → mma and cp → mma from one thread are pipelined (PTX
    // #tcgen05-memory-consistency-model-pipelined-instructions). PTX names mma pairs with the same
    // accumulator and shape; the model orders any two, as FA4 and CUTLASS example 77 assume when
    // S = Q·Kᵀ overwrites the P that the P·V issued just before it reads (UNCONFIRMED beyond PTX;
    // fmha/include/tcgen/fmha/kernel.hpp, Fmha::multiply). Strict mode (after_writer) holds mma pairs
    // to PTX's words.
    if (by_mma && op.issuer == issuer_) return;
    // ld and st need the operation finished; another async tcgen05 operation needs it ordered before itself.
    if (touch_ == Touch::ld || touch_ == Touch::st)
      return require(w_.effective.knows_complete(op.issuer, id), [&] { return w_.pending.knows_complete(op.issuer, id); },
                     op, Rule::mma_not_complete,
                     [&] { return writer() + "; " + cta_.commit_state(op, id, warp_) + "."; });
    if (touch_ == Touch::cp && op.issuer == issuer_ && !w_.effective.knows_ordered(op.issuer, id))
      return fail(Rule::cp_not_pipelined, writer() + ", the same thread, and this tcgen05.cp rewrites it with no commit "
                                                     "and wait between.");
    require(w_.effective.knows_ordered(op.issuer, id), [&] { return w_.pending.knows_ordered(op.issuer, id); }, op,
            Rule::unordered_tmem_access,
            [&] { return writer() + ", another thread, and nothing orders this access after it."; });
  }

  Cta& cta_;
  const Issue& issue_;
  Touch touch_;
  int warp_, issuer_, lane_, column_;
  const MmaShape* mma_;
  const WarpState& w_;
};

void Cta::check_order(const Issue& issue, Touch touch, int warp, int issuer, int lane, int column,
                      const MmaShape* mma) {
  const TmemCell c = tmem_.cell(lane, column);
  if (c.writer == 0 && c.reader == 0) return;
  OrderCheck check(*this, issue, touch, warp, issuer, lane, column, mma);
  if (c.writer != 0) check.after_writer(c.writer);
  if (c.reader != 0 && (touch == Touch::mma_write || touch == Touch::cp)) check.after_reader(c.reader);
}

void Cta::check_mma_reader(const Issue& issue, int warp, int issuer, int lane, int column, std::uint32_t id,
                           const MmaShape& now) {
  const AsyncOp& op = ops_[id - 1];
  if (op.shape == now && op.issuer == issuer) return;  // a pipelined pair of one thread
  const WarpState& w = state(warp);
  // A pipelined pair of two threads needs the first ordered before the
  // second; any other pair, the first complete.
  const bool pipelined = op.shape == now;
  const bool known = pipelined ? w.effective.knows_ordered(op.issuer, id) : w.effective.knows_complete(op.issuer, id);
  if (known) return;
  const bool waited = pipelined ? w.pending.knows_ordered(op.issuer, id) : w.pending.knows_complete(op.issuer, id);
  if (waited) return unfenced_wait(issue, warp, lane, column, op, "read");
  if (pipelined)
    raise(ModelError(issue, Rule::unordered_tmem_access, "cell", cell_name(lane, column),
                     "it is read by " + op.instruction + " of " + by(op.warp, op.lane) +
                         ", another thread, and nothing orders this write after that read."));
  raise(ModelError(issue, Rule::mma_not_pipelined, "cell", cell_name(lane, column),
                   unpipelined(op, "read it as its A operand", "overwrites it", now, id, warp, issuer)));
}

std::string Cta::unpipelined(const AsyncOp& op, const char* earlier, const char* later, const MmaShape& now,
                             std::uint32_t id, int warp, int issuer) const {
  const std::string who = op.issuer == issuer ? "the same thread" : by(op.warp, op.lane);
  return "the earlier " + op.instruction + " of " + who + " (" +
         shape_name(op.shape.d_tmem, op.shape.m, op.shape.n, op.shape.kind) + ") " + earlier + "; this one (" +
         shape_name(now.d_tmem, now.m, now.n, now.kind) + ") " + later +
         ". PTX pipelines mma → mma only for the same accumulator and shape: commit it and wait (tcgen05.commit, "
         "mbarrier.try_wait on its phase, tcgen05.fence::after_thread_sync; now: " +
         commit_state(op, id, warp) + "), or accept the FA4 order (strict mode off).";
}

void Cta::check_written(const Issue& issue, int lane, int column, const char* why) {
  const std::uint32_t by_mma = tmem_.undefined_by(lane, column);
  if (by_mma == 0 && tmem_.writer(lane, column) != 0) return;
  raise(ModelError(issue, Rule::uninitialized_tmem, "cell", cell_name(lane, column),
                   undefined_detail(lane, column, by_mma, why)));
}

std::string Cta::undefined_detail(int lane, int column, std::uint32_t by_mma, const char* why) const {
  if (by_mma)
    return "it holds an undefined value: " + ops_[by_mma - 1].instruction + " of " +
           by(ops_[by_mma - 1].warp, ops_[by_mma - 1].lane) +
           " computed its row from cells never written since their tcgen05.alloc (its A row in Tensor "
           "Memory, or its accumulator with enable-input-d)" + why + ".";
  std::string detail = std::string("it was never written since its tcgen05.alloc") + why + ".";
  // The user's 16x256b bug: the second store of a warp went to column + 16
  // instead of lane + 16, so lanes 16-31 of the quarter stay unwritten while
  // the cell 16 lanes up and 16 columns right was written by a 16-lane access.
  if (lane % 32 >= 16 && column + 16 < TensorMemory::kColumns) {
    const TmemCell twin = tmem_.cell(lane - 16, column + 16);
    if (twin.writer != 0 && ops_[twin.writer - 1].lanes_covered == 16)
      detail += " Yet " + cell_name(lane - 16, column + 16) + " was written, by " +
                ops_[twin.writer - 1].instruction + ": a 16-lane access (16x64b, 16x128b, 16x256b, 16x32bx2) "
                "covers 16 lanes, so the second half of a warp's 32 lanes is at taddr + (16 << 16) (lane + 16), "
                "not taddr + 16 (column + 16).";
  }
  detail += mma_write_near(lane, column);
  return detail;
}

bool Cta::any_unfenced_st() const {
  for (const WarpState& w : warps_)
    if (w.unfenced_st) return true;
  return false;
}

void Cta::check_proxy(const Issue& issue, const std::vector<std::uint32_t>& chunks) {
  for (std::uint32_t addr : chunks) {
    const SharedMemory::GenericWrite& g = smem_.generic_write(addr);
    if (g.warp < 0 || warps_[g.warp].proxy_fences != g.proxy_fences) continue;
    // A PTX letter: unless it is an error, taken as if the writer had fenced.
    raise(ModelError(issue, Rule::proxy_fence_missing, "address", hex(addr),
                      "the 16 bytes there were written by st.shared of warp " + std::to_string(g.warp) +
                          ", which has not executed fence.proxy.async since."));
    ++warps_[g.warp].proxy_fences;
    warps_[g.warp].unfenced_st = false;
  }
}

}  // namespace tcgen::model
