// The model's Tensor Memory maps held against the layout and tmem libraries,
// written separately from the same sources (tcgen05-facts.md §4, §5;
// tcgen05-facts-2.md §1.2): the tcgen05.ld/st thread maps for every shape ×
// .num × pack, Layouts D and F for every N and lane offset, the .ws layouts
// D, E and G, and how many A
// elements a TS-MMA packs into one cell. A mistake on either side shows here.
#include <doctest/doctest.h>

#include "tcgen/layout/tmem_datapath.hpp"
#include "tcgen/layout/tmem_thread_map.hpp"
#include "tcgen/model/datapath.hpp"
#include "tcgen/model/ld_st_access.hpp"
#include "tcgen/tmem/tile.hpp"

using namespace tcgen;

namespace {

layout::TmemShape layout_shape(model::LdStShape s) {
  switch (s) {
    case model::LdStShape::s32x32b: return layout::TmemShape::s32x32b;
    case model::LdStShape::s16x64b: return layout::TmemShape::s16x64b;
    case model::LdStShape::s16x128b: return layout::TmemShape::s16x128b;
    case model::LdStShape::s16x256b: return layout::TmemShape::s16x256b;
    case model::LdStShape::s16x32bx2: return layout::TmemShape::s16x32bx2;
  }
  return layout::TmemShape::s32x32b;
}

}  // namespace

TEST_CASE("ld/st thread maps: the model and the layout library name the same cell") {
  int accesses = 0;
  for (auto s : {model::LdStShape::s32x32b, model::LdStShape::s16x64b, model::LdStShape::s16x128b,
                 model::LdStShape::s16x256b, model::LdStShape::s16x32bx2})
    for (int num = 1; num <= 128; num *= 2)
      for (bool pack : {false, true})
        for (int split : {0, 3}) {  // 16x32bx2: CUTLASS's immHalfSplitoff and a wider one
          if (split != 0 && s != model::LdStShape::s16x32bx2) continue;
          const int scale = pack ? 2 : 1;
          const model::LdStAccess m{s, num, pack, s == model::LdStShape::s16x32bx2 ? num * scale + split : 0};
          if (!model::problem(m).empty()) continue;
          const layout::TmemAccess l{layout_shape(s), num, pack, m.half_split};
          if (layout::check(l) != layout::TmemAccessRule::ok) continue;
          CAPTURE(model::instruction_name(true, m));
          ++accesses;
          CHECK(model::registers(m) == l.registers());
          const layout::Layout map = layout::make_thread_map(l);
          int wrong = 0;
          for (int t = 0; t < 32; ++t)
            for (int i = 0; i < model::registers(m); ++i)
              for (int h = 0; h < scale; ++h) {
                const model::CellOffset o = model::cell_offset(m, t, i, h);
                const layout::Int idx = pack ? map(t, i, h) : map(t, i);
                wrong += idx != o.lane + 128 * o.column;
              }
          CHECK(wrong == 0);
        }
  // 74 legal accesses, plus 16x32bx2 with the wider split (15: packed .x128 would pass column 511)
  CHECK(accesses == 74 + 15);
}

TEST_CASE("Layouts D and F: the model's lanes and the layout library's accumulator layout agree") {
  for (int m : {64, 128})
    for (int n = 8; n <= 256; n += 8) {
      const layout::Layout l = layout::make_accumulator_layout({m, n, 1, false, false});
      int wrong = 0;
      for (int lane0 : {0, 16}) {
        if (m == 128 && lane0 == 16) continue;
        for (int r = 0; r < m; ++r)
          for (int c = 0; c < n; ++c) {
            const layout::TmemCell cell = layout::tmem_cell(l(r, c));
            wrong += cell.lane + lane0 != model::datapath_lane(m, r, lane0) || cell.column != c;
          }
      }
      CHECK_MESSAGE(wrong == 0, "M = " << m << ", N = " << n);
    }
}

TEST_CASE(".ws Layouts D, E and G: the model's segments and the layout library's accumulator layout agree") {
  for (int m : {32, 64, 128})
    for (int n : {64, 128, 256}) {
      const layout::Layout l = layout::make_accumulator_layout({m, n, 1, true, false});
      const int segments = model::ws_segments(m), width = n / segments;
      CHECK(layout::accumulator_columns({m, n, 1, true, false}) == width);
      int wrong = 0;
      for (int r = 0; r < m; ++r)
        for (int c = 0; c < n; ++c) {
          const layout::TmemCell cell = layout::tmem_cell(l(r, c));
          wrong += cell.lane != model::ws_lane(m, r, c / width) || cell.column != c % width;
        }
      CHECK_MESSAGE(wrong == 0, "M = " << m << ", N = " << n);
    }
}

TEST_CASE("TS A packing: elements per cell match tmem::OperandTile") {
  CHECK(model::a_tmem_position(16, 15).column == tmem::OperandTile<128, 16, ElementType::bf16>::columns - 1);
  CHECK(model::a_tmem_position(32, 7).column == tmem::OperandTile<128, 8, ElementType::tf32>::columns - 1);
  CHECK(model::a_tmem_position(8, 31).column == tmem::OperandTile<64, 32, ElementType::e4m3>::columns - 1);
  CHECK(model::a_tmem_position(8, 31).shift == 24);  // the highest k in the highest byte
  CHECK(model::a_tmem_position(16, 5).shift == 16);
}
