#pragma once
// How a warpgroup reads (or writes) a whole TMEM tile with one tcgen05.ld/st
// shape, and which matrix element each register holds: warp q issues
// `accesses` accesses; access s is at address<q>(tile, s); thread t's
// register i (16-bit half h when packed) holds element(q, s, t, i, h).
//
// The element is the atom's thread map, (t, i, h) -> TMEM cell, followed by
// the inverse of the tile's layout, cell -> (row, col): the two definitions in
// tcgen/layout, composed, so epilogue and softmax code never computes either
// by hand. All of it is constexpr and usable in device code.
#include "tcgen/core/rule_table.hpp"
#include <type_traits>
#include <vector>

#include "tcgen/core/host_device.hpp"
#include "tcgen/layout/algebra.hpp"
#include "tcgen/layout/tmem_thread_map.hpp"
#include "tcgen/tmem/lane_quarter.hpp"
#include "tcgen/tmem/lane_set.hpp"
#include "tcgen/tmem/tile.hpp"

namespace tcgen::tmem {

using layout::Int;

// An element of the tile's matrix. For an A-operand tile, col is the k of the
// lowest of the values packed in the register's cell.
struct Element {
  int row = 0, col = 0;
  friend constexpr bool operator==(const Element&, const Element&) = default;
};

// What an access plan needs of a tile, for one CTA.
struct RegionView {
  layout::Layout cells;  // (row, col) -> lane + 128·column, from the tile's address
  Int rows = 0;          // rows of one CTA (CTA v of a pair holds rows v·rows … v·rows + rows - 1)
  Int cols = 0;          // columns of the domain: N, or the cell columns of an A operand
  Int tmem_columns = 0;  // TMEM columns the tile spans
  int per_cell = 1;      // matrix columns per cell: 32/bits for a packed A operand, else 1
  bool packable = false; // one 16-bit value per cell, which .pack::16b reads two at a time
};

// The accumulator's layout for one CTA: the CTA leaf dropped.
constexpr layout::Layout one_cta(const layout::Layout& l) {
  layout::Layout out;
  for (int i = 0; i < l.rank(); ++i) {
    layout::Mode m;
    for (int j = 0; j < l.mode(i).count; ++j)
      if (l.mode(i).stride[j] < layout::kTmemLanes * layout::kTmemColumns) m.push(l.mode(i).shape[j], l.mode(i).stride[j]);
    out.push(m);
  }
  return out;
}

constexpr RegionView accumulator_view(const layout::AccumulatorSpec& s, ElementType d) {
  return {one_cta(layout::accumulator_layout(s)), s.m / s.cta_group, s.n, layout::accumulator_columns(s), 1,
          bits(d) == 16};
}

template <layout::AccumulatorSpec S, ElementType D>
constexpr RegionView region_view(std::type_identity<AccumulatorTile<S, D>>) {
  return accumulator_view(S, D);
}
template <int M, int K, ElementType A>
constexpr RegionView region_view(std::type_identity<OperandTile<M, K, A>>) {
  static_assert(M == 128,
                "a 64-row A operand sits in Layout F lanes (cta_group::1) or twice, at lanes m and m + 64 "
                "(cta_group::2; tcgen05-facts-2.md §1.2): the tile does not say which, so its map is not defined here");
  using T = OperandTile<M, K, A>;
  const Int c = T::columns;
  return {layout::Layout{layout::Mode{{128}, {1}}, layout::Mode{{c}, {layout::kTmemLanes}}}, 128, c, c, T::per_column, false};
}
template <int M, int C, ElementType E>
constexpr RegionView region_view(std::type_identity<ScratchTile<M, C, E>>) {
  RegionView v = accumulator_view({M, 8, 1}, E);  // a cta_group::1 accumulator's rows
  v.cells = layout::Layout{v.cells.mode(0), layout::Mode{{C}, {layout::kTmemLanes}}};
  v.cols = v.tmem_columns = C;
  return v;
}

#define TCGEN_TILE_ACCESS_RULES(X)                                                                                  \
  X(pack, "pack", ".pack::16b / .unpack::16b move the low 16 bits of two cells: only a tile of one 16-bit value per cell (an f16 accumulator) is accessed packed") \
  X(half_split, "half_split", "a tile is walked with the two 16x32bx2 halves side by side: leave half_split 0")      \
  X(lanes, "shape", "a 32-lane access (32x32b) would take all 32 lanes of a quarter, but the tile holds 16 per quarter (Layout F or C): use a 16-lane shape") \
  X(columns, "num", "the access's columns must divide the tile's columns")

TCGEN_RULE_ENUM(TileAccessRule, TCGEN_TILE_ACCESS_RULES);
TCGEN_RULE_LOOKUPS(TileAccessRule, TCGEN_TILE_ACCESS_RULES)

// One tile walked by one access shape: everything element() and address()
// need, as plain values.
struct AccessPlan {
  TileAccessRule rule = TileAccessRule::ok;
  int lane_blocks = 0;     // accesses per warp along the lanes: 1, or 2 for a 16-lane shape over 32 lanes
  int lane_block[2] = {};  // their lane offsets inside the quarter: 0 and 16
  int column_blocks = 0;   // accesses per warp along the columns
  int block_columns = 0;   // columns one access covers
  int registers = 0;       // per thread, per access
  int rows = 0;
  int per_cell = 1;
  layout::Mode thread_map;  // t + 32·(i + registers·h) -> cell, from taddr (flattened: device code evaluates it)
  layout::Mode inverse;     // cell -> row + rows·col, from the tile's address

  constexpr TCGEN_HD int accesses() const { return lane_blocks * column_blocks; }
  // The cell offset of warp `quarter`'s access `access` from the tile's address.
  constexpr TCGEN_HD Int lane_offset(int quarter, int access) const { return 32 * quarter + lane_block[access % lane_blocks]; }
  constexpr TCGEN_HD Int column_offset(int access) const { return Int{access / lane_blocks} * block_columns; }
  constexpr TCGEN_HD Element element(int quarter, int access, int thread, int reg, int half) const {
    const Int cell = thread_map(thread + 32 * (reg + registers * half)) + lane_offset(quarter, access) +
                     layout::kTmemLanes * column_offset(access);
    const Int f = inverse(cell);
    return {static_cast<int>(f % rows), static_cast<int>(f / rows) * per_cell};
  }
};

// The tile's layout plus the lanes it leaves out, as one bijection onto its
// cells [0, 128·columns): its inverse takes a cell back to (row, col).
constexpr layout::Layout cell_bijection(const RegionView& v) {
  layout::Mode m = layout::flatten(v.cells);
  const layout::Mode rest = layout::flatten(layout::complement(v.cells, layout::kTmemLanes * v.tmem_columns));
  for (int j = 0; j < rest.count; ++j)
    if (rest.shape[j] > 1) m.push(rest.shape[j], rest.stride[j]);
  return layout::Layout{m};
}

constexpr AccessPlan refused(TileAccessRule rule) {
  AccessPlan p;
  p.rule = rule;
  return p;
}

constexpr AccessPlan plan_access(const RegionView& v, const layout::TmemAccess& a) {
  AccessPlan p;
  if (a.pack && !v.packable) return refused(TileAccessRule::pack);
  if (a.shape == layout::TmemShape::s16x32bx2 && a.half_split != 0) return refused(TileAccessRule::half_split);
  // Lane blocks: the 16- or 32-lane pieces of each quarter that the tile fills,
  // the same in every quarter; a piece the tile fills only partly is refused.
  const Int span = layout::access_lanes(a.shape);
  const LaneSet lanes = lanes_of(v.cells);
  for (int q = 0; q < 4; ++q) {
    int found = 0;
    for (Int first = 32 * q; first < 32 * q + 32; first += span) {
      Int held = 0;
      for (Int l = first; l < first + span; ++l) held += lanes.contains(l) ? 1 : 0;
      if (held != 0 && held != span) return refused(TileAccessRule::lanes);
      if (held == 0) continue;
      if (q == 0) p.lane_block[p.lane_blocks++] = static_cast<int>(first);
      else if (found >= p.lane_blocks || p.lane_block[found] != first - 32 * q) return refused(TileAccessRule::lanes);
      ++found;
    }
    if (found != p.lane_blocks) return refused(TileAccessRule::lanes);
  }
  if (v.tmem_columns % a.columns() != 0) return refused(TileAccessRule::columns);
  p.column_blocks = static_cast<int>(v.tmem_columns / a.columns());
  p.block_columns = static_cast<int>(a.columns());
  p.registers = static_cast<int>(a.registers());
  p.rows = static_cast<int>(v.rows);
  p.per_cell = v.per_cell;
  p.thread_map = layout::flatten(layout::thread_map(a));
  p.inverse = layout::flatten(layout::inverse(cell_bijection(v)));
  return p;
}

// A tile walked by access A: the compile-time form, for host and device code.
template <class Tile, layout::TmemAccess A>
struct TileAccess {
  static constexpr layout::Layout map = layout::thread_map<A>();  // refuses an illegal A with its sentence
  static constexpr AccessPlan plan = plan_access(region_view(std::type_identity<Tile>{}), A);
  TCGEN_RULE_MEMBER_ASSERTS(TileAccessRule, TCGEN_TILE_ACCESS_RULES, plan.rule);

  static constexpr int accesses = plan.accesses();  // per warp
  static constexpr int registers = plan.registers;  // per thread, per access
  static constexpr int halves = A.pack ? 2 : 1;
  static constexpr int per_cell = plan.per_cell;  // matrix columns per cell (2 for a packed 16-bit A operand)

  // Where warp quarter Quarter (warp id % 4) issues access `access`.
  template <int Quarter>
  static constexpr TCGEN_HD TmemAddress address(const Tile& tile, int access) {
    constexpr AccessPlan p = plan;
    return tile.address.lane_offset(quarter_lane<Quarter, 0, A>() + p.lane_block[access % p.lane_blocks])
        .col_offset(static_cast<std::uint32_t>(p.column_offset(access)));
  }
  // The same for a quarter known only at run time.
  static constexpr TCGEN_HD TmemAddress address(const Tile& tile, int quarter, int access) {
    constexpr AccessPlan p = plan;
    return tile.address.lane_offset(static_cast<std::uint32_t>(p.lane_offset(quarter, access)))
        .col_offset(static_cast<std::uint32_t>(p.column_offset(access)));
  }
  // The element thread `thread`'s register `reg` (half `half` when packed)
  // holds in warp quarter `quarter`'s access `access`.
  static constexpr TCGEN_HD Element element(int quarter, int access, int thread, int reg, int half = 0) {
    constexpr AccessPlan p = plan;
    return p.element(quarter, access, thread, reg, half);
  }

  // Whether every thread holds one whole row: thread t of warp quarter q reads
  // row 32·q + t, and register i of access s holds column
  // (s · registers + i) · per_cell. True for a 32x32b access of a 128-row
  // tile (Layout D, or an A operand in TMEM): the softmax and epilogue's
  // shape, where a thread then indexes its row with compile-time columns
  // (registers, not a stack array). Checked over every element, from the
  // layouts.
  static constexpr bool one_row_per_thread = [] {
    constexpr AccessPlan p = plan;
    if (halves != 1 || p.lane_blocks != 1 || p.rows != 128) return false;
    for (int q = 0; q < 4; ++q)
      for (int s = 0; s < p.accesses(); ++s)
        for (int t = 0; t < 32; ++t)
          for (int i = 0; i < p.registers; ++i)
            if (p.element(q, s, t, i, 0) != Element{32 * q + t, (s * p.registers + i) * p.per_cell}) return false;
    return true;
  }();
  // The column register `reg` of access `access` holds, where one_row_per_thread.
  static constexpr TCGEN_HD int column(int access, int reg) {
    static_assert(one_row_per_thread, "column(access, reg) is defined where each thread holds one row: a 32x32b access of a 128-row tile");
    return (access * registers + reg) * per_cell;
  }
};

// One register (half) of a run-time access map.
struct RegisterElement {
  int quarter, access, thread, reg, half;
  int lane, column;  // the cell, from the tile's address
  Element element;
};

// The run-time form for an accumulator: every register of every access of
// every warp of the warpgroup. Throws tcgen::Error naming the field of an
// illegal accumulator, access or combination (host only).
std::vector<RegisterElement> access_map(const layout::AccumulatorSpec& accumulator, ElementType d,
                                        const layout::TmemAccess& access);

}  // namespace tcgen::tmem
