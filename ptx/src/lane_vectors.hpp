#pragma once
// A warp in lockstep's arrays of its lanes (LockstepLanes) updated for a mask of lanes, four or two
// lanes at a time (GCC's and Clang's vector extensions: SSE2 on x86-64).
#include <array>
#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <tuple>

namespace tcgen::ptx {

// A lane at a time, a group's three passes over 32 lanes took most of a diverged warp's time.
using Lanes4 = std::uint32_t __attribute__((vector_size(16)));
using Lanes2 = std::uint64_t __attribute__((vector_size(16)));

// All ones in each of lanes k .. k + 3 that `lanes` holds.
inline Lanes4 select4(std::uint32_t lanes, std::size_t k) {
  const std::uint32_t b = lanes >> k;
  return reinterpret_cast<Lanes4>((Lanes4{b, b, b, b} & Lanes4{1, 2, 4, 8}) != 0);
}

// Lane l of `a` set to `value` for each lane of `lanes`.
inline void set_lanes(std::array<std::uint32_t, 32>& a, std::uint32_t lanes, std::uint32_t value) {
  for (std::size_t k = 0; k < 32; k += 4) {
    Lanes4 at;
    std::memcpy(&at, &a[k], sizeof at);
    const Lanes4 sel = select4(lanes, k);
    at = (at & ~sel) | ((Lanes4{} + value) & sel);
    std::memcpy(&a[k], &at, sizeof at);
  }
}

// Whether every lane of `lanes` holds `value` in `a`.
inline bool all_at(const std::array<std::uint32_t, 32>& a, std::uint32_t lanes, std::uint32_t value) {
  Lanes4 differ = {};
  for (std::size_t k = 0; k < 32; k += 4) {
    Lanes4 at;
    std::memcpy(&at, &a[k], sizeof at);
    differ |= reinterpret_cast<Lanes4>(at != Lanes4{} + value) & select4(lanes, k);
  }
  return (differ[0] | differ[1] | differ[2] | differ[3]) == 0;
}

// `n` added to lane l of `a` for each lane of `lanes`.
inline void add_lanes(std::array<std::uint64_t, 32>& a, std::uint32_t lanes, std::uint64_t n) {
  for (std::size_t k = 0; k < 32; k += 2) {
    Lanes2 at;
    std::memcpy(&at, &a[k], sizeof at);
    const std::uint64_t b = lanes >> k;
    at += (Lanes2{} + n) & reinterpret_cast<Lanes2>((Lanes2{b, b} & Lanes2{1, 2}) != 0);
    std::memcpy(&a[k], &at, sizeof at);
  }
}


// The lowest pc of `pcs`, the lanes there, and the lowest pc of the others (~0 for none), four lanes
// at a time (GCC's and Clang's vector extensions: SSE2 on x86-64): a warp that diverged looks for
// them after each branch, and lane by lane that was a tenth of a divergent kernel's time.
inline std::tuple<std::uint32_t, std::uint32_t, std::uint32_t> lowest(const std::array<std::uint32_t, 32>& pcs) {
  std::uint32_t pc = ~0u;
  for (const std::uint32_t at : pcs) pc = std::min(pc, at);
  const Lanes4 lowest_pc = Lanes4{} + pc, bit = {1, 2, 4, 8};
  Lanes4 bits = {}, others = ~Lanes4{};
  for (std::size_t k = 0; k < 32; k += 4) {
    Lanes4 at;
    std::memcpy(&at, &pcs[k], sizeof at);
    const auto here = reinterpret_cast<Lanes4>(at == lowest_pc);  // all ones where at the lowest pc
    bits |= (here & bit) << static_cast<std::uint32_t>(k);
    const Lanes4 other = at | here;  // ~0 where at the lowest pc
    others = other < others ? other : others;
  }
  return {pc, bits[0] | bits[1] | bits[2] | bits[3],
          std::min(std::min(others[0], others[1]), std::min(others[2], others[3]))};
}

}  // namespace tcgen::ptx
