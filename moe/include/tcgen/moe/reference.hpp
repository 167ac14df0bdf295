#pragma once
// The fp64 reference of the MoE grouped GEMM, against which the kernel is checked.
//
// Experts e = 0 .. E-1 (E = counts.size()) each multiply their own tokens by
// their own weights: a holds all tokens, contiguous, expert 0's counts[0]
// rows first (quantise_grouped, so a's scales are per expert); w holds E·n
// rows of K, expert e's rows [e·n, e·n + n), its scales one blocked layout
// over all E·n rows (n a multiple of 128, so every expert starts a block).
//
//   D[t, j] = Σ_k a.value(t, k) · w.value(e(t)·n + j, k)        (t a token of expert e(t))
//
// value() multiplies in each operand's per-tensor scale, so NVFP4's D carries
// a.global_scale · w.global_scale. Without swiglu the result is D (total
// tokens × n, row-major). With swiglu it is the fused SwiGLU, gate and up
// interleaved by 64-column blocks: in each 128-column block j of D, columns
// [0, 64) are the gate and [64, 128) the up projection of the same 64 outputs,
//
//   out[t, 64j + c] = silu(D[t, 128j + c]) · D[t, 128j + 64 + c],  silu(x) = x / (1 + e^-x),
//
// total tokens × n/2, row-major.
#include <span>
#include <vector>

#include "tcgen/moe/quantise.hpp"

namespace tcgen::moe {

// Throws tcgen::Error when a's counts are not `counts`, the K of a and w
// differ, n is not a multiple of 128, or w's rows are
// not counts.size() · n.
std::vector<double> grouped_reference(const Quantised& a, std::span<const int> counts, const Quantised& w, int n,
                                      bool swiglu);

}  // namespace tcgen::moe
