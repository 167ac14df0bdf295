// tcgen gemm: D = A·Bᵀ with the tcgen05 GEMM kernel (tcgen::gemm), on the
// host model or a B200, checked against an fp64 reference.

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "budget.hpp"
#include "kernel_run.hpp"
#include "dtype.hpp"
#include "npy.hpp"
#include "output_file.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "tcgen/core/error.hpp"
#include "gemm_configs.hpp"
#include "tcgen/exec/unit_pool.hpp"
#include "tcgen/gemm/run.hpp"
#include "tcgen/gemm/matrix.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/gemm/reference.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

constexpr Option kOptions[] = {{"m", true},       {"n", true},       {"k", true},         {"a", true},
                               {"b", true},       {"c", true},       {"out", true},       {"seed", true},
                               {"dtype", true},   {"a-major", true}, {"b-major", true},   {"d-type", true},
                               {"backend", true}, {"ptx", true},     {"json", false},     {"save-inputs", true},
                               {"no-reference", false}, {"out-f32", false}, {"threads", true},
                               {"cta-group", true},     {"force", false},    {"quiet", false}};

// gemm::Problem's fields (problem.hpp) that options set, and the runners' "backend".
constexpr FieldOption kProblemFields[] = {{"m", "--m"}, {"n", "--n"}, {"k", "--k"}, {"backend", "--backend"}};

#if defined(TCGEN_GEMM_PTX)
constexpr const char* kBuiltPtx = TCGEN_GEMM_PTX;
#else
constexpr const char* kBuiltPtx = "";
#endif

constexpr const char* kHelp = R"(usage: tcgen gemm --m M --n N --k K [--a a.npy --b b.npy] [--c c.npy] [--out d.npy]
                  [--dtype bf16|fp16] [--a-major K|MN] [--b-major K|MN] [--d-type f32|bf16|fp16]
                  [--cta-group 1|2] [--seed S] [--backend host|ptx|sm100] [--ptx FILE] [--threads N]
                  [--save-inputs DIR [--force]] [--no-reference] [--out-f32] [--json] [--quiet]

D = A·Bᵀ (+ C) with tcgen's tcgen05 GEMM (gemm/include/tcgen/gemm/kernel.hpp):
A is M × K, B is N × K, f32 accumulation, D of --d-type. Prints the error
against an fp64 reference of the same (rounded) inputs, relative to
sum|a·b| + |c| per element, beside its bound, and the time taken. Exit 0:
within the bound (or not checked: --no-reference); 1: beyond it; 2: a bad
command line, file or shape; 3: a file that cannot be read or written
(outputs are checked before the work and written whole or not at all), or
no B200 for --backend sm100.

options:
  --m M, --n N, --k K  the sizes, 1 to 65536; with --a and --b, taken from them
                       where not given
  --a FILE, --b FILE   A and B as float32, float16 or float64 .npy arrays, stored as
                       their majors say: K-major A is M × K, MN-major A is
                       K × M (B likewise with N); rounded to --dtype; both or
                       neither (default: uniform in [-1, 1) from --seed)
  --c FILE             C (M × N) as a float32, float16 or float64 .npy array, rounded
                       to --d-type and added: D = A·Bᵀ + C (default: no C)
  --dtype T            the type of A and B: bf16 or fp16 (default bf16, or
                       fp16 when --a and --b are both float16 files)
  --a-major K|MN       how A is stored: K (default; K contiguous, M × K) or
                       MN (M contiguous, K × M), as the kernel's TMA reads it
  --b-major K|MN       how B is stored: K (default, N × K) or MN (K × N)
  --d-type T           the type of D and C: f32 (default), bf16 or fp16
  --cta-group G        1 (default): one CTA per 128 × 256 tile of D; 2: a CTA
                       pair per 256 × 256 tile (tcgen05.mma.cta_group::2 with
                       M = 256, the even CTA issuing), two pairs a cluster
                       sharing A by multicast TMA, their tiles taken by
                       clusterlaunchcontrol
  --out FILE           write D (M × N) as .npy: float16 when D is fp16 (float32
                       with --out-f32), float32 otherwise (bf16 values exactly:
                       .npy has no bfloat16)
  --save-inputs DIR    write the rounded inputs as DIR/a.npy, DIR/b.npy (and
                       DIR/c.npy), stored as given to the kernel, float16 for
                       fp16 and float32 for bf16: --a DIR/a.npy --b DIR/b.npy
                       with the same options runs the same problem again;
                       files that exist are refused unless --force, and a
                       file the run reads is never written
  --force              with --save-inputs: replace its files where they exist
  --no-reference       skip the fp64 reference and the check (large runs):
                       the report says "not checked" and the exit is 0
  --json               the report as one JSON object on stdout, the same facts as fields
  --quiet              no estimate and no progress on stderr (CTAs done, rate,
                       time left: in place on a terminal, else a line every 5 s)
  --seed S             the random inputs' seed (default 1)
  --backend B          host (default): the host model, every tcgen05 rule
                       checked, any of the options above; ptx: the kernel's
                       sm_100a PTX, what a B200 runs, executed on the host
                       model by tcgen's PTX interpreter; sm100: a B200 (exit 3
                       where there is none). ptx and sm100 run the kernels
                       this build compiled: K-major A and B, f32 D
  --ptx FILE           with --backend ptx: the PTX to run (default: the one
                       this build compiled from gemm/src/gemm_kernels.cu)
  --threads N          host and ptx: the OS threads running CTAs at once, 1
                       to 1024 (default: one per core); D is the same on any
                       number

examples:
  tcgen gemm --m 200 --n 300 --k 250
  tcgen gemm --m 512 --n 512 --k 512 --dtype fp16 --d-type fp16 --out d.npy
  tcgen gemm --m 300 --n 200 --k 100 --a-major MN --b-major MN --c c.npy --d-type bf16
  tcgen gemm --m 256 --n 256 --k 512 --backend ptx
  tcgen gemm --m 512 --n 512 --k 256 --cta-group 2
  tcgen gemm --m 4096 --n 4096 --k 4096 --backend sm100
)";

// A 2-D .npy of rows × cols, as row-major floats; `option` names the file's
// option and `what` the shape in words ("K x M", ...).
std::vector<float> matrix_values(const std::string& option, const std::string& path, NpyArray a, int rows, int cols,
                                 const std::string& what) {
  const bool fits = a.shape.size() == 2 && a.shape[0] == static_cast<std::size_t>(rows) &&
                    a.shape[1] == static_cast<std::size_t>(cols);
  if (!fits) {
    // An ostringstream, not operator+: GCC 12 warns falsely (-Wrestrict) on string concatenation.
    std::ostringstream expected;
    expected << "expected a 2-D array of " << rows << "x" << cols << " (" << what << " from --m, --n, --k and the majors)";
    fail(("--" + option).c_str(), path + " (shape " + shape_text(a.shape) + ")", expected.str());
  }
  return std::move(a.values);
}

// A matrix read from `option`'s file holds only finite values of its type:
// a value beyond the type's range (or inf, NaN in the file) is refused.
void check_finite(const std::string& option, const std::string& path, const gemm::Matrix& x) {
  for (std::size_t i = 0; i < x.values.size(); ++i)
    if (!std::isfinite(x.values[i])) {
      std::ostringstream value;
      value << path << " (element " << i << " is " << x.values[i] << " in " << name(x.type) << ")";
      fail(("--" + option).c_str(), value.str(), std::string("expected finite values within the range of ") + name(x.type));
    }
}

std::string shape_text(int rows, int cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

}  // namespace

const std::span<const Option> gemm_options{kOptions};

int gemm(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return 0;
  }
  const Args a(args, kOptions);
  check_outputs(a, {"out"});
  const SavedInputs saved = a.has("c") ? SavedInputs(a, {"a", "b", "c"}) : SavedInputs(a, {"a", "b"});
  check_run_files(a, {"a", "b", "c", "ptx"}, {"out"}, saved);
  if (a.has("a") != a.has("b"))
    fail(a.has("a") ? "--b" : "--a", "(not given)", "expected both --a and --b, or neither (random inputs)");
  const layout::Major a_major = parse_major("--a-major", a.text_or("a-major", "K"));
  const layout::Major b_major = parse_major("--b-major", a.text_or("b-major", "K"));
  constexpr ElementType kDTypes[] = {ElementType::f32, ElementType::bf16, ElementType::fp16};
  const ElementType d_type = parse_element("--d-type", a.text_or("d-type", "f32"), kDTypes);
  // Files first: sizes not given as options come from them. A K-major
  // operand's file is rows × K, an MN-major one's K × rows.
  NpyArray fa, fb, fc;
  check_input_files_fit(a, {"a", "b", "c"});
  if (a.has("a")) {
    fa = read_npy(a.text("a"));
    fb = read_npy(a.text("b"));
  }
  if (a.has("c")) fc = read_npy(a.text("c"));
  const auto rows_axis = [](layout::Major major) { return major == layout::Major::K ? 0u : 1u; };
  for (const auto& [option, file] : {std::pair{"--a", &fa}, std::pair{"--b", &fb}, std::pair{"--c", &fc}})
    if (a.has(option + 2) && file->shape.size() != 2)
      fail(option, a.text(option + 2) + " (shape " + shape_text(file->shape) + ")", "expected a 2-D array (a matrix)");
  const auto size = [&](const char* option, const NpyArray& file, std::size_t axis) {
    if (a.has(option) || file.shape.empty()) return static_cast<int>(a.integer(option, 1, 65536));
    const std::size_t d = file.shape[axis];
    if (d < 1 || d > 65536)
      fail((std::string("--") + option).c_str(), std::to_string(d) + " (from the file)", "expected a size from 1 to 65536");
    return static_cast<int>(d);
  };
  const int m = size("m", fa, rows_axis(a_major)), n = size("n", fb, rows_axis(b_major)),
            k = size("k", fa, 1 - rows_axis(a_major));
  const std::uint64_t seed = static_cast<std::uint64_t>(a.integer_or("seed", 1, 0, (std::int64_t{1} << 62)));
  constexpr ElementType kTypes[] = {ElementType::bf16, ElementType::fp16};
  // Without --dtype, float16 files stay fp16 (they are not rounded to bf16); otherwise bf16.
  const bool fp16_files = !a.has("dtype") && a.has("a") && fa.float16 && fb.float16;
  const ElementType ab = fp16_files ? ElementType::fp16 : parse_element("--dtype", a.text_or("dtype", "bf16"), kTypes);
  const int cta_group = static_cast<int>(a.integer_or("cta-group", 1, 1, 2));
  // Requests the sm_100a kernels cannot serve are refused (exit 2) before the B200 is looked for (exit 3).
  if (const std::string wanted = a.text_or("backend", "host"); wanted == "ptx" || wanted == "sm100") {
    // The kernels compiled for sm_100a: gemm_kernels.cu and sm100_runner.cu (gemm::compiled_for_sm100).
    const auto only = [&](const char* what) {
      return "expected " + std::string(what) + " with --backend " + wanted +
             ", which runs the kernels this build compiled (K-major A and B, f32 D); --backend host runs any";
    };
    if (a_major != layout::Major::K) fail("--a-major", "MN", only("K"));
    if (b_major != layout::Major::K) fail("--b-major", "MN", only("K"));
    if (d_type != ElementType::f32) fail("--d-type", name(d_type), only("f32"));
    if (cta_group == 2 && ab != ElementType::bf16)
      fail(a.has("dtype") ? "--dtype" : "--a", std::string(name(ab)) + (a.has("dtype") ? "" : " (float16 files)"),
           only("bf16 with --cta-group 2"));
  }
  const Backend backend = parse_backend(a);
  const std::string dtype = name(ab);
  const gemm::Config config{.ab = ab, .a_major = a_major, .b_major = b_major, .d = d_type, .cta_group = cta_group};
  const bool check = !a.flag("no-reference");
  // The memory the run holds at once, before any of it is taken: A and B as 2-byte operands and exact
  // fp64 values (10 bytes an element), D as floats twice (8), C as a float and fp64 (12), and the
  // fp64 reference with its scale (16) unless --no-reference.
  check_memory("--m, --n, --k", shape_text(m, n) + " x " + std::to_string(k),
               10.0 * (double(m) * k + double(n) * k) + (8.0 + (a.has("c") ? 12 : 0) + (check ? 16 : 0)) * double(m) * n);

  // The inputs, stored as the kernel reads them and rounded to their types; the reference uses the rounded values.
  const auto operand_words = [](layout::Major major, const char* rows) {
    return major == layout::Major::K ? std::string(rows) + " x K" : std::string("K x ") + rows;
  };
  const auto stored_rows = [k](layout::Major major, int rows) { return major == layout::Major::K ? rows : k; };
  const auto stored_cols = [k](layout::Major major, int rows) { return major == layout::Major::K ? k : rows; };
  gemm::Matrix ma, mb, mc;
  std::string inputs;
  if (a.has("a")) {
    inputs = input_name(a.text("a"), fa) + " and " + input_name(a.text("b"), fb) + ", rounded to " + dtype;
    ma = gemm::make_matrix(ab, stored_rows(a_major, m), stored_cols(a_major, m),
                           matrix_values("a", a.text("a"), std::move(fa), stored_rows(a_major, m),
                                         stored_cols(a_major, m), operand_words(a_major, "M")));
    mb = gemm::make_matrix(ab, stored_rows(b_major, n), stored_cols(b_major, n),
                           matrix_values("b", a.text("b"), std::move(fb), stored_rows(b_major, n),
                                         stored_cols(b_major, n), operand_words(b_major, "N")));
    check_finite("a", a.text("a"), ma);
    check_finite("b", a.text("b"), mb);
  } else {
    ma = gemm::random_operand(ab, a_major, m, k, seed);
    mb = gemm::random_operand(ab, b_major, n, k, seed + 1);
    inputs = "uniform in [-1, 1) from seed " + std::to_string(seed) + ", rounded to " + dtype;
  }
  if (a.has("c")) {
    const std::string c_name = input_name(a.text("c"), fc);
    mc = gemm::make_matrix(d_type, m, n, matrix_values("c", a.text("c"), std::move(fc), m, n, "M x N"));
    check_finite("c", a.text("c"), mc);
    inputs += "; C " + c_name + ", rounded to " + std::string(name(d_type));
  }
  gemm::Matrix d = gemm::nan_matrix(d_type, m, n);
  const gemm::Problem p{m, n, k, ma.data(), mb.data(), a.has("c") ? mc.data() : nullptr, d.data(),
                        ma.ld, mb.ld, a.has("c") ? mc.ld : 0, d.ld};

  std::optional<ptx::Module> kernels;  // loaded before the work: a missing file exits 3, a bad one 2
  if (backend == Backend::ptx) kernels = load_kernels(a, kBuiltPtx, "gemm");

  Report report(a.flag("json"));
  report.text("tcgen gemm: D = A·Bᵀ%s, M = %d, N = %d, K = %d: %s\n", a.has("c") ? " + C" : "", m, n, k,
              gemm::describe(config).c_str());
  report.text("inputs: %s\n", inputs.c_str());
  report.field("verb", "gemm");
  report.field("m", m);
  report.field("n", n);
  report.field("k", k);
  report.field("kernel", gemm::describe(config));
  report.field("inputs", inputs);
  report.field("backend", name(backend));
  if (saved.wanted()) {
    // bf16 values are exact in float32; .npy has no bfloat16.
    const auto save = [&](const char* name, const gemm::Matrix& x) {
      write_npy("--save-inputs", saved.path(name), {std::size_t(x.rows), std::size_t(x.cols)}, gemm::to_floats(x),
                x.type == ElementType::fp16);
      report.text("saved %s (%dx%d %s)\n", saved.path(name).c_str(), x.rows, x.cols,
                  x.type == ElementType::fp16 ? "float16" : "float32");
    };
    save("a", ma);
    save("b", mb);
    if (a.has("c")) save("c", mc);
    report.field("saved_inputs", saved.dir());
  }
  exec::LaunchOptions launch;  // on the host model, directly or through the PTX
  launch.threads = parse_threads(a);
  launch.progress = progress_display(a.flag("quiet"));
  // The tiles of D (256 rows for a pair), the launch's grid, and the clusters the host runs at once.
  const int tiles = gemm::Schedule(m, n, 128 * config.cta_group, config.tile_n).tiles();
  const int grid = gemm::grid_of(m, n, config.tile_n, config.cta_group, 0);
  const unsigned at_once =
      std::min(exec::pool_threads(launch.threads), static_cast<unsigned>(grid / gemm::cluster_ctas(config.cta_group)));
  const char* pairs = config.cta_group == 2
                          ? " (clusters of two CTA pairs sharing A, taken over by clusterlaunchcontrol)"
                          : "";
  if (backend != Backend::sm100) {
    // Measured per OS thread on the 2-core CI VM (tcgen gemm --m 1024 --n 1024 --k 1024 --threads 1, and
    // --m 512 --n 512 --k 1024 --backend ptx): 10.7 and 8.6 GFLOP/s; the fp64 reference (one thread,
    // with the error scale sum|a·b|) 0.1 GFLOP/s. Rounded down: they only say when a run is long.
    const TimeEstimate t{.kernel_flops = 2.0 * m * n * k, .kernel_rate = backend == Backend::host ? 8e9 : 4e9,
                         .threads = at_once, .reference_flops = check ? 2.0 * m * n * k : 0, .reference_rate = 1e8};
    announce_long_run(t, a.flag("quiet"));
  }
  exec::RunStats stats;
  if (backend == Backend::host) {
    report.text("backend: host model, %d tiles on a persistent grid of %d CTAs%s, %u at once\n", tiles, grid, pairs,
                at_once);
    stats = as_options(kProblemFields, [&] { return run_gemm(config, p, exec::HostModel{launch}); });
  } else if (backend == Backend::ptx) {
    report.text("backend: ptx, %s on the host model, %d tiles on a persistent grid of %d CTAs%s, %u at once\n",
                kernels->name().c_str(), tiles, grid, pairs, at_once);
    std::fflush(stdout);
    try {
      stats = as_options(kProblemFields, [&] { return run_gemm(config, p, ptx::Interpreter{*kernels, launch}); });
    } catch (const ptx::ExecutionError& e) {
      std::fflush(stdout);
      std::cerr << "tcgen: the GEMM kernel failed on the host model:\n" << e.what() << '\n';
      report.text("result: FAILED (the kernel did not finish)\n");
      report.field("passed", false);
      report.field("failure", e.what());
      report.finish();
      return 1;
    }
    report_ptx_stats(report, stats);
  } else {
#if defined(TCGEN_SM100)
    report.text("backend: sm100 (device 0)\n");
    stats = as_options(kProblemFields, [&] { return run_gemm(config, p, exec::Sm100{}); });
#endif
  }
  const double seconds = stats.seconds;
  const double flops = 2.0 * m * n * k;
  report.text("time: %.6f s, %.3g GFLOP/s\n", seconds, flops / seconds * 1e-9);
  report.field("seconds", seconds);
  report.field("gflops_per_s", flops / seconds * 1e-9);

  const std::vector<float> got = gemm::to_floats(d);
  bool passed = true;
  if (check) {
    const gemm::Reference ref =
        gemm::reference(ma, a_major, mb, b_major, a.has("c") ? &mc : nullptr, m, n, k);
    const gemm::Verdict v = gemm::verify(got, ref, d_type);
    report.text("error: max |D - D_fp64| / (sum|a*b| + |c|) = %.3g, bound %.3g (γ_(K+1) + D's rounding): %s\n",
                v.max_relative, v.bound, v.ok ? "PASSED" : "FAILED");
    if (!v.ok) report.text("%s", v.text.c_str());
    report.field("max_relative_error", v.max_relative);
    report.field("bound", v.bound);
    report.field("passed", v.ok);
    passed = v.ok;
  } else {
    report.text("result: not checked (--no-reference: no fp64 reference was computed)\n");
    report.field("checked", false);
  }
  if (a.has("out")) {
    const bool half = d_type == ElementType::fp16 && !a.flag("out-f32");
    write_npy("--out", a.text("out"), {static_cast<std::size_t>(m), static_cast<std::size_t>(n)}, got, half);
    report.text("wrote %s (%s %s)\n", a.text("out").c_str(), shape_text(m, n).c_str(),
                half ? "float16" : d_type == ElementType::bf16 ? "float32, bf16 values" : "float32");
    report.field("wrote", a.text("out"));
  }
  report.finish();
  return passed ? 0 : 1;
}

}  // namespace tcgen::cli
