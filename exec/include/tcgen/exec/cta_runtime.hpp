#pragma once
// One CTA on the host: its threads as fibers of its cluster's scheduler
// (cluster_runtime.hpp), its tcgen05 machinery (model::Cta), and what the
// threads wait on — barriers, mbarrier phases, warp collectives — with the
// report when they all wait at once. HostArch (host_arch.hpp) is the
// kernel's view of it; a ClusterRuntime holds one per CTA of the cluster.
//
// Shared memory: the model's image starts at shared address 0, and the
// kernel's dynamic shared memory at kSmemBase = 1024, as on sm_90 and later,
// where the first KiB of a CTA's window is reserved for the system
// (cudaDevAttrReservedSharedMemoryPerBlock). The runtime keeps the mbarriers
// through which named barriers pass tcgen05 ordering there (barrier()).
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/launch_options.hpp"
#include "tcgen/exec/scheduler.hpp"
#include "tcgen/exec/warp_collectives.hpp"
#include "tcgen/model/cta.hpp"

namespace tcgen::exec {

class HostArch;
class ClusterRuntime;

class CtaRuntime {
 public:
  static constexpr std::uint32_t kSmemBase = 1024;
  // bar.sync ids 0-15 (PTX #parallel-synchronization-and-communication-instructions-bar)
  static constexpr int kBarriers = 16;

  // CTA `rank` of `cluster`, block `block` of `grid`. threads: a multiple of
  // 32 up to 1024; smem_bytes: the kernel's shared memory above the reserved
  // KiB, at most sm_100's 227 KB.
  CtaRuntime(ClusterRuntime& cluster, int rank, Dim3 block, Dim3 grid, int threads, std::uint32_t smem_bytes,
             const LaunchOptions& options);

  // On the thread's fiber: kernel to its end, then the thread's exit.
  void run_thread(int thread, const std::function<void(HostArch&)>& kernel);
  // After every thread has returned: the kernel-exit check (TMEM freed).
  void finish() { cta_.finish(); }
  // The waits of every thread that has not exited, for a deadlock report.
  std::string deadlock_report() const;  // deadlock_report.cpp
  // While no thread of the cluster can run: runs a warp's waiting tcgen05.ld or wait::ld/st for the
  // lanes there (WarpCollectives::run_apart) and wakes them; false when there is none.
  bool run_collectives_apart();
  // Where each thread that has not exited is, one line per group of threads alike, for a livelock
  // report: `spinning` is said to spin, the others wait or are ready to run (deadlock_report.cpp).
  std::string threads_report(int spinning) const;

  model::Cta& cta() { return cta_; }
  ClusterRuntime& cluster() { return cluster_; }
  int rank() const { return rank_; }
  Dim3 block() const { return block_; }
  Dim3 grid() const { return grid_; }
  int threads() const { return threads_; }
  // A block whose size is no multiple of 32 has a partial last warp: the
  // runtime holds whole warps, and the threads from `active` on are padding
  // that the caller's kernel returns from at once. Barriers count whole
  // warps, as PTX's bar does: the padding arrives with its warp's threads.
  // Call before run().
  void set_active_threads(int active);

  // At the top of every HostArch call. False while the calling thread
  // unwinds (the CTA is stopping; its destructors' calls do nothing); throws
  // Cancelled when the CTA is stopping; else, with a shuffled schedule, a
  // scheduling point.
  bool enter();
  // While a Hold lives, the CTA's calls are no scheduling points: the
  // read-modify-write of an atom on shared memory is one step, as on a GPU.
  class Hold {
   public:
    explicit Hold(CtaRuntime& rt) : rt_(rt) { ++rt_.holds_; }
    ~Hold() { --rt_.holds_; }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    CtaRuntime& rt_;
  };

  // bar.sync id, count by `thread` (count = the CTA's threads: __syncthreads);
  // wait false: bar.arrive, which counts the thread without waiting. `companions`: lanes of the
  // thread's warp that arrive without waiting just before it, for an interpreter that runs a warp's
  // lanes on one fiber (ptx/src/warp_lockstep.hpp).
  void barrier(int thread, unsigned id, unsigned count, bool wait = true, std::uint32_t companions = 0);
  // The lanes of `warp` that have not exited.
  std::uint32_t live_lanes(int warp) const;
  // activemask's answer for `thread` (WarpCollectives::converged_with).
  std::uint32_t active_lanes(int thread) const { return warps_[thread / 32].converged_with(thread % 32); }
  // barrier.cluster.arrive / .wait: the cluster's (ClusterRuntime::barrier_arrive).
  void cluster_arrive(int thread);
  void cluster_wait(int thread);
  // For the cluster: whether `thread` waits at barrier.cluster.wait, and waking it.
  bool waits_on_cluster(int thread) const { return waiting_[thread].on == Waiting::On::cluster; }
  void wake(int thread);
  // clusterlaunchcontrol: a query of this CTA has seen a try_cancel fail.
  bool cancel_failed = false;
  // Whether `thread` has exited (or is padding of a partial last warp).
  bool exited(int thread) const { return exited_[thread]; }

  // mbarriers: every instruction that changes one reports here, which wakes
  // the threads waiting on it and keeps what the deadlock report shows.
  enum class MbarrierEvent { init, arrival, transaction };
  void mbarrier_changed(std::uint32_t mbar, int thread, MbarrierEvent event, const std::string& what);
  // Changes so far: a thread that found a phase incomplete can tell whether to look again.
  std::uint64_t mbarrier_version(std::uint32_t mbar) const;
  // Blocks `thread` until the mbarrier changes.
  void wait_mbarrier(int thread, std::uint32_t mbar, std::uint32_t parity);
  // The thread stays runnable but lets the others run first.
  void yield() { scheduler_.yield(); }
  // An interpreter that runs a converged warp's lanes on one fiber (ptx/src/warp_lockstep.hpp): `thread`
  // waits while its warp-mate `leader` runs it, until unpark(thread); reports say of it what they say
  // of the leader.
  void park(int thread, int leader) { block(thread, {Waiting::On::warp, static_cast<std::uint32_t>(leader), 0}); }
  void unpark(int thread) {
    waiting_[thread] = {};  // ready from now, to a report made before it runs
    wake(thread);
  }
  std::uint64_t scheduler_events() const { return scheduler_.events(); }  // Scheduler::events, the cluster's
  // The running fiber's own pointer (Scheduler::set_tag): the cluster's fibers share one scheduler.
  void set_fiber_tag(const void* tag) { scheduler_.set_tag(tag); }
  const void* fiber_tag() const { return scheduler_.tag(); }

  // A warp collective (warp_collectives.hpp): `frame` holds this lane's
  // operands and results; run(frames) executes the instruction once for the
  // warp, frames[lane] null for lanes that take no part.
  template <class Frame, class Run>
  void collective(int thread, const CollectiveOp& op, std::uint32_t mask, Frame& frame, Run run) {
    arrive(thread, op, mask, &frame, [run](const WarpCollectives::Frames& f) {
      std::array<Frame*, 32> typed;
      for (int lane = 0; lane < 32; ++lane) typed[lane] = static_cast<Frame*>(f[lane]);
      run(typed);
    });
  }

 private:
  struct Waiting {
    enum class On { nothing, barrier, mbarrier, collective, cluster, warp } on = On::nothing;
    std::uint32_t target = 0, parity = 0;  // barrier id, mbarrier address or leader; the parity waited for
  };
  struct Barrier {  // one instance: the arrivals since it last completed
    unsigned count = 0;
    unsigned arrived = 0;                        // threads, a warp's lanes in lockstep counted each
    std::uint64_t warps = 0, waiting_warps = 0;  // the warps arrived, and those of them at bar.sync
    int last = -1;                               // the thread that arrived last
    std::vector<int> sleepers;                   // the threads blocked here
  };
  struct MbarrierNotes {
    std::uint64_t version = 0;
    std::string init, arrival, transaction;  // the last of each: who, what, in which phase
  };

  void arrive(int thread, const CollectiveOp& op, std::uint32_t mask, void* frame, WarpCollectives::Run run);
  // WarpCollectives::Apart for warp `warp`: which aligned instructions may run for part of it, a counted letter.
  bool collective_apart(int warp, const CollectiveOp& op, std::uint32_t arrived, std::uint32_t missing);
  void block(int thread, Waiting waiting);
  void wake_lanes(int warp, std::uint32_t lanes);
  void exit(int thread);
  // bar.sync of part of the CTA: the model's bar_sync() is CTA-wide, so the
  // participating warps pass their tcgen05 ordering through an mbarrier of
  // the reserved KiB instead, which carries it the same way: the warps that
  // arrived (bit w) publish, those that waited (bar.sync, not bar.arrive) acquire.
  void exchange_ordering(std::uint64_t arrived, std::uint64_t waited, unsigned id);

  ClusterRuntime& cluster_;
  int rank_;
  Scheduler& scheduler_;  // the cluster's
  Dim3 block_, grid_;
  int threads_;
  int active_threads_;
  model::Cta cta_;
  std::vector<Waiting> waiting_;
  std::vector<bool> exited_;
  std::vector<WarpCollectives> warps_;
  std::array<Barrier, kBarriers> barriers_{};
  int holds_ = 0;  // live Holds
  std::map<std::uint32_t, MbarrierNotes> mbarriers_;
};

// "thread 33 (warp 1, lane 1)".
std::string thread_text(int thread);
// "(1, 0, 0)".
std::string cta_text(Dim3 cta);

}  // namespace tcgen::exec
