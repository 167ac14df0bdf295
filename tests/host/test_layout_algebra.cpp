// Layout algebra (tcgen/layout/algebra.hpp): properties checked pointwise over
// many generated layouts, CuTe's documented examples, constexpr-ness, errors.
//
// Every expected value here comes from an evaluator written in this file
// (colexicographic index -> sum of coordinate·stride) or from a quoted
// document; none is copied from running the library.
//
// Random cases: the seed comes from std::random_device and is printed; set
// TCGEN_SEED=<n> to replay a run.
#include "tcgen/layout/algebra.hpp"

#include <doctest/doctest.h>

#include "expect_error.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"

using namespace tcgen::layout;

namespace {

// ---------------------------------------------------------------- helpers --

struct Leaf {
  Int shape, stride;
};
using Leaves = std::vector<Leaf>;

// All leaves of a layout, mode 0 first, leaf 0 of each mode first.
Leaves leaves_of(const Layout& l) {
  Leaves out;
  for (int m = 0; m < l.rank(); ++m)
    for (int j = 0; j < l.mode(m).count; ++j) out.push_back({l.mode(m).shape[j], l.mode(m).stride[j]});
  return out;
}
Leaves leaves_of(const Mode& m) {
  Leaves out;
  for (int j = 0; j < m.count; ++j) out.push_back({m.shape[j], m.stride[j]});
  return out;
}
Int size_of(const Leaves& ls) {
  Int n = 1;
  for (const Leaf& l : ls) n *= l.shape;
  return n;
}

// The reference evaluator: x in [0, size) split colexicographically over the
// leaves (leaf 0 fastest), offset = sum of digit·stride.
Int ref_eval(const Leaves& ls, Int x) {
  Int off = 0;
  for (const Leaf& l : ls) {
    off += (x % l.shape) * l.stride;
    x /= l.shape;
  }
  return off;
}
// The same with the last leaf of extent > 1 unbounded: CuTe's extension of A
// beyond size(A) that composition uses ("the last leaf of A extends").
Int ref_eval_ext(const Leaves& ls, Int x) {
  int last = -1;
  for (int j = 0; j < static_cast<int>(ls.size()); ++j)
    if (ls[j].shape > 1) last = j;
  Int off = 0;
  for (int j = 0; j <= last; ++j) {
    if (j == last) return off + x * ls[j].stride;
    off += (x % ls[j].shape) * ls[j].stride;
    x /= ls[j].shape;
  }
  return off;  // every leaf has extent 1: the constant 0
}

Mode mode_of(const Leaves& ls) {
  Mode m;
  for (const Leaf& l : ls) m.push(l.shape, l.stride);
  return m;
}
Layout layout_of(const std::vector<Leaves>& modes) {
  Layout l;
  for (const Leaves& m : modes) l.push(mode_of(m));
  return l;
}

// Same shapes and strides, leaf by leaf (ignores the unused array slots).
bool same_leaves(const Mode& a, const Leaves& b) {
  if (a.count != static_cast<int>(b.size())) return false;
  for (int j = 0; j < a.count; ++j)
    if (a.shape[j] != b[j].shape || a.stride[j] != b[j].stride) return false;
  return true;
}

using Rng = std::mt19937_64;

std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("TCGEN_SEED")) return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 10));
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }();
  return seed;
}
Rng make_rng(std::uint64_t salt) {
  static const bool printed = [] {
    std::printf("test_layout_algebra: seed %llu (replay with TCGEN_SEED=%llu)\n",
                static_cast<unsigned long long>(test_seed()), static_cast<unsigned long long>(test_seed()));
    return true;
  }();
  (void)printed;
  return Rng(test_seed() ^ (salt * 0x9E3779B97F4A7C15ull));
}
Int uniform(Rng& rng, Int lo, Int hi) { return std::uniform_int_distribution<Int>(lo, hi)(rng); }
bool coin(Rng& rng, double p) { return std::bernoulli_distribution(p)(rng); }

// Split a list into `parts` non-empty consecutive groups (parts <= size).
template <class T>
std::vector<std::vector<T>> split_groups(Rng& rng, const std::vector<T>& v, int parts) {
  std::vector<std::vector<T>> out(parts);
  std::vector<int> cuts;  // parts-1 distinct cut points in [1, size)
  std::vector<int> all(v.size() > 0 ? v.size() - 1 : 0);
  std::iota(all.begin(), all.end(), 1);
  std::shuffle(all.begin(), all.end(), rng);
  cuts.assign(all.begin(), all.begin() + (parts - 1));
  std::sort(cuts.begin(), cuts.end());
  int g = 0;
  for (int i = 0; i < static_cast<int>(v.size()); ++i) {
    if (g < parts - 1 && i == cuts[g]) ++g;
    out[g].push_back(v[i]);
  }
  return out;
}

// An arbitrary layout: rank 1-4, 1-3 leaves per mode (at most max_leaves in
// all), extents 1-6, strides that are 0, random, or the product of the
// previous leaf (a mergeable pair).
Layout random_layout(Rng& rng, Int max_size, int max_leaves = 12) {
  for (;;) {
    std::vector<Leaves> modes(uniform(rng, 1, std::min(4, max_leaves)));
    Leaf prev{1, 1};
    int budget = max_leaves - static_cast<int>(modes.size());  // leaves beyond one per mode
    for (Leaves& m : modes) {
      const int n = static_cast<int>(uniform(rng, 1, 1 + std::min(2, budget)));
      budget -= n - 1;
      for (int j = 0; j < n; ++j) {
        Leaf l{uniform(rng, 1, 6), 0};
        const Int kind = uniform(rng, 0, 9);
        l.stride = kind == 0 ? 0 : kind <= 3 ? prev.shape * prev.stride : uniform(rng, 1, 40);
        m.push_back(l);
        prev = l;
      }
    }
    Layout l = layout_of(modes);
    if (l.size() <= max_size) return l;
  }
}

// Random ordered factorization of n into factors > 1 (empty for n == 1).
std::vector<Int> random_factors(Rng& rng, Int n) {
  std::vector<Int> primes;
  for (Int p = 2; n > 1; ++p)
    while (n % p == 0) primes.push_back(p), n /= p;
  std::shuffle(primes.begin(), primes.end(), rng);
  std::vector<Int> out;
  for (Int p : primes) {
    if (!out.empty() && coin(rng, 0.4)) out.back() *= p;
    else out.push_back(p);
  }
  return out;
}

// Digit runs: a mixed-radix index space cut into consecutive runs. A run of
// digits [b, e) is the leaf (prod radix[b..e), prod radix[0..b)).
struct Run {
  int begin, end;
};
Leaf run_leaf(const std::vector<Int>& radix, Run r) {
  Int stride = 1, shape = 1;
  for (int k = 0; k < r.begin; ++k) stride *= radix[k];
  for (int k = r.begin; k < r.end; ++k) shape *= radix[k];
  return {shape, stride};
}
std::vector<Run> random_runs(Rng& rng, int digits) {
  std::vector<Run> runs;
  for (int b = 0; b < digits;) {
    const int e = static_cast<int>(uniform(rng, b + 1, std::min(digits, b + 3)));
    runs.push_back({b, e});
    b = e;
  }
  return runs;
}

// -------------------------------------------------- constexpr evaluations --
// These only compile if the algebra runs in constant evaluation.

// CuTe docs (NVIDIA/cutlass media/docs/cpp/cute/02_layout_algebra.md, "Coalesce"):
//   Layout<Shape<_2,Shape<_1,_6>>, Stride<_1,Stride<_6,_2>>> coalesces to _12:_1.
constexpr Layout kCoalesceDoc{Mode{{2}, {1}}, Mode{{1, 6}, {6, 2}}};
static_assert(coalesce(kCoalesceDoc).rank() == 1);
static_assert(coalesce(kCoalesceDoc).mode(0).count == 1);
static_assert(coalesce(kCoalesceDoc).mode(0).shape[0] == 12 && coalesce(kCoalesceDoc).mode(0).stride[0] == 1);

// Same document, "Composition": A = (6,2):(8,2), B = (4,3):(3,1), with the
// table R(0..11) = 0 24 2 26 8 32 10 34 16 40 18 42.
constexpr Layout kDocA{Mode{{6}, {8}}, Mode{{2}, {2}}};
constexpr Layout kDocB{Mode{{4}, {3}}, Mode{{3}, {1}}};
constexpr std::array<Int, 12> kDocR{0, 24, 2, 26, 8, 32, 10, 34, 16, 40, 18, 42};
constexpr bool composition_doc_table() {
  const Layout r = composition(kDocA, kDocB);
  if (r.size() != 12) return false;
  for (Int i = 0; i < 12; ++i)
    if (r(i) != kDocR[i]) return false;
  return true;
}
static_assert(composition_doc_table());

// Same document, "Complement Examples": complement(4:2, 24) is (2,3):(1,8).
constexpr Layout kComp = complement(Layout{Mode{{4}, {2}}}, 24);
static_assert(kComp.size() == 6 && kComp(0) == 0 && kComp(1) == 1 && kComp(2) == 8 && kComp(5) == 17);

// Inverse of (2,3):(3,1) (row-major 2x3): R(L(i)) == i for all six i.
constexpr bool inverse_round_trip() {
  const Layout l{Mode{{2}, {3}}, Mode{{3}, {1}}};
  const Layout r = inverse(l);
  for (Int i = 0; i < 6; ++i)
    if (r(l(i)) != i || l(r(i)) != i) return false;
  return true;
}
static_assert(inverse_round_trip());

// make_compact with order {1,0} is row-major: (4,3):(3,1).
static_assert(make_compact<2>({4, 3}, {1, 0})(1, 0) == 3 && make_compact<2>({4, 3}, {1, 0})(0, 1) == 1);

}  // namespace

// ================================================================= coalesce ==

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

// ============================================================== composition ==

TEST_CASE("composition: (A o B)(i) == A(B(i)) for generated compatible pairs") {
  // A: arbitrary leaves and strides. B: leaves that are runs of a mixed-radix
  // refinement of A's shapes (so every stride and extent divides A's
  // shapes as CuTe's divisibility conditions require) and whose images never
  // carry into each other, shuffled, with stride-0 and extent-1 leaves mixed
  // in; optionally a digit above size(A) (A's last leaf extends).
  Rng rng = make_rng(3);
  INFO("seed " << test_seed());
  int pairs = 0, extended = 0;
  long points = 0;
  for (int n = 0; n < 4000; ++n) {
    const Layout a = random_layout(rng, 512, 5);
    const Leaves al = leaves_of(a);
    std::vector<Int> radix;
    for (const Leaf& l : al)
      for (Int f : random_factors(rng, l.shape)) radix.push_back(f);
    const bool overflow = !radix.empty() && coin(rng, 0.3);
    if (overflow) radix.push_back(uniform(rng, 2, 4));
    Leaves bl;
    for (Run r : random_runs(rng, static_cast<int>(radix.size())))
      if (coin(rng, 0.8)) bl.push_back(run_leaf(radix, r));
    if (coin(rng, 0.3)) bl.push_back({uniform(rng, 2, 3), 0});
    if (coin(rng, 0.3)) bl.push_back({1, uniform(rng, 0, 50)});
    if (bl.empty()) bl.push_back({1, 0});
    std::shuffle(bl.begin(), bl.end(), rng);
    // At most 4 leaves per mode of B keeps every mode of the result within
    // kMaxLeaves (a leaf of B crossing k leaves of A becomes k leaves).
    const Int nb = static_cast<Int>(bl.size());
    const int rank = static_cast<int>(uniform(rng, (nb + 3) / 4, std::min<Int>(4, nb)));
    const Layout b = layout_of(split_groups(rng, bl, rank));
    INFO("A = " << to_string(a) << "  B = " << to_string(b));

    Layout r;
    REQUIRE_NOTHROW(r = composition(a, b));
    REQUIRE(r.rank() == b.rank());
    for (int m = 0; m < b.rank(); ++m) CHECK(r.size(m) == b.size(m));  // compatible(B, R)
    const Leaves rl = leaves_of(r), blv = leaves_of(b);
    bool ok = true;
    for (Int i = 0; i < b.size(); ++i) {
      const Int bi = ref_eval(blv, i);
      const Int expect = bi < a.size() ? ref_eval(al, bi) : ref_eval_ext(al, bi);
      ok &= ref_eval(rl, i) == expect;
    }
    CHECK(ok);
    ++pairs;
    extended += overflow;
    points += b.size();
  }
  MESSAGE("composition: " << pairs << " compatible pairs (" << extended << " past size(A)), " << points << " points");
}

TEST_CASE("composition: any single leaf s:d either throws tcgen::Error or is exact") {
  // For one leaf of B there are no carries between leaves, so a result that
  // is returned must be A(d*i) for every i < s (A extended past its size).
  Rng rng = make_rng(4);
  INFO("seed " << test_seed());
  int ok_pairs = 0, rejected = 0;
  for (int n = 0; n < 20000; ++n) {
    const Layout a = random_layout(rng, 1024);
    const Int s = uniform(rng, 1, 12), d = uniform(rng, 0, 30);
    const Layout b{Mode{{s}, {d}}};
    INFO("A = " << to_string(a) << "  B = " << s << ":" << d);
    try {
      const Layout r = composition(a, b);
      REQUIRE(r.size() == s);
      const Leaves al = leaves_of(a), rl = leaves_of(r);
      bool ok = true;
      for (Int i = 0; i < s; ++i) ok &= ref_eval(rl, i) == ref_eval_ext(al, d * i);
      CHECK(ok);
      ++ok_pairs;
    } catch (const tcgen::Error& e) {
      CHECK(std::string(e.field()).rfind("composition", 0) == 0);
      ++rejected;
    }
  }
  MESSAGE("single-leaf composition: " << ok_pairs << " computed, " << rejected << " rejected");
  CHECK(ok_pairs > 1000);
  CHECK(rejected > 100);
}

TEST_CASE("composition: CuTe documented examples") {
  // NVIDIA/cutlass media/docs/cpp/cute/02_layout_algebra.md, "Composition".
  SUBCASE("(6,2):(8,2) o (4,3):(3,1) = ((2,2),3):((24,2),8), table R(0..11)") {
    const Layout r = composition(kDocA, kDocB);
    REQUIRE(r.rank() == 2);
    for (Int i = 0; i < 12; ++i) CHECK(r(i) == kDocR[i]);
    const Layout c = coalesce_modes(r);
    CHECK(same_leaves(c.mode(0), {{2, 24}, {2, 2}}));
    CHECK(same_leaves(c.mode(1), {{3, 8}}));
  }
  SUBCASE("Example 2: 20:2 o (5,4):(4,1) = (5,4):(8,2)") {
    const Layout r = composition(Layout{Mode{{20}, {2}}}, Layout{Mode{{5}, {4}}, Mode{{4}, {1}}});
    const Layout c = coalesce_modes(r);
    CHECK(same_leaves(c.mode(0), {{5, 8}}));
    CHECK(same_leaves(c.mode(1), {{4, 2}}));
  }
  SUBCASE("Example 3: (10,2):(16,4) o (5,4):(1,5) = (5,(2,2)):(16,(80,4))") {
    const Layout r = composition(Layout{Mode{{10, 2}, {16, 4}}}, Layout{Mode{{5}, {1}}, Mode{{4}, {5}}});
    const Layout c = coalesce_modes(r);
    CHECK(same_leaves(c.mode(0), {{5, 16}}));
    CHECK(same_leaves(c.mode(1), {{2, 80}, {2, 4}}));
  }
  SUBCASE("(3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9w,3x,y,z)") {
    const Int w = 1, x = 5, y = 7, z = 11;
    const Layout r = composition(Layout{Mode{{3, 6, 2, 8}, {w, x, y, z}}}, Layout{Mode{{16}, {9}}});
    const Leaves expect{{1, 9 * w}, {2, 3 * x}, {2, y}, {4, z}};
    for (Int i = 0; i < 16; ++i) CHECK(r(i) == ref_eval(expect, i));
  }
  SUBCASE("By-mode: (12,(4,8)):(59,(13,1)) with <3:4, 8:2> = (3,(2,4)):(236,(26,1))") {
    const Layout m0 = composition(Layout{Mode{{12}, {59}}}, Layout{Mode{{3}, {4}}});
    const Layout m1 = composition(Layout{Mode{{4, 8}, {13, 1}}}, Layout{Mode{{8}, {2}}});
    CHECK(same_leaves(coalesce(m0).mode(0), {{3, 236}}));
    CHECK(same_leaves(coalesce(m1).mode(0), {{2, 26}, {4, 1}}));
  }
}

TEST_CASE("composition: a stride or extent that does not divide throws, naming the field") {
  const Layout a{Mode{{4, 3}, {1, 10}}};
  // 3 falls inside the extent 4 and does not divide it.
  expect_error([&] { (void)composition(a, Layout{Mode{{2}, {3}}}); }, "composition stride");
  // 6 crosses the extent 4 and is not a multiple of it.
  expect_error([&] { (void)composition(a, Layout{Mode{{2}, {6}}}); }, "composition stride");
  // 3 elements of stride 1 do not divide the extent 4.
  expect_error([&] { (void)composition(a, Layout{Mode{{3}, {1}}}); }, "composition shape");
  // 6 elements of stride 1 span the 4 and then 6/4 is not whole.
  expect_error([&] { (void)composition(a, Layout{Mode{{6}, {1}}}); }, "composition shape");
}

// =============================================================== complement ==

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

// ================================================================== inverse ==

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

// ============================================================ zipped_divide ==

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

// ============================================================= make_compact ==

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
