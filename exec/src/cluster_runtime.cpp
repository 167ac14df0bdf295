#include "tcgen/exec/cluster_runtime.hpp"

#include <exception>

#include "tcgen/core/error.hpp"
#include "tcgen/exec/errors.hpp"
#include "tcgen/exec/host_arch.hpp"

namespace tcgen::exec {

namespace {

constexpr const char* kBarrierCluster = "(PTX #parallel-synchronization-and-communication-instructions-barrier-cluster)";

}  // namespace

ClusterRuntime::ClusterRuntime(Dim3 index, Dim3 dims, Dim3 grid, int threads, std::uint32_t smem_bytes,
                               const LaunchOptions& options, UnitPool* grid_units)
    : index_(index), dims_(dims), threads_(threads), grid_units_(grid_units), scheduler_(options) {
  const int size = static_cast<int>(dims.count());
  for (int rank = 0; rank < size; ++rank) {
    const Dim3 p = dims.at(static_cast<std::uint64_t>(rank));
    const Dim3 block{index.x * dims.x + p.x, index.y * dims.y + p.y, index.z * dims.z + p.z};
    ctas_.push_back(std::make_unique<CtaRuntime>(*this, rank, block, grid, threads, smem_bytes, options));
  }
  // CTA pairs: ranks that differ in the last bit only (PTX #tcgen05-issue-granularity).
  for (int rank = 0; rank + 1 < size; rank += 2) ctas_[rank]->cta().pair_with(ctas_[rank + 1]->cta());
  barrier_.arrival.assign(static_cast<std::size_t>(size * threads), -1);
  barrier_.live = size * threads;
}

void ClusterRuntime::set_active_threads(int active) {
  for (auto& cta : ctas_) cta->set_active_threads(active);
  barrier_.live = size() * active;
}

void ClusterRuntime::run(const std::function<void(HostArch&)>& kernel) {
  scheduler_.run(
      size() * threads_, [&](int fiber) { ctas_[static_cast<std::size_t>(fiber / threads_)]->run_thread(fiber % threads_, kernel); },
      [&] {
        if (size() == 1) return std::make_exception_ptr(DeadlockError(cta_text(ctas_[0]->block()), ctas_[0]->deadlock_report()));
        std::string report = "deadlock in " + text() + ": every thread of the cluster that has not exited waits.\n";
        for (const auto& cta : ctas_) report += "rank " + std::to_string(cta->rank()) + ", " + cta->deadlock_report();
        return std::make_exception_ptr(DeadlockError(text(), report));
      },
      [&] {
        for (auto& cta : ctas_)
          if (cta->run_collectives_apart()) return true;
        return false;
      });
  for (auto& cta : ctas_) cta->finish();
}

std::string ClusterRuntime::text() const {
  if (size() == 1) return "CTA " + cta_text(ctas_[0]->block());
  return "cluster " + cta_text(index_) + " of " + std::to_string(size()) + " CTAs";
}

// ---- barrier.cluster

void ClusterRuntime::barrier_arrive(int rank, int thread) {
  std::int64_t& arrival = barrier_.arrival[static_cast<std::size_t>(fiber(rank, thread))];
  if (arrival == static_cast<std::int64_t>(barrier_.phase))
    fail("barrier.cluster.arrive", thread_text(thread) + (size() > 1 ? " of rank " + std::to_string(rank) : ""),
         std::string("one arrival per phase: the thread arrived in this phase already without barrier.cluster.wait ") +
             kBarrierCluster);
  arrival = static_cast<std::int64_t>(barrier_.phase);
  ++barrier_.arrived;
  complete_barrier_phase();
}

bool ClusterRuntime::barrier_passed(int rank, int thread) const {
  const std::int64_t arrival = barrier_.arrival[static_cast<std::size_t>(fiber(rank, thread))];
  if (arrival < 0)
    fail("barrier.cluster.wait", thread_text(thread) + (size() > 1 ? " of rank " + std::to_string(rank) : ""),
         std::string("a barrier.cluster.arrive by the thread before it ") + kBarrierCluster);
  return arrival != static_cast<std::int64_t>(barrier_.phase);
}

void ClusterRuntime::exited(int rank, int thread) {
  --barrier_.live;
  if (barrier_.arrival[static_cast<std::size_t>(fiber(rank, thread))] == static_cast<std::int64_t>(barrier_.phase))
    --barrier_.arrived;  // arrived, then left
  complete_barrier_phase();
}

// The phase completes when every thread of the cluster that has not exited has arrived.
void ClusterRuntime::complete_barrier_phase() {
  if (barrier_.arrived == 0 || barrier_.arrived < barrier_.live) return;
  barrier_.arrived = 0;
  ++barrier_.phase;
  // Release on arrive, acquire on wait: what each warp of each CTA published
  // or acquired reaches every warp of the cluster (issuer keys are unique in it).
  std::vector<model::Cta*> ctas;
  for (auto& cta : ctas_) ctas.push_back(&cta->cta());
  model::Cta::cluster_barrier(ctas);
  for (auto& cta : ctas_)
    for (int t = 0; t < threads_; ++t)
      if (cta->waits_on_cluster(t)) cta->wake(t);
}

std::string ClusterRuntime::barrier_state() const {
  return std::to_string(barrier_.arrived) + " of " + std::to_string(size() * threads_) +
         " threads of the cluster have arrived in phase " + std::to_string(barrier_.phase);
}

}  // namespace tcgen::exec
