// tcgen/core/compare.hpp, the checker the model's tests report through: the
// per-row ratio and cosine, the diagnosis for each pattern it names, and the
// two error measures (element, row_norm) with infinities and NaN.
#include "tcgen/core/compare.hpp"

#include <doctest/doctest.h>

#include "expect_error.hpp"

#include <cmath>
#include <limits>
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

TEST_CASE("row_norm: each row's ‖got − ref‖ / ‖ref‖; a zero reference row needs a zero result") {
  const auto ref = reference();
  const auto rep = compare(scaled(ref, 1.01), ref, kRows, kCols, 1e-2 + 1e-6, tcgen::ErrorMeasure::row_norm);
  CHECK(rep.ok);
  CHECK(rep.max_rel_error == doctest::Approx(0.01).epsilon(1e-4));  // float rounding of got only
  CHECK(has(rep.text(), "max row error"));
  CHECK_FALSE(compare(scaled(ref, 1.02), ref, kRows, kCols, 1e-2, tcgen::ErrorMeasure::row_norm).ok);
  std::vector<double> zero_row = ref;
  for (int c = 0; c < kCols; ++c) zero_row[3 * kCols + c] = 0.0;
  std::vector<float> got = scaled(zero_row, 1.0);
  CHECK(compare(got, zero_row, kRows, kCols, 1e-6, tcgen::ErrorMeasure::row_norm).ok);  // zero row: 0 == 0
  got[3 * kCols + 5] = 1e-6f;
  const auto bad = compare(got, zero_row, kRows, kCols, 1e-2, tcgen::ErrorMeasure::row_norm);
  CHECK_FALSE(bad.ok);
  CHECK(std::isinf(bad.max_rel_error));
  CHECK(bad.worst_row == 3);
  CHECK(bad.worst_col == 5);
}

TEST_CASE("both measures: equal infinities are no error, a NaN always fails") {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // An LSE column: rows that see no key have LSE = -inf on both sides.
  const std::vector<double> lse = {1.5, -kInf, 2.25, -kInf};
  std::vector<float> got = {1.5f, -std::numeric_limits<float>::infinity(), 2.25f,
                            -std::numeric_limits<float>::infinity()};
  for (auto m : {tcgen::ErrorMeasure::element, tcgen::ErrorMeasure::row_norm}) {
    CAPTURE(int(m));
    const auto same = compare(got, lse, 4, 1, 1e-6, m);
    CHECK(same.ok);
    CHECK(same.max_rel_error == 0.0);
    std::vector<float> finite = got;
    finite[1] = 1.0f;  // a finite LSE where the reference has none
    CHECK_FALSE(compare(finite, lse, 4, 1, 1e-2, m).ok);
    std::vector<float> nan = got;
    nan[2] = std::numeric_limits<float>::quiet_NaN();
    const auto rep = compare(nan, lse, 4, 1, 1e-2, m);
    CHECK_FALSE(rep.ok);
    CHECK(std::isinf(rep.max_rel_error));
    CHECK(rep.worst_row == 2);
    CHECK(rep.non_finite == 1);  // the NaN where the reference is 2.25; the equal -infs are not counted
    CHECK(rep.diagnosis.find("an overflow") != std::string::npos);
  }
  // -inf in the reference must not lift the element measure's floor (1e-3 · max|ref|) to inf.
  std::vector<float> off = got;
  off[0] = 1.6f;
  CHECK_FALSE(compare(off, lse, 4, 1, 1e-2).ok);
}
