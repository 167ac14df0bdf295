#pragma once
// Pipelines over mbarriers. A Ring is N slots guarded by mbarriers, as one
// side walks it: slot i (a shared-memory stage, or a TMEM accumulator) in
// round r, whose
// mbarrier phase has parity r % 2 (PTX
// #parallel-synchronization-and-communication-instructions-mbarrier-test-wait:
// try_wait.parity P succeeds once the phase of parity P has completed).
//
// The consumer of a "full" mbarrier waits for parity `phase`. The producer
// of the slot waits on its "empty" mbarrier for parity `phase ^ 1`: in round
// 0 that names the phase before the first, which counts as complete, so a
// fresh ring starts empty (tests/kernels/pipeline.hpp has the deadlock that
// waiting for `phase` there gives).
#include <cstdint>

#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/core/host_device.hpp"

namespace tcgen::tile {

template <int N>
struct Ring {
  static_assert(N >= 1, "a ring has at least one slot");
  int slot = 0;
  std::uint32_t phase = 0;

  constexpr TCGEN_HD std::uint32_t full_parity() const { return phase; }
  constexpr TCGEN_HD std::uint32_t empty_parity() const { return phase ^ 1u; }
  constexpr TCGEN_HD void advance() {
    if (++slot == N) {
      slot = 0;
      phase ^= 1u;
    }
  }
};

// One side of a producer/consumer pipeline over N slots, as CUTLASS's and
// FA4's pipeline objects are: the slot's "full" and "empty" mbarriers (groups
// of N, 8 bytes apart: SmemPlan::barrier) and this side's Ring. The producer
// acquire()s an empty slot, fills it and makes it full (expect_bytes() for
// TMA, whose transactions complete the phase, or commit() for MMAs); the
// consumer wait()s for a full slot, reads it and release()s it (one thread's
// arrival, or a tcgen05.commit that arrives once the MMAs reading it are
// done); each side then advance()s. Each side keeps its own object.
template <int N>
class Pipeline {
 public:
  constexpr TCGEN_HD Pipeline(std::uint32_t full, std::uint32_t empty) : full_(full), empty_(empty) {}

  constexpr TCGEN_HD int slot() const { return ring_.slot; }
  constexpr TCGEN_HD std::uint32_t full_barrier() const { return full_ + 8u * static_cast<std::uint32_t>(ring_.slot); }
  constexpr TCGEN_HD std::uint32_t empty_barrier() const { return empty_ + 8u * static_cast<std::uint32_t>(ring_.slot); }

  // Producer: wait until the consumer has released the slot (a fresh ring starts empty).
  template <exec::KernelArch Arch>
  TCGEN_HD void acquire(Arch& a) const {
    a.mbarrier_wait(empty_barrier(), ring_.empty_parity());
  }
  // Producer: one arrival that expects `bytes` of TMA transactions on the full barrier.
  template <exec::KernelArch Arch>
  TCGEN_HD void expect_bytes(Arch& a, std::uint32_t bytes) const {
    a.mbarrier_arrive_expect_tx(full_barrier(), bytes);
  }
  // Producer: the slot is full once the MMAs issued so far complete (tcgen05.commit).
  template <exec::KernelArch Arch, class Atom>
  TCGEN_HD void commit(Arch& a, Atom atom) const {
    a.commit(atom, full_barrier());
  }
  // Consumer: wait until the slot is full.
  template <exec::KernelArch Arch>
  TCGEN_HD void wait(Arch& a) const {
    a.mbarrier_wait(full_barrier(), ring_.full_parity());
  }
  // Consumer: release the slot with this thread's arrival.
  template <exec::KernelArch Arch>
  TCGEN_HD void release(Arch& a) const {
    a.mbarrier_arrive(empty_barrier());
  }
  // Consumer: release the slot once the MMAs issued so far, which read it, complete.
  template <exec::KernelArch Arch, class Atom>
  TCGEN_HD void release(Arch& a, Atom atom) const {
    a.commit(atom, empty_barrier());
  }
  constexpr TCGEN_HD void advance() { ring_.advance(); }

 private:
  std::uint32_t full_, empty_;
  Ring<N> ring_;
};

}  // namespace tcgen::tile
