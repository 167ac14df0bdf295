#pragma once
// A compile-time Tensor Memory plan: every region a kernel keeps in TMEM,
// declared together with its type. The plan computes each region's columns
// and the allocation size, and the compiler rejects, with a sentence, a plan
// that needs more than 512 columns, regions that overlap without being
// declared aliases, an alias that does not fit in its host, or a region off
// its layout's lane alignment. It replaces hand-kept offset maps such as
// CUTLASS FMHA's `enum class TmemAllocation` and FlashMLA's `struct tmem_cols`.
//
//   using Fmha = Plan<accumulator("S0", {128, 128}), accumulator("S1", {128, 128}),
//                     accumulator("O0", {128, 128}), accumulator("O1", {128, 128}),
//                     operand("P0", 128, 128, ElementType::bf16).alias_of("S0", 32), ...>;
//   AccumulatorTile<{128, 128}> s1 = Fmha::tile<"S1">(base);  // base.col_offset(128)
#include "tcgen/core/rule_table.hpp"
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "tcgen/core/element_type.hpp"
#include "tcgen/core/fixed_name.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/layout/tmem_datapath.hpp"
#include "tcgen/tmem/address.hpp"
#include "tcgen/tmem/lane_set.hpp"
#include "tcgen/tmem/tile.hpp"

namespace tcgen::tmem {

// A region's name, kept in the plan's type: at most 15 characters.
using RegionName = FixedName;

enum class RegionKind : std::uint8_t { accumulator, operand, scratch };

// One region. Build it with accumulator(), operand() or scratch(), then
// optionally .at(column), .at_lane(16) or .alias_of(host, offset); the
// builders are usable in device code too, so a kernel may declare its plan.
struct Region {
  RegionName name;
  RegionKind kind = RegionKind::accumulator;
  layout::AccumulatorSpec spec{};          // accumulator: the MMA shape that writes it
  ElementType element = ElementType::f32;  // what one value is
  int rows = 128;                          // operand, scratch: rows per CTA
  int k = 0;                               // operand: K elements per row
  int width = 0;                           // scratch: columns
  int lane = 0;                            // lane offset: 0, or 16 for Layouts F and C
  bool fixed = false;                      // column given by at(), not after the previous region
  int column = 0;                          // at(): the column; alias: the offset into the host
  RegionName host;                         // set: an alias inside `host`
  int copies = 1;                          // count(): copies side by side, tile<"name">(base, i) the i-th

  constexpr TCGEN_HD Region at(int c) const {
    Region r = *this;
    r.fixed = true;
    r.column = c;
    return r;
  }
  constexpr TCGEN_HD Region at_lane(int l) const {
    Region r = *this;
    r.lane = l;
    return r;
  }
  // n copies of the region, each after the one before (an alias's: inside
  // its host's copy of the same index), so that a kernel indexes them
  // (tile<"S">(base, t)) instead of naming S0 and S1.
  constexpr TCGEN_HD Region count(int n) const {
    Region r = *this;
    r.copies = n;
    return r;
  }
  // Shares `host`'s cells from `offset` columns on: P written over S after
  // S was read, or row statistics kept in S's first columns.
  constexpr TCGEN_HD Region alias_of(RegionName h, int offset) const {
    Region r = *this;
    r.host = h;
    r.column = offset;
    return r;
  }
};

// The accumulator D of one tcgen05.mma shape (f32, f16 or s32).
constexpr TCGEN_HD Region accumulator(RegionName name, layout::AccumulatorSpec spec, ElementType d = ElementType::f32) {
  Region r;
  r.name = name;
  r.spec = spec;
  r.element = d;
  return r;
}
// The A operand of a TS-MMA: `rows` rows per CTA, K elements packed per row.
constexpr TCGEN_HD Region operand(RegionName name, int rows, int k, ElementType a) {
  Region r;
  r.name = name;
  r.kind = RegionKind::operand;
  r.rows = rows;
  r.k = k;
  r.element = a;
  return r;
}
// Cells written and read only by tcgen05.st / ld / cp (row statistics, scale factors).
constexpr TCGEN_HD Region scratch(RegionName name, int rows, int width, ElementType e = ElementType::f32) {
  Region r;
  r.name = name;
  r.kind = RegionKind::scratch;
  r.rows = rows;
  r.width = width;
  r.element = e;
  return r;
}

// The plan rules, in the order they are checked. Field: the Region member at fault.
#define TCGEN_PLAN_RULES(X)                                                                                           \
  X(name, "name", "every region needs a name of its own: tile<\"name\">() finds a region by it")                      \
  X(accumulator_shape, "spec", "an accumulator region needs a legal tcgen05.mma shape (see layout::check(AccumulatorSpec))") \
  X(accumulator_element, "element", "an accumulator holds f32, f16 or s32 (PTX #tcgen05-instruction-descriptor, dtype)") \
  X(operand_shape, "rows", "an A operand in TMEM has 64 or 128 rows per CTA and K filling whole 32-bit columns (PTX #tcgen05-packing-formats)") \
  X(operand_element, "element", "an A operand holds an MMA input type; f32 and s32 are accumulator types (PTX #tcgen05-instruction-descriptor, atype)") \
  X(scratch_shape, "width", "a scratch region has 64 or 128 rows per CTA and 1 to 512 columns")                       \
  X(cta_group, "spec", "all accumulators of a plan share one cta_group: every tcgen05 instruction of a kernel names the same .cta_group (PTX #tcgen05-memory-alloc-manage-instructions)") \
  X(column, "column", "a region's column, and an alias's offset into its host, must not be negative")                \
  X(copies, "copies", "a region has at least one copy, and an alias as many as its host: copy i lies in the host's copy i") \
  X(alias_host, "host", "an alias must name a region declared before it")                                             \
  X(lane_alignment, "lane", "a region's lane offset must be 0, or 16 for the half-datapath Layouts F and C (PTX #tcgen05-data-path-layout-organization)") \
  X(columns, "column", "the plan needs more than the 512 columns of Tensor Memory (PTX #tcgen05-memory-alloc-manage-instructions: nCols in [32, 512])") \
  X(alias_lanes, "host", "an alias must lie in its host's lanes: its rows and lane offset reach lanes the host does not use") \
  X(alias_columns, "host", "an alias must end inside its host: its element type and size need more columns than the host has from that offset") \
  X(overlap, "column", "two regions share Tensor Memory cells but neither is declared an alias of the other (use alias_of)")

TCGEN_RULE_ENUM(PlanRule, TCGEN_PLAN_RULES);
TCGEN_RULE_LOOKUPS(PlanRule, TCGEN_PLAN_RULES)

// The first broken rule and the index of the region that breaks it.
struct PlanCheck {
  PlanRule rule = PlanRule::ok;
  int region = -1;
  friend constexpr bool operator==(const PlanCheck&, const PlanCheck&) = default;
};

constexpr bool is_accumulator_element(ElementType e) {
  return e == ElementType::f32 || e == ElementType::fp16 || e == ElementType::s32;
}

// The MMA shape whose rows a region follows. A and D of one MMA share their
// lanes (tcgen05-facts-2.md §1.2), so an A operand of `rows` rows per CTA
// sits where an accumulator of rows·cta_group rows keeps its rows (for
// cta_group::2 and 64 rows: duplicated in lanes m and m + 64). No MMA touches
// scratch cells: they take the lanes of a cta_group::1 accumulator.
constexpr layout::AccumulatorSpec row_spec(const Region& r, int cta_group) {
  if (r.kind == RegionKind::accumulator) return r.spec;
  if (r.kind == RegionKind::scratch) return {r.rows, 8, 1};
  return {r.rows * cta_group, cta_group == 2 ? 16 : 8, cta_group};
}

constexpr LaneSet region_lanes(const Region& r, int cta_group) {
  return lanes_of(layout::accumulator_layout(row_spec(r, cta_group)), r.lane);
}

constexpr int region_columns(const Region& r) {
  switch (r.kind) {
    case RegionKind::accumulator: return static_cast<int>(layout::accumulator_columns(r.spec));
    case RegionKind::operand: return r.k * tmem_container_bits(r.element) / 32;
    case RegionKind::scratch: return r.width;
  }
  return 0;
}

constexpr int find(std::span<const Region> rs, const RegionName& name) { return find_named(rs, name); }

// Columns from one copy of a region to the next: its own width, or, for an
// alias, its host's copy stride (copy i of P lies in copy i of S).
constexpr int host_index(std::span<const Region> rs, int i);
constexpr int copy_stride(std::span<const Region> rs, int i) {
  const int h = host_index(rs, i);
  return h < 0 ? region_columns(rs[i]) : copy_stride(rs, h);
}

// The host an alias names, among the regions declared before it; -1 if none.
constexpr int host_index(std::span<const Region> rs, int i) {
  const int h = find(rs.first(static_cast<std::size_t>(i)), rs[i].host);
  return rs[i].host.empty() ? -1 : h;
}

// Whether region i is an alias of j, directly or through other aliases.
constexpr bool aliases(std::span<const Region> rs, int i, int j) {
  for (int h = host_index(rs, i); h >= 0; h = host_index(rs, h))
    if (h == j) return true;
  return false;
}

// A region's first column: at() fixes it, an alias sits at its host's column
// plus its offset, anything else follows the previous region that is not an alias.
constexpr int start_column(std::span<const Region> rs, int i) {
  if (!rs[i].host.empty()) return start_column(rs, host_index(rs, i)) + rs[i].column;
  if (rs[i].fixed) return rs[i].column;
  for (int j = i - 1; j >= 0; --j)
    if (rs[j].host.empty()) return start_column(rs, j) + region_columns(rs[j]) * rs[j].copies;
  return 0;
}

// The plan's cta_group: its accumulators' (1 where it has none).
constexpr int plan_cta_group(std::span<const Region> rs) {
  for (const Region& r : rs)
    if (r.kind == RegionKind::accumulator) return r.spec.cta_group;
  return 1;
}

// Columns the plan uses: one past the last column of any region.
constexpr int used_columns(std::span<const Region> rs) {
  int end = 0;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    const int last = static_cast<int>(i);
    const int e = start_column(rs, last) + copy_stride(rs, last) * (rs[i].copies - 1) + region_columns(rs[i]);
    end = e > end ? e : end;
  }
  return end;
}

// tcgen05.alloc's nCols: a power of two in [32, 512] (PTX #tcgen05-memory-alloc-manage-instructions).
constexpr std::uint32_t allocation_columns(int used) {
  std::uint32_t n = 32;
  while (n < static_cast<std::uint32_t>(used)) n *= 2;
  return n;
}

constexpr PlanCheck check(std::span<const Region> rs) {
  const int n = static_cast<int>(rs.size());
  int cg = 0;
  for (int i = 0; i < n; ++i) {
    const Region& r = rs[i];
    if (r.name.empty() || find(rs.first(static_cast<std::size_t>(i)), r.name) >= 0) return {PlanRule::name, i};
    if (r.kind == RegionKind::accumulator) {
      if (layout::check(r.spec) != layout::AccumulatorRule::ok) return {PlanRule::accumulator_shape, i};
      if (!is_accumulator_element(r.element)) return {PlanRule::accumulator_element, i};
      if (cg != 0 && r.spec.cta_group != cg) return {PlanRule::cta_group, i};
      cg = r.spec.cta_group;
    } else if (r.kind == RegionKind::operand) {
      if ((r.rows != 64 && r.rows != 128) || r.k <= 0 || r.k * tmem_container_bits(r.element) % 32 != 0)
        return {PlanRule::operand_shape, i};
      if (r.element == ElementType::f32 || r.element == ElementType::s32) return {PlanRule::operand_element, i};
    } else if ((r.rows != 64 && r.rows != 128) || r.width < 1 || r.width > layout::kTmemColumns) {
      return {PlanRule::scratch_shape, i};
    }
    if (r.column < 0) return {PlanRule::column, i};
    if (!r.host.empty() && host_index(rs, i) < 0) return {PlanRule::alias_host, i};
    if (r.copies < 1 || (!r.host.empty() && rs[host_index(rs, i)].copies != r.copies)) return {PlanRule::copies, i};
  }
  cg = plan_cta_group(rs);
  for (int i = 0; i < n; ++i)
    if (!layout::lane_offset_allowed(layout::datapath_layout(row_spec(rs[i], cg)), rs[i].lane))
      return {PlanRule::lane_alignment, i};
  for (int i = 0; i < n; ++i)
    if (start_column(rs, i) + copy_stride(rs, i) * (rs[i].copies - 1) + region_columns(rs[i]) > layout::kTmemColumns)
      return {PlanRule::columns, i};
  for (int i = 0; i < n; ++i) {
    const int h = host_index(rs, i);
    if (h < 0) continue;
    if (!region_lanes(rs[i], cg).within(region_lanes(rs[h], cg))) return {PlanRule::alias_lanes, i};
    if (rs[i].column + region_columns(rs[i]) > region_columns(rs[h])) return {PlanRule::alias_columns, i};
  }
  // Copy by copy: two aliases of one host share its copies, each copy its own columns.
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) {
      if (aliases(rs, i, j) || aliases(rs, j, i) || !region_lanes(rs[i], cg).intersects(region_lanes(rs[j], cg)))
        continue;
      for (int ci = 0; ci < rs[i].copies; ++ci)
        for (int cj = 0; cj < rs[j].copies; ++cj) {
          const int a = start_column(rs, i) + ci * copy_stride(rs, i), b = start_column(rs, j) + cj * copy_stride(rs, j);
          if (a < b + region_columns(rs[j]) && b < a + region_columns(rs[i])) return {PlanRule::overlap, j};
        }
    }
  return {};
}

// Run-time check of a plan: throws tcgen::Error naming the region and the
// field at fault, e.g. field "P0.host" (host only).
void check_plan(std::span<const Region> regions);

// The typed tile a region hands out. (Chosen with std::conditional over
// lazily named types: a partial specialization on R.kind crashes GCC 12.)
template <Region R>
struct AccumulatorTileOf {
  using type = AccumulatorTile<R.spec, R.element>;
};
template <Region R>
struct OperandTileOf {
  using type = OperandTile<R.rows, R.k, R.element>;
};
template <Region R>
struct ScratchTileOf {
  using type = ScratchTile<R.rows, R.width, R.element>;
};
template <Region R>
struct TileFor {
  using type = typename std::conditional_t<
      R.kind == RegionKind::accumulator, AccumulatorTileOf<R>,
      std::conditional_t<R.kind == RegionKind::operand, OperandTileOf<R>, ScratchTileOf<R>>>::type;
};

namespace detail {
// The accumulator rules' own sentences (M, N, cta_group), next to the plan's.
template <Region R>
consteval bool accumulator_rules() {
  if constexpr (R.kind == RegionKind::accumulator) (void)layout::accumulator_layout<R.spec>();
  return true;
}
}  // namespace detail

template <Region... Rs>
struct Plan {
  static_assert(sizeof...(Rs) > 0, "a plan declares at least one region");
  static constexpr std::array<Region, sizeof...(Rs)> regions{Rs...};
  static constexpr PlanCheck verdict = check(regions);
  TCGEN_RULE_MEMBER_ASSERTS(PlanRule, TCGEN_PLAN_RULES, verdict.rule);
  static_assert(blame<verdict, verdict.region < 0 ? RegionName{} : regions[verdict.region].name>());
  static_assert((detail::accumulator_rules<Rs>() && ...));

  static constexpr int cta_group = plan_cta_group(regions);
  static constexpr int columns = verdict.rule == PlanRule::ok ? used_columns(regions) : 0;
  // nCols of the one tcgen05.alloc that holds the whole plan.
  static constexpr std::uint32_t allocation = allocation_columns(columns);

  template <RegionName N>
  static consteval int index() {
    constexpr int i = find(regions, N);
    static_assert(i >= 0, "the plan has no region of this name");
    return i < 0 ? 0 : i;  // after the sentence, no second error
  }
  template <RegionName N>
  static constexpr Region region = regions[index<N>()];
  template <RegionName N>
  using Tile = typename TileFor<region<N>>::type;
  template <RegionName N>
  static constexpr int column = start_column(regions, index<N>());
  template <RegionName N>
  static constexpr int lane = region<N>.lane;
  template <RegionName N>
  static constexpr int stride = copy_stride(regions, index<N>());
  template <RegionName N>
  static constexpr int copies = region<N>.copies;

  // Copy i (0 to copies - 1) of the region: its typed tile in the allocation whose address is `base`.
  template <RegionName N>
  static constexpr TCGEN_HD Tile<N> tile(TmemAddress base, int i = 0) {
    return Tile<N>{base.col_offset(static_cast<std::uint32_t>(column<N> + stride<N> * i)).lane_offset(lane<N>)};
  }
};

}  // namespace tcgen::tmem
