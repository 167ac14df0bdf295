#pragma once
// One pair of operand tiles into an accumulator: a tcgen05.mma per K step of
// the tiles, the first adding to D only when `accumulate` (enable-input-d:
// D = A·B + D, else D = A·B; PTX #tcgen05-mma), every later one adding to it.
// A may be a shared-memory tile or a Tensor Memory one (TS-MMA); B is in
// shared memory and gives the K steps.
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/exec/unroll.hpp"

namespace tcgen::tile {

template <exec::KernelArch Arch, class Atom, class D, class TileA, class TileB>
TCGEN_HD void mma_tile(Arch& a, Atom atom, const D& d, const TileA& ta, const TileB& tb, bool accumulate) {
  if constexpr (requires { TileA::ksteps; })
    static_assert(TileA::ksteps == TileB::ksteps, "A and B tiles span the same K");
  TCGEN_UNROLL
  for (int k = 0; k < TileB::ksteps; ++k) a.mma(atom, d, ta, tb, k, accumulate || k > 0);
}

}  // namespace tcgen::tile
