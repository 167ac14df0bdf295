// The GEMM kernel of gemm/include/tcgen/gemm/kernel.hpp — the source the
// sm_100a build compiles — run on the host model, every tcgen05, mbarrier
// and TMA rule checked, against the fp64 reference with the bound of
// gemm/reference.hpp: |error| ≤ (γ_{K+1} + u_D)·Σ|a·b| per element, u_D
// = 2⁻⁸ (bf16 out), 2⁻¹¹ (fp16 out), 0 (f32 out). Shapes leave partial
// tiles in M, N and K; both majors, both input types, all three output
// types, with and without C; one run under shuffled schedules.
//
// Where nvcc built the kernels' sm_100a PTX (TCGEN_GEMM_TEST_PTX), each
// problem runs again through the PTX interpreter, the first execution of
// DeviceArch's inline asm: it must pass the same check and give the same
// bits as the HostArch run.
//
// Inputs are fresh per run: the seed is printed, and TCGEN_SEED=<seed>
// repeats a run.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/gemm/run.hpp"
#include "tcgen/gemm/matrix.hpp"
#include "tcgen/gemm/reference.hpp"
#include "../kernels/gemm_test_configs.hpp"
#if defined(TCGEN_GEMM_TEST_PTX)
#include "tcgen/ptx/backend.hpp"
#endif

using namespace tcgen;
using namespace tcgen::gemm_tests;

namespace {

std::uint64_t run_seed() {
  static const std::uint64_t seed = [] {
    const char* env = std::getenv("TCGEN_SEED");
    const std::uint64_t s = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
    std::printf("test_gemm: seed %llu (TCGEN_SEED=%llu repeats this run)\n", static_cast<unsigned long long>(s),
                static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

struct Shape {
  int m, n, k;
  bool with_c = false;
  int ctas = 0;  // 0: one per tile
};

struct Result {
  gemm::Matrix d;
  gemm::Verdict verdict;
};

enum class Backend { host, ptx };

#if defined(TCGEN_GEMM_TEST_PTX)
const ptx::Module& kernels() {
  static const ptx::Module m = ptx::Module::load(TCGEN_GEMM_TEST_PTX);
  return m;
}
#endif

template <gemm::Config C>
Result run(const Shape& s, std::uint64_t salt, const exec::LaunchOptions& options = {}, Backend backend = Backend::host) {
  const std::uint64_t seed = run_seed() + salt;
  const gemm::Matrix a = gemm::random_operand(C.ab, C.a_major, s.m, s.k, seed);
  const gemm::Matrix b = gemm::random_operand(C.ab, C.b_major, s.n, s.k, seed + 1);
  std::optional<gemm::Matrix> c;
  if (s.with_c) c = gemm::random_matrix(C.d, s.m, s.n, seed + 2);
  gemm::Matrix d = gemm::nan_matrix(C.d, s.m, s.n);
  const gemm::Problem p{s.m, s.n, s.k, a.data(), b.data(), c ? c->data() : nullptr, d.data(),
                        a.ld, b.ld, c ? c->ld : 0, d.ld};
  if (backend == Backend::host) gemm::run<C>(p, {s.ctas}, exec::HostModel{options});
#if defined(TCGEN_GEMM_TEST_PTX)
  if (backend == Backend::ptx) gemm::run<C>(p, {s.ctas}, ptx::Interpreter{kernels(), options});
#endif
  const gemm::Reference ref = gemm::reference(a, C.a_major, b, C.b_major, c ? &*c : nullptr, s.m, s.n, s.k);
  gemm::Verdict v = gemm::verify(gemm::to_floats(d), ref, C.d);
  return {std::move(d), std::move(v)};
}

template <gemm::Config C>
void check(const Shape& s, std::uint64_t salt) {
  const std::uint64_t seed = run_seed() + salt;
  INFO(gemm::describe(C) << ", " << s.m << "x" << s.n << "x" << s.k << std::string(s.with_c ? " + C" : "") << ", seed " << seed);
  const Result host = run<C>(s, salt);
  const gemm::Verdict& v = host.verdict;
  CHECK_MESSAGE(v.ok, v.text);
  MESSAGE(gemm::describe(C) << ", " << s.m << "x" << s.n << "x" << s.k << std::string(s.with_c ? " + C" : "")
                            << ": max error " << v.max_relative << " of sum|a*b| (bound " << v.bound << ")");
#if defined(TCGEN_GEMM_TEST_PTX)
  const Result ptx = run<C>(s, salt, {}, Backend::ptx);
  CHECK_MESSAGE(ptx.verdict.ok, "PTX backend: " << ptx.verdict.text);
  CHECK_MESSAGE(ptx.d.bytes == host.d.bytes, "the PTX run's D differs from the HostArch run's");
#endif
}

}  // namespace

TEST_CASE("gemm: the TMA boxes fill the SmemOperand tiles") {
  // K-major: one box of 64 K × all rows; MN-major: one swizzle atom (64 × 8) per box.
  using KA = tile::Operand<bf16, Major::K, 128>;
  static_assert(KA::kInner == 64 && KA::kOuter == 128 && KA::kCountInner == 1 && KA::kCountOuter == 1);
  using MB = tile::Operand<fp16, Major::MN, 256>;
  static_assert(MB::kInner == 64 && MB::kOuter == 8 && MB::kCountInner == 4 && MB::kCountOuter == 8);
  static_assert(MB::kStrideInner == 1024 && MB::kStrideOuter == 4096);  // M/N blocks first, then K groups
  CHECK(KA::bytes == 128 * 64 * 2);
}

TEST_CASE("gemm: bf16, K-major, f32 out; partial tiles in M, N and K; four tiles through one CTA") {
  // 200 = 128 + 72 rows, 300 = 256 + 44 columns, 250 = 3·64 + 58 of K. One
  // CTA takes all four tiles: each accumulator is used twice, each stage 16 times.
  check<kBf16>({200, 300, 250, false, 1}, 0);
}

TEST_CASE("gemm: bf16, K-major, f32 out; nine tiles on two CTAs, K = 1000 (16 blocks through 4 stages)") {
  check<kBf16>({300, 520, 1000, false, 2}, 60);
}

TEST_CASE("gemm: fp16, K-major, bf16 out + C; tile N 128") {
  check<kFp16ToBf16Tile128>({190, 270, 200, true, 2}, 10);
}

TEST_CASE("gemm: bf16, A and B MN-major, f32 out + C") {
  check<kBf16MnMn>({200, 300, 250, true, 3}, 20);
}

TEST_CASE("gemm: fp16, A MN-major, B K-major, fp16 out; tile N 64, 3 stages") {
  check<kFp16MnKToFp16Tile64>({136, 200, 170, false, 2}, 30);
}

TEST_CASE("gemm: bf16, A K-major, B MN-major, bf16 out + C; K below one MMA step, odd sizes") {
  // K = 5 < 16: one K block, mostly TMA zero fill; M, N odd (scalar stores at the edge).
  check<kBf16KMnToBf16Tile128>({129, 131, 5, true, 0}, 40);
}

TEST_CASE("gemm: fp16, K-major, f32 out + C; tile N 48 (read 16 columns at a time), 2 stages") {
  check<kFp16Tile48>({70, 100, 90, true, 2}, 70);
}

TEST_CASE("gemm: CTA pairs (cta_group::2, 256-row tiles, two pairs a cluster); partial tiles") {
  // 300 = 256 + 44 rows (the odd CTA's half of the second row of tiles is
  // mostly zero fill), 520 = 2·256 + 8 columns (the second cluster column's
  // second pair has no columns), K = 250.
  check<kPair>({300, 520, 250, false, 0}, 90);
}

TEST_CASE("gemm: CTA pairs, fp16, A and B MN-major, bf16 out + C; tile N 128 (64 rows of B per CTA)") {
  check<kPairFp16MnMnToBf16Tile128>({200, 300, 130, true, 4}, 100);
}

#if defined(TCGEN_GEMM_TEST_PTX)
TEST_CASE("gemm: CTA pairs take their tiles with clusterlaunchcontrol: one OS thread, one cluster runs them all") {
  // Six 256 × 256 tiles (2 × 3) in four cluster tiles of 256 × 512 (two pairs side by side; the
  // last column's second pair finds no N left); the grid has a cluster per cluster tile. On one OS
  // thread the first cluster runs alone and cancels the other three one by one
  // (exec::UnitPool::cancel), taking their tiles; D must still be whole.
  constexpr gemm::Config C = kPair;
  const Shape s{300, 520, 250, false, 0};
  const gemm::Matrix a = gemm::random_operand(C.ab, C.a_major, s.m, s.k, run_seed() + 120);
  const gemm::Matrix b = gemm::random_operand(C.ab, C.b_major, s.n, s.k, run_seed() + 121);
  gemm::Matrix d = gemm::nan_matrix(C.d, s.m, s.n);
  const gemm::Problem p{s.m, s.n, s.k, a.data(), b.data(), nullptr, d.data(), a.ld, b.ld, 0, d.ld};
  exec::LaunchOptions one;
  one.threads = 1;
  ptx::LaunchStats counts;
  gemm::run<C>(p, {}, ptx::Interpreter{.module = kernels(), .launch = one, .stats = &counts});
  CHECK(counts.ctas == 4);
  const gemm::Verdict v =
      gemm::verify(gemm::to_floats(d), gemm::reference(a, C.a_major, b, C.b_major, nullptr, s.m, s.n, s.k), C.d);
  CHECK_MESSAGE(v.ok, v.text);
}
#endif

TEST_CASE("gemm: a CTA pair's D is the one-CTA kernel's, bit for bit (the same K order per element)") {
  const Shape s{300, 300, 200, true, 0};
  const Result one = run<kBf16>(s, 110), pair = run<kPair>(s, 110);
  CHECK_MESSAGE(pair.verdict.ok, pair.verdict.text);
  CHECK(pair.d.bytes == one.d.bytes);
  exec::LaunchOptions shuffled;
  shuffled.shuffle_seed = run_seed();
  CHECK(run<kPair>(s, 110, shuffled).d.bytes == one.d.bytes);
}

TEST_CASE("gemm: the same bits under shuffled schedules") {
  constexpr gemm::Config kC = kTile64TwoStages;
  const Shape s{150, 200, 130, true, 2};  // 8 tiles on 2 CTAs
  const Result plain = run<kC>(s, 50);
  CHECK_MESSAGE(plain.verdict.ok, plain.verdict.text);
  const std::uint64_t seed = run_seed();
  for (std::uint64_t shuffle : {seed, seed + 1}) {
    INFO("shuffle seed " << shuffle);
    exec::LaunchOptions options;
    options.shuffle_seed = shuffle;
    const Result shuffled = run<kC>(s, 50, options);
    CHECK(shuffled.d.bytes == plain.d.bytes);
#if defined(TCGEN_GEMM_TEST_PTX)
    const Result ptx = run<kC>(s, 50, options, Backend::ptx);
    CHECK_MESSAGE(ptx.d.bytes == plain.d.bytes, "the PTX run under a shuffled schedule differs");
#endif
  }
}

TEST_CASE("gemm: the same bits on one OS thread and on several (the CTAs of the grid at once)") {
  constexpr gemm::Config kC = kTile64TwoStages;
  const Shape s{300, 200, 130, true, 6};  // 12 tiles on 6 CTAs
  const std::uint64_t seed = run_seed();
  for (const std::optional<std::uint64_t> shuffle : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{seed}}) {
    INFO("shuffle seed " << (shuffle ? std::to_string(*shuffle) : "none"));
    exec::LaunchOptions one, several;
    one.shuffle_seed = several.shuffle_seed = shuffle;
    one.threads = 1;
    several.threads = 4;
    const Result alone = run<kC>(s, 80, one), together = run<kC>(s, 80, several);
    CHECK_MESSAGE(alone.verdict.ok, alone.verdict.text);
    CHECK(together.d.bytes == alone.d.bytes);
#if defined(TCGEN_GEMM_TEST_PTX)
    const Result ptx_alone = run<kC>(s, 80, one, Backend::ptx), ptx_together = run<kC>(s, 80, several, Backend::ptx);
    CHECK(ptx_together.d.bytes == ptx_alone.d.bytes);
    CHECK(ptx_alone.d.bytes == alone.d.bytes);
#endif
  }
}

TEST_CASE("gemm: a problem TMA cannot read is refused, naming the field") {
  const gemm::Matrix a = gemm::random_matrix(bf16, 16, 16, 1), b = gemm::random_matrix(bf16, 16, 16, 2);
  gemm::Matrix d = gemm::nan_matrix(f32, 16, 16);
  gemm::Problem p{16, 16, 12, a.data(), b.data(), nullptr, d.data(), 12, b.ld, 0, d.ld};
  try {
    gemm::run<gemm::Config{}>(p, {}, exec::HostModel{});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.field() == "lda");
    CHECK(std::string(e.what()).find("multiple of 8") != std::string::npos);
  }
  p.lda = a.ld;
  p.k = 0;
  CHECK_THROWS_WITH_AS(gemm::run<gemm::Config{}>(p, {}, exec::HostModel{}), doctest::Contains("k = 0"), Error);
}
