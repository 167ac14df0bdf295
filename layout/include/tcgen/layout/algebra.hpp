#pragma once
// The layout algebra: coalesce, composition, complement, inverse, divide and
// product, following CuTe's definitions (cute/layout.hpp) on layout values.
// All functions are constexpr; a request that has no answer (e.g. composing
// with a stride that does not divide a shape) throws tcgen::Error, which is
// a compile error when evaluated in a constant expression.
#include <array>

#include "tcgen/layout/layout.hpp"

namespace tcgen::layout {

// All leaves of all modes, in order: the rank-1 view of a layout.
constexpr Mode flatten(const Layout& l) {
  Mode out;
  for (int i = 0; i < l.rank(); ++i)
    for (int j = 0; j < l.mode(i).count; ++j) out.push(l.mode(i).shape[j], l.mode(i).stride[j]);
  return out;
}

// Same function, fewest leaves: drops extent-1 leaves and merges (s0,d0),(s1,d1)
// when d1 == s0*d0. The result has at least one leaf (1:0 for size 1).
constexpr Mode coalesce(const Mode& m) {
  Mode out;
  for (int j = 0; j < m.count; ++j) {
    const Int s = m.shape[j], d = m.stride[j];
    if (s == 1) continue;
    if (out.count > 0) {
      const int k = out.count - 1;
      if (d == out.shape[k] * out.stride[k]) {
        out.shape[k] *= s;
        continue;
      }
    }
    out.push(s, d);
  }
  if (out.count == 0) out.push(1, 0);
  return out;
}
constexpr Layout coalesce(const Layout& l) { return Layout{coalesce(flatten(l))}; }
// Coalesce each mode separately, keeping the rank.
constexpr Layout coalesce_modes(const Layout& l) {
  Layout out;
  for (int i = 0; i < l.rank(); ++i) out.push(coalesce(l.mode(i)));
  return out;
}

namespace detail {
// A ∘ (s:d) for a coalesced rank-1 A: the leaves of the composed mode.
// CuTe composition_impl: first skip d elements of A ("divide" by the stride),
// then keep s of what is left ("mod" by the shape); the last leaf of A extends.
constexpr void compose_leaf(const Mode& a, Int s, Int d, Mode& out) {
  if (s == 1) return;
  if (d == 0) { out.push(s, 0); return; }
  // A negative stride of B walks A backwards from 0: CuTe answers it through
  // A's first leaf (its "BETA: Negative strides"); here only a one-leaf A.
  if (d < 0 && a.count > 1)
    fail("composition stride", d, "expected a non-negative stride of B where A has more than one leaf (B's negative strides "
                                  "compose only with a one-leaf A)");
  Int rest_stride = d, rest_shape = s;
  for (int j = 0; j < a.count; ++j) {
    const Int as = a.shape[j], ad = a.stride[j];
    if (j == a.count - 1) {  // the last leaf of A extends as far as needed
      out.push(rest_shape, ad * rest_stride);
      return;
    }
    if (rest_stride >= as) {
      if (rest_stride % as != 0) fail("composition stride", rest_stride, "expected a multiple of the left layout's shape it crosses");
      rest_stride /= as;
      continue;
    }
    if (as % rest_stride != 0) fail("composition stride", rest_stride, "expected a divisor of the left layout's shape it falls in");
    const Int avail = as / rest_stride;
    const Int stride = ad * rest_stride;
    rest_stride = 1;
    if (rest_shape <= avail) {
      if (avail % rest_shape != 0) fail("composition shape", rest_shape, "expected a divisor of the left layout's shape");
      out.push(rest_shape, stride);
      return;
    }
    if (rest_shape % avail != 0) fail("composition shape", rest_shape, "expected a multiple of the left layout's shape");
    out.push(avail, stride);
    rest_shape /= avail;
  }
}
}  // namespace detail

// (A ∘ B)(i) == A(B(i)); the result has B's modes.
constexpr Layout composition(const Layout& a, const Layout& b) {
  const Mode flat_a = coalesce(flatten(a));
  Layout out;
  for (int i = 0; i < b.rank(); ++i) {
    Mode m;
    for (int j = 0; j < b.mode(i).count; ++j) detail::compose_leaf(flat_a, b.mode(i).shape[j], b.mode(i).stride[j], m);
    if (m.count == 0) m.push(1, 0);
    out.push(m);
  }
  return out;
}

namespace detail {
// Leaves with extent > 1 and stride != 0, sorted by stride (then shape).
constexpr Mode sorted_leaves(const Mode& m) {
  Mode out;
  for (int j = 0; j < m.count; ++j)
    if (m.shape[j] > 1 && m.stride[j] != 0) out.push(m.shape[j], m.stride[j]);
  for (int a = 1; a < out.count; ++a)
    for (int b = a; b > 0; --b) {
      const bool before = out.stride[b] < out.stride[b - 1] ||
                          (out.stride[b] == out.stride[b - 1] && out.shape[b] < out.shape[b - 1]);
      if (!before) break;
      std::swap(out.shape[b], out.shape[b - 1]);
      std::swap(out.stride[b], out.stride[b - 1]);
    }
  return out;
}
}  // namespace detail

// The layout that fills the offsets [0, cotarget) that A leaves out:
// (A, complement(A)) is a bijection onto [0, cotarget) when A is injective.
constexpr Layout complement(const Layout& a, Int cotarget) {
  const Mode s = detail::sorted_leaves(flatten(a));
  Mode out;
  Int current = 1;
  for (int j = 0; j < s.count; ++j) {
    if (s.stride[j] % current != 0) fail("complement stride", s.stride[j], "expected a multiple of the extent covered by the smaller strides");
    out.push(s.stride[j] / current, current);
    current = s.shape[j] * s.stride[j];
  }
  out.push((cotarget + current - 1) / current, current);
  return Layout{coalesce(out)};
}

// For a bijection L of [0, size) onto [0, size): the layout R with L(R(x)) == x.
constexpr Layout inverse(const Layout& l) {
  const Mode flat = flatten(l);
  // Walk the offsets upwards: the leaf of stride `expect` comes next, and its
  // stride in index space is the product of the extents before it.
  Mode out;
  Int expect = 1;
  for (Int covered = 1; covered < l.size();) {
    int found = -1;
    for (int j = 0; j < flat.count; ++j)
      if (flat.shape[j] > 1 && flat.stride[j] == expect) found = j;
    if (found < 0) fail("inverse", expect, "expected a layout that is a bijection onto [0, size): no leaf has this stride");
    Int istride = 1;
    for (int j = 0; j < found; ++j) istride *= flat.shape[j];
    out.push(flat.shape[found], istride);
    expect *= flat.shape[found];
    covered *= flat.shape[found];
  }
  if (out.count == 0) out.push(1, 0);
  return Layout{out};
}

// A compact layout of the given extents, mode `order[0]` fastest
// (order = {0, 1, ...} is CuTe's column-major make_layout(shape)).
template <std::size_t R>
constexpr Layout make_compact(const std::array<Int, R>& extents, const std::array<int, R>& order) {
  std::array<Int, R> strides{};
  Int s = 1;
  for (std::size_t i = 0; i < R; ++i) {
    strides[order[i]] = s;
    s *= extents[order[i]];
  }
  Layout out;
  for (std::size_t i = 0; i < R; ++i) out.push(Mode{{extents[i]}, {strides[i]}});
  return out;
}

// Mode by mode: mode i of A split into (tile_i, rest_i). The result has
// 2·rank modes, (tile_0, …, tile_{r-1}, rest_0, …, rest_{r-1}), CuTe's
// zipped_divide flattened. tiler mode i is a layout of mode i's index space.
constexpr Layout zipped_divide(const Layout& a, const Layout& tiler) {
  if (tiler.rank() != a.rank()) fail("tiler rank", tiler.rank(), "expected the rank of the divided layout");
  Layout tiles, rests;
  for (int i = 0; i < a.rank(); ++i) {
    const Layout ai{a.mode(i)};
    const Layout ti{tiler.mode(i)};
    const Layout rest = complement(ti, a.size(i));
    tiles.push(composition(ai, ti).mode(0));
    rests.push(composition(ai, rest).mode(0));
  }
  Layout out = tiles;
  for (int i = 0; i < rests.rank(); ++i) out.push(rests.mode(i));
  return out;
}

// Mode by mode: the tiler's repetitions of `atom`, atom fastest. Mode i is
// (atom_i, tiler_i scaled past the atom): CuTe's blocked_product, with the
// scaling from complement(atom, size(atom)·cosize(tiler)).
constexpr Layout blocked_product(const Layout& atom, const Layout& tiler) {
  if (tiler.rank() != atom.rank()) fail("tiler rank", tiler.rank(), "expected the rank of the atom");
  const Layout rest = complement(atom, atom.size() * tiler.cosize());
  const Layout placed = composition(rest, tiler);
  Layout out;
  for (int i = 0; i < atom.rank(); ++i) {
    Mode m = atom.mode(i);
    for (int j = 0; j < placed.mode(i).count; ++j)
      if (placed.mode(i).shape[j] > 1) m.push(placed.mode(i).shape[j], placed.mode(i).stride[j]);
    out.push(m);
  }
  return out;
}

}  // namespace tcgen::layout
