// The warp-specialised pipeline of tests/kernels/pipeline.hpp — the kernel
// the device test runs on sm_100a — on the host: its result against fp64
// over a grid of two CTAs, under the deterministic and shuffled schedules,
// and each deliberately broken variant with the error it must give.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "../kernels/gemm_data.hpp"
#include "../kernels/pipeline.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/exec/errors.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/model/model_error.hpp"

using namespace tcgen;
using namespace tcgen::kernels;
namespace pl = tcgen::kernels::pipeline;

namespace {

constexpr int kCtas = 2, kN = pl::kN * kCtas;

struct Gemm {
  Bf16Matrix a = random_bf16(pl::kM, pl::kK, 11), b = random_bf16(kN, pl::kK, 12);
  std::vector<float> d = std::vector<float>(static_cast<std::size_t>(pl::kM) * kN, -1.0f);

  void run(pl::Bug bug = pl::Bug::none, const exec::LaunchOptions& options = {}) {
    const pl::Params<exec::HostArch> p{exec::host_tensor_map(operand_map(pl::kM, pl::kK, pl::kM), a.bytes),
                                       exec::host_tensor_map(operand_map(kN, pl::kK, pl::kN), b.bytes), d.data(), kN,
                                       bug};
    exec::host::launch({kCtas, 1, 1}, pl::kThreads, pl::kSmemBytes, [&](exec::HostArch& arch) { pl::kernel(arch, p); },
                       options);
  }
};

// The error of a broken variant, PTX-letter rules included (letters_as_errors).
model::ModelError model_error(pl::Bug bug) {
  try {
    exec::LaunchOptions options;
    options.letters_as_errors = true;
    Gemm().run(bug, options);
  } catch (const model::ModelError& e) {
    return e;
  }
  FAIL("expected a ModelError");
  return model::ModelError({}, model::Rule::unsupported, "", "", "");
}

bool contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  MESSAGE("missing \"" << part << "\" in:\n" << text);
  return false;
}

}  // namespace

TEST_CASE("pipeline: four K blocks through two stages, two CTAs, match fp64") {
  Gemm g;
  g.run();
  const std::string beyond = beyond_f32_bound(g.d, g.a, g.b);
  CHECK_MESSAGE(beyond.empty(), beyond << compare(g.d, reference_abt(g.a, g.b), pl::kM, kN, 1e-4).text());
}

TEST_CASE("pipeline: the same result under shuffled schedules") {
  Gemm g;
  g.run();
  for (std::uint64_t seed : {5u, 6u, 7u}) {
    Gemm s;
    exec::LaunchOptions options;
    options.shuffle_seed = seed;
    s.run(pl::Bug::none, options);
    CHECK(s.d == g.d);
  }
}

TEST_CASE("broken: the MMA warp arrives on acc_full instead of committing") {
  const model::ModelError e = model_error(pl::Bug::missing_commit);
  CHECK(e.rule() == model::Rule::mma_not_complete);
  CHECK(contains(e.what(), "tcgen05.ld.sync.aligned.32x32b.x32.b32 (warp 2)"));
  CHECK(contains(e.what(), "tcgen05.mma.cta_group::1.kind::f16 [d-tmem], a-desc, b-desc of warp 1, lane 0"));
}

TEST_CASE("broken: the epilogue reads TMEM without tcgen05.fence::after_thread_sync") {
  // An error with letters as errors; by default a PTX letter (CUTLASS's B200 kernels issue no
  // fences), so the run goes on and gives the right D.
  const model::ModelError e = model_error(pl::Bug::missing_fence);
  CHECK(e.rule() == model::Rule::missing_after_thread_sync);
  CHECK(contains(e.what(), "(warp 2)"));
  CHECK(contains(e.what(), "has not executed tcgen05.fence::after_thread_sync since that wait"));
  Gemm g;
  g.run(pl::Bug::missing_fence);
  CHECK(compare(g.d, reference_abt(g.a, g.b), pl::kM, kN, 1e-4).ok);
}

TEST_CASE("broken: the epilogue waits on acc_full for the wrong phase") {
  // Parity 1 names the phase before the first, complete from the start: the
  // epilogue goes on before the MMAs have completed (or even run).
  const model::ModelError e = model_error(pl::Bug::wrong_phase);
  CHECK((e.rule() == model::Rule::uninitialized_tmem || e.rule() == model::Rule::mma_not_complete));
  CHECK(contains(e.what(), "tcgen05.ld.sync.aligned.32x32b.x32.b32 (warp "));
}

TEST_CASE("broken: the epilogue numbers its quarters from its first warp, not by warp % 4") {
  // Warp 2 names lane 0: a PTX letter (B200s take the warp's own lanes, and
  // FlashMLA relies on it), an error with letters as errors, as here.
  const model::ModelError e = model_error(pl::Bug::lane_quarter);
  CHECK(e.rule() == model::Rule::lane_quarter_implied);
  CHECK(contains(e.what(), "(warp 2): taddr lane = 0"));
  CHECK(contains(e.what(), "warp 2 owns lanes 64 to 95"));
  // By default each warp reads its own quarter's rows, as B200s do (they ignore the lane field's quarter
  // bits), and writes them where its own numbering puts them: warp 2 (quarter 2, numbered 0) rows
  // 64-95 as rows 0-31, and so on round: D is the product with its row blocks turned by 64, no fault.
  Gemm g;
  g.run(pl::Bug::lane_quarter);
  const std::vector<double> product = reference_abt(g.a, g.b);
  std::vector<double> turned(product.size());
  for (int row = 0; row < pl::kM; ++row)
    std::copy_n(product.begin() + static_cast<std::ptrdiff_t>((row + 64) % pl::kM) * kN, kN,
                turned.begin() + static_cast<std::ptrdiff_t>(row) * kN);
  CHECK_FALSE(compare(g.d, product, pl::kM, kN, 1e-4).ok);
  CHECK(compare(g.d, turned, pl::kM, kN, 1e-4).ok);
}

TEST_CASE("broken: the producer waits for the first phase of an empty ring: deadlock") {
  std::string r;
  try {
    Gemm().run(pl::Bug::deadlock);
    FAIL("expected a deadlock");
  } catch (const exec::DeadlockError& e) {
    r = e.report();
  }
  const auto at = [](std::uint32_t offset) {
    char b[64];
    std::snprintf(b, sizeof b, "0x%x (smem_base + 0x%x)", exec::CtaRuntime::kSmemBase + offset, offset);
    return std::string(b);
  };
  CHECK(contains(r, "deadlock in CTA (0, 0, 0)"));
  CHECK(contains(r, "warp 0, lane 0 (thread 0): wait on the mbarrier at " + at(pl::kEmpty) +
                        " for the phase of parity 0 to complete; it is in phase 0 with 1 of 1 arrivals pending and "
                        "tx-count 0; no arrival since its mbarrier.init by thread 0 (warp 0, lane 0)"));
  CHECK(contains(r, "warp 1, lane 0 (thread 32): wait on the mbarrier at " + at(pl::kFull) +
                        " for the phase of parity 0 to complete; it is in phase 0 with 1 of 1 arrivals pending"));
  CHECK(contains(r, "warps 2-5 (threads 64-191): wait on the mbarrier at " + at(pl::kAccFull)));
  CHECK(contains(r, "warp 0, lanes 1-31; warp 1, lanes 1-31: wait at bar.sync 0 for 192 threads; 62 have arrived"));
}
