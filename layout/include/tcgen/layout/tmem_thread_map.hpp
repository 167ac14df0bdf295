#pragma once
// tcgen05.ld / tcgen05.st: which Tensor Memory cell thread t's register i
// holds, for every shape, .num and .pack::16b / .unpack::16b.
//
// One definition per shape: the .x1 pattern of the thread mode and the
// register mode, repeated .num times along the columns. The strides are the
// CUTLASS Copy_Traits<SM100_TMEM_LOAD_*> layouts (copy_traits_sm100.hpp) in
// lane + 128·column form; PTX #tcgen05-matrix-fragments-shape-* draws them
// (tcgen05-facts.md §5). st uses the same map as ld.
#include "tcgen/core/rule_table.hpp"
#include "tcgen/layout/tmem_datapath.hpp"

namespace tcgen::layout {

enum class TmemShape { s32x32b, s16x64b, s16x128b, s16x256b, s16x32bx2 };

constexpr const char* name(TmemShape s) {
  switch (s) {
    case TmemShape::s32x32b: return "32x32b";
    case TmemShape::s16x64b: return "16x64b";
    case TmemShape::s16x128b: return "16x128b";
    case TmemShape::s16x256b: return "16x256b";
    case TmemShape::s16x32bx2: return "16x32bx2";
  }
  return "?";
}

// Lanes one access touches, from taddr's lane (32 for 32x32b, else 16).
constexpr Int access_lanes(TmemShape s) { return s == TmemShape::s32x32b ? 32 : 16; }
// 32-bit registers per thread at .x1 (PTX Table 49/50 #tcgen05-ld, #tcgen05-st).
constexpr Int registers_x1(TmemShape s) {
  return s == TmemShape::s16x128b ? 2 : s == TmemShape::s16x256b ? 4 : 1;
}
// Largest .num: the register count per thread may not pass 128.
constexpr Int max_num(TmemShape s) { return 128 / registers_x1(s); }

struct TmemAccess {
  TmemShape shape = TmemShape::s32x32b;
  Int num = 1;        // .x1 … .x128
  bool pack = false;  // .pack::16b (ld) / .unpack::16b (st): two 16-bit values per register
  Int half_split = 0;  // 16x32bx2 immHalfSplitoff in columns; 0 = CUTLASS's choice, the first half's width
  friend constexpr bool operator==(const TmemAccess&, const TmemAccess&) = default;

  constexpr Int registers() const { return registers_x1(shape) * num; }
  constexpr Int column_scale() const { return pack ? 2 : 1; }  // a packed register spans two columns
  constexpr Int split() const { return half_split ? half_split : num * column_scale(); }
  // Columns from taddr's column that the access touches.
  constexpr Int columns() const {
    if (shape == TmemShape::s16x32bx2) return split() + num * column_scale();
    return registers() * 32 / access_lanes(shape) * column_scale();  // 32-bit cells over the lanes
  }
};

#define TCGEN_TMEM_ACCESS_RULES(X)                                                                 \
  X(num, "num", ".num must be a power of two from 1 to 128, with at most 128 registers per thread (PTX Table 49)") \
  X(half_split, "half_split", "16x32bx2 immHalfSplitoff must keep the second half clear of the first")    \
  X(half_split_columns, "half_split", "16x32bx2 immHalfSplitoff must keep the second half inside the 512 columns of Tensor Memory")

TCGEN_RULE_ENUM(TmemAccessRule, TCGEN_TMEM_ACCESS_RULES);
TCGEN_RULE_LOOKUPS(TmemAccessRule, TCGEN_TMEM_ACCESS_RULES)

constexpr TmemAccessRule check(const TmemAccess& a) {
  if (a.num < 1 || a.num > max_num(a.shape) || (a.num & (a.num - 1)) != 0) return TmemAccessRule::num;
  if (a.shape == TmemShape::s16x32bx2 && a.half_split != 0 && a.half_split < a.num * a.column_scale())
    return TmemAccessRule::half_split;
  // Only a large immHalfSplitoff can reach past the columns: .num is capped.
  if (a.columns() > kTmemColumns) return TmemAccessRule::half_split_columns;
  return TmemAccessRule::ok;
}

// (thread, register[, half]) -> tmem_index(0, lane, column) relative to taddr.
// Mode 0: the 32 threads of the warp. Mode 1: the registers. Mode 2 (packed
// only): the 16-bit half, bits [0,16) in column 2c and [16,32) in 2c+1.
constexpr Layout thread_map(const TmemAccess& a) {
  const Int c = kTmemLanes * a.column_scale();  // one register column
  const Int n = a.num;
  Layout l;
  switch (a.shape) {
    case TmemShape::s32x32b:  // thread t: lane t; register i: column i
      l = Layout{Mode{{32}, {1}}, Mode{{n}, {c}}};
      break;
    case TmemShape::s16x64b:  // t: lane (t>>2) + 8(t&1), column (t>>1)&1; i: column 2i
      l = Layout{Mode{{2, 2, 8}, {8, c, 1}}, Mode{{n}, {2 * c}}};
      break;
    case TmemShape::s16x128b:  // t: lane t>>2, column t&3; i: lane 8(i&1), column 4(i>>1)
      l = Layout{Mode{{4, 8}, {c, 1}}, Mode{{2, n}, {8, 4 * c}}};
      break;
    case TmemShape::s16x256b:  // t: lane t>>2, column 2(t&3); i: column i&1, lane 8((i>>1)&1), column 8(i>>2)
      l = Layout{Mode{{4, 8}, {2 * c, 1}}, Mode{{2, 2, n}, {c, 8, 8 * c}}};
      break;
    case TmemShape::s16x32bx2:  // t: lane t&15, second half at taddr + immHalfSplitoff; i: column i
      l = Layout{Mode{{16, 2}, {1, kTmemLanes * a.split()}}, Mode{{n}, {c}}};
      break;
  }
  if (a.pack) l.push(Mode{{2}, {kTmemLanes}});
  return l;
}

// Run-time construction: an illegal access throws tcgen::Error naming the field.
Layout make_thread_map(const TmemAccess& access);

template <TmemAccess A>
consteval Layout thread_map() {
  TCGEN_RULE_ASSERTS(TmemAccessRule, TCGEN_TMEM_ACCESS_RULES, check(A));
  return thread_map(A);
}

}  // namespace tcgen::layout
