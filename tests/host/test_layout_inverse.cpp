// inverse (tcgen/layout/algebra.hpp): for a bijection L of [0, size), the
// layout R with L(R(x)) == x and R(L(i)) == i, over generated bijections; the
// error for anything else; and the layouts of CuTe's own right- and
// left-inverse unit tests.
#include "tcgen/layout/algebra.hpp"

#include <doctest/doctest.h>

#include "expect_error.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "layout_algebra_helpers.hpp"

using namespace layout_test;

namespace {
// Only compiles if inverse runs in constant evaluation.
// Inverse of (2,3):(3,1) (row-major 2x3): R(L(i)) == i for all six i.
constexpr bool inverse_round_trip() {
  const Layout l{Mode{{2}, {3}}, Mode{{3}, {1}}};
  const Layout r = inverse(l);
  for (Int i = 0; i < 6; ++i)
    if (r(l(i)) != i || l(r(i)) != i) return false;
  return true;
}
static_assert(inverse_round_trip());
}  // namespace

TEST_CASE("inverse: L(R(x)) == x and R(L(i)) == i for random bijections") {
  // L: the leaves of a mixed-radix space in their own order, with the strides
  // of a compact layout whose leaf order is a random permutation; plus
  // extent-1 leaves with arbitrary strides.
  Rng rng = make_rng(6);
  INFO("seed " << test_seed());
  int cases = 0;
  long points = 0;
  for (int n = 0; n < 3000; ++n) {
    std::vector<Int> radix(uniform(rng, 1, 7));
    Int N = 1;
    for (Int& r : radix) r = uniform(rng, 2, 5), N *= r;
    if (N > 5000) continue;
    std::vector<int> order(radix.size());
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    Leaves ll(radix.size());
    Int s = 1;
    for (int k : order) ll[k] = {radix[k], s}, s *= radix[k];
    if (coin(rng, 0.3)) ll.insert(ll.begin() + uniform(rng, 0, ll.size()), Leaf{1, uniform(rng, 0, 99)});
    const Layout l = layout_of(split_groups(rng, ll, static_cast<int>(uniform(rng, 1, std::min<Int>(3, ll.size())))));
    INFO("L = " << to_string(l));

    // The generator's own claim: L is a bijection onto [0, N).
    std::vector<int> seen(N, 0);
    for (Int i = 0; i < N; ++i) ++seen[ref_eval(ll, i)];
    REQUIRE(std::all_of(seen.begin(), seen.end(), [](int h) { return h == 1; }));

    const Layout r = inverse(l);
    REQUIRE(r.size() == N);
    const Leaves rl = leaves_of(r);
    bool ok = true;
    for (Int x = 0; x < N; ++x) ok &= ref_eval(ll, ref_eval(rl, x)) == x;
    for (Int i = 0; i < N; ++i) ok &= ref_eval(rl, ref_eval(ll, i)) == i;
    CHECK(ok);
    ++cases;
    points += N;
  }
  MESSAGE("inverse: " << cases << " bijections, " << points << " points each way");
}

TEST_CASE("inverse: a layout that is not a bijection onto [0, size) throws, naming the field") {
  expect_error([] { (void)inverse(Layout{Mode{{4}, {2}}}); }, "inverse");
  expect_error([] { (void)inverse(Layout{Mode{{2, 2}, {1, 1}}}); }, "inverse");
}

// ==================================================== CuTe's unit tests ==
// CuTe test/unit/cute/core/inverse_right.cpp, TEST(CuTe_core, Inverse_right),
// and test/unit/cute/core/inverse_left.cpp, TEST(CuTe_core, Inverse_left):
// both list the same layouts under "Simple tests" (inverse_right adds
// "Dynamic shapes/strides"; inverse_left has them commented out). tcgen has
// one inverse, of a bijection onto [0, size), which is then both CuTe's right
// and left inverse. Not expressible: the three "Swizzle layouts" of each file
// (a swizzle functor is not a tcgen layout).

namespace {
// The layouts of those tests that are bijections onto [0, size).
constexpr const char* kCuteBijections[] = {
    "1:0",
    "1:1",
    "((1,1)):((0,0))",
    "4:1",
    "(8,4):(1,8)",      // Layout<Shape<_8,_4>>, column-major
    "(8,4):(4,1)",
    "(2,4,6):(1,2,8)",  // Layout<Shape<_2,_4,_6>>, column-major
    "(2,4,6):(4,1,8)",
};
// inverse_right.cpp only, "Dynamic shapes/strides": each is listed three
// times with different extents dynamic, one row here.
constexpr const char* kCuteRightOnlyBijections[] = {
    "(4,2):(1,4)",
    "(2,4):(4,1)",
};
// The rest of both files' layouts: not bijections onto [0, size) (a stride 0,
// a gap, or offsets past size). CuTe returns the partial inverse there, which
// satisfies its check; tcgen refuses, naming the field "inverse". The last
// row is "BETA: Negative strides"; the one before is the deeply nested
// layout, its top-level entries as modes.
constexpr const char* kCuteNonBijections[] = {
    "((3,7)):((0,0))",
    "4:0",
    "4:2",
    "(2,4):(0,2)",
    "(2,4,4,6):(4,1,0,8)",
    "(4,2):(1,16)",
    "(4,2):(1,5)",
    "(128,128):(65536,1)",
    "(128,160):(65536,1)",
    "(128,3,160):(65536,512,1)",
    "(128,64):(131072,2)",
    "(32,4,4,4):(262144,4,8388608,1)",
    "(2,2,2):(4,0,1)",
    "(((((32,4),1),(32,2)),4),1,(2,2),2):(((((262144,4),0),(0,1)),8388608),0,(2,16),32)",
    "4:-1",
};

// test_right_inverse: L(R(i)) == i for every i < size(R); for a bijection
// CuTe's right inverse has size(L).
void check_right_inverse_as_cute(const char* text) {
  const Layout l = cute_layout(text);
  const Layout r = inverse(l);
  INFO(std::string(text) << " ^-1 = " << to_string(r));
  CHECK(r.size() == l.size());
  CHECK(first_mismatch(r.size(), [&](Int i) { return l(r(i)); }, [](Int i) { return i; }) == -1);
}
// test_left_inverse: L(R(L(i))) == L(i) for every i < size(L).
void check_left_inverse_as_cute(const char* text) {
  const Layout l = cute_layout(text);
  const Layout r = inverse(l);
  INFO(std::string(text) << " ^-1 = " << to_string(r));
  CHECK(first_mismatch(l.size(), [&](Int i) { return l(r(l(i))); }, l) == -1);
}
}  // namespace

TEST_CASE("inverse: CuTe's unit-test bijections, right inverse L(R(i)) == i") {
  for (const char* text : kCuteBijections) check_right_inverse_as_cute(text);
  for (const char* text : kCuteRightOnlyBijections) check_right_inverse_as_cute(text);
}

TEST_CASE("inverse: CuTe's unit-test bijections, left inverse L(R(L(i))) == L(i)") {
  for (const char* text : kCuteBijections) check_left_inverse_as_cute(text);
}

TEST_CASE("inverse: CuTe's unit-test layouts that are not bijections, tcgen refuses") {
  for (const char* text : kCuteNonBijections) {
    const Layout l = cute_layout(text);
    INFO(std::string(text));
    expect_error([&] { (void)inverse(l); }, "inverse");
  }
}
