#pragma once
// A result matrix against its reference, reported the way a kernel author
// needs it: the largest relative error, and per row the ratio got/reference
// (least squares) and the cosine, with a diagnosis when the rows share a
// telling pattern. One common ratio with cosine 1 means "right values, wrong
// scale", which for attention is nearly always the softmax scale applied on
// one side only: the user's QK^T that was "exactly 4x the reference" at
// head_dim 16 (../shared/seed/README.md).
#include <span>
#include <string>
#include <vector>

namespace tcgen {

// How compare() measures an error (see there).
enum class ErrorMeasure { element, row_norm };

struct CompareReport {
  int rows = 0, cols = 0;
  double rel_tol = 0;
  ErrorMeasure measure = ErrorMeasure::element;
  bool ok = false;             // max_rel_error <= rel_tol
  double max_rel_error = 0;    // see compare()
  int worst_row = 0, worst_col = 0;  // row_norm: the worst row's largest |got − ref|
  double worst_got = 0, worst_reference = 0;
  std::vector<double> ratio;   // per row: Σ got·ref / Σ ref², the factor best mapping ref onto got (NaN: ref row 0)
  std::vector<double> cosine;  // per row: Σ got·ref / (|got|·|ref|) (NaN: a row is 0)
  std::size_t non_finite = 0;  // values of got that are inf or NaN where the reference's are finite
  std::string diagnosis;       // "" unless the rows share a telling pattern
  std::string text() const;    // the report, as compare() prints it on failure
};

// got and reference are rows × cols, row-major. The error, by `measure`:
// - element: |got − ref| / max(|ref|, 1e-3 · max|ref|) per element (max over
//   the finite references): the floor keeps entries that cancel to nearly zero
//   from swamping the measure.
// - row_norm: ‖got_row − ref_row‖₂ / ‖ref_row‖₂ per row (the norm over the
//   finite references), for O, whose entries near zero carry an absolute, not
//   relative, error from P's bf16 rounding (docs/fmha.md, "Numerics").
//   A reference row of zeros requires got to be zero there (error 0, else inf).
// For both, an element where got equals the reference exactly, infinities
// included (LSE = -inf of a row that sees no key), adds no error; a NaN on
// either side is an error of +inf. On failure the report is printed through
// tcgen::log() at warn level. Throws tcgen::Error ("got", "reference", "rows")
// when the sizes do not match rows × cols.
CompareReport compare(std::span<const float> got, std::span<const double> reference, int rows, int cols,
                      double rel_tol, ErrorMeasure measure = ErrorMeasure::element);

}  // namespace tcgen
