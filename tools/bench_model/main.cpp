// bench_model: the host model's tcgen05.mma throughput beside a plain blocked
// fp32 GEMM of the same size on the same core (issue 5, "Speed").
//
// One model step is what the model does per tcgen05.mma.kind::f16 M128 N256
// K16 with bf16 operands: decode both descriptors, fetch A (128 x 16) and
// B (256 x 16) out of a shared-memory image by the PTX address and swizzle
// rules, and accumulate A * B^T into the fp32 D. The plain GEMM computes
// C(128 x 256) += A(128 x K) * B(K x 256) with K = 16 * steps: the same flops.
// Model and GEMM alternate, run after run, so that a load on the machine hits
// both; the median of the per-run ratios is reported, and --min-ratio makes
// a smaller median an error (ctest: bench_model_ratio).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/mma_math.hpp"
#include "tcgen/model/operand_fetch.hpp"

namespace {

constexpr int M = 128, N = 256, K = 16;
constexpr double kFlopsPerStep = 2.0 * M * N * K;

// An SM100 descriptor, K-major 128B swizzle, LBO 16 B (unused), SBO 1024 B
// (eight 128-byte rows), from the bit positions of PTX
// #tcgen05-shared-memory-descriptor: bytes >> 4 at bits 0, 16, 32; bit 46; code 2 at 61.
std::uint64_t k_major_128b(std::uint32_t start) {
  return std::uint64_t{start >> 4} | std::uint64_t{16 >> 4} << 16 | std::uint64_t{1024 >> 4} << 32 |
         std::uint64_t{1} << 46 | std::uint64_t{2} << 61;
}

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The model: `steps` MMAs over one pipeline stage of A (128 x 64) and B
// (256 x 64) in shared memory, K step s % 4 of the stage each time.
struct ModelRun {
  std::vector<std::uint8_t> smem;
  std::vector<float> d = std::vector<float>(M * N);
  static constexpr std::uint32_t a_at = 0, b_at = 128 * 64 * 2;

  explicit ModelRun(std::mt19937& rng) : smem(b_at + 256 * 64 * 2) {
    // Every 16-bit word a bf16 in [-1, 1]: the layout does not matter for the timing.
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (std::size_t i = 0; i < smem.size(); i += 2) {
      const std::uint32_t v = tcgen::encode(tcgen::ElementType::bf16, u(rng));
      smem[i] = static_cast<std::uint8_t>(v);
      smem[i + 1] = static_cast<std::uint8_t>(v >> 8);
    }
  }
  double seconds(int steps) {
    const auto t0 = Clock::now();
    for (int s = 0; s < steps; ++s) {
      const std::uint32_t k_offset = 32 * (s % 4);  // the next 16 bf16 of K inside the 128-byte atom
      const auto a = tcgen::model::fetch_operand(smem, 0, k_major_128b(a_at + k_offset), M, K, tcgen::ElementType::bf16, false);
      const auto b = tcgen::model::fetch_operand(smem, 0, k_major_128b(b_at + k_offset), N, K, tcgen::ElementType::bf16, false);
      tcgen::model::mma_accumulate(a, b, d.data(), s > 0, false, false);
    }
    return seconds_since(t0);
  }
};

// C (M x N) += A (M x k, row-major) * B (k x N, row-major), blocked so that a
// 128-deep panel of B stays in cache, with a 4 x 8 tile of C in registers:
// the usual hand-written loop nest, in plain C++ as the model is. (Of the
// tiles tried, 1x16 to 4x8, this one was the fastest on the 2-core host.)
// Not inlined: GCC 12 vectorises the loop nest less well once it is inlined
// into the timing loop (24 instead of 33 GFLOP/s on that host).
[[gnu::noinline]] void plain_gemm(const float* A, const float* B, float* C, int k_total) {
  constexpr int KB = 128, R = 4, W = 8;
  for (int k0 = 0; k0 < k_total; k0 += KB) {
    const int k1 = std::min(k0 + KB, k_total);
    for (int i = 0; i < M; i += R)
      for (int j = 0; j < N; j += W) {
        float acc[R][W];
        for (int r = 0; r < R; ++r)
          for (int w = 0; w < W; ++w) acc[r][w] = C[(i + r) * N + j + w];
        for (int k = k0; k < k1; ++k) {
          const float* b = &B[static_cast<std::size_t>(k) * N + j];
          float a[R];
          for (int r = 0; r < R; ++r) a[r] = A[static_cast<std::size_t>(i + r) * k_total + k];
          for (int w = 0; w < W; ++w)
            for (int r = 0; r < R; ++r) acc[r][w] += a[r] * b[w];
        }
        for (int r = 0; r < R; ++r)
          for (int w = 0; w < W; ++w) C[(i + r) * N + j + w] = acc[r][w];
      }
  }
}

struct GemmRun {
  int k_total;
  std::vector<float> a, b, c = std::vector<float>(M * N, 0.0f);
  GemmRun(int steps, std::mt19937& rng) : k_total(K * steps), a(static_cast<std::size_t>(M) * k_total), b(static_cast<std::size_t>(k_total) * N) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
  }
  double seconds() {
    const auto t0 = Clock::now();
    plain_gemm(a.data(), b.data(), c.data(), k_total);
    return seconds_since(t0);
  }
};

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "bench_model: %s\n"
               "usage: bench_model [--steps N] [--runs R] [--min-ratio X]\n"
               "  --steps N      MMAs per model run (default 2000); the GEMM has K = 16 N\n"
               "  --runs R       alternating model/GEMM runs; the median ratio is reported (default 5)\n"
               "  --min-ratio X  exit 1 if the median model/GEMM ratio is below X\n",
               why);
  std::exit(2);
}

double parse(const char* text, const char* option) {
  char* end = nullptr;
  const double v = std::strtod(text, &end);
  if (end == text || *end != '\0' || v <= 0) usage((std::string("bad value for ") + option).c_str());
  return v;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

}  // namespace

int main(int argc, char** argv) {
  int steps = 2000, runs = 5;
  double min_ratio = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") usage("the model's tcgen05.mma throughput beside a plain fp32 GEMM");
    if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
    if (arg == "--steps") steps = static_cast<int>(parse(argv[++i], "--steps"));
    else if (arg == "--runs") runs = static_cast<int>(parse(argv[++i], "--runs"));
    else if (arg == "--min-ratio") min_ratio = parse(argv[++i], "--min-ratio");
    else usage(("unknown option " + arg).c_str());
  }

  std::mt19937 rng(1);
  ModelRun model(rng);
  GemmRun gemm(steps, rng);
  model.seconds(4);  // builds the decode tables and warms the caches
  const double flops = kFlopsPerStep * steps;
  std::printf("tcgen05.mma.kind::f16 M%d N%d K%d bf16 -> f32, %d steps per run (%.2f GFLOP)\n", M, N, K, steps, flops * 1e-9);
  std::vector<double> model_rate, gemm_rate, ratio;
  for (int r = 0; r < runs; ++r) {
    const double tm = model.seconds(steps), tg = gemm.seconds();
    model_rate.push_back(flops / tm * 1e-9);
    gemm_rate.push_back(flops / tg * 1e-9);
    ratio.push_back(tg / tm);
    std::printf("run %d: model %.2f GFLOP/s, plain GEMM %.2f GFLOP/s, ratio %.3f\n", r + 1, model_rate.back(),
                gemm_rate.back(), ratio.back());
  }
  const double med = median(ratio);
  std::printf("model (fetch + math per MMA):        %.2f GFLOP/s (median)\n", median(model_rate));
  std::printf("plain blocked fp32 GEMM (K = %d): %.2f GFLOP/s (median)\n", K * steps, median(gemm_rate));
  std::printf("ratio model / plain GEMM:            %.3f (median of %d runs; issue 5 asks >= 0.25)\n", med, runs);
  // The results, so that neither loop can be optimised away.
  double check = 0;
  for (float x : model.d) check += x;
  for (float x : gemm.c) check += x;
  std::printf("checksum %.6g\n", check);
  if (min_ratio > 0 && med < min_ratio) {
    std::printf("FAIL: median ratio %.3f is below %.3f\n", med, min_ratio);
    return 1;
  }
  return 0;
}
