#include "tcgen/model/cp_shape.hpp"

namespace tcgen::model {

const char* name(CpShape shape) {
  switch (shape) {
    case CpShape::s128x256b: return "128x256b";
    case CpShape::s4x256b: return "4x256b";
    case CpShape::s128x128b: return "128x128b";
    case CpShape::s64x128b_warpx2_02_13: return "64x128b.warpx2::02_13";
    case CpShape::s64x128b_warpx2_01_23: return "64x128b.warpx2::01_23";
    case CpShape::s32x128b_warpx4: return "32x128b.warpx4";
  }
  return "?";
}

int source_rows(CpShape shape) {
  switch (shape) {
    case CpShape::s128x256b: case CpShape::s128x128b: return 128;
    case CpShape::s4x256b: return 4;
    case CpShape::s64x128b_warpx2_02_13: case CpShape::s64x128b_warpx2_01_23: return 64;
    case CpShape::s32x128b_warpx4: return 32;
  }
  return 0;
}

int row_bytes(CpShape shape) {
  return shape == CpShape::s128x256b || shape == CpShape::s4x256b ? 32 : 16;
}

std::vector<int> destination_lanes(CpShape shape, int s) {
  switch (shape) {
    case CpShape::s128x256b: case CpShape::s128x128b: return {s};
    case CpShape::s4x256b: return {32 * s};  // row 0 of each 32-lane quarter (CUTLASS SrcLayout (4,256):(32,128))
    case CpShape::s64x128b_warpx2_02_13: return {s, s + 64};  // rows 0-31 to warps 0 and 2, rows 32-63 to 1 and 3
    case CpShape::s64x128b_warpx2_01_23: {
      const int lane = s % 32 + 64 * (s / 32);  // rows 0-31 to warps 0 and 1, rows 32-63 to 2 and 3
      return {lane, lane + 32};
    }
    case CpShape::s32x128b_warpx4: return {s, s + 32, s + 64, s + 96};
  }
  return {};
}

}  // namespace tcgen::model
