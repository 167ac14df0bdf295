#pragma once
// How one FMHA run is judged against the fp64 reference, the same way by the
// host tests, the B200 test, the benchmark and `tcgen fmha`:
//   O   per row in the 2-norm, ‖o − o_ref‖ / ‖o_ref‖ ≤ 1e-2 for bf16 and fp16:
//       P is rounded to the input type for the TS-MMA (as in every tcgen05
//       FMHA), and with zero-mean V an element-wise bound would judge the
//       entries that average to nearly 0 (docs/fmha.md, Numerics);
//   LSE per element, relative, ≤ 1e-3 (l sums unrounded f32 P).
// On failure compare() has printed per-row ratio and cosine.
#include "tcgen/core/compare.hpp"
#include "tcgen/fmha/inputs.hpp"
#include "tcgen/fmha/problem.hpp"
#include "tcgen/fmha/reference.hpp"

namespace tcgen::fmha {

inline constexpr double kFmhaOBound = 1e-2, kFmhaLseBound = 1e-3;

struct FmhaCheck {
  CompareReport o, lse;
  bool ok() const { return o.ok && lse.ok; }
};

// `out` from the kernel against fmha_reference(problem, in.q, in.k, in.v).
FmhaCheck check_fmha(const CheckedFmhaProblem& problem, const FmhaInputs& in, const FmhaOutput& out);
// The same against a reference already computed (e.g. with another scale).
FmhaCheck check_fmha(const CheckedFmhaProblem& problem, const FmhaResult<double>& reference, const FmhaOutput& out);

}  // namespace tcgen::fmha
