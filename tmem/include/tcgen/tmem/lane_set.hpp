#pragma once
// Which of the 128 Tensor Memory lanes a layout's cells use: what decides
// whether two regions can share columns (a 64-row Layout F accumulator at
// lane offset 0 and one at 16 can) and which lanes each warp reads.
#include <cstdint>

#include "tcgen/core/host_device.hpp"
#include "tcgen/layout/algebra.hpp"
#include "tcgen/layout/tmem_datapath.hpp"

namespace tcgen::tmem {

struct LaneSet {
  std::uint64_t low = 0, high = 0;

  constexpr TCGEN_HD void add(layout::Int lane) { (lane < 64 ? low : high) |= std::uint64_t{1} << (lane % 64); }
  constexpr TCGEN_HD bool contains(layout::Int lane) const { return ((lane < 64 ? low : high) >> (lane % 64)) & 1u; }
  constexpr TCGEN_HD bool intersects(const LaneSet& o) const { return (low & o.low) != 0 || (high & o.high) != 0; }
  constexpr TCGEN_HD bool within(const LaneSet& o) const { return (low & ~o.low) == 0 && (high & ~o.high) == 0; }
  friend constexpr bool operator==(const LaneSet&, const LaneSet&) = default;
};

// Lanes a TMEM layout's cells use, from its base lane plus `offset`: its
// leaves of stride below 128 move lanes; the others move columns or the CTA
// (tcgen05's layouts never mix the two in one leaf).
constexpr LaneSet lanes_of(const layout::Layout& l, layout::Int offset = 0) {
  const layout::Mode flat = layout::flatten(l);
  layout::Mode lanes;
  for (int j = 0; j < flat.count; ++j)
    if (flat.stride[j] < layout::kTmemLanes) lanes.push(flat.shape[j], flat.stride[j]);
  LaneSet set;
  for (layout::Int i = 0; i < lanes.size(); ++i) set.add(lanes(i) + offset);
  return set;
}

}  // namespace tcgen::tmem
