// complement (tcgen/layout/algebra.hpp): (A, complement(A, M)) tiles
// [0, M) for generated injective A; CuTe's documented examples; the nesting
// error; and the cases of CuTe's own complement unit test.
#include "tcgen/layout/algebra.hpp"

#include <doctest/doctest.h>

#include "expect_error.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "layout_algebra_helpers.hpp"

using namespace layout_test;

namespace {
// Only compiles if complement runs in constant evaluation.
// CuTe docs (NVIDIA/cutlass media/docs/cpp/cute/02_layout_algebra.md,
// "Complement Examples"): complement(4:2, 24) is (2,3):(1,8).
constexpr Layout kComp = complement(Layout{Mode{{4}, {2}}}, 24);
static_assert(kComp.size() == 6 && kComp(0) == 0 && kComp(1) == 1 && kComp(2) == 8 && kComp(5) == 17);
}  // namespace

TEST_CASE("complement: (A, complement(A, M)) is a bijection onto [0, M)") {
  // A injective: a subset of the runs of a mixed-radix space of size P, in
  // shuffled order; M a multiple of P. CuTe docs post-conditions (same
  // document, "Complement"): the result is ordered, R(i-1) < R(i), and
  // R(i) for i >= 1 is never an offset of A.
  Rng rng = make_rng(5);
  INFO("seed " << test_seed());
  int cases = 0, rounded = 0;
  for (int n = 0; n < 4000; ++n) {
    std::vector<Int> radix(uniform(rng, 1, 6));
    Int P = 1;
    for (Int& r : radix) r = uniform(rng, 2, 5), P *= r;
    if (P > 3000) continue;
    Leaves al;
    for (Run r : random_runs(rng, static_cast<int>(radix.size())))
      if (coin(rng, 0.5)) al.push_back(run_leaf(radix, r));
    if (coin(rng, 0.2)) al.push_back({1, uniform(rng, 0, 9)});
    if (al.empty()) al.push_back(run_leaf(radix, {0, 1}));
    std::shuffle(al.begin(), al.end(), rng);
    const Layout a = layout_of(split_groups(rng, al, static_cast<int>(uniform(rng, 1, std::min<Int>(2, al.size())))));
    const bool exact = coin(rng, 0.75);
    const Int M = exact ? P * uniform(rng, 1, 3) : P * uniform(rng, 0, 2) + uniform(rng, 1, P - 1);
    INFO("A = " << to_string(a) << "  M = " << M);

    const Layout c = complement(a, M);
    const Leaves cl = leaves_of(c);
    Leaves both = leaves_of(a);
    both.insert(both.end(), cl.begin(), cl.end());
    const Int total = size_of(both);
    // (A, complement) always tiles [0, total): complement rounds M up.
    std::vector<int> hits(total, 0);
    bool in_range = true;
    for (Int i = 0; i < total; ++i) {
      const Int v = ref_eval(both, i);
      if (v < 0 || v >= static_cast<Int>(hits.size())) in_range = false;
      else ++hits[v];
    }
    REQUIRE(in_range);
    CHECK(std::all_of(hits.begin(), hits.end(), [](int h) { return h == 1; }));  // injective, onto [0, total)
    if (exact) {
      CHECK(total == M);  // exactly [0, M)
    } else {
      CHECK(total >= M);
      ++rounded;
    }
    for (Int i = 1; i < c.size(); ++i) CHECK(ref_eval(cl, i - 1) < ref_eval(cl, i));
    ++cases;
  }
  MESSAGE("complement: " << cases << " cases (" << rounded << " with M not a multiple)");
}

TEST_CASE("complement: CuTe documented examples") {
  // NVIDIA/cutlass media/docs/cpp/cute/02_layout_algebra.md, "Complement Examples".
  auto check = [](const Layout& a, Int m, const Leaves& expect) {
    const Layout c = complement(a, m);
    INFO("complement(" << to_string(a) << ", " << m << ") = " << to_string(c));
    CHECK(c.size() == size_of(expect));
    for (Int i = 0; i < size_of(expect); ++i) CHECK(c(i) == ref_eval(expect, i));
  };
  check(Layout{Mode{{4}, {1}}}, 24, {{6, 4}});
  check(Layout{Mode{{6}, {4}}}, 24, {{4, 1}});
  check(Layout{Mode{{4, 6}, {1, 4}}}, 24, {{1, 0}});
  check(Layout{Mode{{4}, {2}}}, 24, {{2, 1}, {3, 8}});
  check(Layout{Mode{{2, 4}, {1, 6}}}, 24, {{3, 2}});
  check(Layout{Mode{{2, 2}, {1, 6}}}, 24, {{3, 2}, {2, 12}});
}

TEST_CASE("complement: strides that do not nest throw, naming the field") {
  // (2,3):(1,3): the stride 3 is not a multiple of the extent 2 below it.
  expect_error([] { (void)complement(Layout{Mode{{2, 3}, {1, 3}}}, 12); }, "complement stride");
}

// ===================================================== CuTe's unit test ==
// CuTe test/unit/cute/core/complement.cpp, TEST(CuTe_core, Complement).

namespace {
// CuTe's one-argument complement(layout), complement(layout, cosize(layout)).
constexpr Int kCosizeOfLayout = -1;

struct ComplementCase {
  const char* layout;
  std::vector<Int> cotargets;  // kCosizeOfLayout: the one-argument form
};

// Every (layout, cotarget) of that test that tcgen can express, in its order.
// A cotarget CuTe gives as a shape, (2,2) or (32,4,4), is its size here: the
// test's conditions only use size(cotarget). Rows CuTe lists twice, with
// static and with dynamic extents or strides, are one row: tcgen's extents
// are all values. Left out: the three layouts where tcgen refuses the
// strides, in the last test case below.
const std::vector<ComplementCase> kCuteComplementCases = {
    {"1:0", {kCosizeOfLayout, 2, 5, 4}},  // the last 4: the shape (2,2), here and below
    {"1:1", {kCosizeOfLayout, 2, 5, 4}},
    {"1:2", {1, 2, 8, 5, 4}},
    {"4:0", {1, 2, 8}},
    {"4:1", {1, 2, 8}},
    {"4:2", {1, kCosizeOfLayout, 16, 19, 4}},
    {"4:4", {1, kCosizeOfLayout, 17, 4}},
    {"(2,4):(1,2)", {kCosizeOfLayout}},  // Layout<Shape<_2,_4>>, column-major
    {"(2,3):(1,2)", {kCosizeOfLayout}},
    {"(2,4):(1,4)", {kCosizeOfLayout}},
    {"(2,4):(1,6)", {kCosizeOfLayout}},
    {"(2,4,8):(8,1,64)", {kCosizeOfLayout}},
    {"(2,4,8):(8,1,0)", {kCosizeOfLayout, 460}},
    {"((2,2),(2,2)):((1,4),(8,32))", {kCosizeOfLayout}},  // also with dynamic shapes
    {"((2,2),(2,2)):((1,32),(8,4))", {kCosizeOfLayout}},
    {"(4,2):(1,16)", {kCosizeOfLayout}},
    // "Dynamic shapes/strides"
    {"12:1", {1, kCosizeOfLayout, 53, 128}},  // make_layout(12) and make_layout(12, 1)
    {"12:2", {1, kCosizeOfLayout, 53, 128}},  // stride static and dynamic
    {"(3,6):(1,3)", {kCosizeOfLayout}},
    {"(3,6):(1,9)", {kCosizeOfLayout}},
    {"64:1", {128}},  // cotarget (32,4,4), with the last 4 static and dynamic
};

Int round_up(Int x, Int multiple) { return (x + multiple - 1) / multiple * multiple; }

// test_complement of that file: the numbered conditions are its own.
void check_complement_as_cute(const Layout& a, Int cotarget) {
  const Layout r = complement(a, cotarget);
  INFO("complement(" << to_string(a) << ", " << cotarget << ") = " << to_string(r));
  Layout completed = a;  // make_layout(layout, result)
  completed.push(r.mode(0));
  Int filtered_size = 1;  // size(filter(layout)): the leaves of non-zero stride
  for (const Leaf& l : leaves_of(a))
    if (l.stride != 0) filtered_size *= l.shape;

  CHECK(completed.cosize() >= cotarget);                         // (1) lower bound of the codomain
  CHECK(r.cosize() <= round_up(cotarget, a.cosize()));           // (2) upper bound of the complement's
  bool ordered = true, disjoint = true;
  for (Int i = 1; i < r.size(); ++i) {
    ordered &= r(i - 1) < r(i);                                  // (3)
    for (Int j = 0; j < a.size(); ++j) disjoint &= r(i) != a(j);  // (4)
  }
  CHECK(ordered);
  CHECK(disjoint);
  CHECK(r.size() <= r.cosize());
  CHECK(r.size() >= cotarget / filtered_size);
  CHECK(completed.cosize() <= r.cosize() + a.cosize());
  CHECK(r.cosize() >= cotarget / filtered_size);
  // CuTe checks the last two only when the layouts are static, which every
  // tcgen layout is: nothing of the codomain is left over, and complementing
  // the complement within cosize(layout) and back gives the complement.
  CHECK(complement(completed, completed.cosize()).size() == 1);
  const Layout back = complement(complement(r, a.cosize()), cotarget);
  CHECK(back.size() == r.size());
  CHECK(first_mismatch(r.size(), back, r) == -1);
}
}  // namespace

TEST_CASE("complement: CuTe's unit-test cases, ordered, disjoint and within CuTe's bounds") {
  for (const ComplementCase& k : kCuteComplementCases) {
    const Layout a = cute_layout(k.layout);
    for (Int cotarget : k.cotargets) check_complement_as_cute(a, cotarget == kCosizeOfLayout ? a.cosize() : cotarget);
  }
}

TEST_CASE("complement: where CuTe's unit test and tcgen differ, tcgen refuses the strides") {
  // CuTe divides a stride by the extent below it and rounds down; tcgen
  // requires the stride to be a multiple of that extent. For each layout,
  // with the cotarget cosize(layout): CuTe answers 1:0 for (4,6):(1,6), 2:4
  // for (4,2):(1,10) and 3:3 for (3,6):(1,10) (the last "Dynamic").
  for (const char* text : {"(4,6):(1,6)", "(4,2):(1,10)", "(3,6):(1,10)"}) {
    const Layout a = cute_layout(text);
    INFO(std::string(text));
    expect_error([&] { (void)complement(a, a.cosize()); }, "complement stride");
  }
}
