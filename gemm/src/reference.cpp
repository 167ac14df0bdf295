#include "tcgen/gemm/reference.hpp"

#include <cmath>
#include <cstdio>
#include <limits>

#include "tcgen/core/compare.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::gemm {

Reference reference(const Matrix& a, layout::Major a_major, const Matrix& b, layout::Major b_major, const Matrix* c,
                    int m, int n, int k) {
  Reference r{m, n, k, std::vector<double>(static_cast<std::size_t>(m) * n), std::vector<double>(static_cast<std::size_t>(m) * n)};
  // Rows of A and B with K contiguous, whatever their storage.
  std::vector<double> ak(static_cast<std::size_t>(m) * k), bk(static_cast<std::size_t>(n) * k);
  for (int i = 0; i < m; ++i)
    for (int x = 0; x < k; ++x) ak[static_cast<std::size_t>(i) * k + x] = operand_value(a, a_major, i, x);
  for (int j = 0; j < n; ++j)
    for (int x = 0; x < k; ++x) bk[static_cast<std::size_t>(j) * k + x] = operand_value(b, b_major, j, x);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      const double* ar = &ak[static_cast<std::size_t>(i) * k];
      const double* br = &bk[static_cast<std::size_t>(j) * k];
      double sum = 0, scale = 0;
      for (int x = 0; x < k; ++x) {
        const double p = ar[x] * br[x];
        sum += p;
        scale += std::fabs(p);
      }
      if (c != nullptr) {
        sum += c->value(i, j);
        scale += std::fabs(c->value(i, j));
      }
      r.d[static_cast<std::size_t>(i) * n + j] = sum;
      r.scale[static_cast<std::size_t>(i) * n + j] = scale;
    }
  return r;
}

double output_rounding(ElementType d) {
  switch (d) {
    case ElementType::f32: return 0;
    case ElementType::bf16: return std::ldexp(1.0, -8);
    case ElementType::fp16: return std::ldexp(1.0, -11);
    default: fail("d", name(d), "f32, bf16 or fp16");
  }
}

namespace {
double gamma(int terms) {
  const double nu = terms * std::ldexp(1.0, -24);
  return nu / (1 - nu);
}
}  // namespace

double relative_bound(ElementType d, int k) { return gamma(k + 1) + output_rounding(d); }

Verdict verify(std::span<const float> got, const Reference& r, ElementType d) {
  const std::size_t count = static_cast<std::size_t>(r.m) * r.n;
  if (got.size() != count) fail("got", std::to_string(got.size()) + " values", "m × n = " + std::to_string(count));
  const double g = gamma(r.k + 1), u = output_rounding(d);
  Verdict v;
  v.bound = relative_bound(d, r.k);
  for (std::size_t i = 0; i < count; ++i) {
    const double exact = r.d[i], s = r.scale[i], err = std::fabs(static_cast<double>(got[i]) - exact);
    const double allowed = g * s + u * (std::fabs(exact) + g * s);
    // Relative to s; a NaN, or any error where s = 0 (all products zero), counts as infinite.
    const double rel = err == 0 ? 0 : s > 0 && !std::isnan(err) ? err / s : std::numeric_limits<double>::infinity();
    if (rel > v.max_relative) v.max_relative = rel;
    if (err <= allowed) continue;  // false for NaN
    if (v.beyond++ < 4) {
      char line[200];
      std::snprintf(line, sizeof line, "D[%zu][%zu] = %.9g, expected %.9g within %.3g\n", i / r.n, i % r.n,
                    static_cast<double>(got[i]), exact, allowed);
      v.text += line;
    }
  }
  v.ok = v.beyond == 0;
  if (!v.ok) {
    if (v.beyond > 4) v.text += "... " + std::to_string(v.beyond) + " elements beyond the bound in all\n";
    v.text += compare(got, r.d, r.m, r.n, v.bound).text();
  }
  return v;
}

}  // namespace tcgen::gemm
