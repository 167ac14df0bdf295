// The MMA round trip of tests/kernels/round_trip.hpp — the kernel the device
// test runs on sm_100a — on the host model: TMA → SMEM → UMMA → TMEM →
// tcgen05.ld → global, checked against an fp64 reference, under the
// deterministic schedule and under shuffled ones.
#include <doctest/doctest.h>

#include <vector>

#include "../kernels/gemm_data.hpp"
#include "../kernels/round_trip.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/exec/launch.hpp"

using namespace tcgen;
using namespace tcgen::kernels;
namespace rt = tcgen::kernels::round_trip;

namespace {

std::vector<float> run(const Bf16Matrix& a, const Bf16Matrix& b, const exec::LaunchOptions& options = {}) {
  std::vector<float> d(static_cast<std::size_t>(rt::kM) * rt::kN, -1.0f);
  const rt::Params<exec::HostArch> p{exec::host_tensor_map(operand_map(rt::kM, rt::kK, rt::kM), a.bytes),
                                     exec::host_tensor_map(operand_map(rt::kN, rt::kK, rt::kN), b.bytes), d.data()};
  exec::host::launch({1, 1, 1}, rt::kThreads, rt::kSmemBytes, [&](exec::HostArch& arch) { rt::kernel(arch, p); },
                     options);
  return d;
}

}  // namespace

TEST_CASE("round trip: D = A·Bᵀ through TMA, tcgen05.mma and tcgen05.ld matches fp64") {
  const Bf16Matrix a = random_bf16(rt::kM, rt::kK, 1), b = random_bf16(rt::kN, rt::kK, 2);
  const std::vector<float> d = run(a, b);
  const std::string beyond = beyond_f32_bound(d, a, b);
  CHECK_MESSAGE(beyond.empty(), beyond << compare(d, reference_abt(a, b), rt::kM, rt::kN, 1e-4).text());
}

TEST_CASE("round trip: the same result under shuffled schedules") {
  const Bf16Matrix a = random_bf16(rt::kM, rt::kK, 3), b = random_bf16(rt::kN, rt::kK, 4);
  const std::vector<float> d = run(a, b);
  for (std::uint64_t seed : {1u, 2u}) {
    exec::LaunchOptions options;
    options.shuffle_seed = seed;
    CHECK(run(a, b, options) == d);
  }
}
