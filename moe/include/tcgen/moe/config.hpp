#pragma once
// Which grouped block-scaled GEMM a kernel instance computes (kernel.hpp):
// the block formats of the tokens (A) and of the experts' weights (W), and
// whether the epilogue fuses SwiGLU. The sizes, the token counts and the
// pointers are run-time values (problem.hpp).
#include <string>

#include "tcgen/moe/block_format.hpp"

namespace tcgen::moe {

struct Config {
  BlockFormat a = kMxfp8;  // the tokens: MXFP8 (e4m3, a UE8M0 factor per 32)
  BlockFormat w = kMxfp4;  // the weights: MXFP4 (e2m1, a UE8M0 factor per 32)
  // D = silu(gate) · up, gate and up the two halves of each 128 columns of
  // the expert's n (kernel.hpp); else D = A·Wᵀ, n columns.
  bool swiglu = false;
  int stages = 6;  // shared-memory stages in flight, at least 2
  friend constexpr bool operator==(const Config&, const Config&) = default;
};

// "mxfp8 x mxfp4 -> bf16, SwiGLU, 6 stages".
std::string describe(const Config& c);

}  // namespace tcgen::moe
