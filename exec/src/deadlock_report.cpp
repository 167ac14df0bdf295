// The report of a CTA whose every live thread waits: who waits on what, the
// state of each barrier and mbarrier waited on, and who changed it last.
#include <cstdio>
#include <utility>

#include "tcgen/core/hex.hpp"
#include "tcgen/exec/cluster_runtime.hpp"
#include "tcgen/exec/cta_runtime.hpp"
#include "tcgen/exec/thread_set.hpp"

namespace tcgen::exec {

std::string CtaRuntime::deadlock_report() const {
  return "deadlock in CTA " + cta_text(block_) +
         ": every thread that has not exited waits, and none of them can make what the others wait for happen.\n" +
         threads_report(-1);
}

std::string CtaRuntime::threads_report(int spinning) const {
  // A thread parked under its warp's leader runs on the leader's fiber: it waits, or spins, as that does.
  const auto fiber_of = [&](int thread) {
    return waiting_[thread].on == Waiting::On::warp ? static_cast<int>(waiting_[thread].target) : thread;
  };
  if (spinning >= 0) spinning = fiber_of(spinning);
  const auto describe = [&](int thread) -> std::string {
    thread = fiber_of(thread);
    if (thread == spinning) return "spin in the loop above";
    const Waiting& w = waiting_[thread];
    switch (w.on) {
      case Waiting::On::barrier: {
        const Barrier& b = barriers_[w.target];
        return "wait at bar.sync " + std::to_string(w.target) + " for " + std::to_string(b.count) + " threads; " +
               std::to_string(b.arrived) + " have arrived, the last " + thread_text(b.last);
      }
      case Waiting::On::mbarrier: {
        const model::Mbarrier& m = cta_.mbarrier(w.target);
        std::string s = "wait on the mbarrier at " + hex(w.target) + " (smem_base + " + hex(w.target - kSmemBase) +
                        ") for the phase of parity " + std::to_string(w.parity) + " to complete; ";
        if (!m.valid()) return s + "it is no longer an mbarrier (mbarrier.inval)";
        s += "it is in phase " + std::to_string(m.phase()) + " with " + std::to_string(m.pending()) + " of " +
             std::to_string(m.expected()) + " arrivals pending and tx-count " + std::to_string(m.tx());
        const MbarrierNotes& n = mbarriers_.at(w.target);
        s += n.arrival.empty() ? "; no arrival since its mbarrier.init by " + n.init
                               : "; the last arrival: " + n.arrival;
        if (!n.transaction.empty()) s += "; the last transaction: " + n.transaction;
        return s;
      }
      case Waiting::On::collective: return warps_[thread / 32].describe(thread % 32);
      case Waiting::On::cluster: return "wait at barrier.cluster.wait: " + cluster_.barrier_state();
      case Waiting::On::nothing:
      case Waiting::On::warp: break;
    }
    return spinning >= 0 ? "wait for nothing: ready to run once the spinning thread lets them"
                         : "wait on nothing the runtime knows";
  };

  std::vector<std::pair<std::string, std::vector<int>>> groups;  // in the order of their first thread
  std::vector<int> exited;
  for (int t = 0; t < threads_; ++t) {
    if (exited_[t]) {
      exited.push_back(t);
      continue;
    }
    const std::string what = describe(t);
    auto it = groups.begin();
    while (it != groups.end() && it->first != what) ++it;
    if (it == groups.end())
      groups.push_back({what, {t}});
    else
      it->second.push_back(t);
  }

  std::string report;
  for (const auto& [what, threads] : groups) report += "  " + threads_text(threads) + ": " + what + ".\n";
  if (!exited.empty()) report += "  exited: " + threads_text(exited) + ".\n";
  return report;
}

}  // namespace tcgen::exec
