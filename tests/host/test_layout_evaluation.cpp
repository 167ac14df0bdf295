// Layout values (tcgen/layout/layout.hpp) and make_compact (algebra.hpp):
// evaluation and cosize against the colexicographic reference of
// layout_algebra_helpers.hpp, over generated layouts; and that helper file's
// reading of CuTe's notation, which the other layout tests build their cases
// from.
#include "tcgen/layout/algebra.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "layout_algebra_helpers.hpp"

using namespace layout_test;

// Only compiles if make_compact runs in constant evaluation. Order {1,0} is
// row-major: (4,3):(3,1).
static_assert(make_compact<2>({4, 3}, {1, 0})(1, 0) == 3 && make_compact<2>({4, 3}, {1, 0})(0, 1) == 1);

TEST_CASE("Layout evaluation agrees with the colexicographic reference") {
  Rng rng = make_rng(2);
  INFO("seed " << test_seed());
  for (int n = 0; n < 500; ++n) {
    const Layout l = random_layout(rng, 2048);
    const Leaves ref = leaves_of(l);
    INFO(to_string(l));
    bool ok = true;
    for (Int i = 0; i < l.size(); ++i) ok &= l(i) == ref_eval(ref, i);
    CHECK(ok);
    Int hi = 0;
    for (Int i = 0; i < l.size(); ++i) hi = std::max(hi, ref_eval(ref, i));
    CHECK(l.cosize() == hi + 1);
    if (l.rank() == 2) {
      for (Int i0 = 0; i0 < l.size(0); ++i0)
        for (Int i1 = 0; i1 < l.size(1); ++i1)
          CHECK(l(i0, i1) == ref_eval(leaves_of(l.mode(0)), i0) + ref_eval(leaves_of(l.mode(1)), i1));
    }
  }
}

TEST_CASE("cute_layout reads CuTe's notation: top-level entries are modes, deeper nesting flattens") {
  CHECK(cute_layout("4:2") == Layout{Mode{{4}, {2}}});
  CHECK(cute_layout("(4,3):(3,1)") == Layout{Mode{{4}, {3}}, Mode{{3}, {1}}});
  CHECK(cute_layout("((2,2),8):((1,16),-2)") == Layout{Mode{{2, 2}, {1, 16}}, Mode{{8}, {-2}}});
  CHECK(cute_layout("(((2,3),4),5):(((1,2),6),24)") == Layout{Mode{{2, 3, 4}, {1, 2, 6}}, Mode{{5}, {24}}});
  CHECK(to_string(cute_layout("((8,16),8):((64,1),1)")) == "((8,16),8):((64,1),1)");
  CHECK_THROWS_AS((void)cute_layout("(4,3):(3)"), std::invalid_argument);    // not congruent
  CHECK_THROWS_AS((void)cute_layout("((4,3)):(3,1)"), std::invalid_argument);  // not congruent
  CHECK_THROWS_AS((void)cute_layout("(4,3:(3,1)"), std::invalid_argument);   // unbalanced
  CHECK_THROWS_AS((void)cute_layout("4"), std::invalid_argument);            // no stride
  CHECK_THROWS_AS((void)cute_layout("4:x"), std::invalid_argument);          // not an integer
}

namespace {
template <std::size_t R>
void check_make_compact(Rng& rng, int& cases) {
  for (int n = 0; n < 200; ++n) {
    std::array<Int, R> ext{};
    std::array<int, R> order{};
    Int total = 1;
    for (std::size_t i = 0; i < R; ++i) ext[i] = uniform(rng, 1, 5), total *= ext[i];
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.end(), rng);
    const Layout l = make_compact<R>(ext, order);
    INFO("rank " << R << " layout " << to_string(l));
    REQUIRE(l.rank() == static_cast<int>(R));
    for (std::size_t i = 0; i < R; ++i) REQUIRE(l.size(static_cast<int>(i)) == ext[i]);
    std::vector<int> seen(total, 0);
    bool ok = true;
    for (Int idx = 0; idx < total; ++idx) {
      std::array<Int, R> c{};  // coordinates, mode 0 fastest
      Int x = idx;
      for (std::size_t i = 0; i < R; ++i) c[i] = x % ext[i], x /= ext[i];
      // Named order: mode order[0] moves by 1, order[1] by ext[order[0]], ...
      Int expect = 0, scale = 1;
      for (std::size_t k = 0; k < R; ++k) expect += c[order[k]] * scale, scale *= ext[order[k]];
      const Int got = ref_eval(leaves_of(l), idx);
      ok &= got == expect;
      if (got >= 0 && got < total) ++seen[got];
    }
    CHECK(ok);
    CHECK(std::all_of(seen.begin(), seen.end(), [](int h) { return h == 1; }));
    ++cases;
  }
}
}  // namespace

TEST_CASE("make_compact: a bijection onto [0, size) in the named mode order") {
  Rng rng = make_rng(9);
  INFO("seed " << test_seed());
  int cases = 0;
  check_make_compact<1>(rng, cases);
  check_make_compact<2>(rng, cases);
  check_make_compact<3>(rng, cases);
  check_make_compact<4>(rng, cases);
  MESSAGE("make_compact: " << cases << " (extents, order) cases");
  // CuTe's make_layout(shape) is column-major, order {0,1}: (4,3):(1,4).
  const Layout col = make_compact<2>({4, 3}, {0, 1});
  CHECK(same_leaves(col.mode(0), {{4, 1}}));
  CHECK(same_leaves(col.mode(1), {{3, 4}}));
}
