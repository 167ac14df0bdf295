// The FMHA kernel (tcgen/fmha/kernel.hpp) on a B200, through the same
// runner as `tcgen fmha --backend sm100` (fmha::run with exec::Sm100, which
// launches launch_fmha_device), against the fp64 reference with the host
// tests' bounds (tests/host/test_fmha_kernel.cpp: O within 1e-2 per row in
// the 2-norm, LSE within 1e-3) over every head dim, both types, masks, GQA and
// rising scores, and once with PReuse::wait_for_pv. Run only where an sm_100 GPU is present (exit 77 elsewhere).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "device_check.hpp"
#include "tcgen/fmha/check.hpp"
#include "tcgen/fmha/inputs.hpp"
#include "tcgen/fmha/sm100_runner.hpp"

using namespace tcgen;
using namespace tcgen::fmha;

namespace {

bool run(const FmhaProblem& p, std::uint64_t seed, bool rising = false, const FmhaOptions& options = {}) {
  const FmhaInputs in = random_fmha_inputs(p, seed, rising);
  const FmhaCheck check = check_fmha(p, in, fmha::run(p, in.operands(), options, exec::Sm100{}).out);
  const bool ok = check.ok();
  std::printf("%s %s head_dim %d, %dx%d heads (%d K/V), %d x %d, mask (%d, %d)%s, scale %g: O max row rel %.3g, "
              "LSE max rel %.3g\n",
              ok ? "PASS" : "FAIL", name(p.dtype), p.head_dim, p.batch, p.heads, p.heads_kv, p.seq_q, p.seq_k,
              p.mask.left, p.mask.right, rising ? ", rising scores" : "", p.scale.value(), check.o.max_rel_error,
              check.lse.max_rel_error);
  if (!ok) std::printf("%s\n%s\n", check.o.text().c_str(), check.lse.text().c_str());
  return ok;
}

}  // namespace

int main() {
  require_gpu(10, 0);
  const unsigned seed = std::random_device{}();
  std::printf("seed %u\n", seed);
  constexpr ElementType bf16 = ElementType::bf16, fp16 = ElementType::fp16;
  const FmhaMask none = FmhaMask::none(), causal = FmhaMask::causal();
  int failures = 0;
  failures += !run(FmhaProblem::make(1, 1, 1, 256, 333, 64, none, bf16), seed + 1);
  failures += !run(FmhaProblem::make(1, 1, 1, 77, 1, 128, none, bf16), seed + 2);
  failures += !run(FmhaProblem::make(1, 2, 1, 1024, 1000, 128, none, bf16), seed + 3);
  failures += !run(FmhaProblem::make(2, 4, 2, 1000, 1000, 128, causal, bf16), seed + 4);
  failures += !run(FmhaProblem::make(1, 2, 2, 300, 77, 64, causal, fp16), seed + 5);
  failures += !run(FmhaProblem::make(1, 2, 1, 500, 700, 128, FmhaMask::window(64, 16), fp16), seed + 6);
  failures += !run(FmhaProblem::make(1, 1, 1, 130, 333, 256, none, bf16), seed + 7);
  failures += !run(FmhaProblem::make(2, 2, 1, 333, 333, 256, causal, fp16), seed + 8);
  failures += !run(FmhaProblem::make(1, 2, 1, 256, 700, 128, none, bf16), seed + 9, true);
  // S waits for the P·V that reads P (tcgen/fmha/problem.hpp).
  failures += !run(FmhaProblem::make(1, 2, 1, 500, 700, 128, causal, bf16), seed + 10, false,
                   FmhaOptions{.p_reuse = PReuse::wait_for_pv});
  std::printf("%s: %d failed\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
