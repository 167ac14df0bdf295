#include "tcgen/exec/fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "tcgen/core/error.hpp"

// AddressSanitizer follows one stack per OS thread unless each switch is
// announced (sanitizer/common_interface_defs.h): without that, a fiber's
// frames look like a stack overflow or a use of the other stack's memory,
// and its fake stacks (detect_stack_use_after_return) are mixed up.
#if defined(__SANITIZE_ADDRESS__)
#define TCGEN_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TCGEN_FIBER_ASAN 1
#endif
#endif
#if defined(TCGEN_FIBER_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
// ThreadSanitizer too keeps a shadow stack and a clock per thread of
// execution, so each fiber is a TSan fiber (sanitizer/tsan_interface.h),
// switched to just before the stack is. Switching without the
// __tsan_switch_to_fiber_no_sync flag makes each switch a synchronisation:
// the fibers of a CTA run one at a time, handing over where they switch.
#if defined(__SANITIZE_THREAD__)
#define TCGEN_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define TCGEN_FIBER_TSAN 1
#endif
#endif
#if defined(TCGEN_FIBER_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

#if defined(__x86_64__)
// tcgen_fiber_switch(void** save, void* load): pushes the callee-saved
// registers of the System V ABI and the MXCSR and x87 control words, stores
// the stack pointer in *save, takes `load` as the stack pointer and pops the
// same from it. A fresh fiber's stack holds such a frame whose return address
// is tcgen_fiber_start, with the Fiber in r12 and Fiber::start in r13.
asm(R"(
  .text
  .p2align 4
  .globl tcgen_fiber_switch
  .hidden tcgen_fiber_switch
  .type tcgen_fiber_switch, @function
tcgen_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size tcgen_fiber_switch, .-tcgen_fiber_switch

  .p2align 4
  .globl tcgen_fiber_start
  .hidden tcgen_fiber_start
  .type tcgen_fiber_start, @function
tcgen_fiber_start:
  movq %r12, %rdi
  callq *%r13
  ud2
  .size tcgen_fiber_start, .-tcgen_fiber_start
)");
extern "C" void tcgen_fiber_switch(void** save, void* load);
extern "C" void tcgen_fiber_start();
#endif

namespace tcgen::exec {

namespace {

// Before switching from this stack to [bottom, bottom + size): `fake` keeps
// this stack's fake frames, nullptr when this stack is left for good.
inline void asan_leave([[maybe_unused]] void** fake, [[maybe_unused]] const void* bottom,
                       [[maybe_unused]] std::size_t size) {
#if defined(TCGEN_FIBER_ASAN)
  __sanitizer_start_switch_fiber(fake, bottom, size);
#endif
}

// After arriving on a stack: `fake` as asan_leave saved it there; the stack
// switched from is stored in *bottom and *size where they are given.
inline void asan_arrive([[maybe_unused]] void* fake, [[maybe_unused]] const void** bottom,
                        [[maybe_unused]] std::size_t* size) {
#if defined(TCGEN_FIBER_ASAN)
  __sanitizer_finish_switch_fiber(fake, bottom, size);
#endif
}

// TSan's current fiber (the OS thread's own where none was switched to), or nullptr without TSan.
inline void* tsan_current() {
#if defined(TCGEN_FIBER_TSAN)
  return __tsan_get_current_fiber();
#else
  return nullptr;
#endif
}

// Just before the stack switch to the fiber `to` (tsan_current's or Fiber::tsan_fiber_).
inline void tsan_switch([[maybe_unused]] void* to) {
#if defined(TCGEN_FIBER_TSAN)
  __tsan_switch_to_fiber(to, 0);
#endif
}

[[noreturn]] void fail_errno(const char* call) {
  fail("fiber stack", std::string(call) + " failed: " + std::strerror(errno),
       "memory for the stacks of a CTA's threads");
}

// The stacks of finished fibers, kept by each OS thread for the next CTA's
// threads: mapping a fresh stack and faulting its first pages in costs more
// than a small CTA's work (a kernel of many short CTAs, split-KV's combine
// step). At most kPooled, each with its guard page still in place.
class StackPool {
 public:
  static constexpr std::size_t kPooled = 2048;
  ~StackPool() {
    for (const auto& [mapping, bytes] : free_) munmap(mapping, bytes);
  }
  void* take(std::size_t bytes) {
    for (std::size_t i = free_.size(); i-- > 0;)
      if (free_[i].second == bytes) {
        void* mapping = free_[i].first;
        free_[i] = free_.back();
        free_.pop_back();
        return mapping;
      }
    return nullptr;
  }
  void give(void* mapping, std::size_t bytes) {
    if (free_.size() < kPooled)
      free_.emplace_back(mapping, bytes);
    else
      munmap(mapping, bytes);
  }

 private:
  std::vector<std::pair<void*, std::size_t>> free_;
};
thread_local StackPool stacks;

}  // namespace

Fiber::Fiber(std::size_t stack_bytes, void (*entry)()) : entry_(entry) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t stack = (stack_bytes + page - 1) / page * page;
  mapped_bytes_ = stack + page;
  mapping_ = stacks.take(mapped_bytes_);
  if (mapping_ == nullptr) {
    mapping_ = mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mapping_ == MAP_FAILED) fail_errno("mmap");
    if (mprotect(mapping_, page, PROT_NONE) != 0) {  // the stack grows down, towards the guard
      munmap(mapping_, mapped_bytes_);
      fail_errno("mprotect");
    }
  }
  // Each stack's top is a different cache line of its page: page-aligned tops put every fiber's hot
  // frames in the same cache sets, and a CTA of 1,024 threads switching at each bar.sync then missed
  // L1 and L2 on every switch (a block reduction ran at 4e7 thread-instructions/s, 36% in the switch).
  thread_local unsigned next_color = 0;
  const std::size_t color = std::size_t{next_color++ % (page / 64)} * 64;
  stack_bottom_ = static_cast<char*>(mapping_) + page;  // above the guard
  stack_size_ = stack - color;
  char* const top = static_cast<char*>(mapping_) + page + stack_size_;  // 64-byte aligned, so 16-byte aligned
#if defined(TCGEN_FIBER_ASAN)
  // A pooled stack still carries the redzones of its last fiber's frames.
  __asan_unpoison_memory_region(stack_bottom_, stack_size_);
#endif
#if defined(TCGEN_FIBER_TSAN)
  tsan_fiber_ = __tsan_create_fiber(0);
#endif
#if defined(__x86_64__)
  // The frame tcgen_fiber_switch pops, 16-byte aligned so that tcgen_fiber_start's
  // call enters Fiber::start with the stack the ABI requires.
  auto* frame = reinterpret_cast<std::uint64_t*>(top) - 8;
  std::uint32_t mxcsr = 0;
  std::uint16_t fpu = 0;
  asm volatile("stmxcsr %0\n\tfnstcw %1" : "=m"(mxcsr), "=m"(fpu));
  frame[0] = mxcsr | (std::uint64_t{fpu} << 32);
  frame[1] = frame[2] = 0;                                    // r15, r14
  frame[3] = reinterpret_cast<std::uint64_t>(&Fiber::start);  // r13
  frame[4] = reinterpret_cast<std::uint64_t>(this);           // r12
  frame[5] = frame[6] = 0;                                    // rbx, rbp
  frame[7] = reinterpret_cast<std::uint64_t>(&tcgen_fiber_start);
  sp_ = frame;
#else
  if (getcontext(&context_) != 0) {
    stacks.give(mapping_, mapped_bytes_);
    fail_errno("getcontext");
  }
  context_.uc_stack.ss_sp = const_cast<void*>(stack_bottom_);
  context_.uc_stack.ss_size = stack_size_;
  context_.uc_link = &caller_;
  makecontext(&context_, entry, 0);
#endif
}

Fiber::~Fiber() {
#if defined(TCGEN_FIBER_TSAN)
  __tsan_destroy_fiber(tsan_fiber_);
#endif
  stacks.give(mapping_, mapped_bytes_);
}

#if defined(__x86_64__)
void Fiber::start(Fiber* self) {
  asan_arrive(nullptr, &self->caller_bottom_, &self->caller_size_);
  self->entry_();
  asan_leave(nullptr, self->caller_bottom_, self->caller_size_);  // this stack's fake frames go
  tsan_switch(self->tsan_caller_);
  tcgen_fiber_switch(&self->sp_, self->caller_sp_);  // done: never resumed again
}

void Fiber::resume() {
  void* fake = nullptr;
  asan_leave(&fake, stack_bottom_, stack_size_);
  tsan_caller_ = tsan_current();
  tsan_switch(tsan_fiber_);
  tcgen_fiber_switch(&caller_sp_, sp_);
  asan_arrive(fake, nullptr, nullptr);
}

void Fiber::suspend_to(Fiber& next) {
  next.caller_sp_ = caller_sp_;
  tcgen_fiber_switch(&sp_, next.sp_);
}

void Fiber::suspend() {
  void* fake = nullptr;
  asan_leave(&fake, caller_bottom_, caller_size_);
  tsan_switch(tsan_caller_);
  tcgen_fiber_switch(&sp_, caller_sp_);
  // The next resume() may come from another frame of the caller's stack.
  asan_arrive(fake, &caller_bottom_, &caller_size_);
}
#else
// Not announced to ASan or TSan: makecontext's entry and uc_link return bypass
// Fiber::start (docs/reliability.md; the sanitized builds are x86-64).
void Fiber::resume() { swapcontext(&caller_, &context_); }

void Fiber::suspend() { swapcontext(&context_, &caller_); }

void Fiber::suspend_to(Fiber&) { fail("fiber switch", "suspend_to", "kSwitchesDirectly, which is false here"); }
#endif

}  // namespace tcgen::exec
