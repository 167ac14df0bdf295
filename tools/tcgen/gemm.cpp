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
#include "help.hpp"
#include "budget.hpp"
#include "kernel_run.hpp"
#include "dtype.hpp"
#include "npy.hpp"
#include "output_file.hpp"
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

constexpr Option kGemmOptions[] = {
    {"m", "M", {}, {}, {}, "m"},
    {"n", "N", {}, {}, {}, "n"},
    {"k", "K", "the sizes, 1 to 65536; with --a and --b, taken from them\nwhere not given", {}, {}, "k"},
    {"a", "FILE"},
    {"b", "FILE",
     "A and B as float32, float16 or float64 .npy arrays, stored as\n"
     "their majors say: K-major A is M × K, MN-major A is\n"
     "K × M (B likewise with N); rounded to --dtype; both or\n"
     "neither (default: uniform in [-1, 1) from --seed)"},
    {"c", "FILE",
     "C (M × N) as a float32, float16 or float64 .npy array, rounded\n"
     "to --d-type and added: D = A·Bᵀ + C (default: no C)"},
    {"dtype", "T",
     "the type of A and B: bf16 or fp16 (default {--dtype}, or\n"
     "fp16 when --a and --b are both float16 files)",
     "bf16"},
    {"a-major", "K|MN",
     "how A is stored: {--a-major} (default; K contiguous, M × K) or\n"
     "MN (M contiguous, K × M), as the kernel's TMA reads it",
     "K"},
    {"b-major", "K|MN", "how B is stored: {--b-major} (default, N × K) or MN (K × N)", "K"},
    {"d-type", "T", "the type of D and C: {--d-type} (default), bf16 or fp16", "f32"},
    {"cta-group", "G",
     "{--cta-group} (default): one CTA per 128 × 256 tile of D; 2: a CTA\n"
     "pair per 256 × 256 tile (tcgen05.mma.cta_group::2 with\n"
     "M = 256, the even CTA issuing), two pairs a cluster\n"
     "sharing A by multicast TMA, their tiles taken by\n"
     "clusterlaunchcontrol",
     "1"},
    {"out", "FILE",
     "write D (M × N) as .npy: float16 when D is fp16 (float32\n"
     "with --out-f32), float32 otherwise (bf16 values exactly:\n"
     ".npy has no bfloat16)"},
    {"out-f32", {}, "with --out: float32 whatever D's type"},
    {"save-inputs", "DIR",
     "write the rounded inputs as DIR/a.npy, DIR/b.npy (and\n"
     "DIR/c.npy), stored as given to the kernel, float16 for\n"
     "fp16 and float32 for bf16: --a DIR/a.npy --b DIR/b.npy\n"
     "with the same options runs the same problem again;\n"
     "files that exist are refused unless --force, and a\n"
     "file the run reads is never written"},
    {"force", {}, "replace an output file that exists (--out, --trace or\n--save-inputs' files); never a file the run reads"},
    {"no-reference", {},
     "skip the fp64 reference and the check (large runs):\n"
     "the report says \"not checked\" and the exit is 0"},
    {"json", {}, "the report as one JSON object on stdout, the same facts as fields"},
    {"quiet", {},
     "no estimate and no progress on stderr (CTAs done, rate,\n"
     "time left: in place on a terminal, else a line every 5 s)"},
    {"seed", "S", "the random inputs' seed (default {--seed})", "1"},
    {"backend", "B",
     "{--backend} (default): the host model, every tcgen05 rule\n"
     "checked, any of the options above; ptx: the kernel's\n"
     "sm_100a PTX, what a B200 runs, executed on the host\n"
     "model by tcgen's PTX interpreter; sm100: a B200 (exit 3\n"
     "where there is none). ptx and sm100 run the kernels\n"
     "this build compiled: K-major A and B, f32 D",
     "host", {}, "backend"},
    {"ptx", "FILE",
     "with --backend ptx: the PTX to run (default: the one\n"
     "this build compiled from gemm/src/gemm_kernels.cu)"},
    {"threads", "N",
     "host and ptx: the OS threads running CTAs at once, 1\n"
     "to 1024 (default: one per core); D is the same on any\n"
     "number"}};
constexpr auto kOptions = joined(kGemmOptions, kHostModelOptions);
static_assert(defaults_documented(kOptions));

#if defined(TCGEN_GEMM_PTX)
constexpr const char* kBuiltPtx = TCGEN_GEMM_PTX;
#else
constexpr const char* kBuiltPtx = "";
#endif

constexpr std::string_view kAbout = R"(usage: tcgen gemm --m M --n N --k K [--a a.npy --b b.npy] [--c c.npy] [--out d.npy]
                  [--dtype bf16|fp16] [--a-major K|MN] [--b-major K|MN] [--d-type f32|bf16|fp16]
                  [--cta-group 1|2] [--seed S] [--backend host|ptx|sm100] [--ptx FILE] [--threads N]
                  [--save-inputs DIR] [--force] [--no-reference] [--out-f32] [--json] [--quiet]

D = A·Bᵀ (+ C) with tcgen's tcgen05 GEMM (gemm/include/tcgen/gemm/kernel.hpp):
A is M × K, B is N × K, f32 accumulation, D of --d-type. Prints the error
against an fp64 reference of the same (rounded) inputs, relative to
sum|a·b| + |c| per element, beside its bound, and the time taken. Exit 0:
within the bound (or not checked: --no-reference); 1: beyond it; 2: a bad
command line, file or shape; 3: a file that cannot be read or written
(outputs are checked before the work and written whole or not at all), or
no B200 for --backend sm100.

options:
)";

constexpr std::string_view kExamples = R"(
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

std::string size_text(int rows, int cols) { return std::to_string(rows) + "x" + std::to_string(cols); }

// What the command line asks for: the kernel's configuration (its operand
// type and CTA group set after the sizes), the sizes, and the files when given.
struct GemmRequest {
  gemm::Config config;
  int m = 0, n = 0, k = 0;
  NpyArray fa, fb, fc;
};

GemmRequest parse_request(const Args& a) {
  GemmRequest r;
  if (a.has("a") != a.has("b"))
    fail(a.has("a") ? "--b" : "--a", "(not given)", "expected both --a and --b, or neither (random inputs)");
  r.config.a_major = parse_major("--a-major", a.text("a-major"));
  r.config.b_major = parse_major("--b-major", a.text("b-major"));
  constexpr ElementType kDTypes[] = {ElementType::f32, ElementType::bf16, ElementType::fp16};
  r.config.d = parse_element("--d-type", a.text("d-type"), kDTypes);
  // Files first: sizes not given as options come from them. A K-major
  // operand's file is rows × K, an MN-major one's K × rows.
  check_input_files_fit(a, {"a", "b", "c"});
  if (a.has("a")) {
    r.fa = read_npy(a.text("a"));
    r.fb = read_npy(a.text("b"));
  }
  if (a.has("c")) r.fc = read_npy(a.text("c"));
  const auto rows_axis = [](layout::Major major) { return major == layout::Major::K ? 0u : 1u; };
  for (const auto& [option, file] : {std::pair{"--a", &r.fa}, std::pair{"--b", &r.fb}, std::pair{"--c", &r.fc}})
    if (a.has(option + 2) && file->shape.size() != 2)
      fail(option, a.text(option + 2) + " (shape " + shape_text(file->shape) + ")", "expected a 2-D array (a matrix)");
  const auto size = [&](const char* option, const NpyArray& file, std::size_t axis) {
    if (a.has(option) || file.shape.empty()) return static_cast<int>(a.integer(option, 1, 65536));
    const std::size_t d = file.shape[axis];
    if (d < 1 || d > 65536)
      fail((std::string("--") + option).c_str(), std::to_string(d) + " (from the file)", "expected a size from 1 to 65536");
    return static_cast<int>(d);
  };
  r.m = size("m", r.fa, rows_axis(r.config.a_major));
  r.n = size("n", r.fb, rows_axis(r.config.b_major));
  r.k = size("k", r.fa, 1 - rows_axis(r.config.a_major));
  return r;
}

// The type of A and B: without --dtype, float16 files stay fp16 (they are not rounded to bf16); otherwise --dtype's.
ElementType parse_ab_type(const Args& a, const GemmRequest& r) {
  constexpr ElementType kTypes[] = {ElementType::bf16, ElementType::fp16};
  const bool fp16_files = !a.has("dtype") && a.has("a") && r.fa.float16 && r.fb.float16;
  return fp16_files ? ElementType::fp16 : parse_element("--dtype", a.text("dtype"), kTypes);
}

// Requests the sm_100a kernels cannot serve are refused (exit 2) before the B200 is looked for (exit 3).
void refuse_uncompiled(const Args& a, const gemm::Config& c) {
  const std::string wanted = a.text("backend");
  if (wanted != "ptx" && wanted != "sm100") return;
  // The kernels compiled for sm_100a: gemm_kernels.cu and sm100_runner.cu (gemm::compiled_for_sm100).
  const auto only = [&](const char* what) {
    return "expected " + std::string(what) + " with --backend " + wanted +
           ", which runs the kernels this build compiled (K-major A and B, f32 D); --backend host runs any";
  };
  if (c.a_major != layout::Major::K) fail("--a-major", "MN", only("K"));
  if (c.b_major != layout::Major::K) fail("--b-major", "MN", only("K"));
  if (c.d != ElementType::f32) fail("--d-type", name(c.d), only("f32"));
  if (c.cta_group == 2 && c.ab != ElementType::bf16)
    fail(a.has("dtype") ? "--dtype" : "--a", std::string(name(c.ab)) + (a.has("dtype") ? "" : " (float16 files)"),
         only("bf16 with --cta-group 2"));
}

// A, B and C as the kernel reads them, rounded to their types (the reference uses the rounded values),
// and how the report names them.
struct GemmOperands {
  gemm::Matrix a, b, c;
  bool has_c = false;
  std::string inputs;
};

GemmOperands read_operands(const Args& a, GemmRequest& r, std::uint64_t seed) {
  const gemm::Config& c = r.config;
  const int m = r.m, n = r.n, k = r.k;
  const std::string dtype = name(c.ab);
  const auto operand_words = [](layout::Major major, const char* rows) {
    return major == layout::Major::K ? std::string(rows) + " x K" : std::string("K x ") + rows;
  };
  const auto stored_rows = [k](layout::Major major, int rows) { return major == layout::Major::K ? rows : k; };
  const auto stored_cols = [k](layout::Major major, int rows) { return major == layout::Major::K ? k : rows; };
  GemmOperands o;
  if (a.has("a")) {
    o.inputs = input_name(a.text("a"), r.fa) + " and " + input_name(a.text("b"), r.fb) + ", rounded to " + dtype;
    o.a = gemm::make_matrix(c.ab, stored_rows(c.a_major, m), stored_cols(c.a_major, m),
                            matrix_values("a", a.text("a"), std::move(r.fa), stored_rows(c.a_major, m),
                                          stored_cols(c.a_major, m), operand_words(c.a_major, "M")));
    o.b = gemm::make_matrix(c.ab, stored_rows(c.b_major, n), stored_cols(c.b_major, n),
                            matrix_values("b", a.text("b"), std::move(r.fb), stored_rows(c.b_major, n),
                                          stored_cols(c.b_major, n), operand_words(c.b_major, "N")));
    check_finite("a", a.text("a"), o.a);
    check_finite("b", a.text("b"), o.b);
  } else {
    o.a = gemm::random_operand(c.ab, c.a_major, m, k, seed);
    o.b = gemm::random_operand(c.ab, c.b_major, n, k, seed + 1);
    o.inputs = "uniform in [-1, 1) from seed " + std::to_string(seed) + ", rounded to " + dtype;
  }
  o.has_c = a.has("c");
  if (o.has_c) {
    const std::string c_name = input_name(a.text("c"), r.fc);
    o.c = gemm::make_matrix(c.d, m, n, matrix_values("c", a.text("c"), std::move(r.fc), m, n, "M x N"));
    check_finite("c", a.text("c"), o.c);
    o.inputs += "; C " + c_name + ", rounded to " + std::string(name(c.d));
  }
  return o;
}

void save_inputs(const SavedInputs& saved, const GemmOperands& o, Report& report) {
  // bf16 values are exact in float32; .npy has no bfloat16.
  const auto save = [&](const char* name, const gemm::Matrix& x) {
    write_npy("--save-inputs", saved.path(name), {std::size_t(x.rows), std::size_t(x.cols)}, gemm::to_floats(x),
              x.type == ElementType::fp16);
    report.text("saved %s (%dx%d %s)\n", saved.path(name).c_str(), x.rows, x.cols,
                x.type == ElementType::fp16 ? "float16" : "float32");
  };
  save("a", o.a);
  save("b", o.b);
  if (o.has_c) save("c", o.c);
  report.field("saved_inputs", saved.dir());
}

// One launch of the GEMM on a persistent grid, checked and written as the driver asks.
class GemmJob : public KernelJob {
 public:
  GemmJob(const Args& a, const GemmRequest& r, const GemmOperands& o, gemm::Matrix& d, const gemm::Problem& p, unsigned threads)
      : a_(a), r_(r), o_(o), d_(d), p_(p) {
    tiles_ = gemm::Schedule(r.m, r.n, 128 * r.config.cta_group, r.config.tile_n).tiles();
    grid_ = gemm::grid_of(r.m, r.n, r.config.tile_n, r.config.cta_group, 0);
    at_once_ = std::min(exec::pool_threads(threads), static_cast<unsigned>(grid_ / gemm::cluster_ctas(r.config.cta_group)));
  }
  // The clusters the host model runs at once.
  unsigned at_once() const { return at_once_; }

  const char* kernel() const override { return "GEMM"; }

  std::string backend_text(Backend backend, const ptx::Module* kernels) const override {
    if (backend == Backend::sm100) return "sm100 (device 0)";
    const char* pairs =
        r_.config.cta_group == 2 ? " (clusters of two CTA pairs sharing A, taken over by clusterlaunchcontrol)" : "";
    const std::string grid = std::to_string(tiles_) + " tiles on a persistent grid of " + std::to_string(grid_) + " CTAs" +
                             pairs + ", " + std::to_string(at_once_) + " at once";
    return backend == Backend::ptx ? "ptx, " + kernels->name() + " on the host model, " + grid : "host model, " + grid;
  }

  exec::RunStats launch(Backend backend, const ptx::Module* kernels, PtxRun& ptx,
                        const exec::LaunchOptions& launch) override {
    return on_backend(backend, kernels, ptx, launch, [&](const auto& on) { return run_gemm(r_.config, p_, on); });
  }

  void report_time(Backend, double seconds, Report& report) const override {
    const double flops = 2.0 * r_.m * r_.n * r_.k;
    report.text("time: %.6f s, %.3g GFLOP/s\n", seconds, flops / seconds * 1e-9);
    report.field("seconds", seconds);
    report.field("gflops_per_s", flops / seconds * 1e-9);
  }

  bool check(Report& report) const override {
    const gemm::Config& c = r_.config;
    const gemm::Reference ref =
        gemm::reference(o_.a, c.a_major, o_.b, c.b_major, o_.has_c ? &o_.c : nullptr, r_.m, r_.n, r_.k);
    const gemm::Verdict v = gemm::verify(gemm::to_floats(d_), ref, c.d);
    report.text("error: max |D - D_fp64| / (sum|a*b| + |c|) = %.3g, bound %.3g (γ_(K+1) + D's rounding): %s\n",
                v.max_relative, v.bound, v.ok ? "PASSED" : "FAILED");
    if (!v.ok) report.text("%s", v.text.c_str());
    report.field("max_relative_error", v.max_relative);
    report.field("bound", v.bound);
    report.field("passed", v.ok);
    return v.ok;
  }

  void write_outputs(Report& report) const override {
    if (!a_.has("out")) return;
    const ElementType d_type = r_.config.d;
    const bool half = d_type == ElementType::fp16 && !a_.flag("out-f32");
    write_npy("--out", a_.text("out"), {static_cast<std::size_t>(r_.m), static_cast<std::size_t>(r_.n)},
              gemm::to_floats(d_), half);
    report.text("wrote %s (%s %s)\n", a_.text("out").c_str(), size_text(r_.m, r_.n).c_str(),
                half ? "float16" : d_type == ElementType::bf16 ? "float32, bf16 values" : "float32");
    report.field("wrote", a_.text("out"));
  }

 private:
  const Args& a_;
  const GemmRequest& r_;
  const GemmOperands& o_;
  const gemm::Matrix& d_;
  const gemm::Problem& p_;
  int tiles_ = 0, grid_ = 0;
  unsigned at_once_ = 0;
};

}  // namespace

const std::span<const Option> gemm_options{kOptions};

int gemm(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << kAbout << options_help(kOptions) << kExamples;
    return 0;
  }
  const Args a(args, kOptions);
  const SavedInputs saved = a.has("c") ? SavedInputs(a, {"a", "b", "c"}) : SavedInputs(a, {"a", "b"});
  check_run_files(a, {"a", "b", "c", "ptx"}, {"out"}, saved);
  GemmRequest r = parse_request(a);
  const std::uint64_t seed = static_cast<std::uint64_t>(a.integer("seed", 0, (std::int64_t{1} << 62)));
  r.config.ab = parse_ab_type(a, r);
  r.config.cta_group = static_cast<int>(a.integer("cta-group", 1, 2));
  refuse_uncompiled(a, r.config);
  const Backend backend = parse_backend(a);
  const int m = r.m, n = r.n, k = r.k;
  const bool check = !a.flag("no-reference");
  // The memory the run holds at once, before any of it is taken: A and B as 2-byte operands and exact
  // fp64 values (10 bytes an element), D as floats twice (8), C as a float and fp64 (12), and the
  // fp64 reference with its scale (16) unless --no-reference.
  check_memory("--m, --n, --k", size_text(m, n) + " x " + std::to_string(k),
               10.0 * (double(m) * k + double(n) * k) + (8.0 + (a.has("c") ? 12 : 0) + (check ? 16 : 0)) * double(m) * n);
  const GemmOperands o = read_operands(a, r, seed);
  gemm::Matrix d = gemm::nan_matrix(r.config.d, m, n);
  const gemm::Problem p{m, n, k, o.a.data(), o.b.data(), o.has_c ? o.c.data() : nullptr, d.data(),
                        o.a.ld, o.b.ld, o.has_c ? o.c.ld : 0, d.ld};
  as_options(a, [&] { gemm::check(p, r.config); });

  std::optional<ptx::Module> kernels;  // loaded before the work: a missing file exits 3, a bad one 2
  if (backend == Backend::ptx) kernels = load_kernels(a, kBuiltPtx, "gemm");

  Report report(a.flag("json"));
  report.text("tcgen gemm: D = A·Bᵀ%s, M = %d, N = %d, K = %d: %s\n", o.has_c ? " + C" : "", m, n, k,
              gemm::describe(r.config).c_str());
  report.text("inputs: %s\n", o.inputs.c_str());
  report.field("verb", "gemm");
  report.field("m", m);
  report.field("n", n);
  report.field("k", k);
  report.field("kernel", gemm::describe(r.config));
  report.field("inputs", o.inputs);
  report.field("backend", name(backend));
  if (saved.wanted()) save_inputs(saved, o, report);
  const exec::LaunchOptions launch = host_model_launch(a);  // on the host model, directly or through the PTX
  GemmJob job(a, r, o, d, p, launch.threads);
  if (backend != Backend::sm100) {
    // Measured per OS thread on the 2-core CI VM (tcgen gemm --m 1024 --n 1024 --k 1024 --threads 1, and
    // --m 512 --n 512 --k 1024 --backend ptx): 10.7 and 8.6 GFLOP/s; the fp64 reference (one thread,
    // with the error scale sum|a·b|) 0.1 GFLOP/s. Rounded down: they only say when a run is long.
    const TimeEstimate t{.kernel_flops = 2.0 * m * n * k, .kernel_rate = backend == Backend::host ? 8e9 : 4e9,
                         .threads = job.at_once(), .reference_flops = check ? 2.0 * m * n * k : 0, .reference_rate = 1e8};
    announce_long_run(t, a.flag("quiet"));
  }
  return run_kernel_job(job, a, backend, kernels ? &*kernels : nullptr, launch, report);
}

}  // namespace tcgen::cli
