#pragma once
// One cluster of CTAs on the host (PTX #cluster-of-cooperative-thread-arrays):
// its CTAs' threads all fibers of one scheduler on one OS thread, so that a
// thread of one CTA can wait for another CTA's (barrier.cluster, an mbarrier
// a peer arrives on) and the run stays exactly repeatable. Each CTA keeps its
// own CtaRuntime and model::Cta; the cluster adds its barrier and the ranks
// (x fastest within the cluster, PTX #special-registers-cluster-ctarank).
// A launch runs its clusters as independent units (launch.hpp).
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tcgen/exec/cta_runtime.hpp"
#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/launch_options.hpp"
#include "tcgen/exec/scheduler.hpp"
#include "tcgen/exec/unit_pool.hpp"

namespace tcgen::exec {

class HostArch;

class ClusterRuntime {
 public:
  // Shared addresses carry the CTA's rank in the cluster in bits 24 and up,
  // as on the H200 (hardware-checks.md; PTX leaves the form to the
  // implementation, #distributed-shared-memory): CTA r's byte at offset a is
  // r · 2^24 + a, in its own shared::cta instructions and in a peer's
  // shared::cluster ones alike; mapa replaces the rank bits. A CTA outside a
  // cluster is rank 0, whose addresses are plain offsets.
  static constexpr std::uint32_t kRankShift = 24;
  static constexpr std::uint32_t kOffsetMask = (1u << kRankShift) - 1;
  static constexpr std::uint32_t cluster_address(std::uint32_t addr, int rank) {
    return (addr & kOffsetMask) | static_cast<std::uint32_t>(rank) << kRankShift;
  }
  static constexpr int rank_of(std::uint32_t addr) { return static_cast<int>(addr >> kRankShift); }

  // The cluster `index` (in clusters) of a grid of `grid` CTAs in clusters of
  // `dims` CTAs (each dimension dividing the grid's); every CTA has `threads`
  // threads and `smem_bytes` of shared memory as CtaRuntime takes them.
  // `grid_units`: the launch's clusters not yet started, which
  // clusterlaunchcontrol cancels (null: a cluster run alone, which cannot).
  ClusterRuntime(Dim3 index, Dim3 dims, Dim3 grid, int threads, std::uint32_t smem_bytes, const LaunchOptions& options,
                 UnitPool* grid_units = nullptr);
  // Its CTAs hold references to it.
  ClusterRuntime(const ClusterRuntime&) = delete;
  ClusterRuntime& operator=(const ClusterRuntime&) = delete;

  // Runs kernel on every thread of every CTA to its end, then each CTA's
  // exit check. Throws the first error; a deadlock names the cluster and
  // reports every CTA.
  void run(const std::function<void(HostArch&)>& kernel);
  // CtaRuntime::set_active_threads for every CTA. Call before run().
  void set_active_threads(int active);

  int size() const { return static_cast<int>(ctas_.size()); }
  CtaRuntime& cta(int rank) { return *ctas_[static_cast<std::size_t>(rank)]; }
  Dim3 index() const { return index_; }
  Dim3 dims() const { return dims_; }
  // The rank's position in the cluster (%cluster_ctaid), x fastest.
  Dim3 position(int rank) const { return dims_.at(static_cast<std::uint64_t>(rank)); }
  Scheduler& scheduler() { return scheduler_; }
  UnitPool* grid_units() { return grid_units_; }
  // The fiber of thread `thread` of CTA `rank`.
  int fiber(int rank, int thread) const { return rank * threads_ + thread; }

  // barrier.cluster.arrive / .wait (PTX #parallel-synchronization-and-
  // communication-instructions-barrier-cluster): a split barrier of every
  // thread of every CTA of the cluster. A wait (CtaRuntime::cluster_wait)
  // blocks until barrier_passed(): all have arrived in the phase of the
  // caller's last arrival, which it needs. A thread that exits counts as
  // arrived from then on.
  void barrier_arrive(int rank, int thread);
  bool barrier_passed(int rank, int thread) const;
  void exited(int rank, int thread);
  // For deadlock reports: "4 of 256 threads have arrived in phase 0".
  std::string barrier_state() const;
  std::string text() const;  // "cluster (0, 0, 0) of 2 CTAs" or, for one CTA, "CTA (3, 0, 0)"

 private:
  void complete_barrier_phase();

  Dim3 index_, dims_;
  int threads_;
  UnitPool* grid_units_;
  Scheduler scheduler_;
  std::vector<std::unique_ptr<CtaRuntime>> ctas_;
  struct Barrier {
    std::uint64_t phase = 0;            // phases completed
    int arrived = 0;                    // in the current phase
    int live = 0;                       // threads that have not exited (padding counts as exited)
    std::vector<std::int64_t> arrival;  // per fiber: the phase of its last arrival, -1 for none
  } barrier_;
};

}  // namespace tcgen::exec
