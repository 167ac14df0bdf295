// bench_ptx: the PTX interpreter's speed beside the host model's HostArch
// path, on the same FMHA problem and inputs in one run: the kernel source
// compiled to C++ (HostArch, --backend host) against the same source's
// sm_100a PTX interpreted (--backend ptx). Both go through the same model;
// the difference is the interpretation of everything around it (address
// arithmetic, softmax, control flow). Prints both times, their ratio, the
// PTX instructions executed and their rate; checks that the two runs give
// the same O and pass the fp64 check. Exit 1 when the ratio exceeds
// --max-ratio (ctest: bench_ptx_ratio) or a check fails; 2 on a bad option.
// --corpus BUILD_DIR instead runs the corpus case (corpus_case.hpp): a
// CUTLASS GEMM and CUTLASS's FMHA through tcgen run, their instructions/s.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tcgen/fmha/check.hpp"
#include "tcgen/fmha/run.hpp"
#include "tcgen/fmha/inputs.hpp"
#include "tcgen/ptx/backend.hpp"
#include "tcgen/core/error.hpp"
#include "corpus_case.hpp"

using namespace tcgen;

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct Options {
  int seq = 1024, heads = 2, head_dim = 128, runs = 1;
  double max_ratio = 0;  // 0: no limit
  std::string ptx = TCGEN_FMHA_PTX;
  std::string corpus;  // a build folder: the corpus case
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (!v)
      fail("option", a,
           "--seq N, --heads H, --head-dim D, --runs R, --max-ratio X, --ptx FILE or --corpus BUILD_DIR, each with a value");
    if (a == "--seq") o.seq = std::atoi(v);
    else if (a == "--heads") o.heads = std::atoi(v);
    else if (a == "--head-dim") o.head_dim = std::atoi(v);
    else if (a == "--runs") o.runs = std::atoi(v);
    else if (a == "--max-ratio") o.max_ratio = std::atof(v);
    else if (a == "--ptx") o.ptx = v;
    else if (a == "--corpus") o.corpus = v;
    else fail("option", a, "--seq, --heads, --head-dim, --runs, --max-ratio, --ptx or --corpus");
    ++i;
  }
  if (o.runs < 1) fail("--runs", o.runs, "at least 1");
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options o = parse(argc, argv);
    if (!o.corpus.empty()) return bench::run_corpus_case(TCGEN_SOURCE_DIR, o.corpus);
    const fmha::FmhaProblem p = fmha::FmhaProblem::make(1, o.heads, o.heads, o.seq, o.seq, o.head_dim);
    const fmha::FmhaInputs in = fmha::random_fmha_inputs(p, 1);
    const ptx::Module module = ptx::Module::load(o.ptx);
    std::printf("bench_ptx: FMHA bf16, batch 1, %d heads, %d x %d, head_dim %d; %s\n", o.heads, o.seq, o.seq,
                o.head_dim, o.ptx.c_str());
    double best_host = 1e30, best_ptx = 1e30;
    std::uint64_t instructions = 0;
    bool same = true, passed = true;
    for (int r = 0; r < o.runs; ++r) {  // the two alternate, so that a load on the machine hits both
      auto start = std::chrono::steady_clock::now();
      const fmha::FmhaOutput host = fmha::run(p, in.operands(), {}, exec::HostModel{}).out;
      best_host = std::min(best_host, seconds_since(start));
      start = std::chrono::steady_clock::now();
      ptx::LaunchStats counts;
      const fmha::FmhaRun got = fmha::run(p, in.operands(), {}, ptx::Interpreter{.module = module, .stats = &counts});
      best_ptx = std::min(best_ptx, seconds_since(start));
      instructions = counts.instructions;
      same = same && got.out.o == host.o;
      passed = passed && fmha::check_fmha(p, in, got.out).ok();
    }
    const double ratio = best_ptx / best_host;
    std::printf("host (HostArch): %.3f s\n", best_host);
    std::printf("ptx (interpreted): %.3f s, %llu PTX instructions, %.1f M instructions/s\n", best_ptx,
                static_cast<unsigned long long>(instructions), static_cast<double>(instructions) / best_ptx * 1e-6);
    std::printf("ratio ptx / host: %.2f%s\n", ratio,
                o.max_ratio > 0 ? (" (limit " + std::to_string(o.max_ratio).substr(0, 4) + ")").c_str() : "");
    std::printf("O: %s; fp64 check of the PTX run: %s\n", same ? "the same bits on both" : "DIFFERENT",
                passed ? "PASSED" : "FAILED");
    return same && passed && (o.max_ratio <= 0 || ratio <= o.max_ratio) ? 0 : 1;
  } catch (const Error& e) {
    std::fprintf(stderr, "bench_ptx: %s\n", e.what());
    return 2;
  }
}
