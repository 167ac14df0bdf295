// The compile-time TMEM plan (tcgen/tmem/plan.hpp) against the hand-kept maps
// it replaces, read from the kernels' sources, and every plan rule through
// the run-time check (check_plan) and the constexpr one (check). Expected
// columns come from those sources and tcgen05-facts-2.md, never from running
// the plan.
#include "tcgen/tmem/plan.hpp"

#include <doctest/doctest.h>

#include <array>
#include <type_traits>

#include "expect_error.hpp"

using namespace tcgen;
using namespace tcgen::tmem;
using layout::AccumulatorSpec;

namespace {

constexpr AccumulatorSpec kS{128, 128};

// CUTLASS example 77, sm100_fmha_fwd_mainloop_tma_warpspecialized.hpp
// (@7107b05), `enum class TmemAllocation`: kSizeS = kSizeO = 128, kSizeP = 32,
// S0 = 0, S1 = S0 + kSizeS, V0 = S0, V1 = S1, P0 = S0 + kSizeP, P1 = S1 + kSizeP,
// O0 = S1 + kSizeS, O1 = O0 + kSizeO, kEnd = O1 + kSizeO. P is 128x128 bf16
// (64 columns, tcgen05-facts-2.md §1.4); V holds row max and sum (columns 0, 1).
using CutlassFmha = Plan<accumulator("S0", kS), accumulator("S1", kS), accumulator("O0", {128, 128}),
                         accumulator("O1", {128, 128}), operand("P0", 128, 128, ElementType::bf16).alias_of("S0", 32),
                         operand("P1", 128, 128, ElementType::bf16).alias_of("S1", 32),
                         scratch("V0", 128, 2).alias_of("S0", 0), scratch("V1", 128, 2).alias_of("S1", 0)>;

// FA4 flash_fwd_sm100.py (@0251105a), n_block_size 128, head_dim_v 128:
// tmem_s_offset = [0, 128], tmem_o_offset = [256, 384],
// tmem_p_offset = S + n_block_size // 2, tmem_vec_offset = tmem_s_offset.
using Fa4 = Plan<accumulator("S0", kS), accumulator("S1", kS), accumulator("O0", {128, 128}),
                 accumulator("O1", {128, 128}), operand("P0", 128, 128, ElementType::bf16).alias_of("S0", 64),
                 operand("P1", 128, 128, ElementType::bf16).alias_of("S1", 64),
                 scratch("vec0", 128, 2).alias_of("S0", 0), scratch("vec1", 128, 2).alias_of("S1", 0)>;

// FlashMLA sm100/prefill/sparse/fwd/head128/config.h (@9241ae3), two CTAs
// (B_H = 128 rows over the pair), D_V = 512, B_TOPK = 128, D_tQ = 384:
// "0 ~ 256: output", "256 ~ 320: P", "320 ~ 512: Q[D_QK-D_tQ:]",
// o = 0, p = 256, q = 512 - D_tQ/2, static_assert(p+64 <= q). O is two
// M=128 cta_group::2 MMAs of N=256 (Layout B: N/2 columns each).
using FlashMlaPrefill = Plan<accumulator("O_lo", {128, 256, 2}), accumulator("O_hi", {128, 256, 2}),
                             operand("P", 64, 128, ElementType::bf16), operand("Q", 64, 384, ElementType::bf16).at(320)>;

// Two M=64 accumulators (Layout F) in the same columns, one in lanes 0-15 of
// each quarter, one at lane offset 16 (PTX: lane alignment 0 or 16).
using HalfDatapath = Plan<accumulator("lo", {64, 256}), accumulator("hi", {64, 256}).at(0).at_lane(16)>;

}  // namespace

TEST_CASE("CUTLASS FMHA's hand-kept TmemAllocation, as a plan") {
  CHECK(CutlassFmha::column<"S0"> == 0);
  CHECK(CutlassFmha::column<"S1"> == 128);
  CHECK(CutlassFmha::column<"O0"> == 256);
  CHECK(CutlassFmha::column<"O1"> == 384);
  CHECK(CutlassFmha::column<"P0"> == 0 + 32);
  CHECK(CutlassFmha::column<"P1"> == 128 + 32);
  CHECK(CutlassFmha::column<"V0"> == 0);
  CHECK(CutlassFmha::column<"V1"> == 128);
  CHECK(CutlassFmha::columns == 512);  // kEnd
  CHECK(CutlassFmha::allocation == 512);
  CHECK(CutlassFmha::cta_group == 1);
  static_assert(std::is_same_v<CutlassFmha::Tile<"S1">, AccumulatorTile<kS, ElementType::f32>>);
  static_assert(std::is_same_v<CutlassFmha::Tile<"P0">, OperandTile<128, 128, ElementType::bf16>>);
  static_assert(std::is_same_v<CutlassFmha::Tile<"V1">, ScratchTile<128, 2, ElementType::f32>>);

  // Tiles are the allocation's base moved by columns only.
  const TmemAddress base(0, 0);
  CHECK(CutlassFmha::tile<"S0">(base).address == base);
  CHECK(CutlassFmha::tile<"O1">(base).address.raw() == 384u);
  CHECK(CutlassFmha::tile<"P1">(base).address == TmemAddress(0, 160));
  CHECK(CutlassFmha::tile<"V1">(base).address.lane() == 0);
  // The P0 MMA for K-chunk kk reads a-tmem = P0 + 8·kk (tcgen05-facts-2.md §1.4).
  CHECK(CutlassFmha::tile<"P0">(base).address.col_offset(8 * 3).column() == 32 + 24);
}

TEST_CASE("FA4's offsets, as a plan: P at S + n_block_size / 2") {
  CHECK(Fa4::column<"S1"> == 128);
  CHECK(Fa4::column<"O0"> == 256);
  CHECK(Fa4::column<"O1"> == 384);
  CHECK(Fa4::column<"P0"> == 64);
  CHECK(Fa4::column<"P1"> == 192);
  CHECK(Fa4::column<"vec1"> == 128);
  CHECK(Fa4::allocation == 512);
}

TEST_CASE("FlashMLA's struct tmem_cols, as a two-CTA plan") {
  CHECK(FlashMlaPrefill::cta_group == 2);
  CHECK(FlashMlaPrefill::column<"O_lo"> == 0);
  CHECK(FlashMlaPrefill::column<"O_hi"> == 128);
  CHECK(FlashMlaPrefill::column<"P"> == 256);
  CHECK(FlashMlaPrefill::column<"Q"> == 512 - 384 / 2);
  CHECK(FlashMlaPrefill::column<"P"> + 64 <= FlashMlaPrefill::column<"Q">);  // their static_assert
  CHECK(FlashMlaPrefill::allocation == 512);
  static_assert(std::is_same_v<FlashMlaPrefill::Tile<"Q">, OperandTile<64, 384, ElementType::bf16>>);
  static_assert(FlashMlaPrefill::Tile<"Q">::columns == 192);
}

TEST_CASE("Layout F: two 64-row accumulators share columns at lane offsets 0 and 16") {
  CHECK(HalfDatapath::column<"lo"> == 0);
  CHECK(HalfDatapath::column<"hi"> == 0);
  CHECK(HalfDatapath::allocation == 256);
  CHECK(HalfDatapath::tile<"hi">(TmemAddress(0, 0)).address == TmemAddress(16, 0));
  // §4: F puts row m at lane 32(m/16) + m%16 (+ the offset): 64 lanes each, disjoint.
  const LaneSet lo = region_lanes(HalfDatapath::regions[0], 1), hi = region_lanes(HalfDatapath::regions[1], 1);
  CHECK_FALSE(lo.intersects(hi));
  for (int m = 0; m < 64; ++m) {
    CHECK(lo.contains(32 * (m / 16) + m % 16));
    CHECK(hi.contains(32 * (m / 16) + m % 16 + 16));
  }
}

TEST_CASE("2-CTA accumulators: M=256 (Layout A) and M=128 (Layout B) columns per CTA") {
  using Pair = Plan<accumulator("A", {256, 256, 2}), accumulator("B", {128, 256, 2})>;
  CHECK(Pair::cta_group == 2);
  CHECK(Pair::column<"B"> == 256);  // A keeps N columns per CTA
  CHECK(Pair::columns == 256 + 128);  // B keeps N/2 (tcgen05-facts.md §4)
  CHECK(Pair::allocation == 512);
}

TEST_CASE("allocation: the next power of two, at least 32 columns") {
  CHECK(allocation_columns(0) == 32);
  CHECK(allocation_columns(1) == 32);
  CHECK(allocation_columns(32) == 32);
  CHECK(allocation_columns(33) == 64);
  CHECK(allocation_columns(129) == 256);
  CHECK(allocation_columns(384) == 512);
  CHECK(allocation_columns(512) == 512);
  CHECK(Plan<scratch("x", 128, 1)>::allocation == 32);
  CHECK(Plan<scratch("x", 128, 100)>::allocation == 128);
  CHECK(Plan<accumulator("x", {128, 8})>::allocation == 32);
}

TEST_CASE("A operand columns: one MMA's K slice is 8 columns for every kind (tcgen05-facts-2.md §1.2)") {
  CHECK(OperandTile<128, 16, ElementType::bf16>::columns == 8);  // kind::f16, K=16, k/2
  CHECK(OperandTile<128, 8, ElementType::tf32>::columns == 8);   // kind::tf32, K=8, k
  CHECK(OperandTile<128, 32, ElementType::e4m3>::columns == 8);  // kind::f8f6f4, K=32, k/4
  CHECK(OperandTile<128, 32, ElementType::e2m3>::columns == 8);  // 6-bit in 8-bit containers, k/4
  CHECK(OperandTile<128, 64, ElementType::e2m1>::columns == 8);  // kind::mxf4, K=64, k/8
  CHECK(region_columns(operand("a", 128, 32, ElementType::e3m2)) == 8);
}

namespace {

template <std::size_t N>
PlanCheck verdict(const std::array<Region, N>& rs) {
  return check(rs);
}

// Both forms: check() names rule and region; check_plan() throws naming "<region>.<field>".
template <std::size_t N>
void rejects(const std::array<Region, N>& rs, PlanRule rule, int region, const std::string& field) {
  CHECK(check(rs) == PlanCheck{rule, region});
  expect_error([&] { check_plan(rs); }, field);
}

}  // namespace

TEST_CASE("every plan rule, with the region and field it names") {
  const Region s0 = accumulator("S0", kS);
  const Region p = operand("P", 128, 128, ElementType::bf16);
  SUBCASE("names") {
    rejects(std::array{s0, accumulator("S0", kS)}, PlanRule::name, 1, "S0.name");
    rejects(std::array{s0, accumulator("", kS)}, PlanRule::name, 1, ".name");
  }
  SUBCASE("region shapes and element types") {
    rejects(std::array{accumulator("S", {96, 128})}, PlanRule::accumulator_shape, 0, "S.spec");
    rejects(std::array{accumulator("S", kS, ElementType::bf16)}, PlanRule::accumulator_element, 0, "S.element");
    rejects(std::array{operand("P", 96, 128, ElementType::bf16)}, PlanRule::operand_shape, 0, "P.rows");
    rejects(std::array{operand("P", 128, 3, ElementType::bf16)}, PlanRule::operand_shape, 0, "P.rows");
    rejects(std::array{s0, operand("P", 128, 128, ElementType::f32).alias_of("S0", 0)}, PlanRule::operand_element, 1,
            "P.element");
    rejects(std::array{scratch("V", 128, 0)}, PlanRule::scratch_shape, 0, "V.width");
    rejects(std::array{scratch("V", 32, 2)}, PlanRule::scratch_shape, 0, "V.width");
  }
  SUBCASE("one cta_group per plan") {
    rejects(std::array{s0, accumulator("D", {256, 128, 2})}, PlanRule::cta_group, 1, "D.spec");
  }
  SUBCASE("columns and hosts") {
    rejects(std::array{s0.at(-4)}, PlanRule::column, 0, "S0.column");
    rejects(std::array{s0, p.alias_of("S0", -1)}, PlanRule::column, 1, "P.column");
    rejects(std::array{s0, p.alias_of("S", 32)}, PlanRule::alias_host, 1, "P.host");
    rejects(std::array{p.alias_of("S0", 32), s0}, PlanRule::alias_host, 0, "P.host");  // declared after
  }
  SUBCASE("lane alignment: 0, or 16 for Layout F") {
    rejects(std::array{s0.at_lane(16)}, PlanRule::lane_alignment, 0, "S0.lane");
    rejects(std::array{accumulator("F", {64, 64}).at_lane(8)}, PlanRule::lane_alignment, 0, "F.lane");
    rejects(std::array{p.at_lane(16)}, PlanRule::lane_alignment, 0, "P.lane");
    CHECK(verdict(std::array{accumulator("F", {64, 64}).at_lane(16), scratch("m", 64, 2).at_lane(16)}).rule ==
          PlanRule::ok);
  }
  SUBCASE("512 columns") {
    rejects(std::array{s0, accumulator("S1", kS), accumulator("S2", kS), accumulator("S3", kS), accumulator("S4", kS)},
            PlanRule::columns, 4, "S4.column");
    rejects(std::array{s0.at(400)}, PlanRule::columns, 0, "S0.column");
  }
  SUBCASE("an alias must fit its host: lanes") {
    const Region f = accumulator("F", {64, 128});
    rejects(std::array{f, p.alias_of("F", 0)}, PlanRule::alias_lanes, 1, "P.host");  // 128 rows in a 64-row host
    rejects(std::array{f, accumulator("G", {64, 64}).at_lane(16).alias_of("F", 0)}, PlanRule::alias_lanes, 1, "G.host");
  }
  SUBCASE("an alias must fit its host: element type and size") {
    rejects(std::array{s0, p.alias_of("S0", 96)}, PlanRule::alias_columns, 1, "P.host");  // [96, 160) past 128
    rejects(std::array{s0, operand("P", 128, 128, ElementType::tf32).alias_of("S0", 32)}, PlanRule::alias_columns, 1,
            "P.host");  // tf32: 128 columns from 32
    CHECK(verdict(std::array{s0, p.alias_of("S0", 64)}).rule == PlanRule::ok);  // [64, 128): fits exactly
  }
  SUBCASE("overlap must be declared") {
    rejects(std::array{s0, accumulator("O", kS).at(64)}, PlanRule::overlap, 1, "O.column");
    // Two aliases of one host that overlap each other.
    rejects(std::array{s0, p.alias_of("S0", 32), scratch("V", 128, 2).alias_of("S0", 40)}, PlanRule::overlap, 2,
            "V.column");
    // Same lanes and columns of Layout F.
    rejects(std::array{accumulator("a", {64, 64}), accumulator("b", {64, 64}).at(0)}, PlanRule::overlap, 1,
            "b.column");
    // An alias of an alias overlaps its grandparent legitimately.
    CHECK(verdict(std::array{s0, p.alias_of("S0", 32), scratch("x", 128, 2).alias_of("P", 0)}).rule == PlanRule::ok);
  }
}

TEST_CASE("tile types agree with the plan's column count") {
  static_assert(CutlassFmha::Tile<"S0">::columns == 128);
  static_assert(CutlassFmha::Tile<"P0">::columns == 64);
  static_assert(CutlassFmha::Tile<"V0">::columns == 2);
  static_assert(FlashMlaPrefill::Tile<"O_lo">::columns == 128);
  for (const Region& r : CutlassFmha::regions) CHECK(region_columns(r) > 0);
  CHECK(region_columns(CutlassFmha::regions[4]) == static_cast<int>(CutlassFmha::Tile<"P0">::columns));
  CHECK(region_columns(FlashMlaPrefill::regions[3]) == static_cast<int>(FlashMlaPrefill::Tile<"Q">::columns));
}

// FA4's plan again (@0251105a: tmem_s_offset = [0, 128], tmem_o_offset = [256, 384], P at S + 64), its
// pairs declared as counted regions: copy t must be where FA4 puts tile t.
using Fa4Counted = Plan<accumulator("S", kS).count(2), accumulator("O", {128, 128}).count(2),
                        operand("P", 128, 128, ElementType::bf16).count(2).alias_of("S", 64),
                        scratch("vec", 128, 2).count(2).alias_of("S", 0)>;

TEST_CASE("counted regions: copy i of a region, and of its alias, where the named pairs sit") {
  const TmemAddress base(0, 0);
  static_assert(Fa4Counted::allocation == Fa4::allocation && Fa4Counted::columns == Fa4::columns);
  for (int t = 0; t < 2; ++t) {
    CAPTURE(t);
    CHECK(Fa4Counted::tile<"S">(base, t).address == (t == 0 ? Fa4::tile<"S0">(base) : Fa4::tile<"S1">(base)).address);
    CHECK(Fa4Counted::tile<"O">(base, t).address == (t == 0 ? Fa4::tile<"O0">(base) : Fa4::tile<"O1">(base)).address);
    CHECK(Fa4Counted::tile<"P">(base, t).address == (t == 0 ? Fa4::tile<"P0">(base) : Fa4::tile<"P1">(base)).address);
    CHECK(Fa4Counted::tile<"vec">(base, t).address ==
          (t == 0 ? Fa4::tile<"vec0">(base) : Fa4::tile<"vec1">(base)).address);
  }
  CHECK(Fa4Counted::tile<"O">(base, 1).address.column() == 384u);  // FA4's tmem_o_offset[1]
}

TEST_CASE("counted regions: the copy rules") {
  const Region s = accumulator("S", kS).count(2);
  rejects(std::array{accumulator("S", kS).count(0)}, PlanRule::copies, 0, "S.copies");
  // An alias has its host's copies: copy i in copy i.
  rejects(std::array{s, operand("P", 128, 128, ElementType::bf16).alias_of("S", 64)}, PlanRule::copies, 1, "P.copies");
  // Three copies of 256 columns need 768.
  rejects(std::array{accumulator("A", {128, 256}).count(3)}, PlanRule::columns, 0, "A.column");
  // A region fixed over S's second copy.
  rejects(std::array{s, accumulator("B", kS).at(128)}, PlanRule::overlap, 1, "B.column");
  // The next region follows every copy.
  CHECK(start_column(std::array{s, accumulator("O", kS)}, 1) == 256);
}
