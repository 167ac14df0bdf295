// Which element each register holds when a warpgroup walks a TMEM tile with
// one tcgen05.ld/st shape (tcgen/tmem/tile_access.hpp), the lane-quarter rule
// (tcgen/tmem/lane_quarter.hpp) and tcgen05.cp's placement (tcgen/tmem/copy.hpp).
// Expected cells and elements come from formulas written here from
// ../shared/reference/tcgen05-facts.md §4 (D[m][n] -> lane, column) and §5
// ((thread, register) -> lane, column), and tcgen05-facts-2.md §1.4 and §2;
// nothing was produced by running the library.
#include "tcgen/tmem/tile_access.hpp"

#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <utility>

#include "expect_error.hpp"
#include "tcgen/tmem/copy.hpp"

using namespace tcgen;
using namespace tcgen::tmem;
using layout::AccumulatorSpec;
using layout::TmemAccess;
using layout::TmemShape;

namespace {

const TmemShape kShapes[] = {TmemShape::s32x32b, TmemShape::s16x64b, TmemShape::s16x128b, TmemShape::s16x256b,
                             TmemShape::s16x32bx2};

struct LaneCol {
  int lane, col;
};

// §5 "(thread t, register i) -> (lane offset, column offset)"; packed: bits
// [0,16) in column 2c, [16,32) in 2c+1. 16x32bx2's halves side by side.
LaneCol facts_cell(const TmemAccess& a, int t, int i, int h) {
  const int w = static_cast<int>(a.num) * (a.pack ? 2 : 1);  // 16x32bx2 immHalfSplitoff, CUTLASS's choice
  LaneCol c{};
  switch (a.shape) {
    case TmemShape::s32x32b: c = {t, i}; break;
    case TmemShape::s16x64b: c = {(t >> 2) + 8 * (t & 1), ((t >> 1) & 1) + 2 * i}; break;
    case TmemShape::s16x128b: c = {(t >> 2) + 8 * (i & 1), (t & 3) + 4 * (i >> 1)}; break;
    case TmemShape::s16x256b: c = {(t >> 2) + 8 * ((i >> 1) & 1), 2 * (t & 3) + (i & 1) + 8 * (i >> 2)}; break;
    case TmemShape::s16x32bx2:
      return a.pack ? LaneCol{t & 15, 2 * i + h + (t >= 16 ? w : 0)} : LaneCol{t & 15, i + (t >= 16 ? w : 0)};
  }
  return a.pack ? LaneCol{c.lane, 2 * c.col + h} : c;
}

// §4 inverted by hand for one CTA: the (row, col) of D held in (lane, column)
// relative to d-tmem; row -1 where the layout leaves the lane empty.
Element facts_element(const AccumulatorSpec& s, int lane, int col) {
  const int n = s.n;
  if (s.cta_group == 1 && s.m == 128) return {lane, col};                                   // D
  if (s.cta_group == 2 && s.m == 256) return {lane, col};                                   // A, CTA 0
  if (s.cta_group == 1 && s.m == 64 && !s.ws)                                               // F
    return lane % 32 < 16 ? Element{16 * (lane / 32) + lane % 16, col} : Element{-1, -1};
  if ((s.cta_group == 1 && s.m == 64 && s.ws) || (s.cta_group == 2 && s.m == 128))          // E, B (CTA 0)
    return {lane % 64, col + (lane / 64) * (n / 2)};
  return {lane % 32, col + (lane / 32) * (n / 4)};                                          // G
}

std::string describe(const AccumulatorSpec& s, const TmemAccess& a) {
  return "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " cta_group::" + std::to_string(s.cta_group) +
         (s.ws ? " .ws" : "") + " with " + layout::name(a.shape) + ".x" + std::to_string(a.num) +
         (a.pack ? ".pack::16b" : "");
}

// Walks the whole warpgroup: every register lands in its warp's quarter, on
// the cell §5 predicts, holding the element §4 puts there, and every element
// of the (one-CTA) accumulator is held exactly once.
void check_walk(const AccumulatorSpec& s, ElementType d, const TmemAccess& a) {
  INFO(describe(s, a));
  const std::vector<RegisterElement> map = access_map(s, d, a);
  std::map<std::pair<int, int>, int> seen;
  bool ok = true;
  for (const RegisterElement& r : map) {
    ok &= r.lane / 32 == r.quarter;  // the lane-quarter rule (tile lane offset 0)
    const LaneCol c = facts_cell(a, r.thread, r.reg, r.half);
    // access s: lane block s % blocks (16-lane shapes over 32 lanes: +0, +16), column block s / blocks.
    const int blocks = layout::access_lanes(a.shape) == 16 && facts_element(s, 16, 0).row >= 0 ? 2 : 1;
    const int lane = 32 * r.quarter + 16 * (r.access % blocks) + c.lane;
    const int col = static_cast<int>(a.columns()) * (r.access / blocks) + c.col;
    ok &= r.lane == lane && r.column == col;
    const Element e = facts_element(s, lane, col);
    ok &= e == r.element;
    ++seen[{r.element.row, r.element.col}];
  }
  CHECK(ok);
  const int rows = s.m / s.cta_group;
  CHECK(static_cast<int>(seen.size()) == rows * s.n);
  bool once = true;
  for (const auto& [rc, count] : seen) once &= count == 1 && rc.first >= 0 && rc.first < rows && rc.second < s.n;
  CHECK(once);
}

}  // namespace

TEST_CASE("read-back plans for Layouts D and F cover every element exactly once across a warpgroup") {
  int walks = 0;
  for (const AccumulatorSpec& s : {AccumulatorSpec{128, 256}, AccumulatorSpec{128, 64}, AccumulatorSpec{64, 256},
                                   AccumulatorSpec{64, 32}})
    for (TmemShape shape : kShapes)
      for (long num = 1; num <= 128; num *= 2)
        for (bool pack : {false, true}) {
          const TmemAccess a{shape, num, pack};
          if (layout::check(a) != layout::TmemAccessRule::ok || s.n % a.columns() != 0) continue;
          if (s.m == 64 && shape == TmemShape::s32x32b) continue;  // refused: F holds 16 lanes per quarter
          check_walk(s, pack ? ElementType::fp16 : ElementType::f32, a);
          ++walks;
        }
  MESSAGE(walks << " (accumulator, access) walks");
  CHECK(walks > 200);
}

TEST_CASE("read-back plans for Layouts E, G, B and A (one CTA)") {
  for (const AccumulatorSpec& s : {AccumulatorSpec{64, 128, 1, true}, AccumulatorSpec{32, 256, 1, true},
                                   AccumulatorSpec{128, 128, 2}, AccumulatorSpec{256, 64, 2}})
    for (TmemShape shape : {TmemShape::s32x32b, TmemShape::s16x256b})
      check_walk(s, ElementType::f32, {shape, 4});
}

TEST_CASE("16x256b: two accesses cover a warp's 32 lanes, the second at lane + 16") {
  using Tile = AccumulatorTile<AccumulatorSpec{128, 128}>;
  using Walk = TileAccess<Tile, TmemAccess{TmemShape::s16x256b, 1}>;
  static_assert(Walk::registers == 4);
  static_assert(Walk::accesses == 2 * 128 / 8);  // two lane halves x 16 blocks of 8 columns
  const Tile s{TmemAddress(0, 0)};
  for (int q = 0; q < 4; ++q) {
    CHECK(Walk::address(s, q, 0) == TmemAddress(32 * q, 0));
    CHECK(Walk::address(s, q, 1) == TmemAddress(32 * q + 16, 0));  // taddr + (16 << 16), not + 16
    CHECK(Walk::address(s, q, 1).raw() - Walk::address(s, q, 0).raw() == 0x00100000u);
    CHECK(Walk::address(s, q, 2) == TmemAddress(32 * q, 8));  // the next 8 columns: taddr + 8
  }
  CHECK(Walk::address<1>(s, 1) == TmemAddress(48, 0));
  // §5: thread 31's registers 2, 3 are (L15, C6), (L15, C7); in the second access that is row 32q + 31.
  CHECK(Walk::element(2, 1, 31, 2) == Element{64 + 31, 6});
  CHECK(Walk::element(2, 1, 31, 3) == Element{64 + 31, 7});
  CHECK(Walk::element(0, 0, 0, 0) == Element{0, 0});
  static_assert(Walk::element(3, 3, 5, 1) == Element{96 + 16 + 1, 8 + 3});  // constexpr: t5 r1 = (L1, C3)
}

TEST_CASE("Layout F at lane offset 16: one 16-lane access per quarter, lanes 32q+16 .. 32q+31") {
  using Tile = AccumulatorTile<AccumulatorSpec{64, 64}>;
  using Walk = TileAccess<Tile, TmemAccess{TmemShape::s16x64b, 8}>;  // 16 lanes x 16 columns
  static_assert(Walk::accesses == 64 / 16);
  const Tile f{TmemAddress(16, 0)};
  for (int q = 0; q < 4; ++q) {
    CHECK(Walk::address(f, q, 0) == TmemAddress(32 * q + 16, 0));
    CHECK(Walk::address(f, q, 3) == TmemAddress(32 * q + 16, 48));
    // §4: warp q reads rows 16q .. 16q+15.
    CHECK(Walk::element(q, 0, 0, 0).row == 16 * q);
    CHECK(Walk::element(q, 0, 1, 0).row == 16 * q + 8);  // 16x64b: t1 -> L8
  }
}

TEST_CASE("P as the A operand: thread t of warp q holds P[32q+t][2c], [2c+1] (tcgen05-facts-2.md §1.4)") {
  using Tile = OperandTile<128, 128, ElementType::bf16>;
  using Walk = TileAccess<Tile, TmemAccess{TmemShape::s32x32b, 32}>;  // CUTLASS FMHA's store, two of them
  static_assert(Walk::accesses == 2);
  for (int q = 0; q < 4; ++q)
    for (int t = 0; t < 32; t += 7)
      for (int i = 0; i < 32; i += 5) {
        CHECK(Walk::element(q, 0, t, i) == Element{32 * q + t, 2 * i});
        CHECK(Walk::element(q, 1, t, i) == Element{32 * q + t, 64 + 2 * i});
      }
}

TEST_CASE("one row per thread: 32x32b over a 128-row tile, and no other shape (the FMHA softmax's premise)") {
  // tcgen05-facts.md §5: 32x32b gives thread t lane 32q + t and register i
  // column base + i; Layout D (§4, M = 128) puts row m in lane m.
  using S = AccumulatorTile<AccumulatorSpec{128, 128, 1}, ElementType::f32>;
  using P = OperandTile<128, 128, ElementType::bf16>;
  using Rows = TileAccess<S, TmemAccess{TmemShape::s32x32b, 32}>;
  static_assert(Rows::one_row_per_thread && Rows::column(2, 5) == 69);
  static_assert(TileAccess<S, TmemAccess{TmemShape::s32x32b, 4}>::one_row_per_thread);
  using PRows = TileAccess<P, TmemAccess{TmemShape::s32x32b, 16}>;  // two bf16 per cell: column 2 per register
  static_assert(PRows::one_row_per_thread && PRows::column(1, 3) == 2 * (16 + 3));
  // 16-lane shapes spread a thread's registers over two rows or several threads over one row.
  static_assert(!TileAccess<S, TmemAccess{TmemShape::s16x256b, 1}>::one_row_per_thread);
  static_assert(!TileAccess<S, TmemAccess{TmemShape::s16x64b, 2}>::one_row_per_thread);
  static_assert(!TileAccess<S, TmemAccess{TmemShape::s16x32bx2, 2}>::one_row_per_thread);
  // Layout F (M = 64): rows in 16 lanes per quarter, so a 32-lane access is refused outright
  // ("shape" rule); a 16-lane one does not give one row per thread.
  using F = AccumulatorTile<AccumulatorSpec{64, 64, 1}, ElementType::f32>;
  static_assert(!TileAccess<F, TmemAccess{TmemShape::s16x256b, 1}>::one_row_per_thread);
  CHECK(Rows::element(3, 2, 17, 5) == Element{32 * 3 + 17, 64 + 5});
}

TEST_CASE("scratch cells of 64 rows sit in Layout F lanes") {
  using Walk = TileAccess<ScratchTile<64, 2>, TmemAccess{TmemShape::s16x32bx2, 1}>;
  static_assert(Walk::accesses == 1);
  CHECK(Walk::element(1, 0, 3, 0) == Element{16 + 3, 0});
  CHECK(Walk::element(1, 0, 19, 0) == Element{16 + 3, 1});  // threads 16-31: the second half, column 1
}

TEST_CASE("refused walks name the field") {
  const AccumulatorSpec d{128, 128}, f{64, 128};
  expect_error([&] { (void)access_map(d, ElementType::f32, {TmemShape::s32x32b, 4, true}); }, "pack");
  expect_error([&] { (void)access_map(f, ElementType::f32, {TmemShape::s32x32b, 4}); }, "shape");
  expect_error([&] { (void)access_map({128, 8}, ElementType::f32, {TmemShape::s32x32b, 16}); }, "num");
  expect_error([&] { (void)access_map(d, ElementType::f32, {TmemShape::s16x32bx2, 4, false, 64}); }, "half_split");
  expect_error([&] { (void)access_map({96, 128}, ElementType::f32, {TmemShape::s32x32b, 4}); }, "m");
  expect_error([&] { (void)access_map(d, ElementType::f32, {TmemShape::s32x32b, 3}); }, "num");
  expect_error([&] { (void)access_map(d, ElementType::bf16, {TmemShape::s32x32b, 4}); }, "element");
  CHECK(plan_access(accumulator_view(f, ElementType::f32), {TmemShape::s32x32b, 4}).rule == TileAccessRule::lanes);
}

TEST_CASE("the lane-quarter rule: warp w touches lanes 32(w%4) .. 32(w%4)+31") {
  CHECK(check_quarter(0, 0, 32) == QuarterRule::ok);
  CHECK(check_quarter(1, 48, 16) == QuarterRule::ok);
  CHECK(check_quarter(3, 96, 32) == QuarterRule::ok);
  CHECK(check_quarter(4, 128, 16) == QuarterRule::quarter);
  CHECK(check_quarter(-1, 0, 16) == QuarterRule::quarter);
  CHECK(check_quarter(0, 16, 32) == QuarterRule::lanes);  // 32x32b at lane 16 crosses into quarter 1
  CHECK(check_quarter(1, 56, 16) == QuarterRule::lanes);  // 16 lanes from 56 reach 71
  CHECK(check_quarter(1, 16, 16) == QuarterRule::lanes);  // warp 1 at warp 0's lanes
  CHECK(check_quarter(2, 80, 16) == QuarterRule::ok);
  static_assert(quarter_lane<2, 16, TmemAccess{TmemShape::s16x256b, 1}>() == 80);
  static_assert(quarter_lane<3, 0, TmemAccess{TmemShape::s32x32b, 8}>() == 96);
}

TEST_CASE("tcgen05.cp shapes: rows, columns and lanes of tcgen05-facts-2.md §2") {
  CHECK(copy_rows(CopyShape::s128x256b) == 128);
  CHECK(copy_columns(CopyShape::s128x256b) == 8);
  CHECK(copy_columns(CopyShape::s128x128b) == 4);
  CHECK(copy_rows(CopyShape::s4x256b) == 4);
  CHECK(copy_rows(CopyShape::s32x128b_warpx4) == 32);
  CHECK(copy_rows(CopyShape::s64x128b_01_23) == 64);
  auto lanes = [](CopyShape s, int row) {
    std::set<int> out;
    const LaneSet set = copy_lanes(s, row);
    for (int l = 0; l < 128; ++l)
      if (set.contains(l)) out.insert(l);
    return out;
  };
  CHECK(lanes(CopyShape::s128x256b, 77) == std::set<int>{77});
  CHECK(lanes(CopyShape::s4x256b, 3) == std::set<int>{96});
  CHECK(lanes(CopyShape::s32x128b_warpx4, 5) == std::set<int>{5, 37, 69, 101});  // every subpartition
  CHECK(lanes(CopyShape::s64x128b_02_13, 40) == std::set<int>{40, 104});          // warps 1 and 3
  CHECK(lanes(CopyShape::s64x128b_01_23, 40) == std::set<int>{72, 104});          // rows 32-63 -> warps 2, 3
  CHECK(lanes(CopyShape::s64x128b_01_23, 5) == std::set<int>{5, 37});             // rows 0-31 -> warps 0, 1
  // Every shape writes all 128 lanes except 4x256b (4).
  for (CopyShape s : {CopyShape::s128x256b, CopyShape::s128x128b, CopyShape::s64x128b_02_13, CopyShape::s64x128b_01_23,
                      CopyShape::s32x128b_warpx4}) {
    std::set<int> all;
    for (int r = 0; r < copy_rows(s); ++r)
      for (int l : lanes(s, r)) CHECK(all.insert(l).second);
    CHECK(all.size() == 128);
  }
}
