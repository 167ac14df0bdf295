// zipped_divide and blocked_product (tcgen/layout/algebra.hpp), checked
// pointwise against CuTe's definitions over generated layouts; CuTe's
// documented examples; the tiler-rank error; and the cases of CuTe's own
// logical_divide and logical_product unit tests.
#include "tcgen/layout/algebra.hpp"

#include <doctest/doctest.h>

#include "expect_error.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "layout_algebra_helpers.hpp"

using namespace layout_test;

TEST_CASE("zipped_divide: (tile_i, rest_i) is A_i o (T_i, complement(T_i, size A_i)), pointwise") {
  // CuTe's definition (same document, "Division"): logical_divide(A, B) =
  // A o (B, B*), B* = complement(B, size(A)), applied mode by mode. For a
  // tiler made of runs of a refinement of A_i's shapes, B* is the left-over
  // digits in increasing order, written here independently of complement().
  Rng rng = make_rng(7);
  INFO("seed " << test_seed());
  int cases = 0;
  long points = 0;
  for (int n = 0; n < 2000; ++n) {
    const int rank = static_cast<int>(uniform(rng, 1, 2));
    std::vector<Leaves> amodes(rank), tiles(rank), rests(rank);
    for (int i = 0; i < rank; ++i) {
      Int sz = 1;
      do {
        amodes[i].clear();
        sz = 1;
        for (int j = 0, k = static_cast<int>(uniform(rng, 1, 3)); j < k; ++j) {
          amodes[i].push_back({uniform(rng, 1, 6), uniform(rng, 0, 30)});
          sz *= amodes[i].back().shape;
        }
      } while (sz > 48);
      std::vector<Int> radix;
      for (const Leaf& l : amodes[i])
        for (Int f : random_factors(rng, l.shape)) radix.push_back(f);
      std::vector<bool> chosen(radix.size(), false);
      for (Run r : random_runs(rng, static_cast<int>(radix.size())))
        if (coin(rng, 0.5)) {
          tiles[i].push_back(run_leaf(radix, r));
          for (int k = r.begin; k < r.end; ++k) chosen[k] = true;
        }
      std::shuffle(tiles[i].begin(), tiles[i].end(), rng);
      if (tiles[i].empty()) tiles[i].push_back({1, 0});
      for (int k = 0; k < static_cast<int>(radix.size()); ++k)
        if (!chosen[k]) rests[i].push_back(run_leaf(radix, {k, k + 1}));
      if (rests[i].empty()) rests[i].push_back({1, 0});
    }
    const Layout a = layout_of(amodes), tiler = layout_of(tiles);
    INFO("A = " << to_string(a) << "  tiler = " << to_string(tiler));

    const Layout z = zipped_divide(a, tiler);
    REQUIRE(z.rank() == 2 * rank);
    bool ok = true;
    for (int i = 0; i < rank; ++i) {
      REQUIRE(z.size(i) == size_of(tiles[i]));
      REQUIRE(z.size(rank + i) == size_of(rests[i]));
      REQUIRE(size_of(tiles[i]) * size_of(rests[i]) == size_of(amodes[i]));
      const Leaves zt = leaves_of(z.mode(i)), zr = leaves_of(z.mode(rank + i));
      std::vector<int> seen(size_of(amodes[i]), 0);
      for (Int t = 0; t < size_of(tiles[i]); ++t)
        for (Int r = 0; r < size_of(rests[i]); ++r) {
          const Int x = ref_eval(tiles[i], t) + ref_eval(rests[i], r);  // (T, T*)(t, r)
          ++seen[x];
          ok &= ref_eval(zt, t) + ref_eval(zr, r) == ref_eval(amodes[i], x);
          ++points;
        }
      // (T, T*) re-indexes mode i bijectively: the divide is the same function
      // as A up to that permutation of its domain.
      ok &= std::all_of(seen.begin(), seen.end(), [](int h) { return h == 1; });
    }
    CHECK(ok);
    ++cases;
  }
  MESSAGE("zipped_divide: " << cases << " (layout, tiler) pairs, " << points << " points");
}

TEST_CASE("zipped_divide: CuTe documented examples") {
  // NVIDIA/cutlass media/docs/cpp/cute/02_layout_algebra.md, "Logical Divide
  // 1-D Example": (4,2,3):(2,1,8) divided by 4:2 is ((2,2),(2,3)):((4,1),(2,8)).
  {
    const Layout z = zipped_divide(Layout{Mode{{4, 2, 3}, {2, 1, 8}}}, Layout{Mode{{4}, {2}}});
    REQUIRE(z.rank() == 2);
    const Leaves t{{2, 4}, {2, 1}}, r{{2, 2}, {3, 8}};
    REQUIRE(z.size(0) == 4);
    REQUIRE(z.size(1) == 6);
    for (Int i = 0; i < 4; ++i) CHECK(z.mode(0)(i) == ref_eval(t, i));
    for (Int i = 0; i < 6; ++i) CHECK(z.mode(1)(i) == ref_eval(r, i));
  }
  // "Logical Divide 2-D Example" / "Zipped ... Divides": A = (9,(4,8)):(59,(13,1)),
  // tiler <3:3, (2,4):(1,8)>: the tile is (3,(2,4)):(177,(13,2)), the
  // zipped shape ((3,8),(3,4)).
  {
    const Layout a{Mode{{9}, {59}}, Mode{{4, 8}, {13, 1}}};
    const Layout z = zipped_divide(a, Layout{Mode{{3}, {3}}, Mode{{2, 4}, {1, 8}}});
    REQUIRE(z.rank() == 4);
    CHECK(z.size(0) == 3);
    CHECK(z.size(1) == 8);
    CHECK(z.size(2) == 3);
    CHECK(z.size(3) == 4);
    const Leaves t0{{3, 177}}, t1{{2, 13}, {4, 2}};
    for (Int i = 0; i < 3; ++i) CHECK(z.mode(0)(i) == ref_eval(t0, i));
    for (Int i = 0; i < 8; ++i) CHECK(z.mode(1)(i) == ref_eval(t1, i));
  }
}

// ========================================================== blocked_product ==

TEST_CASE("blocked_product: mode i is (atom_i, tiler_i scaled by size(atom)), pointwise") {
  // CuTe (same document, "Product"): logical_product(A, B) = (A, A* o B) with
  // A* = complement(A, size(A)·cosize(B)); blocked_product re-associates the
  // modes. For a compact atom (a bijection onto [0, size A)), A* is
  // cosize(B):size(A), so mode i maps (a, b) to A_i(a) + size(A)·B_i(b).
  Rng rng = make_rng(8);
  INFO("seed " << test_seed());
  int cases = 0;
  long points = 0;
  for (int n = 0; n < 2000; ++n) {
    const int rank = static_cast<int>(uniform(rng, 1, 3));
    // Atom: a compact layout with a random leaf order, `rank` modes.
    std::vector<Int> radix(uniform(rng, rank, rank + 3));
    Int N = 1;
    for (Int& r : radix) r = uniform(rng, 2, 4), N *= r;
    if (N > 256) continue;
    std::vector<int> order(radix.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    Leaves al(radix.size());
    Int s = 1;
    for (int k : order) al[k] = {radix[k], s}, s *= radix[k];
    const std::vector<Leaves> amodes = split_groups(rng, al, rank);
    // Tiler: any small layout of the same rank (compact ones half the time).
    std::vector<Leaves> bmodes(rank);
    const bool compact_tiler = coin(rng, 0.5);
    Int bs = 1;
    for (Leaves& m : bmodes)
      for (int j = 0, k = static_cast<int>(uniform(rng, 1, 2)); j < k; ++j) {
        m.push_back({uniform(rng, 1, 4), compact_tiler ? bs : uniform(rng, 0, 9)});
        bs *= m.back().shape;
      }
    const Layout atom = layout_of(amodes), tiler = layout_of(bmodes);
    INFO("atom = " << to_string(atom) << "  tiler = " << to_string(tiler));

    const Layout p = blocked_product(atom, tiler);
    REQUIRE(p.rank() == rank);
    bool ok = true;
    for (int i = 0; i < rank; ++i) {
      const Int na = size_of(amodes[i]), nb = size_of(bmodes[i]);
      REQUIRE(p.size(i) == na * nb);
      const Leaves pl = leaves_of(p.mode(i));
      for (Int b = 0; b < nb; ++b)
        for (Int a = 0; a < na; ++a) {
          ok &= ref_eval(pl, a + na * b) == ref_eval(amodes[i], a) + N * ref_eval(bmodes[i], b);
          ++points;
        }
    }
    CHECK(ok);
    if (compact_tiler) {  // compact atom, compact tiler: a bijection onto [0, N·size(B))
      const Leaves all = leaves_of(p);
      std::vector<int> seen(p.size(), 0);
      bool in_range = true;
      for (Int i = 0; i < p.size(); ++i) {
        const Int v = ref_eval(all, i);
        if (v < 0 || v >= p.size()) in_range = false;
        else ++seen[v];
      }
      CHECK(in_range);
      CHECK(std::all_of(seen.begin(), seen.end(), [](int h) { return h == 1; }));
    }
    ++cases;
  }
  MESSAGE("blocked_product: " << cases << " (atom, tiler) pairs, " << points << " points");
}

TEST_CASE("blocked_product: CuTe documented 1-D logical product") {
  // Same document, "Logical Product 1-D Example": A = (2,2):(4,1), B = 6:1:
  // A* = (2,3):(2,8), result ((2,2),(2,3)):((4,1),(2,8)).
  const Layout p = blocked_product(Layout{Mode{{2, 2}, {4, 1}}}, Layout{Mode{{6}, {1}}});
  REQUIRE(p.rank() == 1);
  const Leaves expect{{2, 4}, {2, 1}, {2, 2}, {3, 8}};
  REQUIRE(p.size() == 24);
  for (Int i = 0; i < 24; ++i) CHECK(p(i) == ref_eval(expect, i));
}

TEST_CASE("zipped_divide / blocked_product: tiler rank must match, naming the field") {
  const Layout a{Mode{{4}, {1}}, Mode{{4}, {4}}};
  expect_error([&] { (void)zipped_divide(a, Layout{Mode{{2}, {1}}}); }, "tiler rank");
  expect_error([&] { (void)blocked_product(a, Layout{Mode{{2}, {1}}}); }, "tiler rank");
}

// ==================================================== CuTe's unit tests ==
// CuTe's logical_divide(A, B) and logical_product(A, B) for a layout B treat
// A and B each as one function of its index: rank-1 zipped_divide and
// blocked_product of the flattened layouts, whose result holds CuTe's two
// modes (tile, rest) or (A, A* o B).

namespace {
struct DivideCase {
  const char* layout;
  const char* tile;
  // CuTe's stated result, where the test states one: the tile and the rest.
  const char* tile_result = nullptr;
  const char* rest_result = nullptr;
};

// CuTe test/unit/cute/core/logical_divide.cpp, TEST(CuTe_core, Logical_divide):
// every case, in its order; make_layout(shape) is column-major.
constexpr DivideCase kCuteDivideCases[] = {
    {"1:0", "1:0"},
    {"1:0", "1:1"},
    {"1:1", "1:0"},
    {"1:1", "1:1"},
    {"6:1", "2:1"},
    {"6:1", "2:3"},
    {"6:1", "(2,3):(3,1)"},
    {"6:2", "2:1"},
    {"6:2", "2:3"},
    {"6:2", "(2,3):(3,1)"},
    {"(6,6):(1,12)", "(6,3):(3,1)"},
    {"(6,6):(12,1)", "(6,3):(3,1)"},
    {"32:1", "2:8"},
    {"(4,1):(1,1)", "2:1"},
    {"(4,1):(1,1)", "2:2"},
    {"(8,8):(1,8)", "32:2"},
    {"(8,8):(8,1)", "32:2"},
    // "Dynamic", with the results its "Enforcement" assertions state
    {"2:1", "32:1", "32:1", "1:32"},
    {"48:1", "32:1", "32:1", "2:32"},
    {"96:1", "32:2"},
    {"32:1", "48:1", "48:1", "1:48"},
    {"(32,4,4):(1,32,128)", "64:1", "64:1", "(2,4):(64,128)"},
    // "ALLOWED, but dangerous due to the dynamic lhs shapes"
    {"(128,4,3):(1,512,0)", "32:1"},
    {"(128,4,3):(1,512,0)", "32:2"},
    {"(16,4,3):(1,512,0)", "32:1"},
};
}  // namespace

TEST_CASE("zipped_divide: CuTe's logical_divide unit-test cases, A o (B, complement(B, size A))") {
  // test_logical_divide checks rank(R) == 2 and compatible(B, R_0); here also
  // the function of both modes, from CuTe's definition (cute/layout.hpp,
  // logical_divide): R_0(i) == A(B(i)) and R_1(j) == A(B*(j)) with
  // B* = complement(B, size(A)), A evaluated as CuTe evaluates an index.
  for (const DivideCase& k : kCuteDivideCases) {
    const Layout a = cute_layout(k.layout), tile = cute_layout(k.tile);
    INFO(std::string(k.layout) << " / " << std::string(k.tile));
    const Layout whole_tile{flatten(tile)};
    const Layout z = zipped_divide(Layout{flatten(a)}, whole_tile);
    INFO("tcgen: " << to_string(z));
    REQUIRE(z.rank() == 2);
    CHECK(z.size(0) == tile.size());
    const Layout rest = complement(whole_tile, a.size());
    CHECK(z.size(1) == rest.size());
    const Leaves al = leaves_of(a);
    CHECK(first_mismatch(tile.size(), z.mode(0), [&](Int i) { return cute_eval(al, tile(i)); }) == -1);
    CHECK(first_mismatch(rest.size(), z.mode(1), [&](Int j) { return cute_eval(al, rest(j)); }) == -1);
    if (k.tile_result) {
      const Layout want_tile = cute_layout(k.tile_result), want_rest = cute_layout(k.rest_result);
      CHECK(z.size(0) == want_tile.size());
      CHECK(z.size(1) == want_rest.size());
      CHECK(first_mismatch(want_tile.size(), z.mode(0), want_tile) == -1);
      CHECK(first_mismatch(want_rest.size(), z.mode(1), want_rest) == -1);
    }
  }
}

namespace {
struct ProductCase {
  const char* a;
  const char* b;
};

// CuTe test/unit/cute/core/logical_product.cpp, TEST(CuTe_core, Logical_product):
// every case but the last, in its order; make_layout(shape) is column-major.
// 3:2 x 4:1 is listed twice (as Layout<_3,_2> and as make_layout), one row here.
constexpr ProductCase kCuteProductCases[] = {
    {"1:0", "1:0"},
    {"1:1", "1:0"},
    {"1:0", "1:1"},
    {"1:1", "1:1"},
    {"3:1", "4:0"},
    {"3:0", "4:1"},
    {"3:0", "4:0"},
    {"3:2", "4:1"},
    {"3:1", "(2,4):(1,2)"},
    {"(2,4):(1,2)", "3:1"},
    {"(8,(2,2)):(1,(8,16))", "4:2"},
    {"(2,2):(1,2)", "(3,3):(3,1)"},
    {"3:32", "32:1"},
    {"3:32", "128:1"},
    {"3:32", "(8,8):(1,8)"},
    {"3:32", "(8,8):(8,1)"},
    {"((4,2)):((1,16))", "(4,4):(1,4)"},
    {"((4,2)):((1,16))", "(4,2):(2,1)"},
    {"((2,2),(2,2)):((1,4),(8,32))", "(2,2):(1,2)"},
    {"((2,2),(2,2)):((1,4),(8,32))", "(2,2):(2,1)"},
};
}  // namespace

TEST_CASE("blocked_product: CuTe's logical_product unit-test cases, (A, complement(A, size A * cosize B) o B)") {
  // test_logical_product checks rank(R) == 2, A == layout<0>(R) and
  // compatible(B, layout<1>(R)). tcgen's one mode holds A's leaves first,
  // unchanged, then the placed B; its function is CuTe's definition
  // (cute/layout.hpp, logical_product): R(a + size(A)*b) == A(a) + A*(B(b))
  // with A* = complement(A, size(A)*cosize(B)).
  for (const ProductCase& k : kCuteProductCases) {
    const Layout a = cute_layout(k.a), b = cute_layout(k.b);
    INFO(std::string(k.a) << " x " << std::string(k.b));
    const Mode whole_a = flatten(a);
    const Layout p = blocked_product(Layout{whole_a}, Layout{flatten(b)});
    INFO("tcgen: " << to_string(p));
    REQUIRE(p.rank() == 1);
    CHECK(p.size() == a.size() * b.size());
    REQUIRE(p.mode(0).count >= whole_a.count);
    Mode first;
    for (int j = 0; j < whole_a.count; ++j) first.push(p.mode(0).shape[j], p.mode(0).stride[j]);
    CHECK(first == whole_a);
    const Leaves placed = leaves_of(complement(Layout{whole_a}, a.size() * b.cosize()));
    CHECK(first_mismatch(p.size(), p, [&](Int i) { return a(i % a.size()) + cute_eval(placed, b(i / a.size())); }) == -1);
  }
}

TEST_CASE("blocked_product: where CuTe's logical_product unit test and tcgen differ, tcgen refuses") {
  // The last case of logical_product.cpp, ((4,6)):((1,6)) x 3:1: the stride 6
  // is not a multiple of the extent 4 below it. CuTe's complement rounds
  // 6/4 down and answers; tcgen's complement refuses (see test_layout_complement).
  const Layout a = cute_layout("((4,6)):((1,6))");
  expect_error([&] { (void)blocked_product(a, cute_layout("3:1")); }, "complement stride");
}
