// tile::SmemPlan's stage query (tile/smem_plan.hpp): the most pipeline stages
// whose plan fits a CTA's shared memory, against the byte arithmetic of a
// plan laid out by hand, and the FMHA's K/V ring as the kernel declares it.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>

#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/fmha/kernel.hpp"
#include "tcgen/tile/smem_plan.hpp"

using namespace tcgen;

namespace {

// A 1 KiB fixed buffer, then `stages` copies of a 32 KiB stage, all 1024-aligned: s stages take
// 1024 + 32768·s bytes.
constexpr auto kRing = [](int stages) {
  return std::array{tile::buffer("fixed", 1024, 1024), tile::buffer("stage", 32768, 1024, stages),
                    tile::barriers("full", stages, 1)};
};

}  // namespace

TEST_CASE("stages_that_fit: the most stages whose bytes fit the kernel's shared memory, at most `most`") {
  // By hand: the barriers' 8·s bytes follow the last stage; 227 KB less the launch's 1 KiB of alignment.
  int by_hand = 0;
  while (1024 + 32768u * (by_hand + 1) + 8u * (by_hand + 1) <= exec::kKernelSmemBytes) ++by_hand;
  REQUIRE(by_hand == 7);
  CHECK(tile::stages_that_fit(10, kRing) == by_hand);
  CHECK(tile::stages_that_fit(5, kRing) == 5);
  CHECK(tile::stages_that_fit(1, kRing) == 1);
  using Plan = tile::SmemPlanOf<kRing(7)>;
  CHECK(Plan::bytes == 1024 + 7 * 32768 + 7 * 8);
  CHECK(Plan::address<"stage">(0, 2) == 1024 + 2 * 32768);
  // Not even one stage fits: 0, and the caller's static_assert says so.
  constexpr auto huge = [](int stages) { return std::array{tile::buffer("stage", 200000, 1024, stages)}; };
  CHECK(tile::stages_that_fit(3, huge) == 1);
  constexpr auto none = [](int stages) { return std::array{tile::buffer("stage", 240000, 1024, stages)}; };
  CHECK(tile::stages_that_fit(3, none) == 0);
}

template <int D>
void fmha_ring_is_the_most_that_fits() {
  using F = fmha::Fmha<ElementType::bf16, D>;
  CAPTURE(D);
  CHECK(F::kSmemBytes <= exec::kKernelSmemBytes);
  if (F::kStages < 3) CHECK(tile::check(F::kSmemEntries(F::kStages + 1)).rule == tile::SmemRule::capacity);
}

TEST_CASE("the FMHA's K/V ring takes as many stages as fit, up to 3") {
  fmha_ring_is_the_most_that_fits<64>();
  fmha_ring_is_the_most_that_fits<128>();
  fmha_ring_is_the_most_that_fits<256>();
  // docs/fmha.md's counts: 3 at head_dim 64, 2 at 128, 1 at 256.
  CHECK(fmha::Fmha<ElementType::bf16, 64>::kStages == 3);
  CHECK(fmha::Fmha<ElementType::bf16, 128>::kStages == 2);
  CHECK(fmha::Fmha<ElementType::bf16, 256>::kStages == 1);
}
