#pragma once
// One fiber: a stack of its own and a saved machine context (glibc
// ucontext), switched to and from explicitly. The host runtime runs every
// thread of a CTA as a fiber on one OS thread, so the threads of a CTA
// interleave only where they call into the runtime, and a run can be
// repeated exactly (other CTAs run on other OS threads, sharing only global
// memory).
#include <cstddef>

#include <ucontext.h>

namespace tcgen::exec {

class Fiber {
 public:
  // A fiber that runs entry() on a stack of stack_bytes when first resumed
  // and continues `exit` when entry() returns. An unmapped guard page below
  // the stack turns an overflow into a fault instead of silent corruption.
  Fiber(std::size_t stack_bytes, void (*entry)(), ucontext_t* exit);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Saves the running context in `from` and runs the fiber until it switches away.
  void resume(ucontext_t& from);
  // Called on the fiber: saves its context and continues `to`.
  void suspend(const ucontext_t& to);

 private:
  ucontext_t context_{};
  void* mapping_ = nullptr;
  std::size_t mapped_bytes_ = 0;
};

}  // namespace tcgen::exec
