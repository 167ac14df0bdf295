#include "tcgen/exec/scheduler.hpp"

namespace tcgen::exec {

namespace {
// The scheduler whose fiber is starting: makecontext passes no pointer portably.
thread_local Scheduler* starting = nullptr;
}  // namespace

Scheduler::Scheduler(const LaunchOptions& options)
    : stack_bytes_(options.stack_bytes),
      shuffled_(options.shuffle_seed.has_value()),
      rng_(options.shuffle_seed.value_or(0)) {}

void Scheduler::run(int fibers, const std::function<void(int)>& task,
                    const std::function<std::exception_ptr()>& deadlock, const std::function<bool()>& unstick) {
  task_ = &task;
  states_.assign(static_cast<std::size_t>(fibers), State::ready);
  started_.assign(static_cast<std::size_t>(fibers), false);
  tags_.assign(static_cast<std::size_t>(fibers), nullptr);
  fibers_.clear();
  for (int i = 0; i < fibers; ++i) fibers_.push_back(std::make_unique<Fiber>(stack_bytes_, &Scheduler::entry));

  std::exception_ptr stop;
  for (;;) {
    const int next = pick();
    if (next < 0 && unstick) {
      bool woke = false;
      try {
        woke = unstick();
      } catch (...) {
        stop = std::current_exception();
        break;
      }
      if (woke) continue;
    }
    if (next < 0) {
      for (State s : states_)
        if (s != State::done) {
          stop = deadlock();
          break;
        }
      break;
    }
    resume(next);
    if (error_) {
      stop = error_;
      break;
    }
  }
  if (stop) {
    // Unwind every started fiber, so that what its frames own is released.
    cancelling_ = true;
    for (int i = 0; i < fibers; ++i)
      if (started_[i] && states_[i] != State::done) resume(i);
  }
  fibers_.clear();
  if (stop) std::rethrow_exception(stop);
}

int Scheduler::pick() {
  const int n = static_cast<int>(states_.size());
  if (!shuffled_) {
    for (int k = 1; k <= n; ++k) {
      const int i = (last_ + k) % n;
      if (states_[i] == State::ready) return i;
    }
    return -1;
  }
  ready_.clear();
  for (int i = 0; i < n; ++i)
    if (states_[i] == State::ready) ready_.push_back(i);
  if (ready_.empty()) return -1;
  return ready_[rng_() % ready_.size()];
}

void Scheduler::resume(int fiber) {
  current_ = last_ = fiber;
  started_[fiber] = true;
  starting = this;
  fibers_[fiber]->resume();
  current_ = -1;
}

// The first frame of every fiber. The switch back to run() happens when it
// returns, outside the handlers: a fiber never switches while an exception
// is being handled, since the C++ runtime keeps that state per OS thread.
void Scheduler::entry() {
  Scheduler& s = *starting;
  const int me = s.current_;
  try {
    (*s.task_)(me);
  } catch (const Cancelled&) {
  } catch (...) {
    if (!s.error_) s.error_ = std::current_exception();
  }
  s.states_[me] = State::done;
  ++s.events_;
}

void Scheduler::suspend() {
  // Straight to the next fiber to run where there is one, not through run()'s loop: a barrier of
  // 1,024 threads is 1,024 suspensions. run() takes over again when none is ready, to unstick or
  // report the deadlock.
  // One pick either way, as run() makes one: a shuffled schedule draws the same numbers.
  const int next = Fiber::kSwitchesDirectly && !cancelling_ ? pick() : -1;
  if (next == current_) {  // a yield that picked itself: it runs on
    last_ = next;
  } else if (next >= 0) {
    Fiber& me = *fibers_[current_];
    current_ = last_ = next;
    started_[next] = true;
    starting = this;
    me.suspend_to(*fibers_[next]);
  } else {
    fibers_[current_]->suspend();
  }
  if (cancelling_) throw Cancelled{};
}

void Scheduler::yield() { suspend(); }

void Scheduler::block() {
  states_[current_] = State::blocked;
  ++events_;
  suspend();
}

void Scheduler::wake(int fiber) {
  if (states_[fiber] == State::blocked) states_[fiber] = State::ready, ++events_;
}

}  // namespace tcgen::exec
