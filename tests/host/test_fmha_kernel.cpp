// The FMHA kernel (tcgen/fmha/kernel.hpp) on the host model, one launch
// per problem, against the fp64 reference (fmha/src/reference.cpp): every head
// dim, bf16 and fp16, causal, sliding window, GQA, odd lengths, rows that see
// no key, shuffled schedules. Inputs are fresh each run (the seed is
// printed); V is zero-mean, so O is held to a per-row relative error in the
// 2-norm (1e-2 for bf16 and fp16: P is rounded to the input type for the
// TS-MMA, as in every tcgen05 FMHA) and LSE per element (1e-3). Each case
// also checks that a reference with twice the scale is told apart.
//
// Where nvcc built the kernels' sm_100a PTX (TCGEN_FMHA_PTX), each problem
// runs again through the PTX interpreter, executing what a B200 would,
// DeviceArch's inline asm included: the same check, the same bits of O as
// the HostArch run, and LSE within 1e-6 · (|LSE| + 8) of it (CUDA's logf against the host's).
#include <doctest/doctest.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fresh_seed.hpp"
#include "tcgen/fmha/check.hpp"
#include "tcgen/fmha/run.hpp"
#include "tcgen/fmha/inputs.hpp"
#include "tcgen/fmha/reference.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/core/element_type.hpp"
#if defined(TCGEN_FMHA_PTX)
#include "tcgen/ptx/backend.hpp"
#endif

using namespace tcgen;
using namespace tcgen::fmha;

namespace {

#if defined(TCGEN_FMHA_PTX)
const ptx::Module& kernels() {
  static const ptx::Module m = ptx::Module::load(TCGEN_FMHA_PTX);
  return m;
}
#endif

void check_kernel(const FmhaProblem& p, const exec::LaunchOptions& options = {}, bool rising = false) {
  INFO("seed " << fresh_seed());
  CAPTURE(p.batch);
  CAPTURE(p.heads);
  CAPTURE(p.heads_kv);
  CAPTURE(p.seq_q);
  CAPTURE(p.seq_k);
  CAPTURE(p.head_dim);
  CAPTURE(p.mask.left);
  CAPTURE(p.mask.right);
  const std::uint64_t salt = static_cast<std::uint64_t>(p.seq_q) * 131 + p.seq_k * 7 + p.head_dim + p.heads;
  const FmhaInputs in = random_fmha_inputs(p, fresh_seed() ^ (salt * 2654435761u), rising);
  MESSAGE("FMHA kernel on the host model: " << p.batch << "x" << p.heads << " heads (" << p.heads_kv << " K/V), "
                                            << p.seq_q << " x " << p.seq_k << ", head_dim " << p.head_dim << ", "
                                            << tcgen::name(p.dtype) << ", mask (" << p.mask.left << ", " << p.mask.right
                                            << "), scale " << p.scale.value());
  const FmhaOutput got = run(p, in.operands(), {}, tcgen::exec::HostModel{options}).out;
  const FmhaCheck check = check_fmha(p, in, got);
  CHECK_MESSAGE(check.o.ok, check.o.text());
  CHECK_MESSAGE(check.lse.ok, check.lse.text());
  MESSAGE("max row relative error of O " << check.o.max_rel_error << ", of LSE " << check.lse.max_rel_error);
  // Breaking the scale once: a reference with 2x the scale must be told apart
  // (LSE always; O needs a row that sees two keys or more: one key gives O = V at any scale).
  FmhaProblem wrong = p;
  wrong.scale = attention::SoftmaxScale::explicit_value(2 * p.scale.value());
  const FmhaCheck against_wrong = check_fmha(p, fmha_reference(wrong, in.q, in.k, in.v), got);
  const bool one_key_per_row = p.seq_k == 1 || (p.mask.left == 0 && p.mask.right == 0);
  if (!one_key_per_row) CHECK_FALSE(against_wrong.o.ok);
  CHECK_FALSE(against_wrong.lse.ok);
#if defined(TCGEN_FMHA_PTX)
  const FmhaOutput ptx = run(p, in.operands(), {}, tcgen::ptx::Interpreter{kernels(), options}).out;
  const FmhaCheck ptx_check = check_fmha(p, in, ptx);
  CHECK_MESSAGE(ptx_check.o.ok, "PTX backend: " << ptx_check.o.text());
  CHECK_MESSAGE(ptx_check.lse.ok, "PTX backend: " << ptx_check.lse.text());
  CHECK_MESSAGE(ptx.o == got.o, "the PTX run's O differs from the HostArch run's");
  // LSE = ln(l) + scale·m: the host's logf and CUDA's differ by an ulp or so of ln(l), which is
  // below ln(seq_k) + 1 in size; the sum can cancel, so the bound is absolute: 1e-6 · (|LSE| + 8).
  double lse_difference = 0;  // in units of that bound
  for (std::size_t i = 0; i < got.lse.size(); ++i)
    if (ptx.lse[i] != got.lse[i])
      lse_difference = std::max(lse_difference, std::abs(double(ptx.lse[i]) - got.lse[i]) /
                                                    (1e-6 * (std::abs(double(got.lse[i])) + 8)));
  CHECK_MESSAGE(lse_difference <= 1, "the PTX run's LSE differs from the HostArch run's by " << lse_difference
                                                                                             << " times the bound");
#endif
}

exec::LaunchOptions shuffled(int salt) {
  exec::LaunchOptions options;
  options.shuffle_seed = fresh_seed() + static_cast<std::uint32_t>(salt);
  return options;
}

}  // namespace

TEST_CASE("FMHA kernel, head_dim 64: one full K block") { check_kernel(FmhaProblem::make(1, 1, 1, 128, 128, 64)); }
TEST_CASE("FMHA kernel, head_dim 64: seq_q 77, seq_k 300 (a partial Q tile, three K blocks)") {
  check_kernel(FmhaProblem::make(1, 1, 1, 77, 300, 64));
}
TEST_CASE("FMHA kernel, head_dim 128: seq_k 1, shuffled schedule") {
  check_kernel(FmhaProblem::make(1, 1, 1, 200, 1, 128), shuffled(1));
}
TEST_CASE("FMHA kernel, head_dim 128: 1024 x 1000 (four CTAs, the last K block partial)") {
  check_kernel(FmhaProblem::make(1, 1, 1, 1024, 1000, 128));
}
TEST_CASE("FMHA kernel, head_dim 256: 130 x 333 (one Q tile in flight, two CTAs)") {
  check_kernel(FmhaProblem::make(1, 1, 1, 130, 333, 256));
}
TEST_CASE("FMHA kernel, head_dim 256, fp16, causal") {
  check_kernel(FmhaProblem::make(1, 1, 1, 200, 200, 256, FmhaMask::causal(), ElementType::fp16));
}
TEST_CASE("FMHA kernel, causal, 333 x 333, shuffled schedule") {
  check_kernel(FmhaProblem::make(1, 1, 1, 333, 333, 128, FmhaMask::causal()), shuffled(2));
}
TEST_CASE("FMHA kernel, causal with seq_q > seq_k: the first rows see no key (O = 0, LSE = -inf)") {
  check_kernel(FmhaProblem::make(1, 1, 1, 300, 77, 64, FmhaMask::causal()));
}
TEST_CASE("FMHA kernel, top-left causal, 300 x 77 and 77 x 300 (PyTorch's is_causal=True)") {
  check_kernel(FmhaProblem::make(1, 1, 1, 300, 77, 64, FmhaMask::causal(MaskCorner::top_left)));
  check_kernel(FmhaProblem::make(1, 2, 1, 77, 300, 128, FmhaMask::causal(MaskCorner::top_left)), shuffled(4));
}
TEST_CASE("FMHA kernel, sliding window (64, 16), fp16, 300 x 450") {
  check_kernel(FmhaProblem::make(1, 1, 1, 300, 450, 128, FmhaMask::window(64, 16), ElementType::fp16));
}
TEST_CASE("FMHA kernel, sliding window (0, 0): each row sees one key") {
  check_kernel(FmhaProblem::make(1, 1, 1, 130, 130, 64, FmhaMask::window(0, 0)));
}
TEST_CASE("FMHA kernel, batch 2, GQA 4 heads on 2, causal, 77 x 200, shuffled schedule") {
  check_kernel(FmhaProblem::make(2, 4, 2, 77, 200, 64, FmhaMask::causal()), shuffled(3));
}
TEST_CASE("FMHA kernel, batch 3, 2 heads on 1, 1 x 77 (a single query)") {
  check_kernel(FmhaProblem::make(3, 2, 1, 1, 77, 128));
}
TEST_CASE("FMHA kernel, rising scores: O is rescaled as the row maximum grows, 256 x 700, shuffled schedule") {
  check_kernel(FmhaProblem::make(1, 2, 1, 256, 700, 128), shuffled(4), true);
}
TEST_CASE("FMHA kernel, rising scores, head_dim 256, fp16") {
  check_kernel(FmhaProblem::make(1, 1, 1, 128, 500, 256, FmhaMask::none(), ElementType::fp16), {}, true);
}
TEST_CASE("FMHA kernel, a window of INT_MAX keys on each side sees every key (no overflow)") {
  check_kernel(FmhaProblem::make(1, 1, 1, 130, 200, 64, FmhaMask::window(INT_MAX, INT_MAX)));
}
