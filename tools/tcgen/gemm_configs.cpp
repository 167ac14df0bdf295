#include "gemm_configs.hpp"

#include <array>
#include <stdexcept>
#include <utility>

#include "tcgen/gemm/host_gemm.hpp"

namespace tcgen::cli {

namespace {

using layout::Major;

// bf16/fp16 A and B × K/MN-major A × K/MN-major B × f32/bf16/fp16 D (and C).
constexpr auto kConfigs = [] {
  std::array<gemm::Config, 24> all{};
  std::size_t i = 0;
  for (ElementType ab : {ElementType::bf16, ElementType::fp16})
    for (Major a : {Major::K, Major::MN})
      for (Major b : {Major::K, Major::MN})
        for (ElementType d : {ElementType::f32, ElementType::bf16, ElementType::fp16})
          all[i++] = gemm::Config{.ab = ab, .a_major = a, .b_major = b, .d = d};
  return all;
}();

template <std::size_t... I>
bool run_one_of(const gemm::Config& c, const gemm::Problem& p, std::index_sequence<I...>) {
  return ((kConfigs[I] == c ? (gemm::run_host<kConfigs[I]>(p), true) : false) || ...);
}

}  // namespace

void run_host_gemm(const gemm::Config& c, const gemm::Problem& p) {
  if (!run_one_of(c, p, std::make_index_sequence<kConfigs.size()>()))
    throw std::logic_error("tcgen gemm has no compiled kernel for " + gemm::describe(c));
}

}  // namespace tcgen::cli
