#include "tcgen/layout/layout.hpp"

namespace tcgen::layout {

namespace {
std::string join(const Mode& m, const Int (&v)[kMaxLeaves]) {
  if (m.count == 1) return std::to_string(v[0]);
  std::string s = "(";
  // append(), not "," + string: GCC 12 warns falsely (-Wrestrict) on that operator+.
  for (int j = 0; j < m.count; ++j) s.append(j ? "," : "").append(std::to_string(v[j]));
  return s + ")";
}
}  // namespace

std::string to_string(const Mode& m) { return join(m, m.shape) + ":" + join(m, m.stride); }

std::string to_string(const Layout& l) {
  std::string shapes = "(", strides = "(";
  for (int i = 0; i < l.rank(); ++i) {
    shapes.append(i ? "," : "").append(join(l.mode(i), l.mode(i).shape));
    strides.append(i ? "," : "").append(join(l.mode(i), l.mode(i).stride));
  }
  return shapes + "):" + strides + ")";
}

}  // namespace tcgen::layout
