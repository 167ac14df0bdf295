#pragma once
// Pipelines over mbarriers. A Ring is N slots guarded by mbarriers, as one
// side walks it: slot i (a shared-memory stage, or a TMEM accumulator) in
// round r, whose mbarrier phase has parity r % 2 (PTX
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

// One slot of a pipeline in one round: its "full" and "empty" mbarriers and
// the round's phase. The protocol's steps are its members. The producer
// acquire()s the empty slot, fills it and makes it full (expect_bytes() for
// TMA, whose transactions complete the phase, or commit() for MMAs); the
// consumer wait()s for it full, reads it and release()s it (one thread's
// arrival, or a tcgen05.commit that arrives once the MMAs reading it are done).
struct Stage {
  std::uint32_t full = 0, empty = 0;  // shared-memory addresses of the slot's mbarriers
  std::uint32_t phase = 0;            // the round's parity

  // Producer: wait until the consumer has released the slot (a fresh ring starts empty).
  template <exec::KernelArch Arch>
  TCGEN_HD void acquire(Arch& a) const {
    a.mbarrier_wait(empty, phase ^ 1u);
  }
  // Producer: one arrival that expects `bytes` of TMA transactions on the full barrier.
  template <exec::KernelArch Arch>
  TCGEN_HD void expect_bytes(Arch& a, std::uint32_t bytes) const {
    a.mbarrier_arrive_expect_tx(full, bytes);
  }
  // Producer: one of the counted arrivals that make the slot full (threads that fill it with stores).
  template <exec::KernelArch Arch>
  TCGEN_HD void arrive(Arch& a) const {
    a.mbarrier_arrive(full);
  }
  // Producer: the slot is full once the MMAs issued so far complete (tcgen05.commit).
  template <exec::KernelArch Arch, class Atom>
  TCGEN_HD void commit(Arch& a, Atom atom) const {
    a.commit(atom, full);
  }
  // The same for the slot at this offset in every CTA of cta_mask (.multicast::cluster: a CTA pair's).
  template <exec::KernelArch Arch, class Atom>
  TCGEN_HD void commit(Arch& a, Atom, std::uint16_t cta_mask) const {
    a.commit_multicast(full, Atom::spec.cta_group, cta_mask);
  }
  // Consumer: wait until the slot is full.
  template <exec::KernelArch Arch>
  TCGEN_HD void wait(Arch& a) const {
    a.mbarrier_wait(full, phase);
  }
  // Consumer: release the slot with this thread's arrival.
  template <exec::KernelArch Arch>
  TCGEN_HD void release(Arch& a) const {
    a.mbarrier_arrive(empty);
  }
  // Consumer: release the slot of CTA `rank` of the cluster, whose producer
  // waits on its own empty mbarrier (mbarrier.arrive.shared::cluster).
  template <exec::KernelArch Arch>
  TCGEN_HD void release_to(Arch& a, unsigned rank) const {
    a.mbarrier_arrive_cluster(a.map_shared(empty, rank));
  }
  // Consumer: release the slot once the MMAs issued so far, which read it, complete.
  template <exec::KernelArch Arch, class Atom>
  TCGEN_HD void release(Arch& a, Atom atom) const {
    a.commit(atom, empty);
  }
  // The same for the slot in every CTA of cta_mask (a CTA pair's MMAs read both).
  template <exec::KernelArch Arch, class Atom>
  TCGEN_HD void release(Arch& a, Atom, std::uint16_t cta_mask) const {
    a.commit_multicast(empty, Atom::spec.cta_group, cta_mask);
  }
};

template <int N>
struct Ring {
  static_assert(N >= 1, "a ring has at least one slot");
  int slot = 0;
  std::uint32_t phase = 0;

  constexpr TCGEN_HD void advance() {
    if (++slot == N) {
      slot = 0;
      phase ^= 1u;
    }
  }
  // The current slot of the groups of N mbarriers at `full` and `empty`
  // (8 bytes apart: SmemPlan::barrier). Buffers that fill and drain together
  // (an FMHA's K and V blocks) share one ring, each with its own groups.
  constexpr TCGEN_HD Stage stage(std::uint32_t full, std::uint32_t empty) const {
    const std::uint32_t offset = 8u * static_cast<std::uint32_t>(slot);
    return {full + offset, empty + offset, phase};
  }
};

// One side of a producer/consumer pipeline over N slots, as CUTLASS's and
// FA4's pipeline objects are: the groups of "full" and "empty" mbarriers and
// this side's Ring. Each side keeps its own object, takes the current
// stage(), follows the protocol on it (Stage) and advance()s.
template <int N>
class Pipeline {
 public:
  constexpr TCGEN_HD Pipeline(std::uint32_t full, std::uint32_t empty) : full_(full), empty_(empty) {}

  constexpr TCGEN_HD int slot() const { return ring_.slot; }
  constexpr TCGEN_HD Stage stage() const { return ring_.stage(full_, empty_); }
  constexpr TCGEN_HD void advance() { ring_.advance(); }

 private:
  std::uint32_t full_, empty_;
  Ring<N> ring_;
};

}  // namespace tcgen::tile
