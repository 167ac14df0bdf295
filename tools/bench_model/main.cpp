// bench_model: the host model's tcgen05.mma throughput beside a plain blocked
// fp32 GEMM of the same size on the same core. The model's multiply-adds run
// 8-wide where the CPU has AVX2 (a run-time choice in mma_math.cpp, the same
// bits as its 4-wide baseline loops); the plain GEMM is plain C++ compiled for
// the baseline x86-64, as the rest of tcgen is. The ctest (bench_model_ratio)
// asks for 0.25, a floor any CI machine clears; docs/model-math.md has the
// measured ratio.
//
// Three loops compute the same flops:
//  - cta:   the instruction as a kernel issues it, through model::Cta: a chain
//           of `steps` tcgen05.mma.cta_group::1.kind::f16 M128 N256 K16 (bf16
//           in, f32 D) into one D in Tensor Memory, K step s % 4 of one
//           128B-swizzled SMEM stage, every rule checked (descriptors, idesc,
//           allocation, proxy fence, ordering of each D cell). Only the mma_ss
//           calls are timed; around them the kernel's commit, mbarrier wait,
//           fence::after_thread_sync, the epilogue's tcgen05.ld of D, wait::ld,
//           fence::before_thread_sync and the hand-back of D run untimed.
//  - raw:   the arithmetic alone: fetch_operand of A (128 x 16) and B (256 x
//           16) from the same image, mma_accumulate into an fp32 D.
//  - plain: C(128 x 256) += A(128 x K) * B(K x 256), K = 16 * steps, a blocked
//           fp32 GEMM.
// The three alternate, run after run (the order rotating), so that a load on
// the machine hits all of them; the median of the per-run ratios is reported,
// and --min-ratio makes a smaller median cta/plain ratio an error (ctest:
// bench_model_ratio). The D the Cta path leaves in Tensor Memory must equal
// the raw path's bit for bit.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/cta.hpp"
#include "tcgen/model/mma_math.hpp"
#include "tcgen/model/operand_fetch.hpp"

namespace {

using namespace tcgen::model;

constexpr int M = 128, N = 256, K = 16;
constexpr double kFlopsPerStep = 2.0 * M * N * K;

// Shared memory: the TMEM address slot and two mbarriers, then one pipeline
// stage of A (128 x 64 bf16, 16 KB) and B (256 x 64 bf16, 32 KB) in 8-row x
// 128-byte atoms, 1024-aligned.
constexpr std::uint32_t kTmemSlot = 0x0, kFull = 0x8, kEmpty = 0x10;
constexpr std::uint32_t kA = 0x400, kB = kA + 128 * 64 * 2, kImageEnd = kB + 256 * 64 * 2;

// An SM100 descriptor, K-major 128B swizzle, LBO 16 B (unused), SBO 1024 B
// (eight 128-byte rows), from the bit positions of PTX
// #tcgen05-shared-memory-descriptor: bytes >> 4 at bits 0, 16, 32; bit 46; code 2 at 61.
std::uint64_t k_major_128b(std::uint32_t start) {
  return std::uint64_t{start >> 4} | std::uint64_t{16 >> 4} << 16 | std::uint64_t{1024 >> 4} << 32 |
         std::uint64_t{1} << 46 | std::uint64_t{2} << 61;
}
// The K step s % 4 of the stage: the next 16 bf16 (32 bytes) inside the 128-byte atom row.
std::uint32_t k_offset(int s) { return 32 * static_cast<std::uint32_t>(s % 4); }

// PTX #tcgen05-instruction-descriptor, Table 42: D f32 (1 at bit 4), A and B
// bf16 (1 at bits 7 and 10), K-major, N >> 3 at bit 17, M >> 4 at bit 24.
constexpr std::uint32_t kIdesc = 1u << 4 | 1u << 7 | 1u << 10 | std::uint32_t{N >> 3} << 17 | std::uint32_t{M >> 4} << 24;

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// The image from address 0 to kImageEnd: every 16-bit word of the operand
// stage a bf16 in [-1, 1] (the layout does not matter for the timing).
std::vector<std::uint8_t> make_image(std::mt19937& rng) {
  std::vector<std::uint8_t> image(kImageEnd, 0);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (std::size_t i = kA; i < image.size(); i += 2) {
    const std::uint32_t v = tcgen::encode(tcgen::ElementType::bf16, u(rng));
    image[i] = static_cast<std::uint8_t>(v);
    image[i + 1] = static_cast<std::uint8_t>(v >> 8);
  }
  return image;
}

// The model through model::Cta, as a kernel drives it: warp 0 allocates 256
// columns, warp 1 fills the stage with st.shared and fence.proxy.async once,
// thread (0, 0) issues the MMAs and commits to `full`; warps 0-3 (the
// epilogue) wait, fence, load D with tcgen05.ld, wait::ld, fence and arrive
// on `empty`, which thread (0, 0) waits on before the next chain.
struct CtaRun {
  Cta cta{CtaConfig{.warps = 4}};
  std::uint32_t tmem = 0, full_parity = 0, empty_parity = 0;
  std::vector<float> d = std::vector<float>(M * N);  // D as the epilogue read it

  explicit CtaRun(const std::vector<std::uint8_t>& image) {
    cta.alloc(0, kTmemSlot, N);
    cta.mbarrier_init({0, 0}, kFull, 1);
    cta.mbarrier_init({0, 0}, kEmpty, 4);
    cta.st_shared(1, kA, std::span(image).subspan(kA));
    cta.fence_proxy_async(1);
    cta.bar_sync();
    tmem = cta.ld_shared_u32(0, kTmemSlot);
  }
  ~CtaRun() {
    cta.dealloc(0, tmem, N);
    cta.finish();
  }
  double seconds(int steps) {
    const auto t0 = Clock::now();
    for (int s = 0; s < steps; ++s)
      cta.mma_ss({0, 0}, MmaKind::f16, tmem, k_major_128b(kA + k_offset(s)), k_major_128b(kB + k_offset(s)), kIdesc,
                 s > 0);
    const double t = seconds_since(t0);
    cta.commit({0, 0}, kFull);
    for (int w = 0; w < 4; ++w) {
      if (!cta.mbarrier_try_wait(w, kFull, full_parity)) throw std::runtime_error("the MMA phase did not complete");
      cta.fence_after_thread_sync(w);
      for (int c = 0; c < N; c += 128) {
        const WarpRegisters r = cta.ld(w, {LdStShape::s32x32b, 128}, tmem + ((32u * w) << 16) + c);
        for (int t = 0; t < 32; ++t)
          for (int i = 0; i < 128; ++i) std::memcpy(&d[(32 * w + t) * N + c + i], &r[t][i], 4);
      }
      cta.wait_ld(w);
      cta.fence_before_thread_sync(w);
      cta.mbarrier_arrive({w, 0}, kEmpty);
    }
    full_parity ^= 1;
    if (!cta.mbarrier_try_wait(0, kEmpty, empty_parity)) throw std::runtime_error("the epilogue did not release D");
    cta.fence_after_thread_sync(0);
    empty_parity ^= 1;
    return t;
  }
};

// The arithmetic alone: the same chain with fetch_operand and mma_accumulate.
struct RawRun {
  const std::vector<std::uint8_t>& image;
  std::vector<float> d = std::vector<float>(M * N);

  explicit RawRun(const std::vector<std::uint8_t>& i) : image(i) {}
  double seconds(int steps) {
    const auto t0 = Clock::now();
    for (int s = 0; s < steps; ++s) {
      const auto a = fetch_operand(image, 0, k_major_128b(kA + k_offset(s)), M, K, tcgen::ElementType::bf16, false);
      const auto b = fetch_operand(image, 0, k_major_128b(kB + k_offset(s)), N, K, tcgen::ElementType::bf16, false);
      mma_accumulate(a, b, d.data(), s > 0, false, false);
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
  GemmRun(int steps, std::mt19937& rng)
      : k_total(K * steps), a(static_cast<std::size_t>(M) * k_total), b(static_cast<std::size_t>(k_total) * N) {
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

[[noreturn]] void usage(const char* why, int status = 2) {
  std::fprintf(status ? stderr : stdout,
               "bench_model: %s\n"
               "usage: bench_model [--steps N] [--runs R] [--min-ratio X] [--only cta|raw|plain]\n"
               "  --steps N      MMAs per run (default 2000); the plain GEMM has K = 16 N\n"
               "  --runs R       alternating cta/raw/plain runs; median ratios are reported (default 5)\n"
               "  --min-ratio X  exit 1 if the median ratio of the Cta path to the plain GEMM is below X\n"
               "  --only P       run only loop P, for a profiler (perf record bench_model --only cta)\n"
               "Prints GFLOP/s of tcgen05.mma M128 N256 K16 bf16 through model::Cta (every rule checked),\n"
               "of the raw operand fetch + math, and of a plain blocked fp32 GEMM of the same size.\n",
               why);
  std::exit(status);
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

int main(int argc, char** argv) try {
  int steps = 2000, runs = 5;
  double min_ratio = 0;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") usage("the model's tcgen05.mma throughput beside a plain fp32 GEMM", 0);
    if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
    if (arg == "--steps") steps = static_cast<int>(parse(argv[++i], "--steps"));
    else if (arg == "--runs") runs = static_cast<int>(parse(argv[++i], "--runs"));
    else if (arg == "--min-ratio") min_ratio = parse(argv[++i], "--min-ratio");
    else if (arg == "--only") {
      only = argv[++i];
      if (only != "cta" && only != "raw" && only != "plain") usage("--only takes cta, raw or plain");
    }
    else usage(("unknown option " + arg).c_str());
  }

  std::mt19937 rng(1);
  const std::vector<std::uint8_t> image = make_image(rng);
  CtaRun cta(image);
  RawRun raw(image);
  GemmRun gemm(steps, rng);
  cta.seconds(4);  // builds the decode tables and warms the caches
  raw.seconds(4);
  const double flops = kFlopsPerStep * steps;
  std::printf("tcgen05.mma.cta_group::1.kind::f16 M%d N%d K%d bf16 -> f32, %d steps per run (%.2f GFLOP)\n", M, N, K,
              steps, flops * 1e-9);
  if (!only.empty()) {  // one loop alone, for a profiler
    for (int r = 0; r < runs; ++r) {
      const double t = only == "cta" ? cta.seconds(steps) : only == "raw" ? raw.seconds(steps) : gemm.seconds();
      std::printf("run %d: %s %.2f GFLOP/s\n", r + 1, only.c_str(), flops / t * 1e-9);
    }
    return 0;
  }
  std::vector<double> cta_rate, raw_rate, gemm_rate, cta_ratio, raw_ratio;
  for (int r = 0; r < runs; ++r) {
    double tc = 0, tr = 0, tg = 0;
    for (int i = 0; i < 3; ++i) {  // the order rotates from run to run
      switch ((r + i) % 3) {
        case 0: tc = cta.seconds(steps); break;
        case 1: tr = raw.seconds(steps); break;
        default: tg = gemm.seconds(); break;
      }
    }
    cta_rate.push_back(flops / tc * 1e-9);
    raw_rate.push_back(flops / tr * 1e-9);
    gemm_rate.push_back(flops / tg * 1e-9);
    cta_ratio.push_back(tg / tc);
    raw_ratio.push_back(tg / tr);
    std::printf("run %d: Cta %.2f, raw %.2f, plain GEMM %.2f GFLOP/s; Cta/plain %.3f, raw/plain %.3f\n", r + 1,
                cta_rate.back(), raw_rate.back(), gemm_rate.back(), cta_ratio.back(), raw_ratio.back());
  }
  const double med = median(cta_ratio);
  std::printf("model tcgen05.mma through model::Cta (rules checked): %6.2f GFLOP/s (median)\n", median(cta_rate));
  std::printf("model arithmetic alone (fetch + math per MMA):        %6.2f GFLOP/s (median)\n", median(raw_rate));
  std::printf("plain blocked fp32 GEMM (K = %d):                   %6.2f GFLOP/s (median)\n", K * steps,
              median(gemm_rate));
  std::printf("ratio Cta / plain GEMM: %.3f (median of %d runs; the target is >= 0.25)\n", med, runs);
  std::printf("ratio raw / plain GEMM: %.3f; Cta / raw: %.3f\n", median(raw_ratio), median(cta_ratio) / median(raw_ratio));

  // Both model paths ran the same chain on the same image: D must agree bit for bit.
  const bool same = std::memcmp(cta.d.data(), raw.d.data(), cta.d.size() * sizeof(float)) == 0;
  double check = 0;
  for (float x : raw.d) check += x;
  for (float x : gemm.c) check += x;
  std::printf("D through model::Cta equals the raw path's: %s (checksum %.6g)\n", same ? "yes" : "NO", check);
  if (!same) {
    std::printf("FAIL: the Cta path and the raw path disagree\n");
    return 1;
  }
  if (min_ratio > 0 && med < min_ratio) {
    std::printf("FAIL: median ratio Cta / plain GEMM %.3f is below %.3f\n", med, min_ratio);
    return 1;
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench_model: %s\n", e.what());
  return 1;
}
