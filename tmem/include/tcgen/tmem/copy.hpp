#pragma once
// tcgen05.cp: shared memory -> Tensor Memory, with the shapes scale factors
// and A operands use (PTX #tcgen05-instructions-tcgen05-cp; tcgen05-facts-2.md §2).
// The source is described by the same 64-bit shared-memory descriptor as an
// MMA operand (K-major; rows of the source go to lanes, its bits to columns,
// little-endian into each 32-bit cell). One thread issues it; it is
// asynchronous, ordered before a later tcgen05.mma of the same cta_group
// (pipelined) and tracked by tcgen05.commit for anything else.
#include <cstdint>

#include "tcgen/core/host_device.hpp"
#include "tcgen/tmem/address.hpp"
#include "tcgen/tmem/lane_set.hpp"

namespace tcgen::tmem {

// Shape: the PTX suffix, source rows, columns written per lane. CUTLASS's
// atoms use each with taddr's lane 0 (other lanes: UNCONFIRMED).
#define TCGEN_COPY_SHAPES(X)                                          \
  X(s128x256b, ".128x256b", 128, 8)                                   \
  X(s128x128b, ".128x128b", 128, 4)                                   \
  X(s4x256b, ".4x256b", 4, 8)                                         \
  X(s64x128b_02_13, ".64x128b.warpx2::02_13", 64, 4)                  \
  X(s64x128b_01_23, ".64x128b.warpx2::01_23", 64, 4)                  \
  X(s32x128b_warpx4, ".32x128b.warpx4", 32, 4)

enum class CopyShape {
#define TCGEN_X(code, suffix, rows, columns) code,
  TCGEN_COPY_SHAPES(TCGEN_X)
#undef TCGEN_X
};

constexpr TCGEN_HD int copy_rows(CopyShape s) {
  switch (s) {
#define TCGEN_X(code, suffix, rows, columns) \
  case CopyShape::code: return rows;
    TCGEN_COPY_SHAPES(TCGEN_X)
#undef TCGEN_X
  }
  return 0;
}
constexpr TCGEN_HD int copy_columns(CopyShape s) {
  switch (s) {
#define TCGEN_X(code, suffix, rows, columns) \
  case CopyShape::code: return columns;
    TCGEN_COPY_SHAPES(TCGEN_X)
#undef TCGEN_X
  }
  return 0;
}

// The lanes (from taddr) that source row `row` is written to: the multicast
// shapes write a row to several warps' quarters (tcgen05-facts-2.md §2, from
// CUTLASS Copy_Traits<SM100_UTCCP_*>; 4x256b's lanes 0/32/64/96 follow
// CUTLASS's layout, which its own comment contradicts: UNCONFIRMED).
constexpr TCGEN_HD LaneSet copy_lanes(CopyShape s, int row) {
  LaneSet set;
  switch (s) {
    case CopyShape::s128x256b:
    case CopyShape::s128x128b: set.add(row); break;
    case CopyShape::s4x256b: set.add(32 * row); break;
    case CopyShape::s64x128b_02_13:  // rows 0-31 to warps 0 and 2, rows 32-63 to warps 1 and 3
      set.add(row);
      set.add(row + 64);
      break;
    case CopyShape::s64x128b_01_23:  // rows 0-31 to warps 0 and 1, rows 32-63 to warps 2 and 3
      set.add(row % 32 + 64 * (row / 32));
      set.add(row % 32 + 64 * (row / 32) + 32);
      break;
    case CopyShape::s32x128b_warpx4:  // every warp's quarter, as block-scale factors must be
      for (int q = 0; q < 4; ++q) set.add(row + 32 * q);
      break;
  }
  return set;
}

#if defined(__CUDACC__)
// Issued by one thread (PTX #tcgen05-instructions-tcgen05-cp). CtaGroup must
// be the kernel's (Plan::cta_group): with 2, both CTAs of the pair receive the data.
template <CopyShape S, int CtaGroup>
__device__ void copy(TmemAddress taddr, std::uint64_t smem_descriptor) {
  static_assert(CtaGroup == 1 || CtaGroup == 2, "cta_group is 1 or 2 (PTX #tcgen05-instructions-tcgen05-cp)");
#define TCGEN_X(code, suffix, rows, columns)                                                                   \
  if constexpr (S == CopyShape::code) {                                                                        \
    if constexpr (CtaGroup == 1)                                                                               \
      asm volatile("tcgen05.cp.cta_group::1" suffix " [%0], %1;" ::"r"(taddr.raw()), "l"(smem_descriptor) : "memory"); \
    else                                                                                                       \
      asm volatile("tcgen05.cp.cta_group::2" suffix " [%0], %1;" ::"r"(taddr.raw()), "l"(smem_descriptor) : "memory"); \
  }
  TCGEN_COPY_SHAPES(TCGEN_X)
#undef TCGEN_X
}
#endif

}  // namespace tcgen::tmem
