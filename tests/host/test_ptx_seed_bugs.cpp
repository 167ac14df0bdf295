// The seed's bugs (../shared/seed/README.md) in the user's own style: raw
// CUDA with inline tcgen05 PTX (tests/ptx_programs/seed_kernels.cu), built
// by nvcc for sm_100a and run through the PTX interpreter. Each planted bug
// gets its report: from the model at the kernel's .cu line, or from the
// checker's per-row ratio and cosine; the corrected kernels pass.
#include <doctest/doctest.h>

#if defined(TCGEN_SEED_PTX)

#include <cmath>
#include <functional>
#include <cstdint>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "fresh_seed.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/launch.hpp"

using namespace tcgen;

namespace {

const ptx::Module& kernels() {
  static const ptx::Module m = ptx::Module::load(TCGEN_SEED_PTX);
  return m;
}

constexpr std::uint32_t kSmem = 32784;  // seed_kernels.cu: Q, K, the mbarrier and the TMEM slot

struct Qk {
  int hd;
  std::vector<std::uint16_t> q, k;  // 128 × hd bf16, row-major
  std::vector<float> s = std::vector<float>(128 * 128, -1.0f);

  Qk(int head_dim, std::uint64_t seed) : hd(head_dim) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (int i = 0; i < 128 * hd; ++i) q.push_back(static_cast<std::uint16_t>(encode(ElementType::bf16, normal(rng))));
    for (int i = 0; i < 128 * hd; ++i) k.push_back(static_cast<std::uint16_t>(encode(ElementType::bf16, normal(rng))));
  }
  ptx::LaunchStats run(const std::string& kernel, std::uint32_t smem = kSmem) {
    const std::uint16_t* qp = q.data();
    const std::uint16_t* kp = k.data();
    float* sp = s.data();
    const ptx::Argument args[] = {ptx::argument(qp), ptx::argument(kp), ptx::argument(sp)};
    const ptx::Allocation memory[] = {{q.data(), q.size() * 2, "q"}, {k.data(), k.size() * 2, "k"},
                                      {s.data(), s.size() * 4, "s", true}};
    return ptx::launch(kernels(), kernels().entry(kernel), {.block = {128, 1, 1}, .dynamic_smem = smem}, args, memory);
  }
  // fp64 S = scale · Q·Kᵀ of the bf16 values.
  std::vector<double> reference(double scale) const {
    std::vector<double> r(128 * 128);
    for (int i = 0; i < 128; ++i)
      for (int j = 0; j < 128; ++j) {
        double sum = 0;
        for (int c = 0; c < hd; ++c)
          sum += double(decode(ElementType::bf16, q[i * hd + c])) * decode(ElementType::bf16, k[j * hd + c]);
        r[i * 128 + j] = scale * sum;
      }
    return r;
  }
};

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ptx::ExecutionError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("bug 1: the kernel's QK^T is the raw product; a softmax-scaled reference reads as sqrt(head_dim)") {
  for (int hd : {16, 64}) {
    CAPTURE(hd);
    Qk run(hd, fresh_seed() + hd);
    const ptx::LaunchStats stats = run.run("seed_qk_hd" + std::to_string(hd));
    CHECK(stats.warnings.count("operand_not_a_tile") == 0);  // its operands are tiles of q and k
    const CompareReport raw = compare(run.s, run.reference(1.0), 128, 128, 1e-4);
    CHECK_MESSAGE(raw.ok, raw.text());
    const CompareReport scaled = compare(run.s, run.reference(1.0 / std::sqrt(double(hd))), 128, 128, 1e-4);
    CHECK_FALSE(scaled.ok);
    for (int r = 0; r < 128; ++r) {
      CHECK(scaled.ratio[r] == doctest::Approx(std::sqrt(double(hd))).epsilon(1e-5));
      CHECK(scaled.cosine[r] == doctest::Approx(1.0).epsilon(1e-6));
    }
    CHECK_MESSAGE(scaled.diagnosis.find("every row is " + std::string(hd == 16 ? "4.000" : "8.000") +
                                        "× the reference = sqrt(" + std::to_string(hd) + ")") != std::string::npos,
                  scaled.diagnosis);
  }
}

TEST_CASE("LBO and SBO swapped in the descriptors: B reaches past shared memory, or, with room, the product is garbage") {
  Qk run(64, fresh_seed() + 7);
  const std::string e = error_of([&] { run.run("seed_qk_lbo_sbo_swapped"); });
  MESSAGE(e);
  CHECK(e.find("from seed_kernels.cu:") != std::string::npos);
  CHECK(e.find("the operand of b-desc") != std::string::npos);
  CHECK(e.find("reaches outside the shared memory image") != std::string::npos);
  // With 64 KiB more shared memory the reads stay inside: the MMA is named, its operand not a tile of Q
  // (provenance: each chunk came from q through a register), with the swap as the diagnosis; the
  // checker's per-row cosine shows the damage.
  const ptx::LaunchStats stats = run.run("seed_qk_lbo_sbo_swapped", kSmem + 65536);
  REQUIRE(stats.warnings.count("operand_not_a_tile") == 1);
  const std::string w = stats.first_warning.at("operand_not_a_tile");
  MESSAGE(w);
  CHECK(w.find("seed_kernels.cu:") != std::string::npos);
  // The first row whose chunks are all of known source (a value two recent loads brought is not):
  // its K 8-15 came from 8 rows on, 1024 bytes, where the row's own 16 bytes on were meant.
  CHECK(std::regex_search(w, std::regex(R"(A\((\d+), 8\) was loaded from 1024 bytes past the source of A\(\1, 0\))")));
  CHECK(w.find("tcgen05.mma") != std::string::npos);
  CHECK(w.find("LBO and SBO are swapped: an LBO of 2048 and SBO of 128 would read the tile") != std::string::npos);
  const CompareReport r = compare(run.s, run.reference(1.0), 128, 128, 1e-4);
  CHECK_FALSE(r.ok);
  int aligned_rows = 0;  // rows the wrong layout still maps onto the reference
  for (int i = 0; i < 128; ++i) aligned_rows += r.cosine[i] > 0.99;
  CHECK(aligned_rows < 8);
  CHECK(r.text().find("cosine") != std::string::npos);
}

TEST_CASE("the idesc passed as the descriptor's high half: the model refuses the descriptor at the kernel's line") {
  Qk run(64, fresh_seed() + 9);
  const std::string e = error_of([&] { run.run("seed_qk_idesc_in_high_half"); });
  MESSAGE(e);
  CHECK(e.find("PTX kernel seed_qk_idesc_in_high_half, block (0, 0, 0), warp 0, lane 0") != std::string::npos);
  CHECK(e.find("tcgen05.mma.cta_group::1.kind::f16") != std::string::npos);
  CHECK(e.find("from seed_kernels.cu:") != std::string::npos);
  CHECK(e.find("a-desc") != std::string::npos);
  CHECK(e.find("PTX #tcgen05-shared-memory-descriptor") != std::string::npos);
}

TEST_CASE("bug 2: a second 16x256b store at column + 16 is reported where the kernel stores what its ld read, with "
          "lane + 16 as the fix") {
  std::vector<std::uint32_t> out(32 * 8, 0);
  std::uint32_t* p = out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
  const ptx::LaunchConfig config{.block = {32, 1, 1}, .dynamic_smem = kSmem};
  const std::string e = error_of([&] {
    ptx::launch(kernels(), kernels().entry("seed_tmem_store_column_plus_16"), config, args, memory);
  });
  MESSAGE(e);
  // The ld of lanes 16-31 (never written) is no error; storing them is (docs/model.md, Definedness).
  CHECK(e.find("an undefined value reaches global memory") != std::string::npos);
  CHECK(e.find(", as tcgen05.ld.sync.aligned.32x32b.x8.b32 at ") != std::string::npos);
  CHECK(e.find("from seed_kernels.cu:") != std::string::npos);
  CHECK(std::regex_search(e, std::regex(R"(holds Tensor Memory lane (1[6-9]|2\d|3[01]), column \d\b)")));
  CHECK(e.find("taddr + (16 << 16) (lane + 16), not taddr + 16 (column + 16)") != std::string::npos);

  // Fixed: lanes 16-31 at lane + 16. 16x256b.x1 (PTX #tcgen05-matrix-fragments-shape-16256b): thread t
  // holds lane t/4 (+8 for registers 2, 3) of its 16, columns 2(t%4) + (register % 2).
  ptx::launch(kernels(), kernels().entry("seed_tmem_store_lane_plus_16"), config, args, memory);
  int wrong = 0;
  for (int lane = 0; lane < 32; ++lane)
    for (int c = 0; c < 8; ++c) {
      const int half = lane / 16, row = lane % 16, t = 4 * (row % 8) + c / 2, reg = (row >= 8 ? 2 : 0) + c % 2;
      wrong += out[lane * 8 + c] != static_cast<std::uint32_t>(1000 * half + t + 100 * reg);
    }
  CHECK(wrong == 0);
}

#else
TEST_CASE("the seed's kernels need nvcc to be built as PTX" * doctest::skip()) {}
#endif
