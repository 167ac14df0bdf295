#pragma once
// One fiber: a stack of its own and a saved machine context, switched to and
// from explicitly. The host runtime runs every thread of a CTA as a fiber on
// one OS thread, so the threads of a CTA interleave only where they call
// into the runtime, and a run can be repeated exactly (other CTAs run on
// other OS threads, sharing only global memory). On x86-64 a switch saves
// the callee-saved registers and the floating-point control words and swaps
// stack pointers (fiber.cpp); elsewhere it is glibc's swapcontext, which
// also saves the signal mask with a system call on every switch.
#include <cstddef>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

// Built with AddressSanitizer or ThreadSanitizer (GCC's macros, Clang's __has_feature).
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TCGEN_FIBER_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TCGEN_FIBER_SANITIZED 1
#endif
#endif

namespace tcgen::exec {

class Fiber {
 public:
  // A fiber that runs entry() on a stack of stack_bytes when first resumed;
  // when entry() returns, the fiber is done and resume() returns for the
  // last time. An unmapped guard page below the stack turns an overflow into
  // a fault instead of silent corruption. entry() must not throw.
  Fiber(std::size_t stack_bytes, void (*entry)());
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the fiber until it suspends or its entry returns.
  void resume();
  // Called on the fiber: back to the resume() that ran it.
  void suspend();
  // Whether suspend_to() is there: on x86-64 without a sanitizer, which would have to be told of a
  // switch between two fibers' stacks that bypasses their caller's.
  static constexpr bool kSwitchesDirectly =
#if defined(__x86_64__) && !defined(TCGEN_FIBER_SANITIZED)
      true;
#else
      false;
#endif
  // Called on the fiber: suspends it and runs `next` (started or not) in its place; `next`'s own
  // suspend() returns to the resume() that ran this one. Half the switches of suspend() then resume().
  void suspend_to(Fiber& next);

 private:
  void (*entry_)();
  void* mapping_ = nullptr;
  std::size_t mapped_bytes_ = 0;
  // For AddressSanitizer, which must be told of every switch to another stack
  // (__sanitizer_start_switch_fiber): this fiber's stack, and the stack of
  // the resume() that runs it. Unused in builds without ASan.
  const void* stack_bottom_ = nullptr;
  std::size_t stack_size_ = 0;
  const void* caller_bottom_ = nullptr;
  std::size_t caller_size_ = 0;
  // For ThreadSanitizer: this fiber, and the one that resumed it. Unused without TSan.
  void* tsan_fiber_ = nullptr;
  void* tsan_caller_ = nullptr;
#if defined(__x86_64__)
  static void start(Fiber* self);  // the fiber's first frame: entry_(), then back for good
  void* sp_ = nullptr;         // the fiber's stack pointer while it is suspended
  void* caller_sp_ = nullptr;  // resume()'s while the fiber runs
#else
  ucontext_t context_{}, caller_{};
#endif
};

}  // namespace tcgen::exec
