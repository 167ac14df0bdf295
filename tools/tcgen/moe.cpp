// tcgen moe: a mixture-of-experts layer's grouped block-scaled GEMM
// (tcgen::moe, moe/include/tcgen/moe/kernel.hpp: MXFP8 tokens × MXFP4
// weights) on the host model, its PTX, or a B200, checked per expert against
// the fp64 reference of the dequantised inputs.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "budget.hpp"
#include "help.hpp"
#include "kernel_run.hpp"
#include "npy.hpp"
#include "report.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/unit_pool.hpp"
#include "tcgen/moe/example.hpp"
#include "tcgen/moe/reference.hpp"
#include "tcgen/moe/run.hpp"
#include "tcgen/ptx/backend.hpp"
#include "verbs.hpp"
#if defined(TCGEN_SM100)
#include "tcgen/moe/sm100_runner.hpp"
#endif

namespace tcgen::cli {

namespace {

constexpr Option kExampleOptions[] = {
    {"preset", "NAME", "v4-flash (256 experts, top-6, hidden 4096, intermediate\n2048) or v4-pro (384, 6, 7168, 3072): the sizes below"},
    {"experts", "E", "experts (default {--experts})", "8", {}, "experts"},
    {"topk", "K", "experts a token is routed to (default {--topk})", "2", {}, "topk"},
    {"batch", "B", "tokens before routing (default {--batch})", "128", {}, "batch"},
    {"hidden", "H", "the model's width, a multiple of 128 (default {--hidden})", "512", {}, "hidden"},
    {"intermediate", "I", "an expert's width, a multiple of 128 (default {--intermediate})", "256", {}, "intermediate"},
    {"routing", "R",
     "random: each token to topk distinct experts, uniformly;\n"
     "balanced: token t's j-th expert (t·topk + j) mod experts;\n"
     "one-expert: every token to expert 0 (default {--routing})",
     "random", {}, "routing"},
    {"seed", "N", "the example's seed (default {--seed})", "1"}};
constexpr Option kFileOptions[] = {
    {"counts", "FILE", "[experts] int32: tokens an expert", {}, {}, "counts"},
    {"a", "FILE",
     "[tokens, K] float32 or float64: the tokens, grouped by expert\n"
     "(expert 0's first), quantised to MXFP8 by tcgen's quantiser"},
    {"w", "FILE",
     "[experts, n, K] float32 or float64: the weights, quantised to\n"
     "MXFP4; up: each 128 rows 64 gate rows, then 64 up rows"}};
constexpr Option kSharedOptions[] = {
    {"projection", "P",
     "up: K = hidden, n = 2 · intermediate, D = silu(gate) · up;\n"
     "down: K = intermediate, n = hidden, D = A·Wᵀ (default {--projection})",
     "up", {}, "projection"},
    {"out", "FILE", "write D [tokens, columns] as float32 .npy (bf16 values)"},
    {"save-inputs", "DIR",
     "write the inputs as DIR/counts.npy, a.npy, w.npy (float32, the\n"
     "dequantised values, which quantise to the same bytes): given\n"
     "back as files they run the same problem again; files that\n"
     "exist are refused unless --force"},
    {"force", {}, "replace an output file that exists (--out, --trace or\n--save-inputs' files); never a file the run reads"},
    {"backend", "B",
     "{--backend} (default): the host model, every tcgen05 rule checked;\n"
     "ptx: the kernel's sm_100a PTX on the host model through\n"
     "tcgen's PTX interpreter; sm100: a B200 (exit 3 where there\n"
     "is none; 2 where tcgen was built without nvcc)",
     "host", {}, "backend"},
    {"ptx", "FILE", "with --backend ptx: the PTX to run (default: this build's\nmoe/src/moe_kernels.cu)"},
    {"strict-ptx", {}, "host model: PTX-letter rules as errors"},
    {"ctas", "N", "the persistent grid's CTAs, 1 to 1024 (default: 148, a B200's SMs)", {}, {}, "ctas"},
    {"no-reference", {}, "skip the fp64 reference and the check; exit 0"},
    {"json", {}, "the report as one JSON object on stdout"},
    {"quiet", {}, "no estimate and no progress on stderr"},
    {"threads", "N", "host and ptx: the OS threads running CTAs at once, 1 to 1024"}};
constexpr auto kOptions = joined(kExampleOptions, kFileOptions, kSharedOptions, kHostModelOptions);
static_assert(defaults_documented(kOptions));

#if defined(TCGEN_MOE_PTX)
constexpr const char* kBuiltPtx = TCGEN_MOE_PTX;
#else
constexpr const char* kBuiltPtx = "";
#endif

constexpr std::string_view kAbout = R"(usage: tcgen moe [--preset v4-flash|v4-pro | --experts E --topk K --batch B --hidden H --intermediate I]
                [--routing random|balanced|one-expert] [--seed N]
                [--counts counts.npy --a a.npy --w w.npy]
                [--projection up|down] [--out d.npy] [--save-inputs DIR] [--force]
                [--backend host|ptx|sm100] [--ptx FILE] [--strict-ptx]
                [--ctas N] [--no-reference] [--json] [--quiet] [--threads N]

A mixture-of-experts layer's expert GEMMs as one grouped block-scaled GEMM
(DeepSeek-V4's experts): for each expert e, D_e = A_e · W_eᵀ over the tokens
routed to it, A in MXFP8 (e4m3, a UE8M0 factor per 32), W in MXFP4 (e2m1, a
UE8M0 factor per 32), f32 accumulation, bf16 D; the up projection fuses
SwiGLU (D = silu(gate) · up). One launch of tcgen's kernel
(moe/include/tcgen/moe/kernel.hpp): a persistent grid over (expert, tile)
pairs, the token counts read on the device, experts without tokens skipped.
Prints the shapes, the routing, the work, the kernel's time and the error
against the fp64 reference of the dequantised inputs, per expert: the largest
row's ||D - D_ref|| / ||D_ref|| (2-norm), bound 5e-3 (bf16's rounding).
With no file it runs a built-in example: random tokens routed at random (or
every token to one expert), random weights, quantised by tcgen's quantisers.
Exit 0: within the bound (or --no-reference); 1: beyond; 2: a bad command
line, file or shape; 3: a file that cannot be read or written, or no B200 for
--backend sm100.

)";

constexpr std::string_view kExamples = R"(
examples:
  tcgen moe
  tcgen moe --routing one-expert --batch 300 --projection down
  tcgen moe --preset v4-flash --batch 512 --backend ptx --timing --timing-sms 8 --no-reference
)";

std::string help_text() {
  const std::size_t column = help_column(kOptions);
  return std::string(kAbout) + "options (the built-in example):\n" + options_help(kExampleOptions, column) +
         "options (files; all three or the built-in example):\n" + options_help(kFileOptions, column) +
         "options (both):\n" + options_help(kSharedOptions, column) + "options (the host model):\n" +
         options_help(kHostModelOptions, column) + std::string(kExamples);
}

constexpr double kRowBound = 5e-3;  // bf16's unit roundoff 2^-8 an element, plus f32's sums (test_moe.cpp)

// The built-in example's sizes: a preset's, else the options'.
moe::MoeExample example_of(const Args& a) {
  moe::MoeExample e;
  if (a.has("preset")) {
    for (const char* size : {"experts", "topk", "hidden", "intermediate"})
      if (a.has(size)) fail((std::string("--") + size).c_str(), a.text(size), "expected it without --preset, which sets it");
    const std::string p = a.text("preset");
    if (p == "v4-flash") e = {.experts = 256, .topk = 6, .hidden = 4096, .intermediate = 2048};
    else if (p == "v4-pro") e = {.experts = 384, .topk = 6, .hidden = 7168, .intermediate = 3072};
    else fail("--preset", p, "expected v4-flash or v4-pro");
  } else {
    e.experts = static_cast<int>(a.integer("experts", 1, 4096));
    e.topk = static_cast<int>(a.integer("topk", 1, 4096));
    e.hidden = static_cast<int>(a.integer("hidden", 128, 1 << 16));
    e.intermediate = static_cast<int>(a.integer("intermediate", 128, 1 << 16));
  }
  e.batch = static_cast<int>(a.integer("batch", 1, 1 << 20));
  e.routing = moe::parse_routing(a.text("routing"));
  e.projection = moe::parse_projection(a.text("projection"));
  return e;
}

// The inputs from the files, quantised.
moe::MoeInputs file_inputs(const Args& a, moe::Projection projection) {
  for (const char* need : {"counts", "a", "w"})
    if (!a.has(need)) fail((std::string("--") + need).c_str(), "(not given)", "expected --counts, --a and --w together");
  for (const char* example_only : {"preset", "experts", "topk", "batch", "hidden", "intermediate", "routing", "seed"})
    if (a.has(example_only)) fail((std::string("--") + example_only).c_str(), a.text(example_only),
                                  "expected it only for the built-in example: the files give the sizes");
  check_input_files_fit(a, {"counts", "a", "w"});
  const NpyInts counts = read_npy_int32(a.text("counts"));
  const NpyArray x = read_npy(a.text("a")), w = read_npy(a.text("w"));
  if (counts.shape.size() != 1 || counts.shape[0] == 0)
    fail("--counts", a.text("counts") + " (shape " + shape_text(counts.shape) + ")", "expected [experts] int32");
  if (x.shape.size() != 2) fail("--a", a.text("a") + " (shape " + shape_text(x.shape) + ")", "expected [tokens, K]");
  if (w.shape.size() != 3 || w.shape[0] != counts.shape[0] || w.shape[2] != x.shape[1])
    fail("--w", a.text("w") + " (shape " + shape_text(w.shape) + ")",
         "expected [" + std::to_string(counts.shape[0]) + ", n, " + std::to_string(x.shape[1]) + "]: --counts' experts, --a's K");
  moe::MoeInputs in;
  in.counts.assign(counts.values.begin(), counts.values.end());
  std::int64_t sum = 0;
  for (const int c : in.counts) {
    if (c < 0) fail("--counts", a.text("counts"), "expected no negative count");
    sum += c;
  }
  if (sum != static_cast<std::int64_t>(x.shape[0]))
    fail("--counts", a.text("counts") + " (a sum of " + std::to_string(sum) + ")",
         "expected --a's " + std::to_string(x.shape[0]) + " tokens");
  if (w.shape[1] % 128 != 0 || w.shape[1] == 0 || w.shape[1] > (1u << 16))
    fail("--w", a.text("w") + " (shape " + shape_text(w.shape) + ")", "expected an n that is a multiple of 128, at most 65536");
  if (x.shape[1] % 128 != 0 || x.shape[1] == 0 || x.shape[1] > (1u << 16))
    fail("--a", a.text("a") + " (shape " + shape_text(x.shape) + ")", "expected a K that is a multiple of 128, at most 65536");
  in.n = static_cast<int>(w.shape[1]);
  in.k = static_cast<int>(x.shape[1]);
  if (projection == moe::Projection::up && in.n % 128 != 0)
    fail("--w", a.text("w"), "expected gate and up rows in whole 128-row blocks");
  const std::vector<float> xf(x.values.begin(), x.values.end()), wf(w.values.begin(), w.values.end());
  in.a = moe::quantise_grouped(xf, in.counts, in.k, moe::kMxfp8);
  in.w = moe::quantise(wf, static_cast<int>(w.shape[0] * w.shape[1]), in.k, moe::kMxfp4);
  return in;
}

// The inputs as files: counts, and A and W dequantised to float32.
void save_inputs(const SavedInputs& saved, const moe::MoeInputs& in, Report& report) {
  const auto dequantised = [](const moe::Quantised& q) {
    std::vector<float> x(static_cast<std::size_t>(q.rows) * q.k);
    for (int r = 0; r < q.rows; ++r)
      for (int c = 0; c < q.k; ++c) x[static_cast<std::size_t>(r) * q.k + c] = static_cast<float>(q.value(r, c));
    return x;
  };
  const std::size_t experts = in.counts.size(), tokens = static_cast<std::size_t>(in.tokens());
  const std::vector<std::int32_t> counts(in.counts.begin(), in.counts.end());
  write_npy("--save-inputs", saved.path("counts"), {experts}, std::span<const std::int32_t>(counts));
  write_npy("--save-inputs", saved.path("a"), {tokens, std::size_t(in.k)}, std::span<const float>(dequantised(in.a)));
  write_npy("--save-inputs", saved.path("w"), {experts, std::size_t(in.n), std::size_t(in.k)},
            std::span<const float>(dequantised(in.w)));
  for (const char* name : {"counts", "a", "w"}) report.text("saved %s\n", saved.path(name).c_str());
}

class MoeJob : public KernelJob {
 public:
  MoeJob(const Args& a, const moe::MoeInputs& in, bool swiglu, int ctas) : a_(a), in_(in), swiglu_(swiglu) {
    options_.ctas = ctas;
    columns_ = swiglu ? in.n / 2 : in.n;
    d_.assign(static_cast<std::size_t>(in.tokens()) * columns_, 0);
    problem_ = {.experts = static_cast<int>(in.counts.size()), .n = in.n, .k = in.k, .tokens = in.tokens(),
                .counts = in.counts.data(), .a = in.a.data.data(), .scale_a = in.a.scales.data(),
                .w = in.w.data.data(), .scale_w = in.w.scales.data(), .d = d_.data(), .ldd = columns_};
  }
  const char* kernel() const override { return "grouped GEMM"; }
  std::string backend_text(Backend backend, const ptx::Module* kernels) const override {
    if (backend == Backend::host) return "host model, every tcgen05 rule checked";
    if (backend == Backend::ptx) return "ptx, " + kernels->name() + " on the host model";
    return "sm100 (device 0)";
  }
  exec::RunStats launch(Backend backend, const ptx::Module* kernels, PtxRun& ptx,
                        const exec::LaunchOptions& launch) override {
    return on_backend(backend, kernels, ptx, launch, [&](const auto& on) {
      return swiglu_ ? moe::run<moe::Config{.swiglu = true}>(problem_, options_, on)
                     : moe::run<moe::Config{}>(problem_, options_, on);
    });
  }
  void report_time(Backend backend, double seconds, Report& report) const override {
    report.text("kernel time %.6f s (%s; %.4g GFLOP/s)\n", seconds,
                backend == Backend::sm100 ? "sm100, CUDA events" : backend == Backend::ptx ? "PTX on the host model" : "host model",
                flops() / seconds * 1e-9);
    report.field("seconds", seconds);
  }
  bool check(Report& report) const override {
    const auto start = std::chrono::steady_clock::now();
    const std::vector<double> ref = moe::grouped_reference(in_.a, in_.counts, in_.w, in_.n, swiglu_);
    const double ref_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    report.text("reference time %.6f s (fp64 over the dequantised inputs, plain C++)\n", ref_seconds);
    report.field("reference_seconds", ref_seconds);
    // Per expert: its largest row error.
    std::vector<double> worst(in_.counts.size(), 0.0);
    std::size_t row = 0;
    for (std::size_t e = 0; e < in_.counts.size(); ++e)
      for (int t = 0; t < in_.counts[e]; ++t, ++row) {
        double err = 0, norm = 0;
        for (int c = 0; c < columns_; ++c) {
          const double x = decode(ElementType::bf16, d_[row * columns_ + c]), y = ref[row * columns_ + c];
          err += (x - y) * (x - y);
          norm += y * y;
        }
        const double rel = norm > 0 ? std::sqrt(err / norm) : std::sqrt(err);
        worst[e] = std::isnan(rel) ? INFINITY : std::max(worst[e], rel);
      }
    const auto max_at = std::max_element(worst.begin(), worst.end());
    const bool ok = *max_at <= kRowBound;
    report.text("max row relative error (2-norm) %.3g, expert %td (bound %.2g); per expert:", *max_at,
                max_at - worst.begin(), kRowBound);
    for (std::size_t e = 0; e < worst.size() && e < 16; ++e) report.text(" %.2g", worst[e]);
    report.text("%s\n", worst.size() > 16 ? " ..." : "");
    report.text("result: %s\n", ok ? "PASSED" : "FAILED");
    report.field("max_row_relative_error", *max_at);
    std::vector<Report> experts;
    for (std::size_t e = 0; e < worst.size(); ++e) {
      Report item(true);
      item.field("expert", static_cast<int>(e));
      item.field("tokens", in_.counts[e]);
      item.field("max_row_relative_error", worst[e]);
      experts.push_back(std::move(item));
    }
    report.field("experts", experts);
    report.field("passed", ok);
    return ok;
  }
  void write_outputs(Report& report) const override {
    if (!a_.has("out")) return;
    std::vector<float> d(d_.size());
    for (std::size_t i = 0; i < d.size(); ++i) d[i] = decode(ElementType::bf16, d_[i]);
    write_npy("--out", a_.text("out"), {static_cast<std::size_t>(in_.tokens()), static_cast<std::size_t>(columns_)},
              std::span<const float>(d));
    report.text("wrote %s (%dx%d float32, bf16 values)\n", a_.text("out").c_str(), in_.tokens(), columns_);
    report.field("wrote", a_.text("out"));
  }
  // 2·K a product: the routed tokens' work, without the tiles' padding rows.
  double flops() const { return 2.0 * in_.tokens() * in_.n * in_.k; }

 private:
  const Args& a_;
  const moe::MoeInputs& in_;
  bool swiglu_;
  int columns_ = 0;
  moe::Options options_;
  std::vector<std::uint16_t> d_;
  moe::Problem problem_;
};

}  // namespace

const std::span<const Option> moe_options{kOptions};

int moe(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << help_text();
    return 0;
  }
  const Args a(args, kOptions);
  const SavedInputs saved(a, {"counts", "a", "w"});
  check_run_files(a, {"counts", "a", "w", "ptx"}, {"out"}, saved);
  if (a.flag("strict-ptx") && a.text("backend") == "sm100")
    fail("--strict-ptx", "(given)", "expected the host model (--backend host or ptx): the B200 runs as it runs");
  const Backend backend = parse_backend(a);
  const moe::Projection projection = as_options(a, [&] { return moe::parse_projection(a.text("projection")); });
  const bool files = a.has("counts") || a.has("a") || a.has("w");
  const std::uint64_t seed = static_cast<std::uint64_t>(a.integer("seed", 0, std::int64_t{1} << 62));
  std::string inputs;
  moe::MoeInputs in;
  if (files) {
    in = as_options(a, [&] { return file_inputs(a, projection); });
    inputs = "inputs: " + a.text("counts") + ", " + a.text("a") + " (MXFP8), " + a.text("w") + " (MXFP4)";
  } else {
    const moe::MoeExample e = as_options(a, [&] { return example_of(a); });
    as_options(a, [&] { e.validate(); });
    const double rows = double(e.batch) * (e.routing == moe::Routing::one_expert ? 1 : e.topk);
    check_memory("--experts, --batch, --hidden, --intermediate", std::to_string(e.experts) + ", " + std::to_string(e.batch) +
                     ", " + std::to_string(e.hidden) + ", " + std::to_string(e.intermediate),
                 double(e.experts) * e.n() * e.k() * 0.6 + rows * e.k() * 6 + rows * e.n() * 12 + double(e.n()) * e.k() * 5 +
                     64.0 * (1 << 20));
    in = random_moe_inputs(e, seed);
    inputs = "inputs: built-in example from seed " + std::to_string(seed) + ", " + moe::name(e.routing) +
             " routing of " + std::to_string(e.batch) + " tokens to " + std::to_string(e.topk) + " of " +
             std::to_string(e.experts) + " experts; values uniform in [-1, 1) times 2^-4 .. 2^4 per 32";
  }
  const bool swiglu = projection == moe::Projection::up;
  const int ctas = static_cast<int>(a.integer_or("ctas", 0, 1, 1024));
  Report report(a.flag("json"));
  const int experts = static_cast<int>(in.counts.size());
  const int used = static_cast<int>(std::count_if(in.counts.begin(), in.counts.end(), [](int c) { return c > 0; }));
  const int most = *std::max_element(in.counts.begin(), in.counts.end());
  report.text("tcgen moe: grouped GEMM, MXFP8 tokens x MXFP4 weights -> bf16, %s projection%s\n", moe::name(projection),
              swiglu ? " (SwiGLU fused)" : "");
  report.text("shapes: %d experts, %d routed tokens (%d experts with tokens, the most %d), K %d, n %d, D [%d, %d]\n",
              experts, in.tokens(), used, most, in.k, in.n, in.tokens(), swiglu ? in.n / 2 : in.n);
  report.text("%s\n", inputs.c_str());
  const double flops = 2.0 * in.tokens() * in.n * in.k;
  report.text("work: %.6g GFLOP (2 · K a routed token and column)\n", flops * 1e-9);
  report.field("verb", "moe");
  report.field("expert_count", experts);
  report.field("tokens", in.tokens());
  report.field("n", in.n);
  report.field("k", in.k);
  report.field("projection", moe::name(projection));
  report.field("gflop", flops * 1e-9);
  report.field("inputs", inputs.substr(8));
  report.field("backend", name(backend));
  std::optional<ptx::Module> kernels;
  if (backend == Backend::ptx) kernels = load_kernels(a, kBuiltPtx, "moe");
  if (saved.wanted()) {
    save_inputs(saved, in, report);
    report.field("saved_inputs", saved.dir());
  }

  exec::LaunchOptions launch = host_model_launch(a);
  launch.letters_as_errors = a.flag("strict-ptx");
  launch.strict_mma_pipelining = a.flag("strict-ptx");
  if (backend != Backend::sm100) {
    // Measured on the 2-core CI VM, like the GEMM's: rounded down, they only say when a run is long.
    const std::uint64_t ctas_run = std::min<std::uint64_t>(ctas > 0 ? ctas : 148, std::uint64_t(in.tokens()) / 128 + used);
    const TimeEstimate t{.kernel_flops = 2.0 * 128 * (in.tokens() / 128 + used) * double(in.n) * in.k,
                         .kernel_rate = backend == Backend::host ? 2e9 : 0.25e9,
                         .threads = static_cast<unsigned>(std::min<std::uint64_t>(exec::pool_threads(launch.threads), ctas_run)),
                         .reference_flops = a.flag("no-reference") ? 0 : flops, .reference_rate = 1e9};
    announce_long_run(t, a.flag("quiet"));
  }
  MoeJob job(a, in, swiglu, ctas);
  return run_kernel_job(job, a, backend, kernels ? &*kernels : nullptr, launch, report);
}

}  // namespace tcgen::cli
