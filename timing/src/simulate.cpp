#include "tcgen/timing/simulate.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <queue>
#include <tuple>

namespace tcgen::timing {

namespace {

constexpr std::size_t kTimelineSpans = 400000;  // a timeline beyond this is cut (Perfetto opens it still)

// A unit that serves one request at a time: a request waits for the unit to
// be free, holds it `cycles`, and the unit's busy time grows by that much.
struct Resource {
  double free = 0, busy = 0;
  double serve(double at, double cycles) {
    const double start = std::max(at, free);
    free = start + cycles;
    busy += cycles;
    return free;
  }
};

// A unit several users reserve ahead of time, out of order: a request takes the first gap long enough
// at or after its time. Shared memory's port: TMA writes into it while the tensor pipe reads its
// operands from it and warps load and store, 128 bytes a cycle in all.
struct Calendar {
  std::map<double, double> busy_until;  // start → end of each reservation, none overlapping
  double busy = 0;
  double serve(double at, double cycles) {
    this->busy += cycles;
    auto it = busy_until.upper_bound(at);
    if (it != busy_until.begin() && std::prev(it)->second > at) at = std::prev(it)->second;
    for (; it != busy_until.end() && it->first < at + cycles; ++it) at = std::max(at, it->second);
    busy_until[at] = at + cycles;
    return at + cycles;
  }
  // Reservations ended before `now` no request can reach any more.
  void forget(double now) {
    while (!busy_until.empty() && busy_until.begin()->second < now) busy_until.erase(busy_until.begin());
  }
};

struct Sm {
  Resource issue[4], mufu[4], tensor, tma, l2, tmem;
  Calendar smem;
};

struct Group;
struct ClusterRun;

struct CtaRun {
  ClusterRun* cluster = nullptr;
  std::uint32_t rank = 0;
  int warps_left = 0;
};

struct ClusterRun {
  const ClusterTrace* trace = nullptr;
  Group* group = nullptr;
  std::vector<CtaRun> ctas;
  int ctas_left = 0;
};

struct Group {
  std::vector<Sm> sms;
  std::vector<const ClusterTrace*> pending;  // in the grid's order
  std::size_t next = 0;
  double finish = 0;
};

struct WarpRun {
  const WarpTrace* trace = nullptr;
  CtaRun* cta = nullptr;
  Sm* sm = nullptr;
  std::uint32_t sm_index = 0;  // within the group
  int warp = 0;
  std::size_t pc = 0;
  double t = 0, start = 0;
  double mma_done = 0, store_done = 0, ld_done = 0, cp_done = 0;
  double blocked_since = 0;
  std::string blocked_on;
  PhaseKey blocked_key;
  bool on_timeline = false;
};

struct Phase {
  int remaining = 0;
  double time = 0;
  std::vector<WarpRun*> waiters;
};

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string barrier_name(const PhaseKey& k) {
  switch (k.kind) {
    case PhaseKey::Kind::mbarrier: return "mbarrier " + hex(k.id);
    case PhaseKey::Kind::named: return "bar " + std::to_string(k.id);
    case PhaseKey::Kind::cluster: return "barrier.cluster";
  }
  return "?";
}

class Replay {
 public:
  Replay(const LaunchTrace& trace, const Placement& placement, const Machine& m, std::vector<Span>* timeline)
      : trace_(trace), placement_(placement), m_(m), timeline_(timeline) {}

  Prediction run() {
    count_signals();
    const int cluster_size = static_cast<int>(trace_.cluster[0] * trace_.cluster[1] * trace_.cluster[2]);
    std::map<std::uint64_t, Group*> by_index;
    for (const ClusterTrace& c : trace_.clusters) {
      const std::uint64_t g = placement_.group_of(c.index);
      auto [it, fresh] = by_index.try_emplace(g, nullptr);
      if (fresh) {
        groups_.push_back(std::make_unique<Group>());
        groups_.back()->sms.resize(static_cast<std::size_t>(cluster_size));
        it->second = groups_.back().get();
      }
      it->second->pending.push_back(&c);
    }
    first_group_ = groups_.empty() ? nullptr : by_index.begin()->second;
    for (auto& g : groups_) {
      std::sort(g->pending.begin(), g->pending.end(),
                [](const ClusterTrace* a, const ClusterTrace* b) { return a->index < b->index; });
      for (int slot = 0; slot < placement_.ctas_per_sm && g->next < g->pending.size(); ++slot) start_cluster(*g, 0);
    }
    loop();
    return prediction();
  }

 private:
  void count_signals() {
    for (const ClusterTrace& c : trace_.clusters)
      for (const CtaTrace& cta : c.ctas)
        for (const WarpTrace& w : cta.warps)
          for (const Record& r : w.records) {
            for (const PhaseKey& k : r.signals) ++phases_[k].remaining;
            if (r.op == Op::sync) ++phases_[r.phase].remaining;
          }
  }

  void start_cluster(Group& g, double at) {
    const ClusterTrace* c = g.pending[g.next++];
    clusters_.push_back(std::make_unique<ClusterRun>());
    ClusterRun& run = *clusters_.back();
    run.trace = c;
    run.group = &g;
    run.ctas.resize(c->ctas.size());
    run.ctas_left = static_cast<int>(c->ctas.size());
    for (std::size_t i = 0; i < c->ctas.size(); ++i) {
      const CtaTrace& cta = c->ctas[i];
      CtaRun& cr = run.ctas[i];
      cr.cluster = &run;
      cr.rank = cta.rank;
      cr.warps_left = static_cast<int>(cta.warps.size());
      ++ctas_simulated_;
      const std::uint32_t sm_index = cta.rank % static_cast<std::uint32_t>(g.sms.size());
      for (std::size_t w = 0; w < cta.warps.size(); ++w) {
        warps_.push_back(std::make_unique<WarpRun>());
        WarpRun& wr = *warps_.back();
        wr.trace = &cta.warps[w];
        untimed_ += cta.warps[w].untimed;
        wr.cta = &cr;
        wr.sm = &g.sms[sm_index];
        wr.sm_index = sm_index;
        wr.warp = static_cast<int>(w);
        wr.t = wr.start = at;
        wr.on_timeline = timeline_ && &g == first_group_;
        if (cta.warps[w].records.empty()) {
          finish_warp(wr);
          continue;
        }
        queue_.push({wr.t, seq_++, &wr});
      }
    }
  }

  void span(const WarpRun& w, const std::string& track, const std::string& name, double start, double cycles) {
    if (!w.on_timeline || cycles <= 0 || timeline_->size() >= kTimelineSpans) return;
    timeline_->push_back({w.sm_index, track, name, start, cycles});
  }
  std::string track(const WarpRun& w) const {
    const std::string slot = placement_.ctas_per_sm > 1 ? " (cluster " + std::to_string(w.cta->cluster->trace->index) + ")" : "";
    return "warp " + std::to_string(w.warp) + slot;
  }

  // The instructions a record's work stands for: issue slots of the warp's
  // scheduler, and the MUFU, shared-memory and L2 time they need, all at once.
  double work(WarpRun& w, const Work& k) {
    const int s = w.warp % m_.schedulers;
    double end = w.t;
    if (k.issued) end = std::max(end, w.sm->issue[s].serve(w.t, k.issued));
    if (k.mufu) end = std::max(end, w.sm->mufu[s].serve(w.t, k.mufu * 32.0 / (m_.mufu_ops_per_cycle / m_.schedulers)));
    if (k.smem_bytes) end = std::max(end, w.sm->smem.serve(w.t, static_cast<double>(k.smem_bytes) / m_.smem_bytes_per_cycle));
    if (k.store_bytes) end = std::max(end, w.sm->l2.serve(w.t, static_cast<double>(k.store_bytes) / m_.l2_bytes_per_cycle));
    span(w, track(w), "issue", w.t, end - w.t);
    return end;
  }

  // A record of w completing its part of phase k at `at`; on a peer CTA's mbarrier it lands later.
  void signal(const WarpRun& w, const PhaseKey& k, double at) {
    if (k.kind == PhaseKey::Kind::mbarrier && k.rank != w.cta->rank) at += m_.peer_signal_latency;
    auto it = phases_.find(k);
    if (it == phases_.end()) return;
    Phase& p = it->second;
    p.time = std::max(p.time, at);
    if (--p.remaining > 0) return;
    for (WarpRun* w : p.waiters) resume(*w, p.time + m_.mbarrier_wake);
    p.waiters.clear();
  }

  void resume(WarpRun& w, double at) {
    const double t = std::max(w.blocked_since, at);
    waited(w, w.blocked_on, t - w.blocked_since);
    span(w, track(w), "wait " + w.blocked_on, w.blocked_since, t - w.blocked_since);
    w.blocked_on.clear();
    w.t = t;
    queue_.push({w.t, seq_++, &w});
  }

  void waited(const WarpRun& w, const std::string& barrier, double cycles) {
    if (waits_.size() <= static_cast<std::size_t>(w.warp)) waits_.resize(static_cast<std::size_t>(w.warp) + 1);
    waits_[static_cast<std::size_t>(w.warp)][barrier] += cycles;
  }

  // Blocks w on phase k unless it has completed; true when w goes on.
  bool wait(WarpRun& w, const PhaseKey& k) {
    auto it = phases_.find(k);
    if (it == phases_.end()) return true;  // nothing the trace saw completes it: it had completed
    Phase& p = it->second;
    if (p.remaining <= 0) {
      const double t = std::max(w.t, p.time + m_.mbarrier_wake);
      waited(w, barrier_name(k), t - w.t);
      span(w, track(w), "wait " + barrier_name(k), w.t, t - w.t);
      w.t = t;
      return true;
    }
    w.blocked_since = w.t;
    w.blocked_on = barrier_name(k);
    w.blocked_key = k;
    p.waiters.push_back(&w);
    blocked_.push_back(&w);
    return false;
  }

  // One record of w; false when w blocked or finished.
  bool step(WarpRun& w) {
    if (w.pc >= w.trace->records.size()) {  // a trace that ends without its exit record
      finish_warp(w);
      return false;
    }
    const Record& r = w.trace->records[w.pc++];
    w.t = work(w, r.work);
    Sm& sm = *w.sm;
    switch (r.op) {
      case Op::arrive:
        for (const PhaseKey& k : r.signals) signal(w, k, w.t);
        break;
      case Op::sync:
        signal(w, r.phase, w.t);
        return wait(w, r.phase);
      case Op::wait:
        return wait(w, r.phase);
      case Op::mma:
      case Op::tmem_cp: {
        w.t += 1;
        MmaCost cost;
        if (r.op == Op::mma) {
          cost = mma_cost(r.mma, m_);
          flops_ += cost.flops;
          flops_by_peak_[cost.peak_flops_per_sm_cycle] += cost.flops;
        } else {  // shared memory read at the port's rate, in the pipe's order
          cost.cycles = cost.latency = cost.smem_cycles = static_cast<double>(r.bytes) / m_.smem_bytes_per_cycle;
        }
        double start = std::max(w.t, sm.tensor.free);
        Sm* peer = nullptr;
        if (r.mma.pair && r.op == Op::mma) {
          auto& sms = w.cta->cluster->group->sms;
          peer = &sms[(w.sm_index ^ 1u) % sms.size()];
          if (peer == &sm) peer = nullptr;
          if (peer) start = std::max(start, peer->tensor.free);
        }
        // The pipe is held for the instruction's cycles, or until the shared-memory port has given it
        // its operands if TMA or the warps hold the port; busy counts the FLOP rate's cycles (of peak).
        double end = std::max(start + cost.cycles, sm.smem.serve(start, cost.smem_cycles));
        if (peer) end = std::max(end, peer->smem.serve(start, cost.smem_cycles));
        for (Sm* s : {&sm, peer}) {
          if (!s) continue;
          s->tensor.free = end;
          s->tensor.busy += r.op == Op::mma ? cost.compute : cost.cycles;
        }
        w.mma_done = std::max(w.mma_done, end + cost.latency - cost.compute);
        if (w.on_timeline) {
          const std::string what = r.op == Op::tmem_cp ? "tcgen05.cp"
                                                       : "mma " + std::to_string(r.mma.m) + "x" + std::to_string(r.mma.n) +
                                                             "x" + std::to_string(r.mma.k);
          span(w, "tensor pipe", what, start, cost.cycles);
          if (peer && timeline_->size() < kTimelineSpans)
            timeline_->push_back({w.sm_index ^ 1u, "tensor pipe", what + " (pair)", start, cost.cycles});
        }
        break;
      }
      case Op::commit:
        w.t += 1;
        for (const PhaseKey& k : r.signals) signal(w, k, std::max(w.t, w.mma_done));
        break;
      case Op::tma_load:
      case Op::tma_store: {
        w.t += 1;
        const double rows = static_cast<double>(r.rows) / m_.tma_rows_per_cycle;
        const double bytes = static_cast<double>(r.bytes) / m_.l2_bytes_per_cycle;
        // The TMA unit walks the box's rows while L2 delivers its bytes: it is held for the longer
        // of the two; each is counted busy for its own.
        const double start = std::max(w.t, sm.tma.free);
        sm.tma.free = start + std::max(rows, bytes);
        sm.tma.busy += rows;
        sm.l2.busy += bytes;
        // The bytes pass through shared memory's port (written by a load, read by a store).
        const double through = sm.smem.serve(start, static_cast<double>(r.bytes) / m_.smem_bytes_per_cycle);
        const double done = std::max(start + std::max(rows, bytes), through) + m_.tma_latency;
        span(w, "TMA", std::string(r.op == Op::tma_load ? "load " : "store ") + std::to_string(r.bytes) + " B", start,
             done - start);
        if (r.op == Op::tma_store) w.store_done = std::max(w.store_done, done);
        for (const PhaseKey& k : r.signals) signal(w, k, done);
        break;
      }
      case Op::bulk_wait:
        w.t = std::max(w.t, w.store_done);
        break;
      case Op::tmem_ld:
        w.t += 1;
        w.ld_done = std::max(w.ld_done, sm.tmem.serve(w.t, static_cast<double>(r.bytes) / m_.tmem_bytes_per_cycle) +
                                            m_.tmem_ld_latency);
        break;
      case Op::tmem_wait:
        span(w, track(w), "tcgen05.wait", w.t, w.ld_done - w.t);
        w.t = std::max(w.t, w.ld_done);
        break;
      case Op::global_load: {
        const double done = r.l1 ? w.t + m_.l1_latency
                                 : sm.l2.serve(w.t, static_cast<double>(r.bytes) / m_.l2_bytes_per_cycle) + m_.global_latency;
        span(w, track(w), "ld.global", w.t, done - w.t);
        w.t = done;
        break;
      }
      case Op::cp_async:
        w.cp_done = std::max(w.cp_done, sm.l2.serve(w.t, static_cast<double>(r.bytes) / m_.l2_bytes_per_cycle) +
                                            m_.global_latency);
        break;
      case Op::cp_async_wait:
        w.t = std::max(w.t, w.cp_done);
        break;
      case Op::cp_async_arrive:
        for (const PhaseKey& k : r.signals) signal(w, k, std::max(w.t, w.cp_done));
        break;
      case Op::exit:
        finish_warp(w);
        return false;
    }
    return true;
  }

  void finish_warp(WarpRun& w) {
    life_.resize(std::max(life_.size(), static_cast<std::size_t>(w.warp) + 1));
    life_[static_cast<std::size_t>(w.warp)] += w.t - w.start;
    if (--w.cta->warps_left > 0) return;
    ClusterRun& c = *w.cta->cluster;
    c.group->finish = std::max(c.group->finish, w.t);
    if (--c.ctas_left > 0) return;
    Group& g = *c.group;
    if (g.next < g.pending.size()) start_cluster(g, w.t);
  }

  void loop() {
    for (;;) {
      while (!queue_.empty()) {
        const auto [t, seq, w] = queue_.top();
        queue_.pop();
        (void)seq;
        if (++steps_ % 4096 == 0)
          for (auto& g : groups_)
            for (Sm& sm : g->sms) sm.smem.forget(t);
        if (step(*w)) queue_.push({w->t, seq_++, w});
      }
      // Warps still blocked: a phase the trace cannot complete (an arrival by a lane the trace
      // does not follow). The one blocked longest goes on, so that the replay ends.
      std::erase_if(blocked_, [](const WarpRun* w) { return w->blocked_on.empty(); });
      if (blocked_.empty()) break;
      auto it = std::min_element(blocked_.begin(), blocked_.end(),
                                 [](const WarpRun* a, const WarpRun* b) { return a->blocked_since < b->blocked_since; });
      WarpRun* w = *it;
      for (auto& [key, p] : phases_) std::erase(p.waiters, w);
      if (unresolved_.size() < 4)
        unresolved_.push_back("warp " + std::to_string(w->warp) + " of CTA " + std::to_string(w->cta->rank) +
                              " of cluster " + std::to_string(w->cta->cluster->trace->index) + " on " + w->blocked_on +
                              " phase " + std::to_string(w->blocked_key.phase) + " (" +
                              std::to_string(phases_[w->blocked_key].remaining) + " of its records not reached)");
      ++unresolved_count_;
      resume(*w, w->blocked_since);
    }
  }

  Prediction prediction() const {
    Prediction p;
    p.kernel = trace_.kernel;
    std::copy(std::begin(trace_.grid), std::end(trace_.grid), p.grid);
    double cycles = 0;
    std::uint64_t sms = 0;
    double busy[kUnits] = {};
    for (const auto& g : groups_) {
      cycles = std::max(cycles, g->finish);
      for (const Sm& sm : g->sms) {
        ++sms;
        busy[static_cast<int>(Unit::tensor)] += sm.tensor.busy;
        busy[static_cast<int>(Unit::tma)] += sm.tma.busy;
        busy[static_cast<int>(Unit::l2)] += sm.l2.busy;
        busy[static_cast<int>(Unit::smem)] += sm.smem.busy;
        busy[static_cast<int>(Unit::tmem)] += sm.tmem.busy;
        for (int s = 0; s < 4; ++s) {
          busy[static_cast<int>(Unit::mufu)] += sm.mufu[s].busy / m_.schedulers;
          busy[static_cast<int>(Unit::issue)] += sm.issue[s].busy / m_.schedulers;
        }
      }
    }
    const std::uint64_t ctas_total = trace_.clusters_total * trace_.cluster[0] * trace_.cluster[1] * trace_.cluster[2];
    const double scale = ctas_simulated_ ? static_cast<double>(ctas_total) / static_cast<double>(ctas_simulated_) : 1;
    p.sms_simulated = sms;
    p.ctas_simulated = ctas_simulated_;
    p.ctas_total = ctas_total;
    p.ctas_per_sm = placement_.ctas_per_sm;
    p.tensor_flops = flops_ * scale;
    for (const MemoryUse& u : trace_.memory) {
      const double size = static_cast<double>(u.size);
      p.bytes_hbm += std::min(size, static_cast<double>(u.chunks_read) * 4096 * scale) +
                     std::min(size, static_cast<double>(u.chunks_written) * 4096 * scale);
    }
    const double sim_seconds = cycles / m_.clock_hz;
    const double hbm_seconds = p.bytes_hbm / m_.hbm_bytes_per_s;
    p.seconds = std::max(sim_seconds, hbm_seconds) + m_.launch_seconds;
    const double span = p.seconds * m_.clock_hz * static_cast<double>(std::max<std::uint64_t>(sms, 1));
    for (int u = 0; u < kUnits; ++u) p.busy[u] = busy[u] / span;
    p.busy[static_cast<int>(Unit::hbm)] = hbm_seconds / p.seconds;
    double most = 0;
    for (const auto& [peak, flops] : flops_by_peak_)
      if (flops > most) {
        most = flops;
        p.peak_flops = peak * m_.clock_hz * m_.sms;
      }
    int top = 0;
    for (int u = 1; u < kUnits; ++u)
      if (p.busy[u] > p.busy[top]) top = u;
    p.bound = p.busy[top] >= 0.5 ? name(static_cast<Unit>(top)) : "latency";
    for (std::size_t w = 0; w < waits_.size(); ++w) {
      std::map<std::string, double> shares;
      const double life = w < life_.size() ? life_[w] : 0;
      for (const auto& [barrier, c] : waits_[w])
        if (life > 0 && c > 0) shares[barrier] = c / life;
      p.waits.push_back(std::move(shares));
    }
    p.unresolved_waits = unresolved_count_;
    p.unresolved = unresolved_;
    p.untimed = untimed_;
    return p;
  }

  const LaunchTrace& trace_;
  const Placement& placement_;
  const Machine& m_;
  std::vector<Span>* timeline_;
  std::map<PhaseKey, Phase> phases_;
  std::vector<std::unique_ptr<Group>> groups_;
  Group* first_group_ = nullptr;
  std::vector<std::unique_ptr<ClusterRun>> clusters_;
  std::vector<std::unique_ptr<WarpRun>> warps_;
  std::vector<WarpRun*> blocked_;
  using Event = std::tuple<double, std::uint64_t, WarpRun*>;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue_;
  std::uint64_t seq_ = 0, steps_ = 0, ctas_simulated_ = 0, unresolved_count_ = 0, untimed_ = 0;
  std::vector<std::string> unresolved_;  // the first few, said
  double flops_ = 0;
  std::map<double, double> flops_by_peak_;  // FLOPs by the dense rate of their kind
  std::vector<std::map<std::string, double>> waits_;
  std::vector<double> life_;
};

}  // namespace

Prediction simulate(const LaunchTrace& trace, const Placement& placement, const Machine& m, std::vector<Span>* timeline) {
  return Replay(trace, placement, m, timeline).run();
}

}  // namespace tcgen::timing
