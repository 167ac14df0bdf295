// bench_sparse_decode: tcgen's DeepSeek-V4 sparse decode kernel
// (tcgen/sparse_decode/kernel.hpp, one SparseDecodeDeviceLaunch per
// problem through DeviceSparseDecode, prepared once: the kernel and, where the
// keys are split, the combine step) on a
// B200, in TFLOP/s (SparseDecodeProblem::flops: 4 · 512 per head and valid
// key) and in GB/s of KV cache read (kv_bytes: 584 bytes a valid key per
// group of 64 heads, the bytes the kernel gathers). Each problem is timed
// with CUDA events around single launches after a warm-up (median of
// --iters, tools/median_launch.cuh). Before any timing, one small problem per
// head count is run against the fp64 reference of the dequantised cache
// (check_sparse_decode: O within 1e-2 per row in the 2-norm, LSE within
// 1e-3), through the same launch.
//
// What the anchors report, to read the numbers against (B200: 8 TB/s HBM,
// 2.25 PFLOP/s dense bf16, anchors.md):
//   - FlashMLA's sparse decode with FP8 KV cache: "up to ... 410 TFlops during
//     decoding" (FlashMLA README, 2025.09.29, DeepSeek-V3.2); tcgen's plan
//     quotes up to 350 TFLOP/s for it on B200;
//   - memory-bound decode kernels at about 73% of 8 TB/s.
//
// The table (`--list`): V4-Flash (64 heads) and V4-Pro (128 heads), s_q 1
// and 2, batch 1, 16, 64, 128; topk 2048 into a cache of 4096 blocks of 64
// tokens plus 128 extra (sliding-window) keys into a second cache of 256
// blocks, every index valid, all counted; sinks on; the scheduler's splits.
//
//   bench_sparse_decode                   the whole table
//   bench_sparse_decode --heads 128 --batch 64 --s-q 1 --topk 2048 --splits 0
//                                         a part of it, or another problem
//   bench_sparse_decode --num-blocks NB   a smaller cache (default 4096 blocks of 64)
//   bench_sparse_decode --iters N --warmup W   (default 20, 3)
//   bench_sparse_decode --quick           one problem per head count, 5 launches (the ctest run)
//   bench_sparse_decode --list            the table; no GPU needed
// Exit 0: ran; 1: a CUDA error or a check failed; 2: a bad option; 77: no sm_100 GPU.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "../../tests/device/device_check.hpp"
#include "../median_launch.cuh"
#include "tcgen/sparse_decode/check.hpp"
#include "tcgen/sparse_decode/inputs.hpp"
#include "tcgen/sparse_decode/sm100_runner.hpp"

using namespace tcgen;
using namespace tcgen::sparse_decode;
using tcgen::timing::median_seconds;

namespace {

struct Options {
  int heads = 0, s_q = 0, batch = 0, topk = 0, splits = 0;  // 0: the table's (splits: the scheduler's)
  int num_blocks = 4096;
  int iters = 20, warmup = 3;
  bool quick = false;
};

constexpr const char* kHelp = R"(usage: bench_sparse_decode [options]

tcgen's DeepSeek-V4 sparse decode kernel on a B200: TFLOP/s and GB/s of KV
cache, each kind of problem checked against fp64 first. Exit 0: ran; 1: a
CUDA error or a check failed; 2: a bad option; 77: no sm_100 GPU.

  --heads 64|128 --s-q S --batch B --topk K   a part of the table, or another problem
  --splits N           the CTAs over one row's keys (default 0: the scheduler's)
  --num-blocks NB      blocks of 64 tokens in the main cache (default 4096)
  --iters N --warmup W launches timed (median) and untimed (default 20, 3)
  --quick              one problem per head count, 5 launches
  --list               the problem table; no GPU needed
  --help               this text
)";

[[noreturn]] void usage_error(const std::string& why) {
  std::printf("bench_sparse_decode: %s (bench_sparse_decode --help lists the options)\n", why.c_str());
  std::exit(2);
}

int int_value(int argc, char** argv, int& i, int lo) {
  if (i + 1 >= argc) usage_error(std::string(argv[i]) + " needs a value");
  char* end = nullptr;
  const long v = std::strtol(argv[++i], &end, 10);
  if (*end != '\0' || v < lo || v > (1 << 20)) usage_error(std::string(argv[i - 1]) + " takes an integer from " + std::to_string(lo));
  return static_cast<int>(v);
}

std::vector<SparseDecodeExample> table(const Options& o) {
  const auto one_or = [](int given, std::vector<int> all) { return given ? std::vector<int>{given} : all; };
  std::vector<SparseDecodeExample> out;
  for (const int heads : one_or(o.heads, {64, 128}))
    for (const int s_q : one_or(o.s_q, {1, 2}))
      for (const int batch : one_or(o.batch, o.quick ? std::vector<int>{4} : std::vector<int>{1, 16, 64, 128})) {
        if (o.quick && s_q != 1) continue;
        SparseDecodeExample e;
        e.heads = heads;
        e.s_q = s_q;
        e.batch = batch;
        e.topk = o.topk ? o.topk : 2048;
        e.num_blocks = o.num_blocks;
        e.extra_topk = 128;
        e.extra_num_blocks = 256;
        e.lengths = false;
        e.sink = true;
        out.push_back(e);
      }
  return out;
}

void print_header() {
  std::printf("heads s_q batch  topk extra splits    time_us   TFLOP/s  KV GB/s\n");
}

// One small problem with these heads (ragged lengths, -1 indices, a split) against fp64.
bool check(int heads, std::uint64_t seed) {
  SparseDecodeExample e;
  e.heads = heads;
  const SparseDecodeInputs in = random_sparse_decode_inputs(e, seed);
  const SparseDecodeProblem p = in.problem(attention::SoftmaxScale::explicit_value(0.044194173824159216f));
  const SparseDecodeCheck c = check_sparse_decode(sparse_decode_reference(p, in.q), run(p, in.q_bits, exec::Sm100{}).out);
  std::printf("check %s heads %d, batch %d, s_q %d, topk %d + %d: O max row rel %.3g, LSE max rel %.3g\n",
              c.ok() ? "PASS" : "FAIL", heads, e.batch, e.s_q, e.topk, e.extra_topk, c.o.max_rel_error,
              c.lse.max_rel_error);
  if (!c.ok()) std::printf("%s\n%s\n", c.o.text().c_str(), c.lse.text().c_str());
  return c.ok();
}

int bench(const Options& o, const std::vector<SparseDecodeExample>& problems) {
  const cudaDeviceProp prop = require_gpu(10, 0);
  std::printf("%s, %d SMs; tcgen sparse decode (sparse_decode_kernel<SparseDecode>), median of %d launches after %d warm-up\n",
              prop.name, prop.multiProcessorCount, o.iters, o.warmup);
  bool ok = check(64, 7) && check(128, 8);
  if (!ok) return 1;
  print_header();
  for (const SparseDecodeExample& e : problems) {
    const SparseDecodeInputs in = random_sparse_decode_inputs(e, 11);
    const SparseDecodeProblem p = in.problem(attention::SoftmaxScale::explicit_value(0.044194173824159216f), o.splits);
    const DeviceSparseDecode device(p, in.q_bits);
    const std::size_t splits = static_cast<std::size_t>(device.splits());
    const double seconds = median_seconds([&] { device.launch(); }, o.iters, o.warmup);
    std::printf("%5d %3d %5d %5d %5d %6zu %10.2f %9.1f %8.1f\n", e.heads, e.s_q, e.batch, e.topk, e.extra_topk, splits,
                seconds * 1e6, p.flops() / seconds * 1e-12, p.kv_bytes() / seconds * 1e-9);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  bool list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::printf("%s", kHelp);
      return 0;
    }
    if (a == "--list") list = true;
    else if (a == "--quick") o.quick = true, o.iters = 5, o.warmup = 1;
    else if (a == "--heads") o.heads = int_value(argc, argv, i, 64);
    else if (a == "--s-q") o.s_q = int_value(argc, argv, i, 1);
    else if (a == "--batch") o.batch = int_value(argc, argv, i, 1);
    else if (a == "--topk") o.topk = int_value(argc, argv, i, 1);
    else if (a == "--splits") o.splits = int_value(argc, argv, i, 0);
    else if (a == "--num-blocks") o.num_blocks = int_value(argc, argv, i, 1);
    else if (a == "--iters") o.iters = int_value(argc, argv, i, 1);
    else if (a == "--warmup") o.warmup = int_value(argc, argv, i, 0);
    else usage_error("unknown option " + a);
  }
  if (o.heads % 64 != 0) usage_error("--heads takes a multiple of 64");
  const std::vector<SparseDecodeExample> problems = table(o);
  if (list) {
    print_header();
    for (const SparseDecodeExample& e : problems)
      std::printf("%5d %3d %5d %5d %5d\n", e.heads, e.s_q, e.batch, e.topk, e.extra_topk);
    return 0;
  }
  try {
    return bench(o, problems);
  } catch (const std::exception& e) {
    std::printf("FAILED: %s\n", e.what());
    return 1;
  }
}
