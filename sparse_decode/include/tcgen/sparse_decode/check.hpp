#pragma once
// How one sparse decode run is judged against the fp64 reference of the
// dequantised cache, the same way by the tests, the benchmark and
// `tcgen sparse-decode`:
//   O   per row (one head of one query token) in the 2-norm,
//       ‖o − o_ref‖ / ‖o_ref‖ ≤ 1e-2: P is rounded to bf16 for P·V and O to
//       bf16 on output (each 2^-9 relative), K = V are exact (e4m3 × 2^k is
//       a bf16 value), S and O accumulate in f32; a row with no key must be 0;
//   LSE per element, relative, ≤ 1e-3 (l sums unrounded f32 P); +inf where
//       the reference has +inf.
// On failure compare() has printed per-row ratio and cosine.
#include "tcgen/core/compare.hpp"
#include "tcgen/sparse_decode/problem.hpp"
#include "tcgen/sparse_decode/reference.hpp"

namespace tcgen::sparse_decode {

inline constexpr double kSparseOBound = 1e-2, kSparseLseBound = 1e-3;

struct SparseDecodeCheck {
  CompareReport o, lse;
  bool ok() const { return o.ok && lse.ok; }
};

SparseDecodeCheck check_sparse_decode(const SparseDecodeResult& reference, const SparseDecodeOutput& out);

}  // namespace tcgen::sparse_decode
