#include "tcgen/model/ld_st_access.hpp"

namespace tcgen::model {

const char* name(LdStShape shape) {
  switch (shape) {
    case LdStShape::s32x32b: return "32x32b";
    case LdStShape::s16x64b: return "16x64b";
    case LdStShape::s16x128b: return "16x128b";
    case LdStShape::s16x256b: return "16x256b";
    case LdStShape::s16x32bx2: return "16x32bx2";
  }
  return "?";
}

int lanes(LdStShape shape) { return shape == LdStShape::s32x32b ? 32 : 16; }

int registers(const LdStAccess& a) {
  // .x1 moves lanes × bits: 32x32b, 16x64b and 16x32bx2 one register per
  // thread, 16x128b two, 16x256b four; .num repeats it.
  const int x1 = a.shape == LdStShape::s16x128b ? 2 : a.shape == LdStShape::s16x256b ? 4 : 1;
  return x1 * a.num;
}

std::string problem(const LdStAccess& a) {
  if (a.num < 1 || a.num > 128 || (a.num & (a.num - 1)) != 0)
    return ".num must be one of x1, x2, x4, ..., x128";
  if (registers(a) > 128)
    return std::string(".") + name(a.shape) + ".x" + std::to_string(a.num) + " would need " +
           std::to_string(registers(a)) + " registers per thread; Table 49 stops at 128";
  if (a.shape == LdStShape::s16x32bx2 && a.half_split < 0) return "immHalfSplitoff must not be negative";
  if (a.shape != LdStShape::s16x32bx2 && a.half_split != 0) return "only .16x32bx2 takes an immHalfSplitoff";
  return "";
}

std::string instruction_name(bool load, const LdStAccess& a) {
  std::string s = load ? "tcgen05.ld.sync.aligned." : "tcgen05.st.sync.aligned.";
  s += std::string(name(a.shape)) + ".x" + std::to_string(a.num);
  if (a.pack) s += load ? ".pack::16b" : ".unpack::16b";
  return s + ".b32";
}

CellOffset cell_offset(const LdStAccess& a, int t, int i, int half) {
  int lane = 0, col = 0;
  switch (a.shape) {
    case LdStShape::s32x32b:  // thread t owns lane t; register i is column i
      lane = t;
      col = i;
      break;
    case LdStShape::s16x64b:
      lane = (t >> 2) + 8 * (t & 1);
      col = ((t >> 1) & 1) + 2 * i;
      break;
    case LdStShape::s16x128b:
      lane = (t >> 2) + 8 * (i & 1);
      col = (t & 3) + 4 * (i >> 1);
      break;
    case LdStShape::s16x256b:  // the mma.sync m16n8 accumulator pattern
      lane = (t >> 2) + 8 * ((i >> 1) & 1);
      col = 2 * (t & 3) + (i & 1) + 8 * (i >> 2);
      break;
    case LdStShape::s16x32bx2:  // two 16x32b accesses; threads 16-31 use taddr + immHalfSplitoff
      lane = t & 15;
      col = i;
      break;
  }
  if (a.pack) col = 2 * col + half;
  if (a.shape == LdStShape::s16x32bx2 && t >= 16) col += a.half_split;
  return {lane, col};
}

}  // namespace tcgen::model
