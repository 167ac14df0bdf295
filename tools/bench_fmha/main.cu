// bench_fmha: the tcgen05 FMHA forward kernel (tcgen/fmha/kernel.hpp,
// one launch_fmha_device per problem, device_fmha.hpp) on a B200, in TFLOP/s
// with FmhaProblem::flops() (4 · head_dim per (query, key) pair the mask lets
// through: causal counts about half of the square). Each problem is timed
// with CUDA events around single launches after a warm-up (queued behind a
// short spin kernel, so they run back to back); the median of --iters
// launches is reported. Before any timing, one small problem per
// (dtype, head_dim, mask) of the table is run against the fp64 reference
// (check_fmha: O within 1e-2 per row in the 2-norm, LSE within 1e-3, as every
// FMHA test), so the numbers come from a kernel that is right; every timed
// problem's LSE is checked to be finite.
//
// The table (`--list` prints it): bf16 and fp16, head_dim 64, 128, 256,
// non-causal and causal, seq_q = seq_k = 1024, 2048, 4096, 8192, 16 heads
// (heads_kv = heads), batch = 16384 / seq (16384 tokens per problem, as the
// FlashAttention benchmarks do, so memory stays at most 134 MB per array).
// tools/bench_fmha/cudnn_sdpa.py times cuDNN on the same table and prints the
// same columns; tools/bench_fmha/compare.sh puts the two side by side.
//
//   bench_fmha                         the whole table
//   bench_fmha --dtype bf16 --head-dim 128 --mask causal --seq 4096
//                                      a part of it (each filter optional)
//   bench_fmha --batch B --heads H --heads-kv G    override the table's batch / heads
//   bench_fmha --iters N --warmup W    launches timed (median) and untimed (default 20, 3)
//   bench_fmha --quick                 every (dtype, head_dim, mask) at seq 1024, batch 1, 5 launches
//                                      (the ctest run)
//   bench_fmha --list                  the problem table; no GPU needed
//   bench_fmha --info                  each instantiation's launch facts; no GPU needed
//   bench_fmha --help                  the options
// Exit 0: ran; 1: a CUDA error or a check failed; 2: a bad option; 77: no sm_100 GPU.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "../../tests/device/device_check.hpp"
#include "../median_launch.cuh"
#include "tcgen/core/element_type.hpp"
#include "tcgen/exec/device_buffer.hpp"
#include "tcgen/fmha/check.hpp"
#include "tcgen/fmha/device_fmha.hpp"
#include "tcgen/fmha/inputs.hpp"
#include "tcgen/fmha/sm100_runner.hpp"

using namespace tcgen;
using namespace tcgen::fmha;
using tcgen::timing::median_seconds;

namespace {

constexpr ElementType kBf16 = ElementType::bf16, kFp16 = ElementType::fp16;

// --info: one line per instantiation (at namespace scope, like bench_gemm's Kernel).
template <ElementType E, int D>
void print_info() {
  using F = Fmha<E, D>;
  std::printf("%-5s %4d %8u %5d %7d %10u %10u %8u %8d\n", name(E), D, F::kThreads, F::kQTiles, F::kStages,
              F::kSmemBytes, F::kSmemBytes + exec::kSmemAlignment, F::Tmem::allocation, F::Tmem::columns);
}

void info() {
  std::printf("kernel: tcgen::fmha::fmha_kernel<Fmha<E, D>> (device_fmha.hpp), one CTA per %d x Q tiles "
              "query rows of one (batch, head): grid (ceil(seq_q / (%d x Q tiles)), heads, batch)\n",
              kFmhaBlockM, kFmhaBlockM);
  std::printf("warps: 1 TMA load, 1 MMA (and TMEM allocation), 4 softmax per Q tile, 4 correction and epilogue;\n"
              "K and V blocks of %d keys in a ring of `stages`; dynamic shared memory + %u bytes for the "
              "1024-byte alignment (exec::device::launch)\n",
              kFmhaBlockN, exec::kSmemAlignment);
  std::printf("dtype   D  threads Qtiles stages  smem_bytes  launched   TMEM_alloc TMEM_used\n");
  print_info<kBf16, 64>();
  print_info<kBf16, 128>();
  print_info<kBf16, 256>();
  print_info<kFp16, 64>();
  print_info<kFp16, 128>();
  print_info<kFp16, 256>();
}

struct Options {
  std::string dtype, mask;  // "" : all
  int head_dim = 0, seq = 0, batch = 0, heads = 0, heads_kv = 0;
  int iters = 20, warmup = 3;
  bool quick = false;
};

constexpr const char* kHelp = R"(usage: bench_fmha [options]

The tcgen05 FMHA forward kernel on a B200, in TFLOP/s, each problem checked
against fp64 first. Exit 0: ran; 1: a CUDA error or a check failed; 2: a bad
option; 77: no sm_100 GPU.

  --dtype bf16|fp16 --head-dim 64|128|256 --mask none|causal --seq S
                       a part of the table (each filter optional)
  --batch B --heads H --heads-kv G    override the table's batch / heads
  --iters N --warmup W                launches timed (median) and untimed (default 20, 3)
  --quick              every (dtype, head_dim, mask) at seq 1024, batch 1, 5 launches
  --list               the problem table; no GPU needed
  --info               each instantiation's launch facts; no GPU needed
  --help               this text
)";

[[noreturn]] void usage_error(const std::string& why) {
  std::printf("bench_fmha: %s (bench_fmha --help lists the options)\n", why.c_str());
  std::exit(2);
}

int int_value(int argc, char** argv, int& i) {
  if (i + 1 >= argc) usage_error(std::string(argv[i]) + " needs a value");
  char* end = nullptr;
  const long v = std::strtol(argv[++i], &end, 10);
  if (*end != '\0' || v <= 0 || v > (1 << 30)) usage_error(std::string(argv[i - 1]) + " takes a positive integer");
  return static_cast<int>(v);
}

// The table, filtered by the options. cudnn_sdpa.py repeats it (problems(), flops())
// and checks its copy against --list where this binary is built.
std::vector<FmhaProblem> table(const Options& o) {
  std::vector<int> seqs{1024, 2048, 4096, 8192};
  if (o.quick) seqs = {1024};
  if (o.seq) seqs = {o.seq};
  std::vector<FmhaProblem> out;
  for (const ElementType dtype : {kBf16, kFp16}) {
    if (!o.dtype.empty() && o.dtype != name(dtype)) continue;
    for (const int d : {64, 128, 256}) {
      if (o.head_dim != 0 && o.head_dim != d) continue;
      for (const bool causal : {false, true}) {
        if (!o.mask.empty() && o.mask != (causal ? "causal" : "none")) continue;
        for (const int seq : seqs) {
          const int heads = o.heads ? o.heads : 16;
          const int batch = o.batch ? o.batch : (o.quick ? 1 : std::max(1, 16384 / seq));
          out.push_back(FmhaProblem::make(batch, heads, o.heads_kv ? o.heads_kv : heads, seq, seq, d,
                                            causal ? FmhaMask::causal() : FmhaMask::none(), dtype));
        }
      }
    }
  }
  return out;
}

const char* mask_name(const FmhaProblem& p) { return p.mask.is_causal() ? "causal" : "none"; }

// The columns cudnn_sdpa.py prints too (compare.sh joins on the first seven).
void print_header(const char* who) {
  std::printf("dtype   D  batch heads  seq_q  seq_k  mask       time_ms  %s TFLOP/s\n", who);
}
void print_row(const FmhaProblem& p, double seconds) {
  std::printf("%-5s %3d %6d %5d %6d %6d  %-7s %10.4f  %8.1f\n", name(p.dtype), p.head_dim, p.batch, p.heads, p.seq_q,
              p.seq_k, mask_name(p), seconds * 1e3, p.flops() / seconds * 1e-12);
}

// Random values in [lo, hi) rounded to `type` (tcgen::encode, as on the host),
// as bit patterns: a hash per element, so a 134 MB array is filled in
// microseconds and the same each run.
__global__ void fill_random(std::uint16_t* out, std::size_t n, std::uint32_t seed, float lo, float hi,
                            ElementType type) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ static_cast<std::uint32_t>(i >> 32) ^ seed;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    const float x = lo + (hi - lo) * (static_cast<float>(h >> 8) * (1.0f / 16777216.0f));
    out[i] = static_cast<std::uint16_t>(encode(type, x));
  }
}

void fill_device(const exec::DeviceBuffer& d, std::size_t n, std::uint32_t seed, float lo, float hi, ElementType type) {
  fill_random<<<1024, 256>>>(static_cast<std::uint16_t*>(d.ptr), n, seed, lo, hi, type);
  CUDA_CHECK(cudaGetLastError());
}

// One small problem of the kind of `like` (dtype, head_dim, mask; GQA, ragged
// lengths where the mask allows) against the fp64 reference.
bool check(const FmhaProblem& like, std::uint64_t seed) {
  const bool causal = like.mask.is_causal();
  const FmhaProblem p = FmhaProblem::make(2, 2, 1, causal ? 320 : 300, causal ? 320 : 333, like.head_dim, like.mask,
                                          like.dtype);
  const FmhaInputs in = random_fmha_inputs(p, seed);
  const FmhaCheck c = check_fmha(p, in, fmha::run(p, in.operands(), {}, exec::Sm100{}).out);
  std::printf("check %s %-5s D %3d %-6s  %dx%d heads (%d K/V), %d x %d: O max row rel %.3g, LSE max rel %.3g\n",
              c.ok() ? "PASS" : "FAIL", name(p.dtype), p.head_dim, mask_name(p), p.batch, p.heads, p.heads_kv, p.seq_q,
              p.seq_k, c.o.max_rel_error, c.lse.max_rel_error);
  if (!c.ok()) std::printf("%s\n%s\n", c.o.text().c_str(), c.lse.text().c_str());
  return c.ok();
}

// The checks, then the timings; exit code as main's.
int bench(const Options& o, const std::vector<FmhaProblem>& problems) {
  const cudaDeviceProp prop = require_gpu(10, 0);
  std::printf("%s, %d SMs; tcgen FMHA forward (fmha_kernel<Fmha<E, D>>), median of %d launches after %d warm-up\n",
              prop.name, prop.multiProcessorCount, o.iters, o.warmup);

  // The checks: one small problem per (dtype, head_dim, mask) of the table.
  std::uint64_t seed = 20240917u;
  bool ok = true;
  std::vector<std::string> checked;
  for (const FmhaProblem& p : problems) {
    const std::string key = std::string(name(p.dtype)) + std::to_string(p.head_dim) + mask_name(p);
    if (std::find(checked.begin(), checked.end(), key) != checked.end()) continue;
    checked.push_back(key);
    ok &= check(p, seed++);
  }
  if (!ok) {
    std::printf("FAILED: the kernel disagrees with the fp64 reference; not timed\n");
    return 1;
  }

  // One set of arrays, as large as the largest problem needs.
  std::size_t nq = 0, nkv = 0, nlse = 0;
  for (const FmhaProblem& p : problems) {
    nq = std::max(nq, p.q_elements());
    nkv = std::max(nkv, p.kv_elements());
    nlse = std::max(nlse, p.lse_elements());
  }
  const std::size_t e = sizeof(std::uint16_t);  // bf16, fp16
  const exec::DeviceBuffer dq(nq * e), dk(nkv * e), dv(nkv * e), dout(nq * e), dlse(nlse * sizeof(float));
  float* const lse_d = static_cast<float*>(dlse.ptr);
  std::vector<float> lse(nlse);

  std::printf("\n");
  print_header("tcgen");
  for (const FmhaProblem& p : problems) {
    fill_device(dq, p.q_elements(), 1, -2.0f, 2.0f, p.dtype);
    fill_device(dk, p.kv_elements(), 2, -2.0f, 2.0f, p.dtype);
    fill_device(dv, p.kv_elements(), 3, -1.0f, 1.0f, p.dtype);
    // The problems are validated in main(), so launch_fmha_device does not throw.
    const double seconds = median_seconds(
        [&] { CUDA_CHECK(launch_fmha_device(p, dq.ptr, dk.ptr, dv.ptr, dout.ptr, lse_d)); }, o.iters, o.warmup);
    CUDA_CHECK(cudaMemcpy(lse.data(), lse_d, p.lse_elements() * sizeof(float), cudaMemcpyDeviceToHost));
    const std::size_t bad = static_cast<std::size_t>(
        std::count_if(lse.begin(), lse.begin() + static_cast<std::ptrdiff_t>(p.lse_elements()),
                      [](float x) { return !std::isfinite(x); }));
    print_row(p, seconds);
    if (bad) {
      std::printf("FAILED: %zu of %zu LSE values are not finite\n", bad, p.lse_elements());
      ok = false;
    }
  }
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto text = [&] {
      if (i + 1 >= argc) usage_error(a + " needs a value");
      return std::string(argv[++i]);
    };
    if (a == "--help" || a == "-h") {
      std::printf("%s", kHelp);
      return 0;
    } else if (a == "--info") {
      info();
      return 0;
    } else if (a == "--list") {
      list = true;
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--dtype") {
      o.dtype = text();
      if (o.dtype != "bf16" && o.dtype != "fp16") usage_error("--dtype is bf16 or fp16");
    } else if (a == "--mask") {
      o.mask = text();
      if (o.mask != "none" && o.mask != "causal") usage_error("--mask is none or causal");
    } else if (a == "--head-dim") {
      o.head_dim = int_value(argc, argv, i);
      if (o.head_dim != 64 && o.head_dim != 128 && o.head_dim != 256) usage_error("--head-dim is 64, 128 or 256");
    } else if (a == "--seq") {
      o.seq = int_value(argc, argv, i);
    } else if (a == "--batch") {
      o.batch = int_value(argc, argv, i);
    } else if (a == "--heads") {
      o.heads = int_value(argc, argv, i);
    } else if (a == "--heads-kv") {
      o.heads_kv = int_value(argc, argv, i);
    } else if (a == "--iters") {
      o.iters = int_value(argc, argv, i);
    } else if (a == "--warmup") {
      o.warmup = int_value(argc, argv, i);
    } else {
      usage_error("unknown option " + a);
    }
  }
  if (o.quick) o.iters = std::min(o.iters, 5);
  const std::vector<FmhaProblem> problems = table(o);
  if (problems.empty()) usage_error("no problem of the table matches the options");
  for (const FmhaProblem& p : problems) {
    try {
      p.validate();
    } catch (const std::exception& e) {
      usage_error(e.what());
    }
  }
  if (list) {
    std::printf("dtype   D  batch heads  seq_q  seq_k  mask              GFLOP\n");
    for (const FmhaProblem& p : problems)
      std::printf("%-5s %3d %6d %5d %6d %6d  %-7s %12.1f\n", name(p.dtype), p.head_dim, p.batch, p.heads,
                  p.seq_q, p.seq_k, mask_name(p), p.flops() * 1e-9);
    return 0;
  }

  try {
    return bench(o, problems);
  } catch (const std::exception& e) {  // fmha::run, DeviceBuffer: a CUDA error
    std::printf("FAILED: %s\n", e.what());
    return 1;
  }
}
