#include "tcgen/exec/scheduler.hpp"

#include <bit>

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
  ready_bits_.assign((static_cast<std::size_t>(fibers) + 63) / 64, 0);
  for (int i = 0; i < fibers; ++i) set_ready(i, true);
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

void Scheduler::set_ready(int fiber, bool ready) {
  std::uint64_t& word = ready_bits_[static_cast<std::size_t>(fiber) / 64];
  const std::uint64_t bit = std::uint64_t{1} << (fiber % 64);
  word = ready ? word | bit : word & ~bit;
}

// The first ready fiber at or after `from` (fibers wrap around), or -1: a word of the ready bits at a
// time, as a CTA's parked lanes (ptx/src/warp_lockstep.hpp) leave one ready fiber in 32.
int Scheduler::next_ready(int from) const {
  const int words = static_cast<int>(ready_bits_.size());
  for (int k = 0; k <= words; ++k) {
    const int w = (from / 64 + k) % words;
    std::uint64_t bits = ready_bits_[static_cast<std::size_t>(w)];
    if (k == 0) bits &= ~std::uint64_t{0} << (from % 64);                         // at or after from
    if (k == words) bits &= (from % 64 ? ~std::uint64_t{0} >> (64 - from % 64) : 0);  // before from, in its word
    if (bits) return w * 64 + std::countr_zero(bits);
  }
  return -1;
}

int Scheduler::pick() {
  const int n = static_cast<int>(states_.size());
  if (n == 0) return -1;
  if (!shuffled_) return next_ready((last_ + 1) % n);
  ready_.clear();
  for (int i = next_ready(0); i >= 0 && (ready_.empty() || i > ready_.back()); i = next_ready((i + 1) % n))
    ready_.push_back(i);
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
  s.set_ready(me, false);
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
  set_ready(current_, false);
  ++events_;
  suspend();
}

void Scheduler::wake(int fiber) {
  if (states_[fiber] == State::blocked) states_[fiber] = State::ready, set_ready(fiber, true), ++events_;
}

}  // namespace tcgen::exec
