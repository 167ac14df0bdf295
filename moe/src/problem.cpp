#include "tcgen/moe/problem.hpp"

#include <string>
#include <utility>

#include "tcgen/core/error.hpp"
#include "tcgen/moe/quantise.hpp"
#include "tcgen/moe/scale_layout.hpp"

namespace tcgen::moe {

// The factors' bytes as quantise.hpp and scale_layout.hpp lay them out: k / 32 UE8M0 factors a row.
std::uint64_t a_scale_bytes(std::span<const std::int32_t> counts, int k) {
  return expert_scale_offset(counts, static_cast<int>(counts.size()), k / 32);
}

std::uint64_t w_scale_bytes(int experts, int n, int k) { return scale_bytes(experts * n, k / 32); }

int out_columns(const Problem& p, const Config& c) { return c.swiglu ? p.n / 2 : p.n; }

void check(const Problem& p, const Config& c) {
  if (p.experts < 1) fail("experts", p.experts, "expected at least 1");
  if (p.n < 128 || p.n % 128 != 0) fail("n", p.n, "expected a positive multiple of 128 (a tile's columns)");
  if (p.k < 128 || p.k % 128 != 0) fail("k", p.k, "expected a positive multiple of 128 (a stage's K block)");
  if (p.tokens < 1) fail("tokens", p.tokens, "expected at least 1");
  if (p.counts == nullptr) fail("counts", "null", "expected the tokens of each expert");
  std::int64_t sum = 0;
  for (int e = 0; e < p.experts; ++e) {
    if (p.counts[e] < 0)
      fail("counts", "counts[" + std::to_string(e) + "] = " + std::to_string(p.counts[e]), "expected no negative count");
    sum += p.counts[e];
  }
  if (sum != p.tokens)
    fail("counts", "a sum of " + std::to_string(sum), "expected the " + std::to_string(p.tokens) + " tokens");
  for (const auto& [name, ptr] : {std::pair<const char*, const void*>{"a", p.a}, {"scale_a", p.scale_a}, {"w", p.w},
                                  {"scale_w", p.scale_w}, {"d", p.d}})
    if (ptr == nullptr || reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0)
      fail(name, ptr == nullptr ? "null" : "misaligned", "expected a 16-byte aligned array (TMA and 16-byte stores)");
  if (reinterpret_cast<std::uintptr_t>(p.w) % 32 != 0)
    fail("w", "misaligned", "expected a 32-byte aligned array (TMA's 16U4_ALIGN16B type, DRV's globalAddress rule)");
  if (p.ldd < out_columns(p, c))
    fail("ldd", std::to_string(p.ldd), "expected at least D's " + std::to_string(out_columns(p, c)) + " columns");
}

}  // namespace tcgen::moe
