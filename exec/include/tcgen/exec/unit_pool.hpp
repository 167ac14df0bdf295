#pragma once
// The units of a grid that share nothing but global memory (its clusters of
// CTAs) run on several OS threads at once. A unit's fibers all live on the OS
// thread that runs it, and each unit has its own schedule and seed, so a unit
// runs exactly as it would alone. When units do not talk through global
// memory (no atomics or flags between CTAs, no clusterlaunchcontrol), a
// deterministic schedule gives the same bits on any number of threads and the
// first failing unit (by index) is the one a one-thread run would have
// stopped at; units that do meet in global memory in the OS threads' order,
// as on a GPU.
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <set>

namespace tcgen::exec {

// The OS threads for a requested count (LaunchOptions::threads): 0 means one per core.
unsigned pool_threads(unsigned requested);

class UnitPool {
 public:
  UnitPool(std::uint64_t units, unsigned threads) : units_(units), threads_(threads) {}
  UnitPool(const UnitPool&) = delete;
  UnitPool& operator=(const UnitPool&) = delete;

  // Runs run(i) for every unit i not cancelled, handed out in index order to
  // up to `threads` OS threads (pool_threads; one: the calling thread).
  // finish(i) follows in index order, one at a time, for every unit up to and
  // including the first that threw (a cancelled unit too, as if it had run);
  // then that unit's exception is rethrown. Units after it may have run
  // (their global-memory writes stay), but they are not finished.
  void run(const std::function<void(std::uint64_t)>& run, const std::function<void(std::uint64_t)>& finish);

  // clusterlaunchcontrol.try_cancel, from inside a running unit: the next
  // unit that has not started, which then never runs; none when every unit
  // has started (or one has failed).
  std::optional<std::uint64_t> cancel();
  // From now on cancel() finds none, as when every unit has started: each unit runs its own work
  // (a timing trace then holds every cluster the hardware would launch).
  void refuse_cancels() { cancels_refused_ = true; }

 private:
  void completed(std::uint64_t unit, std::exception_ptr error);  // then finishes what it can, in order

  static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t units_;
  unsigned threads_;
  std::atomic<std::uint64_t> next_{0}, first_failure_{kNone};
  std::mutex m_;  // guards what follows, and serialises finish()
  const std::function<void(std::uint64_t)>* finish_ = nullptr;
  std::exception_ptr failure_;
  std::set<std::uint64_t> done_;  // run or cancelled, not yet finished
  std::uint64_t finished_ = 0;    // units [0, finished_) are finished
  bool cancels_refused_ = false;
};

// A pool's run() without cancellation.
void run_units(std::uint64_t units, unsigned threads, const std::function<void(std::uint64_t)>& run,
               const std::function<void(std::uint64_t)>& finish);

}  // namespace tcgen::exec
