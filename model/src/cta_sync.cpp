// Shared memory through the generic proxy, bar.sync, mbarriers, tcgen05.commit,
// the tcgen05 fences and waits: everything that moves data or knowledge of
// asynchronous operations between warps (knowledge.hpp).
#include <algorithm>
#include <initializer_list>
#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/model/cta.hpp"
#include "tcgen/core/hex.hpp"

namespace tcgen::model {

void Cta::st_shared(int warp, std::uint32_t addr, std::span<const std::uint8_t> bytes) {
  const Issue issue{"st.shared", warp};
  check_thread(issue, {warp, 0});
  check_smem(issue, "address", addr, bytes.size());
  std::copy(bytes.begin(), bytes.end(), smem_.write(addr, static_cast<std::uint32_t>(bytes.size())).begin());
  const std::uint32_t first = addr - (addr - smem_.base()) % 16;
  for (std::uint32_t a = first; a < addr + bytes.size(); a += 16)
    smem_.generic_write(a) = {warp, warps_[warp].proxy_fences};
  if (!bytes.empty()) warps_[warp].unfenced_st = true;
  // An ordinary store over the address tcgen05.alloc wrote replaces it.
  std::erase_if(alloc_stores_, [&](const AllocStore& s) { return s.addr + 4 > addr && s.addr < addr + bytes.size(); });
}

void Cta::ld_shared(int warp, std::uint32_t addr, std::span<std::uint8_t> out) {
  const Issue issue{"ld.shared", warp};
  check_thread(issue, {warp, 0});
  check_smem(issue, "address", addr, out.size());
  for (const AllocStore& s : alloc_stores_) {
    if (s.addr + 4 <= addr || s.addr >= addr + out.size()) continue;
    const WarpState& w = warps_[warp];
    const bool carried = w.pending.knows_complete(keys_.alloc_store(s.warp), s.id) ||
                         w.effective.knows_complete(keys_.alloc_store(s.warp), s.id);
    if (!(s.known_by >> warp & 1) && !carried)
      raise(ModelError(issue, Rule::alloc_address_before_barrier, "address", hex(addr),
                       "tcgen05.alloc by warp " + std::to_string(s.warp) +
                           " wrote the Tensor Memory address there, and no barrier has ordered this warp after it "
                           "since: neither a bar.sync of the whole CTA, nor a named barrier (bar.sync id, count) "
                           "that warp " + std::to_string(s.warp) + " arrived at and this warp waited on, nor an "
                           "mbarrier phase it arrived on that this warp has seen complete."));
  }
  const auto src = smem_.bytes(addr, static_cast<std::uint32_t>(out.size()));
  std::copy(src.begin(), src.end(), out.begin());
}

std::uint32_t Cta::ld_shared_u32(int warp, std::uint32_t addr) {
  std::uint8_t b[4];
  ld_shared(warp, addr, b);
  return b[0] | (std::uint32_t{b[1]} << 8) | (std::uint32_t{b[2]} << 16) | (std::uint32_t{b[3]} << 24);
}

void Cta::st_shared_remote(std::uint32_t addr, std::span<const std::uint8_t> bytes) {
  land_remote({"st.shared::cluster (by a peer CTA)"}, addr, bytes);
}

void Cta::async_store_landed(std::uint32_t addr, std::span<const std::uint8_t> bytes, std::uint32_t mbar,
                             const std::string& instruction) {
  const Issue issue{instruction};
  land_remote(issue, addr, bytes);
  mbarrier_op(issue, mbar, MbarOp::complete_tx, static_cast<std::int64_t>(bytes.size()));
}

void Cta::land_remote(const Issue& issue, std::uint32_t addr, std::span<const std::uint8_t> bytes) {
  check_smem(issue, "address", addr, bytes.size());
  std::copy(bytes.begin(), bytes.end(), smem_.write(addr, static_cast<std::uint32_t>(bytes.size())).begin());
  const std::uint32_t first = addr - (addr - smem_.base()) % 16;
  for (std::uint32_t a = first; a < addr + bytes.size(); a += 16) smem_.generic_write(a) = {};
  std::erase_if(alloc_stores_, [&](const AllocStore& s) { return s.addr + 4 > addr && s.addr < addr + bytes.size(); });
}

void Cta::ld_shared_remote(std::uint32_t addr, std::span<std::uint8_t> out) {
  const Issue issue{"ld.shared::cluster (by a peer CTA)"};
  check_smem(issue, "address", addr, out.size());
  const auto src = smem_.bytes(addr, static_cast<std::uint32_t>(out.size()));
  std::copy(src.begin(), src.end(), out.begin());
}

void Cta::mbarrier_arrive_remote(const Cta& from, int warp, std::uint32_t mbar, std::uint32_t count,
                                 std::uint32_t expect_tx) {
  const Issue issue{std::string(expect_tx ? "mbarrier.arrive.expect_tx" : "mbarrier.arrive") +
                    ".shared::cluster (by rank " + std::to_string(from.rank()) + ")"};
  if (expect_tx) mbarrier_op(issue, mbar, MbarOp::expect_tx, expect_tx);
  // The arrival releases at cluster scope what the arriving warp has published and fenced.
  const WarpState& w = from.warps_[static_cast<std::size_t>(warp)];
  mbarrier_op(issue, mbar, MbarOp::arrive, count, {&w.released, &w.effective, &w.pending});
}

void Cta::fence_proxy_async(int warp) {
  check_thread({"fence.proxy.async.shared::cta", warp}, {warp, 0});
  ++warps_[warp].proxy_fences;
  warps_[warp].unfenced_st = false;
}

void Cta::tma_load_landed(std::uint32_t addr, std::span<const std::uint8_t> bytes, std::uint32_t mbar, Cta* signal) {
  const Issue issue{"cp.async.bulk.tensor (bytes landing)"};
  check_smem(issue, "address", addr, bytes.size());
  std::copy(bytes.begin(), bytes.end(), smem_.write(addr, static_cast<std::uint32_t>(bytes.size())).begin());
  const std::uint32_t first = addr - (addr - smem_.base()) % 16;
  for (std::uint32_t a = first; a < addr + bytes.size(); a += 16) smem_.generic_write(a) = {};
  std::erase_if(alloc_stores_, [&](const AllocStore& s) { return s.addr + 4 > addr && s.addr < addr + bytes.size(); });
  (signal ? *signal : *this).mbarrier_op(issue, mbar, MbarOp::complete_tx, static_cast<std::int64_t>(bytes.size()));
}

std::span<const std::uint8_t> Cta::tma_store_source(Thread t, std::uint32_t addr, std::uint32_t bytes) {
  const Issue issue{"cp.async.bulk.tensor.global.shared::cta (store)", t.warp, t.lane};
  check_thread(issue, t);
  check_smem(issue, "src", addr, bytes);
  if (any_unfenced_st()) {
    std::vector<std::uint32_t> chunks;
    for (std::uint32_t a = addr - (addr - smem_.base()) % 16; a < addr + bytes; a += 16) chunks.push_back(a);
    check_proxy(issue, chunks);
  }
  return smem_.bytes(addr, bytes);
}

void Cta::bar_sync() {
  // What each warp has published, and what it has acquired (fenced or not:
  // a wait orders what it observed before the warp's later instructions,
  // the barrier among them), reaches every warp (PTX causality order is
  // transitive); each needs its own tcgen05.fence::after_thread_sync to use it.
  // gau-nernst's v7 GEMM (checked on B200s) waits in one epilogue warp, then
  // bar.sync, then fences in all four.
  Cta* self = this;
  cluster_barrier(std::span<Cta* const>(&self, 1));
}

void Cta::cluster_barrier(std::span<Cta* const> ctas) {
  Knowledge all;
  for (const Cta* c : ctas)
    for (const WarpState& w : c->warps_) {
      all.merge(w.released);
      all.merge(w.effective);
      all.merge(w.pending);
    }
  for (Cta* c : ctas) {
    for (AllocStore& s : c->alloc_stores_) s.known_by = ~std::uint64_t{0};
    for (WarpState& w : c->warps_) w.pending.merge(all);
  }
}

void Cta::named_barrier(std::uint64_t arrived, std::uint64_t waited) {
  // CUTLASS's kernels hand the TMEM address on so: the allocating MMA warp bar.arrive's, the epilogue
  // warps bar.sync, on one named barrier (70_blackwell_gemm, 74, 92 on B200s).
  for (AllocStore& s : alloc_stores_)
    if (s.known_by & arrived) s.known_by |= waited;
}

// ---- mbarrier

Cta::MbarrierSlot& Cta::slot(const Issue& issue, std::uint32_t mbar, bool must_be_valid) {
  if (mbar % 8 != 0 || !smem_.contains(mbar, 8))
    raise(ModelError(issue, Rule::mbarrier_address, "mbar", hex(mbar),
                     "it is not an 8-byte-aligned address inside the shared memory image [" + hex(smem_.base()) +
                         ", " + hex(smem_.base() + smem_.size()) + ")."));
  MbarrierSlot& s = mbarriers_[mbar];
  if (must_be_valid && !s.state.valid())
    raise(ModelError(issue, Rule::mbarrier_uninitialized, "mbar", hex(mbar),
                     "no mbarrier.init has made it a valid mbarrier (or mbarrier.inval ended it)."));
  return s;
}

void Cta::mbarrier_op(const Issue& issue, std::uint32_t mbar, MbarOp op, std::int64_t amount,
                      std::initializer_list<const Knowledge*> carried) {
  MbarrierSlot& s = slot(issue, mbar, true);
  const std::uint64_t before = s.state.phase();
  if (mbarrier_hook_ && op != MbarOp::expect_tx) mbarrier_hook_(mbar, before);
  const Rule r = op == MbarOp::arrive      ? s.state.arrive(amount)
                 : op == MbarOp::expect_tx ? s.state.expect_tx(amount)
                                           : s.state.complete_tx(amount);
  if (r != Rule::ok)
    raise(ModelError(issue, r, "mbar", hex(mbar),
                     "it is in phase " + std::to_string(s.state.phase()) + " with " +
                         std::to_string(s.state.pending()) + " of " + std::to_string(s.state.expected()) +
                         " arrivals pending and tx-count " + std::to_string(s.state.tx()) + "; this " +
                         (op == MbarOp::arrive ? "arrives " : op == MbarOp::expect_tx ? "expects " : "completes ") +
                         std::to_string(amount) + (op == MbarOp::arrive ? " times." : " bytes.")));
  for (const Knowledge* k : carried) s.filling.merge(*k);
  if (s.state.phase() != before) {  // the phase completed: what it carried reaches the waiters
    s.completed.merge(s.filling);
    s.filling.clear();
  }
}

void Cta::mbarrier_init(Thread t, std::uint32_t mbar, std::uint32_t count) {
  const Issue issue{"mbarrier.init.shared::cta.b64", t.warp, t.lane};
  check_thread(issue, t);
  MbarrierSlot& s = slot(issue, mbar, false);
  const Rule r = s.state.init(count);
  if (r != Rule::ok) raise(ModelError(issue, r, "count", std::to_string(count), "mbarrier at " + hex(mbar) + "."));
  if (smem_.contains(mbar, 8)) smem_.mark_written(mbar, 8);  // the mbarrier object: its state lives in mbarriers_, its bytes hold it on silicon
  s.filling.clear();
  s.completed.clear();
}

void Cta::mbarrier_inval(Thread t, std::uint32_t mbar) {
  const Issue issue{"mbarrier.inval.shared::cta.b64", t.warp, t.lane};
  check_thread(issue, t);
  slot(issue, mbar, true).state.inval();  // valid, as slot() checked: cannot fail
}

void Cta::mbarrier_arrive(Thread t, std::uint32_t mbar, std::uint32_t count) {
  const Issue issue{"mbarrier.arrive.shared::cta.b64", t.warp, t.lane};
  check_thread(issue, t);
  // The arrival carries what the warp has published and acquired (PTX causality order is transitive).
  const WarpState& w = warps_[t.warp];
  mbarrier_op(issue, mbar, MbarOp::arrive, count, {&w.released, &w.effective, &w.pending});
}

void Cta::mbarrier_expect_tx(Thread t, std::uint32_t mbar, std::uint32_t bytes) {
  const Issue issue{"mbarrier.expect_tx.shared::cta.b64", t.warp, t.lane};
  check_thread(issue, t);
  mbarrier_op(issue, mbar, MbarOp::expect_tx, bytes);
}

// -arrive: "expect-tx … then arrive-on", so a transfer that lands first cannot complete the phase early.
void Cta::mbarrier_arrive_expect_tx(Thread t, std::uint32_t mbar, std::uint32_t bytes) {
  const Issue issue{"mbarrier.arrive.expect_tx.shared::cta.b64", t.warp, t.lane};
  check_thread(issue, t);
  mbarrier_op(issue, mbar, MbarOp::expect_tx, bytes);
  const WarpState& w = warps_[t.warp];
  mbarrier_op(issue, mbar, MbarOp::arrive, 1, {&w.released, &w.effective, &w.pending});
}

void Cta::mbarrier_complete_tx(Thread t, std::uint32_t mbar, std::uint32_t bytes) {
  const Issue issue{"mbarrier.complete_tx.shared::cta.b64", t.warp, t.lane};
  check_thread(issue, t);
  mbarrier_op(issue, mbar, MbarOp::complete_tx, bytes);
}

bool Cta::mbarrier_try_wait(int warp, std::uint32_t mbar, std::uint32_t parity, std::optional<std::uint64_t> since) {
  const Issue issue{"mbarrier.try_wait.parity.shared::cta.b64", warp};
  check_thread(issue, {warp, 0});
  const MbarrierSlot& s = slot(issue, mbar, true);
  if (!s.state.test_wait(parity)) {
    if (!since || s.state.phase() <= *since) return false;
    raise(ModelError(issue, Rule::mbarrier_phase_overtaken, "phase",
                     std::to_string(s.state.phase()) + " of the mbarrier at " + hex(mbar) + " (parity " +
                         std::to_string(parity) + " waited for since phase " + std::to_string(*since) + ")",
                     "the phase the warp waits for seen complete before the next one completes"));
  }
  warps_[warp].pending.merge(s.completed);
  return true;
}

const Mbarrier& Cta::mbarrier(std::uint32_t mbar) const {
  const auto it = mbarriers_.find(mbar);
  if (it == mbarriers_.end()) fail("mbar", hex(mbar), "the address of an mbarrier given to mbarrier_init");
  return it->second.state;
}

// ---- tcgen05.commit, fences, waits

// PTX #tcgen05-instructions-tcgen05-commit: the mbarrier tracks the
// completion of all prior async tcgen05 operations of the executing thread;
// they are complete in the model, so the arrival happens now.
void Cta::commit(Thread t, std::uint32_t mbar, CtaGroup group, Cta* target) {
  const Issue issue{"tcgen05.commit.cta_group::" + std::to_string(static_cast<int>(group)) +
                        ".mbarrier::arrive::one.shared::cluster.b64" +
                        (target && target != this ? " (to rank " + std::to_string(target->rank()) + ")" : ""),
                    t.warp, t.lane};
  check_thread(issue, t);
  check_cta_group(issue, group);
  Cta& dest = target ? *target : *this;
  const std::uint64_t phase = dest.slot(issue, mbar, true).state.phase();
  // The arrival carries the completion of the thread's operations: with
  // cta_group::2, of their halves in the peer too. Of the warp's plain memory
  // accesses before it, it carries the TMEM address tcgen05.alloc stored, as
  // an arrival after a store releases it (CUTLASS's FMHA: the MMA warp's
  // commits lead on to the epilogue warp, which reads that address to free).
  Knowledge k;
  const int issuer = keys_.thread(t.warp, t.lane);
  k.complete.raise(issuer, ops_.size() + 1);
  k.complete.raise(keys_.alloc_store(t.warp), warps_[t.warp].released.complete.at(keys_.alloc_store(t.warp)));
  commits_[issuer].push_back({ops_.size() + 1, mbar, phase});
  if (group == CtaGroup::two) {
    const int half = peer_->keys_.pair(t.warp, t.lane);
    k.complete.raise(half, peer_->ops_.size() + 1);
    peer_->commits_[half].push_back({peer_->ops_.size() + 1, mbar, phase});
  }
  dest.mbarrier_op(issue, mbar, MbarOp::arrive, 1, {&k});
}

void Cta::fence_before_thread_sync(int warp) {
  check_thread({"tcgen05.fence::before_thread_sync", warp}, {warp, 0});
  WarpState& w = warps_[warp];
  const std::uint64_t next = ops_.size() + 1;
  w.released.ordered.raise(ordering_key(keys_.thread(warp, 0)), next);  // every lane's single-thread operations so far
  if (peer_)  // and their cta_group::2 halves in the peer
    w.released.ordered.raise(ordering_key(peer_->keys_.pair(warp, 0)), peer_->ops_.size() + 1);
  // tcgen05.ld/st are complete only once waited for (wait::ld / wait::st).
  w.released.complete.raise(keys_.st(warp), w.st_done);
  w.released.complete.raise(keys_.ld(warp), w.ld_done);
}

void Cta::fence_after_thread_sync(int warp) {
  check_thread({"tcgen05.fence::after_thread_sync", warp}, {warp, 0});
  warps_[warp].effective.merge(warps_[warp].pending);
}

// A wait completes the warp's own loads or stores; its next barrier or arrival publishes that even
// without tcgen05.fence::before_thread_sync, under the keys whose use is a PTX letter.
void Cta::wait_ld(int warp) {
  check_thread({"tcgen05.wait::ld.sync.aligned", warp}, {warp, 0});
  WarpState& w = warps_[warp];
  w.ld_done = ops_.size() + 1;
  w.released.complete.raise(keys_.ld_unfenced(warp), w.ld_done);
}

void Cta::ld_used(int warp, std::uint64_t id) {
  WarpState& w = warps_[warp];
  w.ld_done = std::max(w.ld_done, id + 1);
  w.released.complete.raise(keys_.ld_unfenced(warp), w.ld_done);
}

void Cta::wait_st(int warp) {
  check_thread({"tcgen05.wait::st.sync.aligned", warp}, {warp, 0});
  WarpState& w = warps_[warp];
  w.st_done = ops_.size() + 1;
  w.released.complete.raise(keys_.st_unfenced(warp), w.st_done);
}

}  // namespace tcgen::model
