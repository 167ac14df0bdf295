// tile::Ring and tile::Stage (tile/pipeline.hpp), and the one-way signals
// (tile/signal.hpp): which mbarrier and which
// parity each side of a pipeline names, round after round. The facts are
// PTX's (#parallel-synchronization-and-communication-instructions-mbarrier-test-wait):
// try_wait.parity P succeeds once the phase of parity P has completed, and a
// fresh mbarrier is in phase 0, so the phase "before" it (parity 1) counts
// as complete: a producer's first wait on an empty barrier must name parity 1.
#include <doctest/doctest.h>

#include <cstdint>

#include "tcgen/tile/pipeline.hpp"
#include "tcgen/tile/signal.hpp"

using tcgen::tile::Ring;
using tcgen::tile::Stage;

TEST_CASE("tile::Ring: slot i of round r names barrier base + 8·i and phase parity r % 2") {
  constexpr std::uint32_t kFull = 0x400, kEmpty = 0x440;
  Ring<3> ring;
  for (int use = 0; use < 3 * 5; ++use, ring.advance()) {
    const int slot = use % 3, round = use / 3;
    CAPTURE(use);
    const Stage s = ring.stage(kFull, kEmpty);
    CHECK(ring.slot == slot);
    CHECK(s.full == kFull + 8u * static_cast<std::uint32_t>(slot));
    CHECK(s.empty == kEmpty + 8u * static_cast<std::uint32_t>(slot));
    CHECK(s.phase == static_cast<std::uint32_t>(round % 2));
  }
}

TEST_CASE("tile::Ring: one slot alternates its phase every use; two rings over different barriers stay in step") {
  Ring<1> one;
  for (std::uint32_t use = 0; use < 6; ++use, one.advance()) {
    CHECK(one.slot == 0);
    CHECK(one.phase == use % 2);
  }
  // An FMHA's K and V share a ring: their stages differ only in the barriers.
  Ring<2> kv;
  kv.advance();
  const Stage k = kv.stage(0x100, 0x110), v = kv.stage(0x120, 0x130);
  CHECK(k.full == 0x108);
  CHECK(v.full == 0x128);
  CHECK(v.empty == 0x138);
  CHECK(k.phase == v.phase);
}

namespace {

// Use i of a signal over N barriers against a Ring<N> advanced i times: the
// indexed form the kernels use must name what walking the ring names.
template <int N>
void signal_walks_as_ring() {
  constexpr std::uint32_t kFirst = 0x480;
  const tcgen::tile::MmaSignal<N> signal{{kFirst}};
  Ring<N> ring;
  for (int use = 0; use < 4 * N + 3; ++use, ring.advance()) {
    CAPTURE(N);
    CAPTURE(use);
    const Stage s = ring.stage(kFirst, 0);
    CHECK(signal.barrier(use) == s.full);
    CHECK(signal.parity(use) == s.phase);
  }
}

}  // namespace

TEST_CASE("tile signals: use i names barrier i % N of round i / N, as a ring walked i times does") {
  signal_walks_as_ring<1>();
  signal_walks_as_ring<2>();
  signal_walks_as_ring<3>();
  // Known points, PTX's parity rule: one barrier alternates every use; two alternate every second.
  CHECK(tcgen::tile::ArrivalSignal<1>{{0x100}}.parity(5) == 1u);
  CHECK(tcgen::tile::ArrivalSignal<2>{{0x100}}.barrier(5) == 0x108u);
  CHECK(tcgen::tile::ArrivalSignal<2>{{0x100}}.parity(5) == 0u);
}
