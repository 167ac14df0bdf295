// tcgen/core/compare.hpp, the checker the model's tests report through: the
// per-row ratio and cosine, and the diagnosis for each pattern it names.
#include "tcgen/core/compare.hpp"

#include <doctest/doctest.h>

#include "expect_error.hpp"

#include <cmath>
#include <string>
#include <vector>

using tcgen::compare;

namespace {

constexpr int kRows = 20, kCols = 12;

std::vector<double> reference() {
  std::vector<double> r;
  for (int i = 0; i < kRows * kCols; ++i) r.push_back(std::sin(0.7 * i + 0.3) * (1 + i % 5));
  return r;
}

std::vector<float> scaled(const std::vector<double>& r, double f) {
  std::vector<float> g;
  for (double x : r) g.push_back(float(x * f));
  return g;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a match passes with ratio and cosine 1 and no diagnosis") {
  const auto ref = reference();
  const auto rep = compare(scaled(ref, 1.0), ref, kRows, kCols, 1e-6);
  CHECK(rep.ok);
  CHECK(rep.max_rel_error < 1e-6);
  for (int r = 0; r < kRows; ++r) {
    CHECK(rep.ratio[r] == doctest::Approx(1.0));
    CHECK(rep.cosine[r] == doctest::Approx(1.0));
  }
  CHECK(rep.diagnosis.empty());
}

TEST_CASE("one common factor is named as a square root and blamed on the softmax scale") {
  const auto ref = reference();
  const auto quarter = compare(scaled(ref, 0.25), ref, kRows, kCols, 1e-3);
  CHECK_FALSE(quarter.ok);
  CHECK(quarter.max_rel_error == doctest::Approx(0.75));
  CHECK(has(quarter.diagnosis, "every row is 0.250× the reference = 1/sqrt(16)"));
  CHECK(has(quarter.diagnosis, "softmax scale"));
  const auto eight = compare(scaled(ref, 8.0), ref, kRows, kCols, 1e-3);
  CHECK(has(eight.diagnosis, "8.000× the reference = sqrt(64)"));
  CHECK(has(eight.diagnosis, "accumulated 8 times"));
  const auto odd = compare(scaled(ref, 1.37), ref, kRows, kCols, 1e-3);
  CHECK(has(odd.diagnosis, "every row is 1.370× the reference: a scale factor applied on one side only?"));
  // The printed report: the verdict, the worst element, the rows, the diagnosis.
  const std::string text = quarter.text();
  CHECK(has(text, "compare 20×12 (rel_tol 0.001): FAIL"));
  CHECK(has(text, "ratio"));
  CHECK(has(text, "  ... 12 more rows: ratio 0.250000 to 0.250000"));
  CHECK(has(text, "diagnosis: every row"));
}

TEST_CASE("misplaced values, per-row factors and an empty result get their own diagnoses") {
  const auto ref = reference();
  std::vector<float> shifted = scaled(ref, 1.0);  // each row rotated by one column: a layout error
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) shifted[r * kCols + c] = float(ref[r * kCols + (c + 1) % kCols]);
  CHECK(has(compare(shifted, ref, kRows, kCols, 1e-3).diagnosis, "misplaced or wrong, not scaled"));
  std::vector<float> per_row = scaled(ref, 1.0);
  for (int r = 0; r < kRows; ++r)
    for (int c = 0; c < kCols; ++c) per_row[r * kCols + c] *= float(1 + r);
  CHECK(has(compare(per_row, ref, kRows, kCols, 1e-3).diagnosis, "scaled differently (ratio 1 to 20)"));
  const std::vector<float> zeros(std::size_t(kRows * kCols), 0.0f);
  CHECK(has(compare(zeros, ref, kRows, kCols, 1e-3).diagnosis, "20 of 20 rows of the result are zero"));
}

TEST_CASE("sizes that do not match rows × cols are an error naming the argument") {
  const auto ref = reference();
  expect_error([&] { compare(scaled(ref, 1.0), ref, kRows, kCols + 1, 1e-3); }, "got");
  expect_error([&] { compare(scaled(ref, 1.0), ref, 0, kCols, 1e-3); }, "rows");
}
