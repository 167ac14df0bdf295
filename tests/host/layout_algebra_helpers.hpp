#pragma once
// Shared by the layout algebra's tests (test_layout_*.cpp): reference
// evaluators written independently of tcgen::layout, generators of random
// layouts, and CuTe's printed notation as a way to write the cases ported
// from CuTe's unit tests.
//
// Every expected value in those tests comes from these evaluators or from a
// quoted document; none is copied from running the library.
//
// Random cases: the seed comes from std::random_device and is printed; set
// TCGEN_SEED=<n> to replay a run.
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "tcgen/layout/layout.hpp"

namespace layout_test {

using namespace tcgen::layout;

struct Leaf {
  Int shape, stride;
};
using Leaves = std::vector<Leaf>;

// All leaves of a layout, mode 0 first, leaf 0 of each mode first.
inline Leaves leaves_of(const Layout& l) {
  Leaves out;
  for (int m = 0; m < l.rank(); ++m)
    for (int j = 0; j < l.mode(m).count; ++j) out.push_back({l.mode(m).shape[j], l.mode(m).stride[j]});
  return out;
}
inline Leaves leaves_of(const Mode& m) {
  Leaves out;
  for (int j = 0; j < m.count; ++j) out.push_back({m.shape[j], m.stride[j]});
  return out;
}
inline Int size_of(const Leaves& ls) {
  Int n = 1;
  for (const Leaf& l : ls) n *= l.shape;
  return n;
}

// The reference evaluator: x in [0, size) split colexicographically over the
// leaves (leaf 0 fastest), offset = sum of digit·stride.
inline Int ref_eval(const Leaves& ls, Int x) {
  Int off = 0;
  for (const Leaf& l : ls) {
    off += (x % l.shape) * l.stride;
    x /= l.shape;
  }
  return off;
}
// The same with the last leaf of extent > 1 unbounded: tcgen's extension of A
// beyond size(A) that composition uses ("the last leaf of A extends").
inline Int ref_eval_ext(const Leaves& ls, Int x) {
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
// CuTe's layout(i) for an integer i (crd2idx, cute/stride.hpp): each leaf but
// the last takes i mod its extent, the last leaf takes the whole rest, even
// when its extent is 1. This is the A(B(c)) that CuTe's composition test
// compares against when B(c) reaches past size(A). Nesting does not change
// it: CuTe's inner modes take the same digits as their flattened leaves.
inline Int cute_eval(const Leaves& ls, Int x) {
  Int off = 0;
  for (std::size_t j = 0; j + 1 < ls.size(); ++j) {
    off += (x % ls[j].shape) * ls[j].stride;
    x /= ls[j].shape;
  }
  return ls.empty() ? off : off + x * ls.back().stride;
}

inline Mode mode_of(const Leaves& ls) {
  Mode m;
  for (const Leaf& l : ls) m.push(l.shape, l.stride);
  return m;
}
inline Layout layout_of(const std::vector<Leaves>& modes) {
  Layout l;
  for (const Leaves& m : modes) l.push(mode_of(m));
  return l;
}

// Same shapes and strides, leaf by leaf (ignores the unused array slots).
inline bool same_leaves(const Mode& a, const Leaves& b) {
  if (a.count != static_cast<int>(b.size())) return false;
  for (int j = 0; j < a.count; ++j)
    if (a.shape[j] != b[j].shape || a.stride[j] != b[j].stride) return false;
  return true;
}

// The first i in [0, size) with got(i) != want(i), or -1 when there is none:
// one CHECK per case that still names the point where two functions part.
template <class Got, class Want>
Int first_mismatch(Int size, Got&& got, Want&& want) {
  for (Int i = 0; i < size; ++i)
    if (got(i) != want(i)) return i;
  return -1;
}

// ------------------------------------------------------- CuTe's notation --

namespace detail {
// An integer or a parenthesized, comma-separated list of IntTuples.
struct IntTuple {
  Int value = 0;
  std::vector<IntTuple> items;  // empty for an integer
};
inline bool consume(std::string_view& s, char c) {
  if (s.empty() || s.front() != c) return false;
  s.remove_prefix(1);
  return true;
}
inline IntTuple parse_int_tuple(std::string_view& s) {
  IntTuple t;
  if (consume(s, '(')) {
    do t.items.push_back(parse_int_tuple(s));
    while (consume(s, ','));
    if (!consume(s, ')')) throw std::invalid_argument("CuTe notation: expected ')' before \"" + std::string(s) + "\"");
    return t;
  }
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), t.value);
  if (ec != std::errc()) throw std::invalid_argument("CuTe notation: expected an integer at \"" + std::string(s) + "\"");
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return t;
}
inline IntTuple parse_whole(std::string_view s) {
  const IntTuple t = parse_int_tuple(s);
  if (!s.empty()) throw std::invalid_argument("CuTe notation: unexpected \"" + std::string(s) + "\"");
  return t;
}
// The leaves of congruent shape and stride tuples, in order, into one mode.
inline void push_leaves(const IntTuple& shape, const IntTuple& stride, Mode& out) {
  if (shape.items.size() != stride.items.size())
    throw std::invalid_argument("CuTe notation: shape and stride are not congruent");
  if (shape.items.empty()) {
    out.push(shape.value, stride.value);
    return;
  }
  for (std::size_t i = 0; i < shape.items.size(); ++i) push_leaves(shape.items[i], stride.items[i], out);
}
}  // namespace detail

// A layout written as CuTe prints it, "shape:stride" with congruent tuples:
// "4:2", "(4,3):(3,1)", "((2,2),(2,2)):((1,4),(8,32))". Each top-level entry
// is one mode; nesting below a mode is flattened into that mode's leaves,
// which keeps the function (the leaves stay in colexicographic order) since
// tcgen nests two levels. A plain integer shape is one mode of one leaf.
inline Layout cute_layout(std::string_view text) {
  const std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) throw std::invalid_argument("CuTe notation: expected shape:stride");
  const detail::IntTuple shape = detail::parse_whole(text.substr(0, colon));
  const detail::IntTuple stride = detail::parse_whole(text.substr(colon + 1));
  Layout l;
  if (shape.items.empty() || stride.items.empty()) {
    Mode m;
    detail::push_leaves(shape, stride, m);
    l.push(m);
    return l;
  }
  if (shape.items.size() != stride.items.size())
    throw std::invalid_argument("CuTe notation: shape and stride are not congruent");
  for (std::size_t i = 0; i < shape.items.size(); ++i) {
    Mode m;
    detail::push_leaves(shape.items[i], stride.items[i], m);
    l.push(m);
  }
  return l;
}

// ------------------------------------------------------- random layouts --

using Rng = std::mt19937_64;

inline std::uint64_t test_seed() {
  static const std::uint64_t seed = [] {
    if (const char* s = std::getenv("TCGEN_SEED")) return static_cast<std::uint64_t>(std::strtoull(s, nullptr, 10));
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }();
  return seed;
}
inline Rng make_rng(std::uint64_t salt) {
  static const bool printed = [] {
    std::printf("layout algebra: seed %llu (replay with TCGEN_SEED=%llu)\n",
                static_cast<unsigned long long>(test_seed()), static_cast<unsigned long long>(test_seed()));
    return true;
  }();
  (void)printed;
  return Rng(test_seed() ^ (salt * 0x9E3779B97F4A7C15ull));
}
inline Int uniform(Rng& rng, Int lo, Int hi) { return std::uniform_int_distribution<Int>(lo, hi)(rng); }
inline bool coin(Rng& rng, double p) { return std::bernoulli_distribution(p)(rng); }

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
inline Layout random_layout(Rng& rng, Int max_size, int max_leaves = 12) {
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
inline std::vector<Int> random_factors(Rng& rng, Int n) {
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
inline Leaf run_leaf(const std::vector<Int>& radix, Run r) {
  Int stride = 1, shape = 1;
  for (int k = 0; k < r.begin; ++k) stride *= radix[k];
  for (int k = r.begin; k < r.end; ++k) shape *= radix[k];
  return {shape, stride};
}
inline std::vector<Run> random_runs(Rng& rng, int digits) {
  std::vector<Run> runs;
  for (int b = 0; b < digits;) {
    const int e = static_cast<int>(uniform(rng, b + 1, std::min(digits, b + 3)));
    runs.push_back({b, e});
    b = e;
  }
  return runs;
}

}  // namespace layout_test
