#include "tcgen/moe/reference.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::moe {

namespace {

// Row `row` of q, dequantised.
std::vector<double> row_values(const Quantised& q, int row) {
  std::vector<double> v(q.k);
  for (int c = 0; c < q.k; ++c) v[c] = q.value(row, c);
  return v;
}

void check(const Quantised& a, std::span<const int> counts, const Quantised& w, int n) {
  if (!std::equal(counts.begin(), counts.end(), a.counts.begin(), a.counts.end()))
    fail("a.counts", std::to_string(a.counts.size()) + " groups",
         "expected the counts a was quantised with (quantise_grouped with the same counts)");
  if (w.k != a.k) fail("w.k", w.k, "expected a.k");
  if (n < 1 || n % 128 != 0) fail("n", n, "expected a positive multiple of 128 (with swiglu, gate and up halves of 64)");
  if (static_cast<long long>(w.rows) != static_cast<long long>(counts.size()) * n)
    fail("w.rows", w.rows, "expected counts.size() · n (each expert's n rows)");
}

}  // namespace

std::vector<double> grouped_reference(const Quantised& a, std::span<const int> counts, const Quantised& w, int n,
                                      bool swiglu) {
  check(a, counts, w, n);
  const int cols = swiglu ? n / 2 : n;
  std::vector<double> out(static_cast<std::size_t>(a.rows) * cols);
  std::vector<std::vector<double>> weights(n);
  std::vector<double> d(n);
  int t = 0;
  for (int e = 0; e < static_cast<int>(counts.size()); ++e) {
    if (counts[e] == 0) continue;
    for (int j = 0; j < n; ++j) weights[j] = row_values(w, e * n + j);
    for (int end = t + counts[e]; t < end; ++t) {
      const std::vector<double> x = row_values(a, t);
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int kk = 0; kk < a.k; ++kk) s += x[kk] * weights[j][kk];
        d[j] = s;
      }
      double* o = out.data() + static_cast<std::size_t>(t) * cols;
      if (!swiglu) {
        std::copy(d.begin(), d.end(), o);
        continue;
      }
      for (int j = 0; j < n / 128; ++j)
        for (int c = 0; c < 64; ++c) {
          const double gate = d[128 * j + c], up = d[128 * j + 64 + c];
          o[64 * j + c] = gate / (1 + std::exp(-gate)) * up;
        }
    }
  }
  return out;
}

}  // namespace tcgen::moe
