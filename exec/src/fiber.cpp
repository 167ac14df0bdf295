#include "tcgen/exec/fiber.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::exec {

namespace {

[[noreturn]] void fail_errno(const char* call) {
  fail("fiber stack", std::string(call) + " failed: " + std::strerror(errno),
       "memory for the stacks of a CTA's threads");
}

}  // namespace

Fiber::Fiber(std::size_t stack_bytes, void (*entry)(), ucontext_t* exit) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t stack = (stack_bytes + page - 1) / page * page;
  mapped_bytes_ = stack + page;
  mapping_ = mmap(nullptr, mapped_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping_ == MAP_FAILED) fail_errno("mmap");
  if (mprotect(mapping_, page, PROT_NONE) != 0) {  // the stack grows down, towards the guard
    munmap(mapping_, mapped_bytes_);
    fail_errno("mprotect");
  }
  if (getcontext(&context_) != 0) {
    munmap(mapping_, mapped_bytes_);
    fail_errno("getcontext");
  }
  context_.uc_stack.ss_sp = static_cast<char*>(mapping_) + page;
  context_.uc_stack.ss_size = stack;
  context_.uc_link = exit;
  makecontext(&context_, entry, 0);
}

Fiber::~Fiber() { munmap(mapping_, mapped_bytes_); }

void Fiber::resume(ucontext_t& from) { swapcontext(&from, &context_); }

void Fiber::suspend(const ucontext_t& to) { swapcontext(&context_, &to); }

}  // namespace tcgen::exec
