#pragma once
// One grouped GEMM's run-time half: the experts' sizes, the token counts and
// where the arrays are. Tokens are grouped by expert (as a MoE layer's
// permutation leaves them): expert e's count_e tokens are rows
// [first_e, first_e + count_e) of A and D, first_e the counts before it.
//
//   counts   [experts] int32, summing to tokens (an expert may have none)
//   a        [tokens, k] e4m3, row-major
//   scale_a  A's UE8M0 factors, one per 32 of a row: each expert's own
//            blocked layout (scale_layout.hpp, its rows padded to 128) after
//            the one before; a_scale_bytes(counts, k) bytes
//   w        [experts · n, k] e2m1 packed two to a byte (low nibble first):
//            expert e's rows [e·n, e·n + n); with SwiGLU each 128 rows are
//            64 gate rows then the 64 up rows of the same outputs
//   scale_w  W's UE8M0 factors: one blocked layout over experts · n rows
//   d        [tokens, ldd] bf16: n columns, or n / 2 with SwiGLU
//
// TMA reads A, W and the factors: 16-byte aligned, k a multiple of 128 (a
// stage's K block, four factors), n of 128 (a tile).
#include <cstdint>
#include <span>

#include "tcgen/moe/config.hpp"

namespace tcgen::moe {

struct Problem {
  int experts = 0, n = 0, k = 0, tokens = 0;
  const std::int32_t* counts = nullptr;
  const std::uint8_t* a = nullptr;
  const std::uint8_t* scale_a = nullptr;
  const std::uint8_t* w = nullptr;
  const std::uint8_t* scale_w = nullptr;
  std::uint16_t* d = nullptr;
  int ldd = 0;
};

// Bytes of A's factors for these counts, and of W's.
std::uint64_t a_scale_bytes(std::span<const std::int32_t> counts, int k);
std::uint64_t w_scale_bytes(int experts, int n, int k);
// D's columns: n, or n / 2 with SwiGLU.
int out_columns(const Problem& p, const Config& c);

// Throws tcgen::Error naming the field ("n", "counts", "ldd", ...) of a
// problem config c cannot run, with what is allowed. The counts are read here:
// the host holds them (the kernel reads its own copy).
void check(const Problem& p, const Config& c);

}  // namespace tcgen::moe
