// TMEM plans, tile walks and warp quarters that must not compile, each
// stopped by a static_assert whose sentence says what is allowed.
// tests/compile_fail/CMakeLists.txt compiles this file once per CASE_*;
// CASE_tmem_legal must compile.
#include "tcgen/tmem/lane_quarter.hpp"
#include "tcgen/tmem/plan.hpp"
#include "tcgen/tmem/tile_access.hpp"

using namespace tcgen;
using namespace tcgen::tmem;
using layout::TmemAccess;
using layout::TmemShape;

constexpr layout::AccumulatorSpec kS{128, 128};

#if defined(CASE_tmem_legal)
using Fmha = Plan<accumulator("S0", kS), accumulator("S1", kS), accumulator("O0", kS), accumulator("O1", kS),
                  operand("P0", 128, 128, ElementType::bf16).alias_of("S0", 32), scratch("V0", 128, 2).alias_of("S0", 0)>;
static_assert(Fmha::allocation == 512);
using Walk = TileAccess<Fmha::Tile<"S1">, TmemAccess{TmemShape::s16x256b, 2}>;
constexpr auto lane = quarter_lane<1, 16, TmemAccess{TmemShape::s16x256b, 2}>();
#elif defined(CASE_tmem_plan_columns)
using P = Plan<accumulator("S0", kS), accumulator("S1", kS), accumulator("O0", kS), accumulator("O1", kS),
               accumulator("X", kS)>;
constexpr auto n = P::allocation;
#elif defined(CASE_tmem_plan_overlap)
using P = Plan<accumulator("S0", kS), accumulator("O0", kS).at(64)>;
constexpr auto n = P::allocation;
#elif defined(CASE_tmem_plan_alias_columns)
using P = Plan<accumulator("S0", kS), operand("P0", 128, 128, ElementType::bf16).alias_of("S0", 96)>;
constexpr auto n = P::allocation;
#elif defined(CASE_tmem_plan_alias_lanes)
using P = Plan<accumulator("F", {64, 128}), operand("P", 128, 128, ElementType::bf16).alias_of("F", 0)>;
constexpr auto n = P::allocation;
#elif defined(CASE_tmem_plan_alias_element)
using P = Plan<accumulator("S0", kS), operand("P0", 128, 64, ElementType::f32).alias_of("S0", 32)>;
constexpr auto n = P::allocation;
#elif defined(CASE_tmem_plan_lane_alignment)
using P = Plan<accumulator("S0", kS).at_lane(16)>;
constexpr auto n = P::allocation;
#elif defined(CASE_tmem_plan_cta_group)
using P = Plan<accumulator("S0", kS), accumulator("D", {256, 128, 2})>;
constexpr auto n = P::allocation;
#elif defined(CASE_tmem_plan_duplicate_name)
using P = Plan<accumulator("S0", kS), accumulator("S0", kS)>;
constexpr auto n = P::allocation;
#elif defined(CASE_tmem_plan_accumulator_m96)
using P = Plan<accumulator("S0", {96, 128})>;
constexpr auto n = P::allocation;
#elif defined(CASE_tmem_plan_unknown_region)
using P = Plan<accumulator("S0", kS)>;
constexpr auto t = P::tile<"S1">(TmemAddress{});
#elif defined(CASE_tmem_region_name_too_long)
using P = Plan<accumulator("a_name_of_twenty", kS)>;
constexpr auto n = P::allocation;
#elif defined(CASE_tmem_quarter_lanes)
constexpr auto lane = quarter_lane<0, 24, TmemAccess{TmemShape::s16x256b, 1}>();
#elif defined(CASE_tmem_quarter_range)
constexpr auto lane = quarter_lane<4, 0, TmemAccess{TmemShape::s32x32b, 1}>();
#elif defined(CASE_tmem_walk_32_lanes_on_f)
using Walk = TileAccess<AccumulatorTile<layout::AccumulatorSpec{64, 128}>, TmemAccess{TmemShape::s32x32b, 8}>;
constexpr int n = Walk::accesses;
#elif defined(CASE_tmem_walk_pack_f32)
using Walk = TileAccess<AccumulatorTile<kS>, TmemAccess{TmemShape::s32x32b, 8, true}>;
constexpr int n = Walk::accesses;
#elif defined(CASE_tmem_walk_columns)
using Walk = TileAccess<AccumulatorTile<layout::AccumulatorSpec{128, 8}>, TmemAccess{TmemShape::s32x32b, 16}>;
constexpr int n = Walk::accesses;
#elif defined(CASE_tmem_walk_operand_64_rows)
using Walk = TileAccess<OperandTile<64, 128, ElementType::bf16>, TmemAccess{TmemShape::s16x256b, 1}>;
constexpr int n = Walk::accesses;
#else
#error "no CASE_ defined"
#endif

int main() { return 0; }
