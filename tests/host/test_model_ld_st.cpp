// tcgen05.ld / tcgen05.st in the host model: round trips for every shape ×
// .num × pack, the thread maps against the explicit examples of
// tcgen05-facts.md §5, and the rules: lane quarter, uniform taddr,
// allocation, register counts, wait::st, never-written cells, ordering
// between warps.
#include <set>
#include <utility>

#include "test_model_support.hpp"

using namespace model_test;

namespace {

constexpr LdStShape kShapes[] = {LdStShape::s32x32b, LdStShape::s16x64b, LdStShape::s16x128b, LdStShape::s16x256b,
                                 LdStShape::s16x32bx2};

// Every access PTX allows; 16x32bx2 with its halves side by side (CUTLASS's
// immHalfSplitoff: N, or 2N packed).
std::vector<LdStAccess> every_access() {
  std::vector<LdStAccess> all;
  for (LdStShape s : kShapes)
    for (int num = 1; num <= 128; num *= 2)
      for (bool pack : {false, true}) {
        const LdStAccess a{s, num, pack, s == LdStShape::s16x32bx2 ? num * (pack ? 2 : 1) : 0};
        if (problem(a).empty()) all.push_back(a);
      }
  return all;
}

WarpRegisters random_regs(const LdStAccess& a, unsigned seed) {
  std::mt19937 rng(seed);
  WarpRegisters r;
  for (auto& v : r) {
    v.resize(std::size_t(registers(a)));
    for (auto& x : v) x = rng();
  }
  return r;
}

WarpRegisters regs_of(const LdStAccess& a, std::uint32_t value) {
  WarpRegisters r;
  for (auto& v : r) v.assign(std::size_t(registers(a)), value);
  return r;
}

}  // namespace

TEST_CASE("Table 49: registers per thread for each shape and .num; illegal .num is rejected") {
  CHECK(registers({LdStShape::s32x32b, 128}) == 128);
  CHECK(registers({LdStShape::s16x64b, 4}) == 4);
  CHECK(registers({LdStShape::s16x128b, 64}) == 128);
  CHECK(registers({LdStShape::s16x256b, 32}) == 128);
  CHECK(registers({LdStShape::s16x32bx2, 2, false, 2}) == 2);
  CHECK(problem({LdStShape::s16x256b, 64}) != "");   // 256 registers: NA in Table 49
  CHECK(problem({LdStShape::s16x128b, 128}) != "");
  CHECK(problem({LdStShape::s32x32b, 3}) != "");
  CHECK(problem({LdStShape::s32x32b, 1, false, 4}) != "");  // only 16x32bx2 takes immHalfSplitoff
  CHECK(every_access().size() == 8 + 8 + 7 + 6 + 8 + (8 + 8 + 7 + 6 + 8));
}

TEST_CASE("the thread maps match the explicit x1 examples of tcgen05-facts.md §5") {
  using P = std::pair<int, int>;  // (lane, column)
  auto at = [](LdStAccess a, int t, int i, int h = 0) {
    const CellOffset o = cell_offset(a, t, i, h);
    return P{o.lane, o.column};
  };
  const LdStAccess s256{LdStShape::s16x256b, 1};
  CHECK(at(s256, 0, 0) == P{0, 0});
  CHECK(at(s256, 0, 1) == P{0, 1});
  CHECK(at(s256, 0, 2) == P{8, 0});
  CHECK(at(s256, 0, 3) == P{8, 1});
  CHECK(at(s256, 1, 0) == P{0, 2});
  CHECK(at(s256, 31, 1) == P{7, 7});
  CHECK(at(s256, 31, 3) == P{15, 7});
  const LdStAccess s64{LdStShape::s16x64b, 1};
  const P x64[] = {{0, 0}, {8, 0}, {0, 1}, {8, 1}, {1, 0}};
  for (int t = 0; t < 5; ++t) CHECK(at(s64, t, 0) == x64[t]);
  CHECK(at(s64, 31, 0) == P{15, 1});
  for (int t = 0; t < 32; ++t) {
    CHECK(at({LdStShape::s16x128b, 1}, t, 0) == P{t >> 2, t & 3});
    CHECK(at({LdStShape::s16x128b, 1}, t, 1) == P{(t >> 2) + 8, t & 3});
    CHECK(at({LdStShape::s32x32b, 4}, t, 3) == P{t, 3});
    CHECK(at({LdStShape::s16x32bx2, 2, false, 5}, t, 1) == P{t & 15, 1 + (t >= 16 ? 5 : 0)});
  }
  // .pack::16b: register i's halves in columns 2c and 2c+1.
  CHECK(at({LdStShape::s32x32b, 2, true}, 3, 1, 0) == P{3, 2});
  CHECK(at({LdStShape::s32x32b, 2, true}, 3, 1, 1) == P{3, 3});
  CHECK(at({LdStShape::s16x32bx2, 2, true, 4}, 20, 1, 1) == P{4, 4 + 3});
}

TEST_CASE("st → wait::st → ld round-trips every shape × .num × pack, each cell written once") {
  Kernel k(512, 8);
  unsigned seed = 1;
  for (const LdStAccess& a : every_access()) {
    CAPTURE(instruction_name(true, a));
    // The footprint: distinct cells, inside 16 or 32 lanes.
    std::set<std::pair<int, int>> cells;
    for (int t = 0; t < 32; ++t)
      for (int i = 0; i < registers(a); ++i)
        for (int h = 0; h < (a.pack ? 2 : 1); ++h) {
          const CellOffset o = cell_offset(a, t, i, h);
          CHECK(o.lane < lanes(a.shape));
          cells.insert({o.lane, o.column});
        }
    CHECK(cells.size() == std::size_t(32) * registers(a) * (a.pack ? 2 : 1));
    // Warp 5 is in quarter 1 (lanes 32-63); 16-lane shapes also at lane 48.
    for (int lane0 : {32, 48}) {
      if (lane0 == 48 && lanes(a.shape) == 32) continue;
      const WarpRegisters in = random_regs(a, seed++);
      k.cta.st(5, a, k.tmem + taddr(lane0, 0), in);
      k.cta.wait_st(5);
      const WarpRegisters out = k.cta.ld(5, a, k.tmem + taddr(lane0, 0));
      k.cta.wait_ld(5);
      CHECK(out == in);
      // The first register of thread 0 is in the cell the map names.
      const CellOffset o = cell_offset(a, 0, 0, 0);
      const std::uint32_t cell = k.cta.tmem_value(lane0 + o.lane, o.column);
      CHECK(cell == (a.pack ? in[0][0] & 0xFFFFu : in[0][0]));
    }
  }
  k.end();
}

TEST_CASE("a warp's access may not spill out of its own lane quarter") {
  Kernel k(64, 8);
  const LdStAccess x1{LdStShape::s32x32b, 1};
  // A 16-lane access at lane 24 spills into the next quarter.
  const LdStAccess s256{LdStShape::s16x256b, 1};
  expect_rule([&] { k.cta.st(0, s256, k.tmem + taddr(24, 0), regs_of(s256, 1)); }, Rule::lane_quarter,
              {"lanes 24 to 39"});
  expect_rule([&] { k.cta.st(5, s256, k.tmem + taddr(56, 0), regs_of(s256, 1)); }, Rule::lane_quarter,
              {"warp 5", "lanes 56 to 71", "only lanes 32 to 63"});
  // Warp 6 is in quarter 2: lanes 64-95 are its own.
  k.cta.st(6, x1, k.tmem + taddr(64, 0), regs_of(x1, 1));
}

TEST_CASE("a lane field in another quarter: a PTX letter, the same lane of the warp's own quarter taken") {
  // FlashMLA's MODEL1 decode (csrc/sm100/decode/head64) gives tcgen05.ld the
  // column alone from every warp of its warpgroup and is right on B200s.
  Kernel k(64, 8);
  const LdStAccess x1{LdStShape::s32x32b, 1};
  WarpRegisters r = regs_of(x1, 1);
  r[5][0] = 0xC0FFEEu;
  k.cta.st(6, x1, k.tmem + 3, r);  // warp 6: quarter 2
  REQUIRE(k.cta.warnings().count(Rule::lane_quarter_implied) == 1);
  CHECK(k.cta.warnings().at(Rule::lane_quarter_implied).count == 1);
  CHECK(k.cta.tmem_value(64 + 5, 3) == 0xC0FFEEu);  // lane 64 + thread 5
  CHECK_FALSE(k.cta.tmem_written(5, 3));
  k.cta.wait_st(6);
  // DeepGEMM's sm100 epilogues (epilogue/sm100_store_cd_swap_ab.cuh) read 16 lanes at lane 16 from every
  // epilogue warp, "as the hardware will ignore the warp index bits": warp 5 (quarter 1) gets 48-63.
  const LdStAccess s256{LdStShape::s16x256b, 1};
  k.cta.st(5, s256, k.tmem + taddr(16, 8), regs_of(s256, 2));
  CHECK(k.cta.warnings().at(Rule::lane_quarter_implied).count == 2);
  for (int lane = 0; lane < 32; ++lane)
    for (int column = 8; column < 16; ++column) {
      CHECK(k.cta.tmem_written(32 + lane, column) == (lane >= 16));
      CHECK_FALSE(k.cta.tmem_written(lane, column));
    }
  k.cta.wait_st(5);
}

TEST_CASE("taddr must be the same in every thread of the warp") {
  Kernel k(64);
  const LdStAccess x1{LdStShape::s32x32b, 1};
  std::array<std::uint32_t, 32> per_thread;
  per_thread.fill(k.tmem);
  k.cta.st(0, x1, per_thread, regs_of(x1, 7));  // uniform: fine
  per_thread[7] = k.tmem + 1;
  expect_rule([&] { k.cta.st(0, x1, per_thread, regs_of(x1, 7)); }, Rule::taddr_not_uniform, {"in thread 7"});
}

TEST_CASE("columns outside the allocation are an error, and a linear-looking taddr gets a hint") {
  Kernel k(64);
  const LdStAccess x4{LdStShape::s32x32b, 4};
  expect_rule([&] { k.cta.st(0, x4, k.tmem + 62, regs_of(x4, 1)); }, Rule::tmem_outside_allocation,
              {"column = 64", "columns 62 to 65", "[0, 64)"});
  // Row 16 of a "linear" TMEM with 256-column rows: the offset lands in the column field.
  expect_rule([&] { k.cta.st(0, x4, k.tmem + 16 * 256, regs_of(x4, 1)); }, Rule::tmem_outside_allocation,
              {"512 columns", "(16 << 16)"});
  k.end();
  // After dealloc nothing is allocated.
  expect_rule([&] { k.cta.ld(0, x4, k.tmem); }, Rule::tmem_outside_allocation, {"allocated: none"});
}

TEST_CASE("another warp's access to columns a dealloc freed is a PTX letter; the freeing warp's is a fault") {
  // CUTLASS's FMHA backward (77_blackwell_fmha_bwd, B200s): a compute warp frees the columns while
  // the MMA warp, unordered with it, still writes dQ there and the reduce warps load it.
  const LdStAccess x2{LdStShape::s32x32b, 2};
  Kernel k(64, 8);
  k.cta.st(1, x2, k.tmem + taddr(32, 4), regs_of(x2, 11));
  k.cta.wait_st(1);
  k.cta.dealloc(0, k.tmem, 64);
  // The cells keep the values warp 1 stored; a two-column load is one warning, not one per cell.
  expect_letter(k.cta, [&] { CHECK(k.cta.ld(1, x2, k.tmem + taddr(32, 4))[3][1] == 11u); }, Rule::tmem_used_after_free,
                {"warp 0 freed", "columns 4 to 5", "allocated: none"});
  expect_letter(k.cta, [&] { k.cta.st(5, x2, k.tmem + taddr(32, 8), regs_of(x2, 12)); }, Rule::tmem_used_after_free);
  // The warp that freed them knows they are gone.
  expect_rule([&] { k.cta.ld(0, x2, k.tmem); }, Rule::tmem_outside_allocation, {"allocated: none"});
  // Allocated again, the columns are live and their contents undefined.
  k.cta.alloc(2, Kernel::kTmemSlot, 64);
  expect_rule([&] { k.cta.ld(1, x2, k.tmem + taddr(32, 4)); }, Rule::uninitialized_tmem);
  k.cta.dealloc(2, k.tmem, 64);
  k.cta.finish();
  // Under letters_as_errors it is an error.
  Kernel strict(64, 8, true);
  strict.cta.dealloc(0, strict.tmem, 64);
  expect_rule([&] { strict.cta.ld(1, x2, strict.tmem + taddr(32, 0)); }, Rule::tmem_used_after_free, {"warp 0 freed"});
}

TEST_CASE("illegal .num and a wrong register count are errors") {
  Kernel k(64);
  expect_rule([&] { k.cta.ld(0, {LdStShape::s32x32b, 3}, k.tmem); }, Rule::ldst_access, {"x1, x2, x4"});
  expect_rule([&] { k.cta.ld(0, {LdStShape::s16x256b, 64}, k.tmem); }, Rule::ldst_access, {"256 registers"});
  WarpRegisters r = regs_of({LdStShape::s32x32b, 2}, 0);
  r[9].push_back(0);
  expect_rule([&] { k.cta.st(0, {LdStShape::s32x32b, 2}, k.tmem, r); }, Rule::ldst_access, {"3 in thread 9"});
}

TEST_CASE("tcgen05.ld of cells a tcgen05.st wrote needs tcgen05.wait::st first") {
  Kernel k(64, 8);
  const LdStAccess x2{LdStShape::s32x32b, 2};
  k.cta.st(0, x2, k.tmem, regs_of(x2, 3));
  // Another warp of the quarter (4), with nothing between: a fault.
  expect_rule([&] { k.cta.ld(4, x2, k.tmem); }, Rule::st_without_wait, {"tcgen05.st", "wait::st"});
  k.cta.wait_st(0);
  CHECK(k.cta.ld(0, x2, k.tmem)[5][1] == 3u);
}

TEST_CASE("a warp's tcgen05.ld of what it stored with no tcgen05.wait::st between is a PTX letter") {
  // CUTLASS's stream-K tile scheduler (sm100_tile_scheduler_stream_k.hpp, tmem_fixup, B200s) stores
  // the reduced accumulators with tcgen05.st and its epilogue, in the same warps, loads them.
  const LdStAccess x2{LdStShape::s32x32b, 2};
  Kernel k(64, 8);
  k.cta.st(0, x2, k.tmem, regs_of(x2, 3));
  expect_letter(k.cta, [&] { CHECK(k.cta.ld(0, x2, k.tmem)[5][1] == 3u); }, Rule::st_read_back_unwaited,
                {"tcgen05.st.sync.aligned.32x32b.x2.b32 of warp 0", "reads it back"});
  // As if it had waited: another load of those cells is no second warning.
  (void)k.cta.ld(0, x2, k.tmem);
  CHECK(k.cta.warnings().at(Rule::st_read_back_unwaited).count == 1);
  Kernel strict(64, 8, true);
  strict.cta.st(0, x2, strict.tmem, regs_of(x2, 3));
  expect_rule([&] { strict.cta.ld(0, x2, strict.tmem); }, Rule::st_read_back_unwaited, {"reads it back"});
}

TEST_CASE("reading never-written Tensor Memory is an error; a fresh allocation holds nothing") {
  Kernel k(64);
  const LdStAccess x1{LdStShape::s32x32b, 1};
  expect_rule([&] { k.cta.ld(0, x1, k.tmem); }, Rule::uninitialized_tmem, {"lane 0, column 0", "never written"});
  k.cta.st(0, x1, k.tmem, regs_of(x1, 5));
  k.cta.wait_st(0);
  k.cta.ld(0, x1, k.tmem);
  // Freed and allocated again: the contents are undefined again.
  k.cta.dealloc(0, k.tmem, 64);
  k.cta.alloc(0, Kernel::kTmemSlot, 64);
  expect_rule([&] { k.cta.ld(0, x1, k.tmem); }, Rule::uninitialized_tmem);
  k.end();
}

TEST_CASE("cells another warp stored are ordered by wait::st, fence::before, a barrier, fence::after") {
  for (const bool letters_as_errors : {true, false}) {
    CAPTURE(letters_as_errors);
    Kernel k(64, 8, letters_as_errors);
    const LdStAccess x1{LdStShape::s32x32b, 1};
    k.cta.st(1, x1, k.tmem + taddr(32, 0), regs_of(x1, 9));  // warp 1 and warp 5 share lanes 32-63
    k.cta.wait_st(1);
    expect_rule([&] { k.cta.ld(5, x1, k.tmem + taddr(32, 0)); }, Rule::unordered_tmem_access, {"warp 1"});
    k.cta.fence_before_thread_sync(1);
    k.cta.bar_sync();
    if (letters_as_errors) {
      expect_rule([&] { k.cta.ld(5, x1, k.tmem + taddr(32, 0)); }, Rule::missing_after_thread_sync, {"warp 5"});
      k.cta.fence_after_thread_sync(5);
      CHECK(k.cta.ld(5, x1, k.tmem + taddr(32, 0))[0][0] == 9u);
    } else {  // a PTX letter: the barrier's ordering is taken as fenced, and counted
      expect_letter(k.cta, [&] { CHECK(k.cta.ld(5, x1, k.tmem + taddr(32, 0))[0][0] == 9u); },
                    Rule::missing_after_thread_sync, {"warp 5"});
    }
  }
}
