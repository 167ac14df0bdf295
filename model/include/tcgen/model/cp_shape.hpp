#pragma once
// tcgen05.cp shapes (PTX #tcgen05-instructions-tcgen05-cp), without the
// decompressing .b8x16 forms: how many source rows of how many bytes, and
// which Tensor Memory lanes receive source row s. Written for the model from
// tcgen05-facts-2.md §2 (derived from CUTLASS Copy_Traits<SM100_UTCCP_*>).
#include <vector>

namespace tcgen::model {

enum class CpShape { s128x256b, s4x256b, s128x128b, s64x128b_warpx2_02_13, s64x128b_warpx2_01_23, s32x128b_warpx4 };

const char* name(CpShape shape);  // "128x256b", "64x128b.warpx2::02_13", ...
int source_rows(CpShape shape);
int row_bytes(CpShape shape);      // 32 for the 256b shapes, 16 for the 128b ones
// Lanes, relative to taddr's lane, that receive source row s; the multicast
// shapes copy one row into two or four 32-lane quarters.
std::vector<int> destination_lanes(CpShape shape, int row);

}  // namespace tcgen::model
