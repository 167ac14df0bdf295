#pragma once
// One-way hand-offs over mbarriers, typed by who completes the phase: the
// pipeline kinds of CUTLASS (PipelineTmaUmmaAsync, PipelineUmmaAsync,
// PipelineAsyncUmma), each direction on its own, for the barriers that have no
// "empty" partner (pipeline.hpp pairs them).
//
//   TmaSignal<N>      a TMA's transactions (one expect_tx arrival, then the bytes)
//   MmaSignal<N>      an MMA thread's tcgen05.commit: MMA → threads
//   ArrivalSignal<N>  the counted arrivals of threads: threads → MMA, threads → threads
//
// Use i of a signal is its mbarrier i % N (8 bytes apart: SmemPlan::barrier)
// in round i / N, whose phase has parity (i / N) % 2 (PTX
// #parallel-synchronization-and-communication-instructions-mbarrier-test-wait).
// The waiting side waits for use i; no mbarrier may get two phases ahead of
// its waiter, which a parity cannot tell apart.
#include <cstdint>

#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/kernel_arch.hpp"

namespace tcgen::tile {

template <int N>
struct SignalBarriers {
  static_assert(N >= 1, "a signal has at least one mbarrier");
  std::uint32_t first = 0;  // the shared-memory address of use 0's mbarrier

  // Uses count from 0: unsigned arithmetic, which a power-of-two N makes a mask and a shift.
  constexpr TCGEN_HD std::uint32_t barrier(int use) const {
    return first + 8u * (static_cast<std::uint32_t>(use) % static_cast<std::uint32_t>(N));
  }
  static constexpr TCGEN_HD std::uint32_t parity(int use) {
    return static_cast<std::uint32_t>(use) / static_cast<std::uint32_t>(N) & 1u;
  }
  // The waiting side: until use `use` has completed.
  template <exec::KernelArch Arch>
  TCGEN_HD void wait(Arch& a, int use) const {
    a.mbarrier_wait(barrier(use), parity(use));
  }
};

template <int N = 1>
struct TmaSignal : SignalBarriers<N> {
  // The one arrival of use `use`, expecting `bytes` of TMA transactions on barrier(use).
  template <exec::KernelArch Arch>
  TCGEN_HD void expect_bytes(Arch& a, int use, std::uint32_t bytes) const {
    a.mbarrier_arrive_expect_tx(this->barrier(use), bytes);
  }
};

template <int N = 1>
struct MmaSignal : SignalBarriers<N> {
  // Use `use` completes once the MMAs issued so far by this thread complete.
  template <exec::KernelArch Arch, class Atom>
  TCGEN_HD void commit(Arch& a, Atom atom, int use) const {
    a.commit(atom, this->barrier(use));
  }
};

template <int N = 1>
struct ArrivalSignal : SignalBarriers<N> {
  // This thread's arrival for use `use`.
  template <exec::KernelArch Arch>
  TCGEN_HD void arrive(Arch& a, int use) const {
    a.mbarrier_arrive(this->barrier(use));
  }
  // One arrival for the warp, after every lane's shared-memory and TMEM work.
  template <exec::KernelArch Arch>
  TCGEN_HD void arrive_warp(Arch& a, int use) const {
    a.sync_warp();
    if (a.elect_one()) a.mbarrier_arrive(this->barrier(use));
  }
};

}  // namespace tcgen::tile
