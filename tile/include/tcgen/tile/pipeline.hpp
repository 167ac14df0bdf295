#pragma once
// A ring of N slots guarded by mbarriers, as one side walks it: slot i
// (a shared-memory stage, or a TMEM accumulator) in round r, whose
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

}  // namespace tcgen::tile
