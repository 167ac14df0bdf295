#pragma once
// Rescaling an f32 accumulator in Tensor Memory in place, as an online
// softmax does to O when a row's maximum grows: each of the warp's accesses
// (Walk over its lane quarter) loaded, multiplied and stored back with the
// same shape, then tcgen05.wait::st, so that what comes next (a fence and
// the MMA's hand-off) finds the stores complete
// (PTX #tcgen05-instructions-tcgen05-wait).
#include <bit>
#include <cstdint>

#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/exec/unroll.hpp"
#include "tcgen/tile/convert.hpp"

namespace tcgen::tile {

template <class Ld, class Walk, exec::KernelArch Arch, class Tile>
TCGEN_HD void scale_tmem(Arch& a, const Tile& tile, int quarter, float factor) {
  TCGEN_UNROLL
  for (int c = 0; c < Walk::accesses; ++c) {
    typename Ld::Registers v = a.ld(Ld{}, Walk::address(tile, quarter, c));
    a.wait_ld();
    TCGEN_UNROLL
    for (int j = 0; j < Walk::registers; ++j) v[j] = std::bit_cast<std::uint32_t>(f32(v[j]) * factor);
    a.st(Ld{}, Walk::address(tile, quarter, c), v);
  }
  a.wait_st();
}

}  // namespace tcgen::tile
