#pragma once
// The fp64 reference of D = A·Bᵀ (+ C) and the bound a correct kernel meets.
//
// The inputs are exact (bf16/fp16 values), their products exact in fp32
// (8 + 8 or 11 + 11 significant bits), and the MMA adds them in fp32 in an
// order PTX does not fix. For any order the sum of n terms is within
// γ_n · Σ|terms| of the exact sum, γ_n = n·u / (1 − n·u), u = 2⁻²⁴ (Higham,
// Accuracy and Stability of Numerical Algorithms, §3.1); adding C is one
// more term. Rounding to D's type adds u_D · |result|: 2⁻⁸ for bf16, 2⁻¹¹ for
// fp16 (round to nearest), 0 for f32. Per element, with s = Σ_k |a·b| + |c|:
//
//   |got − exact| ≤ γ_{K+1} · s + u_D · (|exact| + γ_{K+1} · s)
//
// The relative form reported is max |got − exact| / s against γ_{K+1} + u_D.
#include <span>
#include <string>
#include <vector>

#include "tcgen/gemm/matrix.hpp"

namespace tcgen::gemm {

struct Reference {
  int m = 0, n = 0, k = 0;
  std::vector<double> d;      // exact D, m × n row-major
  std::vector<double> scale;  // s = Σ|a·b| + |c| per element
};

// a and b stored by their majors (matrix.hpp: random_operand); c (m × n) or null.
Reference reference(const Matrix& a, layout::Major a_major, const Matrix& b, layout::Major b_major, const Matrix* c,
                    int m, int n, int k);

// u_D: half an ulp of 1 in D's type (0 for f32: D is the accumulator itself).
double output_rounding(ElementType d);
// γ_{K+1} + u_D: the relative bound above.
double relative_bound(ElementType d, int k);

struct Verdict {
  bool ok = false;
  double max_relative = 0;  // max |got − exact| / s (NaN counts as infinite)
  double bound = 0;         // relative_bound(d, k)
  int beyond = 0;           // elements outside the per-element bound
  std::string text;         // on failure: the first elements beyond it, then compare()'s per-row ratio and cosine
};

// got: the kernel's D as floats, m × n row-major.
Verdict verify(std::span<const float> got, const Reference& r, ElementType d);

}  // namespace tcgen::gemm
