// Tensor Memory layouts: the accumulator data-path layouts A-G
// (tcgen/layout/tmem_datapath.hpp) and the tcgen05.ld/st thread maps
// (tcgen/layout/tmem_thread_map.hpp), checked for every legal configuration
// against formulas written here from ../shared/reference/tcgen05-facts.md
// §4 (data-path layouts, "Which warp reads what") and §5 (Table 49 register
// counts, the "(thread t, register i) -> (lane offset, column offset)" table,
// the .pack::16b rule). Nothing here was produced by running the library.
#include "tcgen/layout/tmem_thread_map.hpp"

#include <doctest/doctest.h>

#include "expect_error.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "tcgen/layout/algebra.hpp"

using namespace tcgen::layout;

namespace {

// A cell as the header documents its number: lane + 128·column + 65536·cta.
struct Cell {
  Int cta, lane, col;
  bool operator==(const Cell&) const = default;
  bool operator<(const Cell& o) const {
    return cta != o.cta ? cta < o.cta : lane != o.lane ? lane < o.lane : col < o.col;
  }
};
Cell decode(Int idx) { return {idx / (128 * 512), idx % 128, idx / 128 % 512}; }
Int encode(Cell c) { return c.lane + 128 * c.col + 128 * 512 * c.cta; }

// ------------------------------------------------------------ §4, by hand --

// PTX Table 39 (tcgen05-facts.md §3 "Legal shapes", kind::f16/tf32/f8f6f4).
bool legal_acc(int m, int n, int cg, bool ws) {
  if (cg != 1 && cg != 2) return false;
  if (ws && cg != 1) return false;  // ".ws with cta_group::2 is Invalid"
  if (cg == 1 && ws) return (m == 32 || m == 64 || m == 128) && (n == 64 || n == 128 || n == 256);
  if (cg == 1) return (m == 64 || m == 128) && n % 8 == 0 && n >= 8 && n <= 256;
  return (m == 128 || m == 256) && n % 16 == 0 && n >= 16 && n <= 256;
}

// §4 table "M | cta_group | A sparsity | .ws | Datapath | Layout".
char expected_layout(const AccumulatorSpec& s) {
  if (s.cta_group == 2) return s.m == 256 ? 'A' : s.sparse ? 'C' : 'B';
  if (s.m == 128) return 'D';
  if (s.m == 32) return 'G';
  return s.ws ? 'E' : 'F';
}

// §4 "D[m][n] -> (lane, col)" formulas; C is UNCONFIRMED there (no formula).
Cell expected_cell(char layout, Int m, Int n, Int N) {
  switch (layout) {
    case 'D': return {0, m, n};
    case 'F': return {0, 32 * (m / 16) + m % 16, n};
    case 'E': return {0, m + 64 * (n / (N / 2)), n % (N / 2)};
    case 'G': return {0, m + 32 * (n / (N / 4)), n % (N / 4)};
    case 'A': {
      const Int v = m / 128;
      return {v, m - 128 * v, n};
    }
    case 'B': {
      const Int v = m / 64, mp = m - 64 * v;
      return {v, mp + 64 * (n / (N / 2)), n % (N / 2)};
    }
  }
  return {-1, -1, -1};
}
Int expected_columns(char layout, Int N) { return layout == 'B' || layout == 'E' ? N / 2 : layout == 'G' ? N / 4 : N; }

std::vector<AccumulatorSpec> legal_accumulators() {
  std::vector<AccumulatorSpec> out;
  for (int m : {64, 128})
    for (int n = 8; n <= 256; n += 8) out.push_back({m, n, 1, false, false});
  for (int m : {32, 64, 128})
    for (int n : {64, 128, 256}) out.push_back({m, n, 1, true, false});
  for (int m : {128, 256})
    for (int n = 16; n <= 256; n += 16) out.push_back({m, n, 2, false, false});
  for (int n = 16; n <= 256; n += 16) out.push_back({128, n, 2, false, true});  // Layout C
  return out;
}

std::string describe(const AccumulatorSpec& s) {
  return "M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " cta_group::" + std::to_string(s.cta_group) +
         (s.ws ? " .ws" : "") + (s.sparse ? " sparse" : "");
}

// ------------------------------------------------------------ §5, by hand --

// "Exact (thread t, register i) -> (lane offset, column offset)", unpacked.
struct LaneCol {
  Int lane, col;
};
LaneCol expected_access(TmemShape s, Int t, Int i, Int split) {
  switch (s) {
    case TmemShape::s32x32b: return {t, i};
    case TmemShape::s16x64b: return {(t >> 2) + 8 * (t & 1), ((t >> 1) & 1) + 2 * i};
    case TmemShape::s16x128b: return {(t >> 2) + 8 * (i & 1), (t & 3) + 4 * (i >> 1)};
    case TmemShape::s16x256b: return {(t >> 2) + 8 * ((i >> 1) & 1), 2 * (t & 3) + (i & 1) + 8 * (i >> 2)};
    case TmemShape::s16x32bx2: return {t & 15, i + (t >= 16 ? split : 0)};
  }
  return {-1, -1};
}
// With .pack::16b: register bits [0,16) in column 2c, [16,32) in column 2c+1,
// c the unpacked column. For 16x32bx2 the second half's immHalfSplitoff is a
// plain column offset (CUTLASS passes 2N with pack so the halves abut).
LaneCol expected_packed(TmemShape s, Int t, Int i, Int h, Int split) {
  if (s == TmemShape::s16x32bx2) return {t & 15, 2 * i + h + (t >= 16 ? split : 0)};
  const LaneCol u = expected_access(s, t, i, 0);
  return {u.lane, 2 * u.col + h};
}

const TmemShape kShapes[] = {TmemShape::s32x32b, TmemShape::s16x64b, TmemShape::s16x128b, TmemShape::s16x256b,
                             TmemShape::s16x32bx2};

// PTX Table 49 (ld) / Table 50 (st), "Registers per thread"; 0 = NA.
Int table49(TmemShape s, Int num) {
  const Int nums[] = {1, 2, 4, 8, 16, 32, 64, 128};
  const Int r32[] = {1, 2, 4, 8, 16, 32, 64, 128};  // 32x32b / 16x64b / 16x32bx2
  const Int r128[] = {2, 4, 8, 16, 32, 64, 128, 0};
  const Int r256[] = {4, 8, 16, 32, 64, 128, 0, 0};
  for (int k = 0; k < 8; ++k)
    if (nums[k] == num)
      return s == TmemShape::s16x128b ? r128[k] : s == TmemShape::s16x256b ? r256[k] : r32[k];
  return 0;
}
// §5: lanes touched, 32 or 16; columns N, 2N, 4N, 8N and 2N for 16x32bx2,
// doubled with pack.
Int expected_lanes(TmemShape s) { return s == TmemShape::s32x32b ? 32 : 16; }
Int expected_columns(TmemShape s, Int num, bool pack) {
  const Int per = s == TmemShape::s32x32b ? 1 : s == TmemShape::s16x64b ? 2 : s == TmemShape::s16x128b ? 4
                  : s == TmemShape::s16x256b ? 8 : 2;
  return per * num * (pack ? 2 : 1);
}

// Evaluate a thread map at (t, i[, h]) and decode the cell.
Cell at(const Layout& l, Int t, Int i, Int h = 0) { return decode(l.rank() == 3 ? l(t, i, h) : l(t, i)); }

// ------------------------------------------------------ compile time --
constexpr Layout kMap256 = thread_map<TmemAccess{TmemShape::s16x256b, 1}>();
static_assert(kMap256(0, 2) == 8 && kMap256(31, 3) == 15 + 128 * 7);  // (L8,C0) and (L15,C7)
constexpr Layout kAccF = accumulator_layout<AccumulatorSpec{64, 128, 1}>();
static_assert(kAccF(16, 0) == 32 && kAccF(63, 5) == 32 * 3 + 15 + 128 * 5);  // F: rows 16-31 in lanes 32-47
constexpr Layout kAccE = accumulator_layout<AccumulatorSpec{64, 128, 1, true}>();
static_assert(kAccE(0, 64) == 64 && kAccE(5, 70) == 69 + 128 * 6);  // E: right half in lanes 64-127

}  // namespace

// ====================================================== accumulator layouts ==

TEST_CASE("accumulator layouts A-G: every legal (M, N, cta_group, ws), every element") {
  int specs = 0;
  long elements = 0;
  std::map<char, int> per_layout;
  for (const AccumulatorSpec& s : legal_accumulators()) {
    INFO(describe(s));
    const char want = expected_layout(s);
    CHECK(name(datapath_layout(s)) == want);
    Layout l;
    REQUIRE_NOTHROW(l = make_accumulator_layout(s));
    CHECK(l == accumulator_layout(s));
    REQUIRE(l.rank() == 2);
    REQUIRE(l.size(0) == s.m);
    REQUIRE(l.size(1) == s.n);
    const Int cols = accumulator_columns(s);
    CHECK(cols == expected_columns(want, s.n));
    CHECK(cols <= 512);
    std::set<Int> seen;
    bool ok = true;
    for (Int m = 0; m < s.m; ++m)
      for (Int n = 0; n < s.n; ++n) {
        const Int idx = l(m, n);
        const Cell c = decode(idx);
        ok &= c.lane >= 0 && c.lane < 128;
        ok &= c.col >= 0 && c.col < cols;
        ok &= s.cta_group == 2 ? (c.cta == 0 || c.cta == 1) : c.cta == 0;
        ok &= encode(c) == idx;  // nothing outside the three fields
        ok &= seen.insert(idx).second;  // injective
        const TmemCell tc = tmem_cell(idx);
        ok &= tc.cta == c.cta && tc.lane == c.lane && tc.column == c.col && tmem_index(tc) == idx;
        if (want != 'C') {
          const Cell e = expected_cell(want, m, n, s.n);
          if (!(e == c)) {
            if (ok) FAIL_CHECK("D[" << m << "][" << n << "]: library (cta " << c.cta << ", lane " << c.lane << ", col "
                                    << c.col << "), §4 formula (cta " << e.cta << ", lane " << e.lane << ", col "
                                    << e.col << ")");
            ok = false;
          }
        }
        ++elements;
      }
    CHECK(ok);
    // The full data path (D, E, G, A, B) fills every lane of its columns.
    if (want == 'D' || want == 'E' || want == 'G' || want == 'A' || want == 'B')
      CHECK(static_cast<Int>(seen.size()) == 128 * cols * s.cta_group);
    // The half data path (F, C): lanes 0-15 of each quarter only.
    if (want == 'F' || want == 'C')
      for (Int idx : seen) CHECK(decode(idx).lane % 32 < 16);
    ++specs;
    ++per_layout[want];
  }
  MESSAGE("accumulators: " << specs << " specs (D " << per_layout['D'] << ", F " << per_layout['F'] << ", E "
                           << per_layout['E'] << ", G " << per_layout['G'] << ", A " << per_layout['A'] << ", B "
                           << per_layout['B'] << ", C " << per_layout['C'] << "), " << elements << " elements");
  CHECK(specs == 64 + 9 + 32 + 16);
}

TEST_CASE("accumulator known points (§4 table, CUTLASS atoms)") {
  // D: (m, n), as the CUTLASS tutorial print ((_128,_256),...):((_65536,_1),...)
  // says in TMEM address units (lane << 16 | column).
  const Layout d = make_accumulator_layout({128, 256, 1});
  CHECK(decode(d(127, 255)) == Cell{0, 127, 255});
  // F: ((16,4),N):((1,32),128): row 17 -> lane 33.
  const Layout f = make_accumulator_layout({64, 64, 1});
  CHECK(decode(f(17, 3)) == Cell{0, 33, 3});
  CHECK(decode(f(48, 0)) == Cell{0, 96, 0});
  // E: (64,(N/2,2)):(1,(128,64)): column N/2 goes to lane 64, column 0.
  const Layout e = make_accumulator_layout({64, 256, 1, true});
  CHECK(decode(e(0, 128)) == Cell{0, 64, 0});
  CHECK(decode(e(63, 255)) == Cell{0, 127, 127});
  // G: (32,(N/4,4)):(1,(128,32)).
  const Layout g = make_accumulator_layout({32, 128, 1, true});
  CHECK(decode(g(0, 32)) == Cell{0, 32, 0});
  CHECK(decode(g(31, 127)) == Cell{0, 127, 31});
  // A: CTA v holds rows [128v, 128v+128).
  const Layout a = make_accumulator_layout({256, 64, 2});
  CHECK(decode(a(128, 0)) == Cell{1, 0, 0});
  CHECK(decode(a(255, 63)) == Cell{1, 127, 63});
  // B: CTA v holds rows [64v, 64v+64), each CTA in the 2x2 pattern.
  const Layout b = make_accumulator_layout({128, 128, 2});
  CHECK(decode(b(64, 0)) == Cell{1, 0, 0});
  CHECK(decode(b(65, 64)) == Cell{1, 65, 0});
  CHECK(decode(b(0, 127)) == Cell{0, 64, 63});
}

TEST_CASE("lane_offset_allowed: only the half data path layouts F and C take lane 16") {
  // §4: "Layout F and Layout C must use the same Tensor Memory lane alignment
  // ... 0 or 16"; every other layout has lane alignment 0.
  for (DatapathLayout l : {DatapathLayout::A, DatapathLayout::B, DatapathLayout::C, DatapathLayout::D,
                           DatapathLayout::E, DatapathLayout::F, DatapathLayout::G}) {
    INFO("layout " << name(l));
    const bool half = l == DatapathLayout::F || l == DatapathLayout::C;
    CHECK(lane_offset_allowed(l, 0));
    CHECK(lane_offset_allowed(l, 16) == half);
    for (Int lane : {1, 8, 15, 17, 24, 32, 48, 64, 96})
      CHECK_FALSE(lane_offset_allowed(l, lane));
  }
  // F at lane offset a = 16: rows 16q..16q+15 stay in quarter q (lanes 32q+16..32q+31).
  const Layout f = make_accumulator_layout({64, 32, 1});
  for (Int a : {0, 16})
    for (Int m = 0; m < 64; ++m)
      for (Int n = 0; n < 32; ++n) {
        const Cell c = decode(f(m, n) + a);
        CHECK(c.lane / 32 == m / 16);
        CHECK(c.lane == 32 * (m / 16) + m % 16 + a);
      }
}

TEST_CASE("accumulator legality matches PTX Table 39; illegal specs name the field") {
  int checked = 0, legal = 0;
  for (int cg : {0, 1, 2, 3})
    for (bool ws : {false, true})
      for (int m : {0, 16, 32, 48, 64, 96, 128, 192, 256, 512})
        for (int n = -8; n <= 272; n += 4) {
          const AccumulatorSpec s{m, n, cg, ws};
          INFO(describe(s));
          const bool want = legal_acc(m, n, cg, ws);
          bool threw = false;
          try {
            (void)make_accumulator_layout(s);
          } catch (const tcgen::Error& e) {
            threw = true;
            CHECK(std::string(e.what()).find(e.field()) != std::string::npos);
          }
          CHECK(threw == !want);
          ++checked;
          legal += want;
        }
  MESSAGE("accumulator legality: " << checked << " specs, " << legal << " legal");
  expect_error([] { (void)make_accumulator_layout({64, 128, 2}); }, "m");          // M=64 with cta_group::2
  expect_error([] { (void)make_accumulator_layout({128, 12, 1}); }, "n");          // N=12, cta_group::1
  expect_error([] { (void)make_accumulator_layout({128, 128, 2, true}); }, "ws");  // .ws with cta_group::2
  expect_error([] { (void)make_accumulator_layout({64, 96, 1, true}); }, "n");     // N=96 with .ws
  expect_error([] { (void)make_accumulator_layout({128, 128, 3}); }, "cta_group");
  expect_error([] { (void)make_accumulator_layout({32, 128, 1}); }, "m");  // M=32 needs .ws
  expect_error([] { (void)make_accumulator_layout({256, 128, 1}); }, "m");
  expect_error([] { (void)make_accumulator_layout({128, 264, 1}); }, "n");
  expect_error([] { (void)make_accumulator_layout({256, 24, 2}); }, "n");
}

// ===================================================== which warp reads what ==

TEST_CASE("Layout D: warp q with 32x32b at lane 32q reads rows 32q..32q+31 (thread map o inverse(D))") {
  for (int N : {8, 64, 136, 256}) {
    const Layout d = make_accumulator_layout({128, N, 1});
    const Layout inv = inverse(d);  // cell index -> m + 128·n (D is a bijection onto [0, 128N))
    for (Int num = 1; num <= N && num <= 128; num *= 2) {
      const Layout tm = make_thread_map({TmemShape::s32x32b, num});
      INFO("N=" << N << " 32x32b.x" << num);
      // At lane 0, column 0 the composition is a layout: thread t, register i -> D[t][i].
      const Layout rc = composition(inv, tm);
      for (Int t = 0; t < 32; ++t)
        for (Int i = 0; i < num; ++i) CHECK(rc(t, i) == t + 128 * i);
      // Every quarter q and column block c: thread t register i -> D[32q+t][c+i].
      bool ok = true;
      for (Int q = 0; q < 4; ++q)
        for (Int c = 0; c + num <= N; c += num)
          for (Int t = 0; t < 32; ++t)
            for (Int i = 0; i < num; ++i) {
              const Int flat = inv(tm(t, i) + encode({0, 32 * q, c}));
              ok &= flat % 128 == 32 * q + t && flat / 128 == c + i;
            }
      CHECK(ok);
    }
  }
}

TEST_CASE("Layout D: a 16-lane shape needs two issues, at lanes 32q and 32q+16") {
  const Layout d = make_accumulator_layout({128, 64, 1});
  const Layout inv = inverse(d);
  for (TmemShape s : {TmemShape::s16x64b, TmemShape::s16x128b, TmemShape::s16x256b})
    for (Int q = 0; q < 4; ++q) {
      INFO(name(s) << " warp " << q);
      const TmemAccess acc{s, 1};
      const Layout tm = make_thread_map(acc);
      std::set<std::pair<Int, Int>> rows_cols;
      for (Int half : {0, 16})
        for (Int t = 0; t < 32; ++t)
          for (Int i = 0; i < acc.registers(); ++i) {
            const Int flat = inv(tm(t, i) + encode({0, 32 * q + half, 0}));
            const Int m = flat % 128, n = flat / 128;
            CHECK(m / 32 == q);
            CHECK(rows_cols.insert({m, n}).second);
          }
      CHECK(static_cast<Int>(rows_cols.size()) == 32 * acc.columns());
    }
}

namespace {
// The accumulator's inverse by enumeration (F, E, B, G are not bijections
// onto an interval): cell index -> (cta, m, n).
std::map<Int, std::pair<Int, Int>> invert(const AccumulatorSpec& s) {
  const Layout l = make_accumulator_layout(s);
  std::map<Int, std::pair<Int, Int>> out;
  for (Int m = 0; m < s.m; ++m)
    for (Int n = 0; n < s.n; ++n) out[l(m, n)] = {m, n};
  return out;
}
}  // namespace

TEST_CASE("Layout F: warp q reads rows 16q..16q+15 at lanes 32q+a (16x256b), inside its quarter") {
  // §4: "F: warp q reads rows 16q..16q+15, found in lanes 32q+a .. 32q+a+15.
  // Use a .16x*b shape at lane 32q+a." With d-tmem at lane a, D[m][n] sits at
  // accumulator_layout(m, n) + a lanes.
  const AccumulatorSpec s{64, 64, 1};
  const Layout f = make_accumulator_layout(s);
  const TmemAccess acc{TmemShape::s16x256b, 8};  // 16 lanes x 64 columns
  const Layout tm = make_thread_map(acc);
  for (Int a : {0, 16}) {
    std::map<Int, std::pair<Int, Int>> inv;  // cell -> (m, n), by enumeration
    for (Int m = 0; m < 64; ++m)
      for (Int n = 0; n < 64; ++n) inv[f(m, n) + a] = {m, n};
    for (Int q = 0; q < 4; ++q) {
      INFO("lane offset " << a << " warp " << q);
      std::set<std::pair<Int, Int>> got;
      for (Int t = 0; t < 32; ++t)
        for (Int i = 0; i < acc.registers(); ++i) {
          const Int cell = tm(t, i) + encode({0, 32 * q + a, 0});
          CHECK(decode(cell).lane / 32 == q);  // the warp's own lane quarter
          const auto it = inv.find(cell);
          REQUIRE(it != inv.end());
          CHECK(it->second.first / 16 == q);
          got.insert(it->second);
        }
      CHECK(got.size() == 16 * 64);
    }
  }
}

TEST_CASE("Layouts E and B: warps 0,1 read columns [0,N/2), warps 2,3 read [N/2,N) of the same rows") {
  // §4 "B / E: warps 0 and 1 read columns [0,N/2) of rows 0-31 and 32-63;
  // warps 2 and 3 read columns [N/2,N) of the same rows (at TMEM columns [0,N/2))".
  for (const AccumulatorSpec& s : {AccumulatorSpec{64, 128, 1, true}, AccumulatorSpec{64, 256, 1, true},
                                   AccumulatorSpec{128, 64, 2}, AccumulatorSpec{128, 256, 2}}) {
    INFO(describe(s));
    const auto inv = invert(s);
    const Int half = s.n / 2;
    for (Int cta = 0; cta < s.cta_group; ++cta)
      for (Int q = 0; q < 4; ++q)
        for (Int c = 0; c < half; c += 8) {
          const Layout tm = make_thread_map({TmemShape::s32x32b, 8});
          for (Int t = 0; t < 32; ++t)
            for (Int i = 0; i < 8; ++i) {
              const auto it = inv.find(tm(t, i) + encode({cta, 32 * q, c}));
              REQUIRE(it != inv.end());
              CHECK(it->second.first == 64 * cta + 32 * (q % 2) + t);
              CHECK(it->second.second == c + i + (q >= 2 ? half : 0));
            }
        }
  }
}

TEST_CASE("Layout G (derived from its §4 formula): lane quarter q holds columns [qN/4, (q+1)N/4) of rows 0-31") {
  const AccumulatorSpec s{32, 256, 1, true};
  const auto inv = invert(s);
  const Layout tm = make_thread_map({TmemShape::s32x32b, 64});
  for (Int q = 0; q < 4; ++q)
    for (Int t = 0; t < 32; ++t)
      for (Int i = 0; i < 64; ++i) {
        const auto it = inv.find(tm(t, i) + encode({0, 32 * q, 0}));
        REQUIRE(it != inv.end());
        CHECK(it->second.first == t);
        CHECK(it->second.second == 64 * q + i);
      }
}

// ============================================================== thread maps ==

TEST_CASE("thread maps: every shape x .num x pack equals the §5 formulas and covers its cells once") {
  int configs = 0;
  long points = 0;
  for (TmemShape s : kShapes)
    for (Int num = 1; num <= 128; num *= 2)
      for (bool pack : {false, true}) {
        const TmemAccess a{s, num, pack};
        INFO(name(s) << ".x" << num << std::string(pack ? ".pack::16b" : ""));
        const Int regs = table49(s, num);
        if (regs == 0) {  // NA in Table 49
          expect_error([&] { (void)make_thread_map(a); }, "num");
          continue;
        }
        Layout l;
        REQUIRE_NOTHROW(l = make_thread_map(a));
        CHECK(l == thread_map(a));
        CHECK(a.registers() == regs);
        CHECK(access_lanes(s) == expected_lanes(s));
        CHECK(a.columns() == expected_columns(s, num, pack));
        REQUIRE(l.rank() == (pack ? 3 : 2));
        REQUIRE(l.size(0) == 32);
        REQUIRE(l.size(1) == regs);
        if (pack) REQUIRE(l.size(2) == 2);
        const Int lanes = expected_lanes(s), cols = expected_columns(s, num, pack);
        const Int split = num * (pack ? 2 : 1);  // CUTLASS's immHalfSplitoff: N, or 2N with pack
        std::vector<int> hits(lanes * cols, 0);
        bool ok = true, in_range = true;
        for (Int t = 0; t < 32; ++t)
          for (Int i = 0; i < regs; ++i)
            for (Int h = 0; h < (pack ? 2 : 1); ++h) {
              const Cell c = at(l, t, i, h);
              const LaneCol e = pack ? expected_packed(s, t, i, h, split) : expected_access(s, t, i, split);
              if (c.cta != 0 || c.lane != e.lane || c.col != e.col) {
                if (ok)
                  FAIL_CHECK("t" << t << " r" << i << (pack ? (h ? " hi" : " lo") : "") << ": library (L" << c.lane
                                 << ", C" << c.col << "), §5 formula (L" << e.lane << ", C" << e.col << ")");
                ok = false;
              }
              if (c.cta != 0 || c.lane < 0 || c.lane >= lanes || c.col < 0 || c.col >= cols) {
                in_range = false;
                continue;
              }
              ++hits[c.lane * cols + c.col];
              ++points;
            }
        CHECK(ok);
        CHECK(in_range);
        CHECK(std::all_of(hits.begin(), hits.end(), [](int x) { return x == 1; }));  // every cell exactly once
        ++configs;
      }
  MESSAGE("thread maps: " << configs << " (shape, .num, pack) configurations, " << points << " (t, r, half) points");
  CHECK(configs == 2 * (8 + 8 + 7 + 6 + 8));
}

TEST_CASE("16x32bx2 with an explicit immHalfSplitoff: two 16x32b halves, the second at taddr + split") {
  // §5: "The base address of the first access is specified by taddr and ...
  // the second ... by taddr+immHalfSplitoff". Tensor Memory has 512 columns
  // (§6: nCols in [32, 512]), so an access reaching past column 511 from
  // column 0 can never be valid: it must be rejected, not encoded.
  int configs = 0, too_wide = 0;
  for (Int num = 1; num <= 128; num *= 2)
    for (bool pack : {false, true}) {
      const Int width = num * (pack ? 2 : 1);
      for (Int split : {width, width + 1, width + 8, 2 * width + 32}) {
        const TmemAccess a{TmemShape::s16x32bx2, num, pack, split};
        INFO("16x32bx2.x" << num << std::string(pack ? " packed" : "") << " split " << split);
        if (split + width > 512) {
          ++too_wide;
          bool threw = false;
          try {
            const Layout l = make_thread_map(a);
            Int max_col = 0;  // the raw column, idx / 128, before any wrap into the CTA field
            for (Int t = 0; t < 32; ++t)
              for (Int i = 0; i < num; ++i)
                for (Int h = 0; h < (pack ? 2 : 1); ++h)
                  max_col = std::max(max_col, (l.rank() == 3 ? l(t, i, h) : l(t, i)) / 128);
            FAIL_CHECK("accepted: the second half ends at column " << split + width - 1
                       << " (Tensor Memory has 512); the thread map encodes column " << max_col
                       << " as cta " << max_col / 512 << ", column " << max_col % 512);
          } catch (const tcgen::Error& e) {
            threw = true;
            CHECK(e.field() == "half_split");
          }
          (void)threw;
          continue;
        }
        const Layout l = make_thread_map(a);
        CHECK(a.columns() == split + width);
        std::map<std::pair<Int, Int>, int> hits;
        bool ok = true;
        for (Int t = 0; t < 32; ++t)
          for (Int i = 0; i < num; ++i)
            for (Int h = 0; h < (pack ? 2 : 1); ++h) {
              const Cell c = at(l, t, i, h);
              const LaneCol e = pack ? expected_packed(a.shape, t, i, h, split) : expected_access(a.shape, t, i, split);
              ok &= c.cta == 0 && c.lane == e.lane && c.col == e.col;
              ++hits[{c.lane, c.col}];
            }
        CHECK(ok);
        // Lanes 0-15 x ([0, width) U [split, split + width)), each once.
        CHECK(static_cast<Int>(hits.size()) == 16 * 2 * width);
        bool each_once = true;
        for (const auto& [lc, n] : hits)
          each_once &= n == 1 && lc.first < 16 && (lc.second < width || (lc.second >= split && lc.second < split + width));
        CHECK(each_once);
        ++configs;
      }
    }
  MESSAGE("16x32bx2 explicit splits: " << configs << " configurations inside 512 columns, " << too_wide
                                       << " reaching past column 511");
}

TEST_CASE("thread map known points quoted from §5") {
  SUBCASE("16x256b.x1") {
    const Layout l = make_thread_map({TmemShape::s16x256b, 1});
    // "t0 -> r0,r1 = (L0, C0,C1), r2,r3 = (L8, C0,C1)"
    CHECK(at(l, 0, 0) == Cell{0, 0, 0});
    CHECK(at(l, 0, 1) == Cell{0, 0, 1});
    CHECK(at(l, 0, 2) == Cell{0, 8, 0});
    CHECK(at(l, 0, 3) == Cell{0, 8, 1});
    // "t1 -> (L0, C2,C3) and (L8, C2,C3)"
    CHECK(at(l, 1, 0) == Cell{0, 0, 2});
    CHECK(at(l, 1, 1) == Cell{0, 0, 3});
    CHECK(at(l, 1, 2) == Cell{0, 8, 2});
    CHECK(at(l, 1, 3) == Cell{0, 8, 3});
    // "t31 -> (L7, C6,C7) and (L15, C6,C7)"
    CHECK(at(l, 31, 0) == Cell{0, 7, 6});
    CHECK(at(l, 31, 1) == Cell{0, 7, 7});
    CHECK(at(l, 31, 2) == Cell{0, 15, 6});
    CHECK(at(l, 31, 3) == Cell{0, 15, 7});
  }
  SUBCASE("16x64b.x1") {
    // "t0 -> (L0,C0), t1 -> (L8,C0), t2 -> (L0,C1), t3 -> (L8,C1), t4 -> (L1,C0), ..., t31 -> (L15,C1)"
    const Layout l = make_thread_map({TmemShape::s16x64b, 1});
    CHECK(at(l, 0, 0) == Cell{0, 0, 0});
    CHECK(at(l, 1, 0) == Cell{0, 8, 0});
    CHECK(at(l, 2, 0) == Cell{0, 0, 1});
    CHECK(at(l, 3, 0) == Cell{0, 8, 1});
    CHECK(at(l, 4, 0) == Cell{0, 1, 0});
    CHECK(at(l, 31, 0) == Cell{0, 15, 1});
  }
  SUBCASE("16x128b.x1") {
    // "t -> r0 = (L t>>2, C t&3), r1 = (L (t>>2)+8, C t&3)"
    const Layout l = make_thread_map({TmemShape::s16x128b, 1});
    for (Int t = 0; t < 32; ++t) {
      CHECK(at(l, t, 0) == Cell{0, t >> 2, t & 3});
      CHECK(at(l, t, 1) == Cell{0, (t >> 2) + 8, t & 3});
    }
    CHECK(at(l, 5, 1) == Cell{0, 9, 1});
  }
  SUBCASE("32x32b: thread t is lane t, register i column i") {
    const Layout l = make_thread_map({TmemShape::s32x32b, 8});
    CHECK(at(l, 17, 5) == Cell{0, 17, 5});
  }
  SUBCASE(".pack::16b: bits [0,16) in column 2c, [16,32) in 2c+1") {
    const Layout l = make_thread_map({TmemShape::s32x32b, 4, true});
    CHECK(at(l, 3, 2, 0) == Cell{0, 3, 4});
    CHECK(at(l, 3, 2, 1) == Cell{0, 3, 5});
  }
}

TEST_CASE("the user's bug: 16x256b.x1 covers 16 lanes; the second store goes at lane + 16, not column + 16") {
  // ../shared/seed/README.md and tcgen05-facts.md §8a: a warp's 32 lanes with
  // 16x256b.x1 take two stores; the second is at taddr + (16 << 16) (lane
  // field, bits 31-16), not taddr + 16 (column field, bits 15-0).
  const TmemAccess st{TmemShape::s16x256b, 1};
  const Layout l = make_thread_map(st);
  CHECK(st.columns() == 8);
  CHECK(access_lanes(st.shape) == 16);
  auto cells = [&](std::uint32_t taddr) {
    std::vector<Cell> out;
    for (Int t = 0; t < 32; ++t)
      for (Int r = 0; r < st.registers(); ++r) {
        const Cell c = at(l, t, r);
        out.push_back({0, Int(taddr >> 16) + c.lane, Int(taddr & 0xFFFF) + c.col});
      }
    return out;
  };
  for (std::uint32_t q = 0; q < 4; ++q) {
    const std::uint32_t taddr = (32 * q) << 16;  // warp q's lane quarter, column 0
    INFO("warp " << q << " taddr " << taddr);
    std::map<std::pair<Int, Int>, int> right, wrong;
    for (const Cell& c : cells(taddr)) ++right[{c.lane, c.col}], ++wrong[{c.lane, c.col}];
    for (const Cell& c : cells(taddr + (16u << 16))) ++right[{c.lane, c.col}];  // 0x00100000: lane + 16
    for (const Cell& c : cells(taddr + 16)) ++wrong[{c.lane, c.col}];           // column + 16
    // Right: lanes 32q..32q+31 x columns 0..7, each exactly once.
    CHECK(right.size() == 32 * 8);
    for (const auto& [lc, n] : right) {
      CHECK(n == 1);
      CHECK(lc.first >= Int(32 * q));
      CHECK(lc.first < Int(32 * q + 32));
      CHECK(lc.second < 8);
    }
    // Wrong: only lanes 32q..32q+15 (columns 0-7 and 16-23); lanes +16..+31 untouched.
    for (const auto& [lc, n] : wrong) {
      CHECK(n == 1);
      CHECK(lc.first >= Int(32 * q));
      CHECK(lc.first < Int(32 * q + 16));
    }
    std::set<Int> wrong_lanes;
    for (const auto& [lc, n] : wrong) wrong_lanes.insert(lc.first);
    CHECK(wrong_lanes.size() == 16);
  }
}

TEST_CASE("thread map registers() matches PTX Table 49; illegal .num and half_split name the field") {
  for (TmemShape s : kShapes)
    for (Int num = 1; num <= 128; num *= 2) {
      INFO(name(s) << ".x" << num);
      const Int regs = table49(s, num);
      const TmemAccess a{s, num};
      if (regs) {
        CHECK(a.registers() == regs);
        CHECK(check(a) == TmemAccessRule::ok);
      } else {
        CHECK(check(a) == TmemAccessRule::num);
      }
    }
  expect_error([] { (void)make_thread_map({TmemShape::s32x32b, 0}); }, "num");
  expect_error([] { (void)make_thread_map({TmemShape::s32x32b, 3}); }, "num");
  expect_error([] { (void)make_thread_map({TmemShape::s32x32b, -2}); }, "num");
  expect_error([] { (void)make_thread_map({TmemShape::s32x32b, 256}); }, "num");
  expect_error([] { (void)make_thread_map({TmemShape::s16x64b, 6}); }, "num");
  expect_error([] { (void)make_thread_map({TmemShape::s16x256b, 64}); }, "num");  // NA in Table 49
  expect_error([] { (void)make_thread_map({TmemShape::s16x128b, 128}); }, "num");
  expect_error([] { (void)make_thread_map({TmemShape::s16x32bx2, 4, false, 2}); }, "half_split");  // overlaps
  expect_error([] { (void)make_thread_map({TmemShape::s16x32bx2, 4, true, 4}); }, "half_split");   // packed: 8 wide
  expect_error([] { (void)make_thread_map({TmemShape::s16x32bx2, 128, false, 127}); }, "half_split");
}
