#pragma once
// A layout maps coordinates to offsets, in the manner of CuTe's
// Layout<Shape,Stride>, but as a constexpr *value* so that the same object
// serves compile-time checks (static_assert), the CLI and the host model.
//
// Nesting is two levels deep, which is all tcgen05's mappings need: a layout
// is a tuple of modes, and each mode is a flat, colexicographic sequence of
// (shape, stride) leaves. CuTe's ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO)) is
// Layout{Mode{{T,8,m},{1,T,LBO}}, Mode{{8,k},{8*T,SBO}}}.
#include <cstdint>
#include <initializer_list>
#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/core/host_device.hpp"

namespace tcgen::layout {

using Int = std::int64_t;

inline constexpr int kMaxLeaves = 12;  // leaves per mode
inline constexpr int kMaxModes = 4;    // modes per layout

// One mode: leaves (shape[j], stride[j]), leaf 0 varying fastest.
struct Mode {
  int count = 0;
  // Plain arrays, not std::array: nvcc treats std::array's accessors as
  // host-only, and device code evaluates these layouts too.
  Int shape[kMaxLeaves]{};
  Int stride[kMaxLeaves]{};

  constexpr Mode() = default;
  constexpr Mode(std::initializer_list<Int> shapes, std::initializer_list<Int> strides) {
    if (shapes.size() != strides.size()) fail("mode", static_cast<Int>(strides.size()), "expected as many strides as shapes");
    auto d = strides.begin();
    for (Int s : shapes) push(s, *d++);
  }
  constexpr void push(Int s, Int d) {
    if (s < 1) fail("shape", s, "expected a positive extent");
    if (count == kMaxLeaves) fail("leaves", count + 1, "expected at most 12 leaves per mode (kMaxLeaves)");
    shape[count] = s;
    stride[count] = d;
    ++count;
  }
  constexpr Int size() const {
    Int n = 1;
    for (int j = 0; j < count; ++j) n *= shape[j];
    return n;
  }
  // Index i in [0, size) -> offset, leaf 0 fastest.
  constexpr TCGEN_HD Int operator()(Int i) const {
    Int off = 0;
    for (int j = 0; j < count; ++j) {
      off += (i % shape[j]) * stride[j];
      i /= shape[j];
    }
    return off;
  }
  friend constexpr bool operator==(const Mode&, const Mode&) = default;
};

class Layout {
 public:
  constexpr Layout() = default;
  constexpr Layout(std::initializer_list<Mode> modes) {
    for (const Mode& m : modes) push(m);
  }
  constexpr void push(const Mode& m) {
    if (rank_ == kMaxModes) fail("rank", rank_ + 1, "expected at most 4 modes (kMaxModes)");
    modes_[rank_++] = m;
  }

  constexpr int rank() const { return rank_; }
  constexpr const Mode& mode(int i) const { return modes_[i]; }
  constexpr Int size(int i) const { return modes_[i].size(); }
  constexpr Int size() const {
    Int n = 1;
    for (int i = 0; i < rank_; ++i) n *= modes_[i].size();
    return n;
  }
  // One past the largest offset (strides are non-negative in tcgen's layouts).
  constexpr Int cosize() const {
    Int hi = 0;
    for (int i = 0; i < rank_; ++i)
      for (int j = 0; j < modes_[i].count; ++j) hi += (modes_[i].shape[j] - 1) * modes_[i].stride[j];
    return hi + 1;
  }

  // Flat index in [0, size), mode 0 fastest.
  constexpr TCGEN_HD Int operator()(Int i) const {
    Int off = 0;
    for (int m = 0; m < rank_; ++m) {
      const Int n = modes_[m].size();
      off += modes_[m](i % n);
      i /= n;
    }
    return off;
  }
  // One index per mode.
  constexpr TCGEN_HD Int operator()(Int i0, Int i1) const { return modes_[0](i0) + modes_[1](i1); }
  constexpr TCGEN_HD Int operator()(Int i0, Int i1, Int i2) const {
    return modes_[0](i0) + modes_[1](i1) + modes_[2](i2);
  }

  friend constexpr bool operator==(const Layout&, const Layout&) = default;

 private:
  int rank_ = 0;
  Mode modes_[kMaxModes]{};
};

// CuTe notation, e.g. "((8,16),8):((64,1),1)" (host only).
std::string to_string(const Mode& m);
std::string to_string(const Layout& l);

}  // namespace tcgen::layout
