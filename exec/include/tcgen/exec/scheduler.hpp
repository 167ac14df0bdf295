#pragma once
// Cooperative scheduling of fibers on the calling OS thread: which fiber runs
// next, blocking and waking, and stopping a run cleanly. It knows nothing of
// CUDA; the CTA runtime (cta_runtime.hpp) builds barriers, mbarrier waits and
// warp collectives on block() and wake().
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "tcgen/exec/fiber.hpp"
#include "tcgen/exec/launch_options.hpp"

namespace tcgen::exec {

// Thrown into a fiber that is stopped because another one failed or the run
// deadlocked; the fiber's stack unwinds to its start. Not a std::exception,
// so that kernel code cannot mistake it for an error of its own.
struct Cancelled {};

class Scheduler {
 public:
  explicit Scheduler(const LaunchOptions& options);

  // Runs task(i) for i = 0 … fibers-1, each on a fiber, until every task has
  // returned. The first exception a task throws stops the run: the other
  // started fibers are unwound (their pending block() or yield() throws
  // Cancelled) and the exception is rethrown here. When no fiber can run
  // and some are blocked, the run stops the same way with the exception
  // deadlock() makes (called while every fiber is still where it blocked).
  // Before it gives up, `unstick` (when given) may wake blocked fibers: true when it did.
  void run(int fibers, const std::function<void(int)>& task, const std::function<std::exception_ptr()>& deadlock,
           const std::function<bool()>& unstick = {});

  bool shuffled() const { return shuffled_; }
  bool cancelling() const { return cancelling_; }

  // Called on a fiber. yield(): it stays runnable, another may run first.
  // block(): it runs again only after wake(it).
  void yield();
  void block();
  void wake(int fiber);
  // Blocks, wakes and ends of fibers so far: it moves whenever a fiber reaches or leaves a barrier or
  // wait, or finishes; a livelock watchdog reads it as the progress of the others.
  std::uint64_t events() const { return events_; }
  // A pointer the running fiber keeps for itself (who it is to the layer above: an interpreter's
  // thread), so that code it calls deep down can name it; null until set, and off a fiber.
  void set_tag(const void* tag) { tags_[static_cast<std::size_t>(current_)] = tag; }
  const void* tag() const { return current_ < 0 ? nullptr : tags_[static_cast<std::size_t>(current_)]; }

 private:
  enum class State { ready, blocked, done };

  static void entry();
  int pick();
  void set_ready(int fiber, bool ready);
  int next_ready(int from) const;
  void resume(int fiber);
  void suspend();  // on the current fiber: on to the next one picked, or back to run() where none is

  std::size_t stack_bytes_;
  bool shuffled_;
  std::mt19937_64 rng_;  // its output sequence is fixed by the C++ standard: runs repeat across platforms
  const std::function<void(int)>* task_ = nullptr;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  std::vector<State> states_;
  std::vector<bool> started_;
  std::vector<const void*> tags_;
  std::vector<std::uint64_t> ready_bits_;  // bit i: states_[i] is ready
  std::vector<int> ready_;                 // scratch for pick()
  int current_ = -1, last_ = -1;
  std::uint64_t events_ = 0;
  bool cancelling_ = false;
  std::exception_ptr error_;
};

}  // namespace tcgen::exec
