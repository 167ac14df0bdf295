// coalesce and coalesce_modes (tcgen/layout/algebra.hpp): the same function
// with the fewest leaves, over generated layouts; CuTe's documented examples;
// and the layouts of CuTe's own coalesce unit test.
#include "tcgen/layout/algebra.hpp"

#include <doctest/doctest.h>

#include <string>

#include "layout_algebra_helpers.hpp"

using namespace layout_test;

namespace {
// Only compiles if coalesce runs in constant evaluation.
// CuTe docs (NVIDIA/cutlass media/docs/cpp/cute/02_layout_algebra.md, "Coalesce"):
//   Layout<Shape<_2,Shape<_1,_6>>, Stride<_1,Stride<_6,_2>>> coalesces to _12:_1.
constexpr Layout kCoalesceDoc{Mode{{2}, {1}}, Mode{{1, 6}, {6, 2}}};
static_assert(coalesce(kCoalesceDoc).rank() == 1);
static_assert(coalesce(kCoalesceDoc).mode(0).count == 1);
static_assert(coalesce(kCoalesceDoc).mode(0).shape[0] == 12 && coalesce(kCoalesceDoc).mode(0).stride[0] == 1);
}  // namespace

TEST_CASE("coalesce: same function and size, fewest leaves, idempotent (random layouts)") {
  Rng rng = make_rng(1);
  INFO("seed " << test_seed());
  int layouts = 0;
  long points = 0;
  for (int n = 0; n < 3000; ++n) {
    const Layout l = random_layout(rng, 4096);
    const Leaves ref = leaves_of(l);
    const Layout c = coalesce(l);
    INFO("layout " << to_string(l) << " coalesced " << to_string(c));
    REQUIRE(c.rank() == 1);
    REQUIRE(c.size() == l.size());
    const Leaves cl = leaves_of(c);
    bool same = true;
    for (Int i = 0; i < l.size(); ++i) same &= ref_eval(cl, i) == ref_eval(ref, i);
    CHECK(same);
    points += l.size();
    // CuTe's rules: no extent-1 leaf (unless the whole layout is 1:0), and no
    // neighbours (s0,d0),(s1,d1) with d1 == s0*d0 left unmerged.
    if (l.size() == 1) {
      CHECK(same_leaves(c.mode(0), {{1, 0}}));
    } else {
      for (const Leaf& x : cl) CHECK(x.shape > 1);
      for (size_t j = 1; j < cl.size(); ++j) CHECK(cl[j].stride != cl[j - 1].shape * cl[j - 1].stride);
    }
    CHECK(coalesce(c) == c);

    // By-mode: rank kept, each mode the same function of its own index.
    const Layout cm = coalesce_modes(l);
    REQUIRE(cm.rank() == l.rank());
    for (int m = 0; m < l.rank(); ++m) {
      REQUIRE(cm.size(m) == l.size(m));
      const Leaves a = leaves_of(l.mode(m)), b = leaves_of(cm.mode(m));
      bool same_mode = true;
      for (Int i = 0; i < l.size(m); ++i) same_mode &= ref_eval(a, i) == ref_eval(b, i);
      CHECK(same_mode);
    }
    ++layouts;
  }
  MESSAGE("coalesce: " << layouts << " layouts, " << points << " points");
}

TEST_CASE("coalesce: CuTe documented examples") {
  // NVIDIA/cutlass media/docs/cpp/cute/02_layout_algebra.md, "Coalesce" and
  // "By-mode Coalesce": (2,(1,6)):(1,(6,2)) -> 12:1; by mode -> (2,6):(1,2).
  const Layout a{Mode{{2}, {1}}, Mode{{1, 6}, {6, 2}}};
  CHECK(same_leaves(coalesce(a).mode(0), {{12, 1}}));
  const Layout bm = coalesce_modes(a);
  REQUIRE(bm.rank() == 2);
  CHECK(same_leaves(bm.mode(0), {{2, 1}}));
  CHECK(same_leaves(bm.mode(1), {{6, 2}}));
}

// CuTe test/unit/cute/core/coalesce.cpp, TEST(CuTe_core, Coalesce): every
// layout it lists, each checked as that test does: the result is flat
// (depth <= 1; tcgen: one mode of leaves), has the same size, and is the same
// function at every index. CuTe repeats (2,4,6) column- and row-major with
// one extent dynamic at a time; tcgen's extents are all values, so each is
// one row here. make_layout(shape) is column-major; GenRowMajor gives an
// extent-1 leaf stride 0 when the 1 is static, the next stride when dynamic.
constexpr const char* kCuteCoalesceCases[] = {
    "1:0",
    "1:1",
    "(2,4):(1,2)",              // make_layout((2,4))
    "(2,4,6):(1,2,8)",          // make_layout((2,4,6)), and its three dynamic variants
    "(2,1,6):(1,6,2)",
    "(2,1,6):(1,7,2)",          // the 7 is dynamic in CuTe
    "(2,1,6):(4,7,8)",
    "(2,4):(4,1)",              // (2,4) GenRowMajor
    "(2,4,6):(24,6,1)",         // (2,4,6) GenRowMajor, and its three dynamic variants
    "(2,1,3):(3,0,1)",          // (2,_1,3) GenRowMajor
    "(2,1,3):(3,3,1)",          // (2,1,3) GenRowMajor, the 1 dynamic
    "(2,1,3):(2,4,4)",
    "(2,1,3):(2,0,4)",
    "((2,2),(2,2)):((1,4),(8,32))",
};

TEST_CASE("coalesce: CuTe's unit-test layouts keep their size and function, flattened") {
  for (const char* text : kCuteCoalesceCases) {
    const Layout l = cute_layout(text);
    const Layout c = coalesce(l);
    INFO(std::string(text) << " coalesced " << to_string(c));
    REQUIRE(c.rank() == 1);
    REQUIRE(c.size() == l.size());
    CHECK(first_mismatch(l.size(), c, l) == -1);
  }
}
