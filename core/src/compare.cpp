#include "tcgen/core/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "tcgen/core/error.hpp"
#include "tcgen/core/log.hpp"

namespace tcgen {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string num(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

bool near_integer(double x) { return x >= 1.5 && std::abs(x - std::round(x)) <= 1e-3 * x; }

// One factor for every row: name it the way scale bugs show up. 1/sqrt(16)
// = 0.25 and 1/sqrt(64) = 0.125 are the softmax scales of head_dim 16 and 64.
std::string common_factor(double r) {
  std::string s = "every row is " + num("%.3f", r) + "× the reference";
  const bool root = r > 1 ? near_integer(r * r) : near_integer(1 / (r * r));
  if (!root) return s + ": a scale factor applied on one side only?";
  if (r > 1) s += " = sqrt(" + std::to_string(std::llround(r * r)) + ")";
  if (r < 1) s += " = 1/sqrt(" + std::to_string(std::llround(1 / (r * r))) + ")";
  s += ": a softmax scale 1/sqrt(head_dim) applied on one side only?";
  if (r > 1 && near_integer(r))
    s += " (an integer factor can also be one MMA accumulated " + std::to_string(std::llround(r)) +
         " times: a K loop whose descriptor does not advance)";
  return s;
}

std::string diagnose(const CompareReport& r) {
  // First: an inf or NaN makes every row look unwritten or misplaced (its cosine is NaN), which would
  // send the user after a missing wait, where the cause is arithmetic that overflowed.
  if (r.non_finite > 0)
    return std::to_string(r.non_finite) + " of " + std::to_string(std::size_t(r.rows) * r.cols) +
           " values of the result are inf or NaN where the fp64 reference's are finite: an overflow? (inputs "
           "too large for the kernel's f32 arithmetic, e.g. |x| of 1e30, give inf and then NaN)";
  std::vector<double> ratios;
  int zero_rows = 0, misplaced = 0, worst = -1;
  for (int i = 0; i < r.rows; ++i) {
    if (std::isnan(r.ratio[i])) continue;  // the reference row is zero: no ratio
    ratios.push_back(r.ratio[i]);
    if (std::isnan(r.cosine[i])) ++zero_rows;
    else if (r.cosine[i] < 0.99) {
      ++misplaced;
      if (worst < 0 || r.cosine[i] < r.cosine[worst]) worst = i;
    }
  }
  if (ratios.empty()) return "";
  if (zero_rows > 0)
    return std::to_string(zero_rows) + " of " + std::to_string(r.rows) +
           " rows of the result are zero: was the result written at all (an MMA never waited for, a store "
           "never issued)?";
  if (misplaced > 0)
    return std::to_string(misplaced) + " of " + std::to_string(r.rows) + " rows have cosine < 0.99 (worst: row " +
           std::to_string(worst) + ", " + num("%.4f", r.cosine[worst]) +
           "): values are misplaced or wrong, not scaled; suspect a layout, descriptor or ordering error.";
  std::sort(ratios.begin(), ratios.end());
  const double median = ratios[ratios.size() / 2];
  const bool common = std::abs(ratios.front() - median) <= 1e-3 * std::abs(median) &&
                      std::abs(ratios.back() - median) <= 1e-3 * std::abs(median);
  if (common && std::abs(median - 1) > 1e-3) return common_factor(median);
  if (!common)
    return "the rows are scaled differently (ratio " + num("%.4g", ratios.front()) + " to " +
           num("%.4g", ratios.back()) + "): a per-row factor (softmax max or row sum?) applied on one side only?";
  return "";
}

}  // namespace

CompareReport compare(std::span<const float> got, std::span<const double> reference, int rows, int cols,
                      double rel_tol, ErrorMeasure measure) {
  if (rows < 1 || cols < 1) fail("rows", std::to_string(rows) + "×" + std::to_string(cols), "at least 1×1");
  const std::size_t n = static_cast<std::size_t>(rows) * cols;
  if (got.size() != n) fail("got", std::to_string(got.size()) + " values", "rows × cols = " + std::to_string(n));
  if (reference.size() != n)
    fail("reference", std::to_string(reference.size()) + " values", "rows × cols = " + std::to_string(n));

  CompareReport r;
  r.rows = rows;
  r.cols = cols;
  r.rel_tol = rel_tol;
  r.measure = measure;
  constexpr double kInf = std::numeric_limits<double>::infinity();
  double max_ref = 0;  // finite entries only: an LSE of -inf must not lift the floor to inf
  for (double v : reference)
    if (std::isfinite(v)) max_ref = std::max(max_ref, std::abs(v));
  const double floor = std::max(1e-3 * max_ref, std::numeric_limits<double>::min());
  // NaN (a NaN on either side) counts as +inf: it must never pass.
  const auto note = [&](double e, int i, int j) {
    if (std::isnan(e)) e = kInf;
    if (e <= r.max_rel_error) return;
    const std::size_t at = static_cast<std::size_t>(i) * cols + j;
    r.max_rel_error = e;
    r.worst_row = i;
    r.worst_col = j;
    r.worst_got = got[at];
    r.worst_reference = reference[at];
  };
  for (int i = 0; i < rows; ++i) {
    double gr = 0, rr = 0, gg = 0, diff2 = 0, norm2 = 0, row_worst = -1;
    int row_worst_col = 0;
    for (int j = 0; j < cols; ++j) {
      const std::size_t at = static_cast<std::size_t>(i) * cols + j;
      const double g = got[at], f = reference[at];
      if (!std::isfinite(g) && std::isfinite(f)) ++r.non_finite;
      gr += g * f;
      rr += f * f;
      gg += g * g;
      const double diff = g == f ? 0.0 : std::abs(g - f);  // equal infinities: 0, not inf − inf = NaN
      if (measure == ErrorMeasure::element) {
        note(diff / std::max(std::abs(f), floor), i, j);
        continue;
      }
      diff2 += diff * diff;
      if (std::isfinite(f)) norm2 += f * f;
      if (!(diff <= row_worst)) {  // a NaN ranks worst
        row_worst = diff;
        row_worst_col = j;
      }
    }
    if (measure == ErrorMeasure::row_norm)
      note(norm2 > 0 ? std::sqrt(diff2 / norm2) : (diff2 == 0 ? 0.0 : kInf), i, row_worst_col);
    r.ratio.push_back(rr > 0 ? gr / rr : kNaN);
    r.cosine.push_back(rr > 0 && gg > 0 ? gr / std::sqrt(rr * gg) : kNaN);
  }
  r.ok = r.max_rel_error <= rel_tol;
  r.diagnosis = diagnose(r);
  if (!r.ok) log().warn("{}", r.text());
  return r;
}

std::string CompareReport::text() const {
  std::string s = "compare " + std::to_string(rows) + "×" + std::to_string(cols) + " (rel_tol " +
                  num("%g", rel_tol) + "): " + (ok ? "ok" : "FAIL") +
                  (measure == ErrorMeasure::row_norm ? ", max row error ‖got − ref‖/‖ref‖ "
                                                     : ", max relative error ") +
                  num("%.3g", max_rel_error) + " at row " + std::to_string(worst_row) + ", col " +
                  std::to_string(worst_col) + " (got " + num("%.6g", worst_got) + ", reference " +
                  num("%.6g", worst_reference) + ")\n    row       ratio      cosine\n";
  const int shown = rows <= 16 ? rows : 8;
  for (int i = 0; i < shown; ++i)
    s += num("  %5.0f", i) + num("  %10.6f", ratio[i]) + num("  %10.6f", cosine[i]) + "\n";
  if (shown < rows) {
    const auto [rlo, rhi] = std::minmax_element(ratio.begin() + shown, ratio.end());
    const auto [clo, chi] = std::minmax_element(cosine.begin() + shown, cosine.end());
    s += "  ... " + std::to_string(rows - shown) + " more rows: ratio " + num("%.6f", *rlo) + " to " +
         num("%.6f", *rhi) + ", cosine " + num("%.6f", *clo) + " to " + num("%.6f", *chi) + "\n";
  }
  if (!diagnosis.empty()) s += "  diagnosis: " + diagnosis + "\n";
  return s;
}

}  // namespace tcgen
