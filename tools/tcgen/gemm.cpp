// tcgen gemm: D = A·Bᵀ with the tcgen05 GEMM kernel (tcgen::gemm), on the
// host model or a B200, checked against an fp64 reference.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "dtype.hpp"
#include "npy.hpp"
#include "output_file.hpp"
#include "report.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/gemm/host_gemm.hpp"
#include "tcgen/gemm/matrix.hpp"
#include "tcgen/gemm/ptx_gemm.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "ptx_kernels.hpp"
#include "tcgen/gemm/reference.hpp"
#if defined(TCGEN_GEMM_SM100)
#include "tcgen/exec/sm100_device.hpp"
#include "tcgen/gemm/sm100_runner.hpp"
#endif
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

constexpr Option kOptions[] = {{"m", true},    {"n", true},     {"k", true},     {"a", true},      {"b", true},
                               {"out", true},  {"seed", true},  {"dtype", true}, {"backend", true},
                               {"ptx", true},  {"json", false}};

#if defined(TCGEN_GEMM_PTX)
constexpr const char* kBuiltPtx = TCGEN_GEMM_PTX;
#else
constexpr const char* kBuiltPtx = "";
#endif

constexpr const char* kHelp = R"(usage: tcgen gemm --m M --n N --k K [--a a.npy --b b.npy] [--out d.npy]
                  [--seed S] [--dtype bf16|fp16] [--backend host|ptx|sm100] [--ptx FILE]

D = A·Bᵀ with tcgen's tcgen05 GEMM (gemm/include/tcgen/gemm/kernel.hpp):
A is M × K, B is N × K, both K-major; f32 accumulation and f32 D. Prints the
error against an fp64 reference of the same (rounded) inputs, relative to
sum|a·b| per element, beside its bound, and the time taken. Exit 0: within
the bound; 1: beyond it; 2: a bad command line, file or shape; 3: an output
that cannot be written (checked before the work; written whole or not at all).

options:
  --m M, --n N, --k K  the sizes, 1 to 65536; with --a and --b, taken from them
                       where not given
  --a FILE, --b FILE   A (M × K) and B (N × K) as row-major float32 or float16
                       .npy arrays, rounded to --dtype; both or neither
                       (default: uniform in [-1, 1) from --seed)
  --out FILE           write D (M × N) as a float32 .npy array
  --json               the report as one JSON object on stdout, the same facts as fields
  --seed S             the random inputs' seed (default 1)
  --dtype T            the type A and B are rounded to: bf16 (default) or fp16
  --backend B          host (default): the host model, every tcgen05 rule
                       checked; ptx: the kernel's sm_100a PTX, what a B200
                       runs, executed on the host model by tcgen's PTX
                       interpreter; sm100: a B200 (exit 2 where there is none)
  --ptx FILE           with --backend ptx: the PTX to run (default: the one
                       this build compiled from gemm/src/gemm_kernels.cu)

examples:
  tcgen gemm --m 200 --n 300 --k 250
  tcgen gemm --m 512 --n 512 --k 512 --dtype fp16 --out d.npy
  tcgen gemm --m 256 --n 256 --k 512 --backend ptx
  tcgen gemm --m 4096 --n 4096 --k 4096 --backend sm100
)";

// A 2-D .npy of rows × cols, as row-major floats; `option` names the file's option.
std::vector<float> matrix_values(const std::string& option, const std::string& path, NpyArray a, int rows, int cols) {
  const bool fits = a.shape.size() == 2 && a.shape[0] == static_cast<std::size_t>(rows) &&
                    a.shape[1] == static_cast<std::size_t>(cols);
  if (!fits) {
    // An ostringstream, not operator+: GCC 12 warns falsely (-Wrestrict) on string concatenation.
    std::ostringstream shape, expected;
    for (std::size_t i = 0; i < a.shape.size(); ++i) shape << (i ? "x" : "") << a.shape[i];
    expected << "a 2-D array of " << rows << "x" << cols << " (" << (option == "a" ? "M x K" : "N x K")
             << " from --m, --n, --k)";
    fail(("--" + option).c_str(), path + " (shape " + (a.shape.empty() ? "scalar" : shape.str()) + ")", expected.str());
  }
  return std::move(a.values);
}

std::string shape_text(int rows, int cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

}  // namespace

int gemm(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return 0;
  }
  const Args a(args, kOptions);
  if (a.has("out")) check_output_path("--out", a.text("out"));  // before the work, not after it
  if (a.has("a") != a.has("b"))
    fail(a.has("a") ? "--b" : "--a", "(not given)", "both --a and --b, or neither (random inputs)");
  // Files first: sizes not given as options come from them (A is M × K, B is N × K).
  NpyArray fa, fb;
  if (a.has("a")) {
    fa = read_npy(a.text("a"));
    fb = read_npy(a.text("b"));
  }
  const auto size = [&](const char* option, const NpyArray& file, std::size_t axis) {
    if (a.has(option) || file.shape.size() != 2) return static_cast<int>(a.integer(option, 1, 65536));
    const std::size_t d = file.shape[axis];
    if (d < 1 || d > 65536)
      fail((std::string("--") + option).c_str(), std::to_string(d) + " (from the file)", "a size from 1 to 65536");
    return static_cast<int>(d);
  };
  const int m = size("m", fa, 0), n = size("n", fb, 0), k = size("k", fa, 1);
  const std::uint64_t seed = static_cast<std::uint64_t>(a.integer_or("seed", 1, 0, (std::int64_t{1} << 62)));
  const std::string dtype_option = a.text_or("dtype", "bf16"), backend = a.text_or("backend", "host");
  constexpr ElementType kTypes[] = {ElementType::bf16, ElementType::fp16};
  const ElementType ab = parse_element("--dtype", dtype_option, kTypes);
  const std::string dtype = name(ab);
  if (backend != "host" && backend != "ptx" && backend != "sm100") fail("--backend", backend, "host, ptx or sm100");
  if (a.has("ptx") && backend != "ptx") fail("--ptx", a.text("ptx"), "--backend ptx, which runs it");
  // The memory the run holds at once, before any of it is taken: A and B as 2-byte operands and exact
  // fp64 values (10 bytes an element), D as floats twice and the fp64 reference with its scale (24).
  const double need = 10.0 * (double(m) * k + double(n) * k) + 24.0 * double(m) * n;
  const double have = double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGE_SIZE));
  if (need > have)
    fail("--m, --n, --k", shape_text(m, n) + " x " + std::to_string(k),
         "a problem that fits in memory: it needs about " + std::to_string(static_cast<long long>(need / (1 << 30))) +
             " GiB, this machine has " + std::to_string(static_cast<long long>(have / (1 << 30))) + " GiB");
#if defined(TCGEN_GEMM_SM100)
  if (backend == "sm100")
    if (const std::string why = exec::sm100_unavailable(); !why.empty())
      fail("--backend", "sm100", "expected an sm_100 GPU (B200, GB200) to run on: " + why);
#else
  if (backend == "sm100")
    fail("--backend", "sm100", "a tcgen built with nvcc (CUDA 12.8 or later) for sm_100a; this one is host-only");
#endif

  // The inputs, rounded to the compute type; the reference uses the rounded values.
  gemm::Matrix ma, mb;
  std::string inputs;
  if (a.has("a")) {
    ma = gemm::make_operand(ab, layout::Major::K, m, k, matrix_values("a", a.text("a"), std::move(fa), m, k));
    mb = gemm::make_operand(ab, layout::Major::K, n, k, matrix_values("b", a.text("b"), std::move(fb), n, k));
    inputs = a.text("a") + " and " + a.text("b") + ", rounded to " + dtype;
  } else {
    ma = gemm::random_operand(ab, layout::Major::K, m, k, seed);
    mb = gemm::random_operand(ab, layout::Major::K, n, k, seed + 1);
    inputs = "uniform in [-1, 1) from seed " + std::to_string(seed) + ", rounded to " + dtype;
  }
  gemm::Matrix d = gemm::nan_matrix(ElementType::f32, m, n);
  const gemm::Problem p{m, n, k, ma.data(), mb.data(), nullptr, d.data(), ma.ld, mb.ld, 0, d.ld};
  const gemm::Config config{.ab = ab};

  std::optional<ptx::Module> kernels;  // loaded first: a missing file is a bad request (exit 2)
  if (backend == "ptx") kernels = load_kernels(a, kBuiltPtx, "gemm");

  Report report(a.flag("json"));
  report.text("tcgen gemm: D = A·Bᵀ, M = %d, N = %d, K = %d: %s\n", m, n, k, gemm::describe(config).c_str());
  report.text("inputs: %s\n", inputs.c_str());
  report.field("verb", "gemm");
  report.field("m", m);
  report.field("n", n);
  report.field("k", k);
  report.field("kernel", gemm::describe(config));
  report.field("inputs", inputs);
  report.field("backend", backend);
  double seconds = 0;
  if (backend == "host") {
    const int tiles = gemm::Schedule(m, n, 128, config.tile_n).tiles();
    report.text("backend: host model, %d tiles on a persistent grid of %d CTAs, run one after another\n", tiles,
                gemm::grid_ctas(tiles, 0));
    const auto start = std::chrono::steady_clock::now();
    if (ab == ElementType::bf16)
      gemm::run_host<gemm::Config{.ab = ElementType::bf16}>(p);
    else
      gemm::run_host<gemm::Config{.ab = ElementType::fp16}>(p);
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  } else if (backend == "ptx") {
    const int tiles = gemm::Schedule(m, n, 128, config.tile_n).tiles();
    report.text("backend: ptx, %s on the host model, %d tiles on a persistent grid of %d CTAs\n",
                kernels->name().c_str(), tiles, gemm::grid_ctas(tiles, 0));
    std::fflush(stdout);
    const auto start = std::chrono::steady_clock::now();
    ptx::LaunchStats stats;
    try {
      stats = ab == ElementType::bf16 ? gemm::run_ptx<gemm::Config{.ab = ElementType::bf16}>(*kernels, p)
                                      : gemm::run_ptx<gemm::Config{.ab = ElementType::fp16}>(*kernels, p);
    } catch (const ptx::ExecutionError& e) {
      std::fflush(stdout);
      std::cerr << "tcgen: the GEMM kernel failed on the host model:\n" << e.what() << '\n';
      report.text("result: FAILED (the kernel did not finish)\n");
      report.field("passed", false);
      report.field("failure", e.what());
      report.finish();
      return 1;
    }
    seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.text("executed: %llu PTX instructions\n", static_cast<unsigned long long>(stats.instructions));
    report.field("ptx_instructions", static_cast<std::int64_t>(stats.instructions));
    for (const auto& [rule, count] : stats.warnings) {
      report.text("warning: %s broken %llu times (a PTX-letter rule)\n", rule.c_str(),
                  static_cast<unsigned long long>(count));
      report.field("warning_" + rule, static_cast<std::int64_t>(count));
    }
  } else {
#if defined(TCGEN_GEMM_SM100)
    report.text("backend: sm100 (device 0)\n");
    seconds = gemm::sm100::run(ab, p);
#endif
  }
  const double flops = 2.0 * m * n * k;
  report.text("time: %.6f s, %.3g GFLOP/s\n", seconds, flops / seconds * 1e-9);
  report.field("seconds", seconds);
  report.field("gflops_per_s", flops / seconds * 1e-9);

  const gemm::Reference ref = gemm::reference(ma, layout::Major::K, mb, layout::Major::K, nullptr, m, n, k);
  const std::vector<float> got = gemm::to_floats(d);
  const gemm::Verdict v = gemm::verify(got, ref, ElementType::f32);
  report.text("error: max |D - D_fp64| / sum|a*b| = %.3g, bound %.3g ((K+1)·2^-24): %s\n", v.max_relative, v.bound,
              v.ok ? "PASSED" : "FAILED");
  if (!v.ok) report.text("%s", v.text.c_str());
  report.field("max_relative_error", v.max_relative);
  report.field("bound", v.bound);
  report.field("passed", v.ok);
  if (a.has("out")) {
    write_npy("--out", a.text("out"), {static_cast<std::size_t>(m), static_cast<std::size_t>(n)}, got);
    report.text("wrote %s (%s float32)\n", a.text("out").c_str(), shape_text(m, n).c_str());
    report.field("wrote", a.text("out"));
  }
  report.finish();
  return v.ok ? 0 : 1;
}

}  // namespace tcgen::cli
