#include "gemm_configs.hpp"

#include <array>
#include <optional>
#include <stdexcept>
#include <utility>

#include "tcgen/gemm/run.hpp"
#include "tcgen/ptx/backend.hpp"
#if defined(TCGEN_SM100)
#include "tcgen/gemm/sm100_runner.hpp"
#endif

namespace tcgen::cli {

namespace {

using layout::Major;

// bf16/fp16 A and B × K/MN-major A × K/MN-major B × f32/bf16/fp16 D (and C),
// on one CTA or a CTA pair per tile.
constexpr auto kConfigs = [] {
  std::array<gemm::Config, 48> all{};
  std::size_t i = 0;
  for (int cta_group : {1, 2})
    for (ElementType ab : {ElementType::bf16, ElementType::fp16})
      for (Major a : {Major::K, Major::MN})
        for (Major b : {Major::K, Major::MN})
          for (ElementType d : {ElementType::f32, ElementType::bf16, ElementType::fp16})
            all[i++] = gemm::Config{.ab = ab, .a_major = a, .b_major = b, .d = d, .cta_group = cta_group};
  return all;
}();

// The run of config C on the backend, where the backend has a runner for C.
template <gemm::Config C, class Backend>
std::optional<exec::RunStats> run_config(const gemm::Problem& p, const Backend& backend) {
  if constexpr (requires { gemm::run<C>(p, gemm::Options{}, backend); })
    return gemm::run<C>(p, {}, backend);
  else
    return std::nullopt;
}

template <class Backend>
exec::RunStats run_one_of(const gemm::Config& c, const gemm::Problem& p, const Backend& backend) {
  std::optional<exec::RunStats> stats;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((kConfigs[I] == c && ((stats = run_config<kConfigs[I]>(p, backend)), true)) || ...);
  }(std::make_index_sequence<kConfigs.size()>());
  if (!stats) throw std::logic_error("tcgen gemm has no compiled kernel for " + gemm::describe(c));
  return *stats;
}

}  // namespace

exec::RunStats run_gemm(const gemm::Config& c, const gemm::Problem& p, const exec::HostModel& backend) {
  return run_one_of(c, p, backend);
}
exec::RunStats run_gemm(const gemm::Config& c, const gemm::Problem& p, const ptx::Interpreter& backend) {
  return run_one_of(c, p, backend);
}
#if defined(TCGEN_SM100)
exec::RunStats run_gemm(const gemm::Config& c, const gemm::Problem& p, const exec::Sm100& backend) {
  return run_one_of(c, p, backend);
}
#endif

}  // namespace tcgen::cli
