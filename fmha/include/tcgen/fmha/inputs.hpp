#pragma once
// Random inputs for an FMHA problem, drawn the one way the tests, the B200
// test and the benchmark draw them: Q and K uniform in [-2, 2) (scores of a
// few units after scaling: the softmax is neither flat nor one-hot), V uniform
// in [-1, 1) (zero mean, so O is checked per row in the 2-norm; docs/fmha.md),
// each rounded to problem.dtype. The float values are exactly the rounded
// ones, for the fp64 reference; the bit patterns are what the kernel reads.
#include <cstdint>
#include <vector>

#include "tcgen/fmha/problem.hpp"

namespace tcgen::fmha {

struct FmhaInputs {
  std::vector<float> q, k, v;             // [batch, heads(_kv), seq, head_dim] values
  std::vector<std::uint16_t> qb, kb, vb;  // the same as problem.dtype bit patterns
  FmhaOperands operands() const { return {qb, kb, vb}; }
};

// `rising`: key j's row of K is multiplied by 1 + j / 128 before rounding, so
// each block of 128 keys scores higher than the one before by more than the
// softmax's rescale threshold and the kernel must rescale O (with plain
// random inputs the first block's maximum is rarely beaten by 2^8).
FmhaInputs random_fmha_inputs(const CheckedFmhaProblem& problem, std::uint64_t seed, bool rising = false);

}  // namespace tcgen::fmha
