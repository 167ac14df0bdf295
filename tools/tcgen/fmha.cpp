// tcgen fmha: O = softmax(scale · Q·Kᵀ) · V and LSE with the FMHA kernel
// (tcgen::fmha) over a whole FmhaProblem (batch, heads, grouped-query
// attention, masks, bf16 or fp16), one launch on the host model or a B200,
// checked against the fp64 reference.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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
#include "tcgen/fmha/check.hpp"
#include "tcgen/fmha/inputs.hpp"
#include "tcgen/fmha/plan.hpp"
#include "tcgen/fmha/run.hpp"
#include "tcgen/ptx/backend.hpp"
#include "tcgen/fmha/problem.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/fmha/reference.hpp"
#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/launch_options.hpp"
#include "tcgen/exec/unit_pool.hpp"
#include "verbs.hpp"
#if defined(TCGEN_SM100)
#include "tcgen/fmha/sm100_runner.hpp"
#endif

namespace tcgen::cli {

namespace {

constexpr Option kFmhaOptions[] = {
    {"batch", "B", "batch size (default {--batch})", "1", {}, "batch"},
    {"heads", "H", "query heads (default {--heads})", "2", {}, "heads"},
    {"heads-kv", "Hkv", "key/value heads, dividing H (default {--heads-kv})", "1", {}, "heads_kv"},
    {"seq-q", "Sq", "query length, any >= 1 (default {--seq-q}); --s-q too", "256", "s-q", "seq_q"},
    {"seq-k", "Sk", "key length, any >= 1 (default {--seq-k})", "333", {}, "seq_k"},
    {"head-dim", "D", "64, 128 or 256 (default {--head-dim})", "128", {}, "head_dim"},
    {"causal", {},
     "causal mask aligned to the bottom-right corner, so the last\n"
     "query sees the last key (FlashAttention's causal=True,\n"
     "PyTorch's causal_lower_right): query i sees key j iff\n"
     "j <= i + Sk - Sq (the same as --window -1,0). A query that\n"
     "sees no key (Sq > Sk) gets O = 0, LSE = -inf"},
    {"causal-top-left", {},
     "causal mask aligned to the top-left corner (PyTorch's\n"
     "scaled_dot_product_attention(is_causal=True),\n"
     "causal_upper_left): query i sees key j iff j <= i. The two\n"
     "differ when Sq != Sk; the report names the one used"},
    {"window", "L,R",
     "sliding window, bottom-right aligned: query i sees key j iff\n"
     "i + Sk - Sq - L <= j <= i + Sk - Sq + R; L, R >= 0, or -1\n"
     "for unbounded. Not together with --causal"},
    {"scale", "S",
     "the softmax scale (default 1/sqrt(head_dim)); always printed;\n"
     "--softmax-scale (FlashMLA's and sparse-decode's name) too",
     {}, "softmax-scale"},
    {"q", "FILE"},
    {"k", "FILE"},
    {"v", "FILE",
     "Q [B, H, Sq, D], K and V [B, Hkv, Sk, D] as float32, float16\n"
     "or float64 .npy arrays, rounded to --dtype; all three or none (default:\n"
     "random from --seed, Q and K in [-2, 2), V in [-1, 1)).\n"
     "Sizes not given as options are taken from the files."},
    {"out", "FILE",
     "write O [B, H, Sq, D] as .npy in O's type: float16 for\n"
     "fp16, float32 for bf16 (exactly its values: .npy has no\n"
     "bfloat16); --out-f32 writes float32 for fp16 too"},
    {"out-f32", {}, "with --out: float32 whatever O's type"},
    {"lse", "FILE", "write LSE [B, H, Sq] (natural log) as a float32 .npy array"},
    {"seed", "N", "the random inputs' seed (default {--seed})", "1"},
    {"dtype", "T",
     "bf16 or fp16: the type of Q, K, V, O and P (default {--dtype},\n"
     "or fp16 when --q, --k and --v are all float16 files)",
     "bf16", {}, "dtype"},
    {"backend", "B",
     "{--backend} (default): the host model; ptx: the kernel's sm_100a\n"
     "PTX, what a B200 runs, executed on the host model by\n"
     "tcgen's PTX interpreter; sm100: a B200 (exit 3 where there\n"
     "is none; 2 where tcgen was built without nvcc)",
     "host", {}, "backend"},
    {"ptx", "FILE",
     "with --backend ptx: the PTX to run (default: the one this\n"
     "build compiled from fmha/src/fmha_kernels.cu)"},
    {"p-reuse", "R",
     "when S = Q·Kᵀ may overwrite the P that the P·V issued just\n"
     "before it reads: {--p-reuse} (default; FA4's order, beyond\n"
     "PTX's letter) or wait-for-pv (after that P·V completes)",
     "issue-order"},
    {"strict-ptx", {},
     "host model: pipeline tcgen05.mma pairs only as PTX promises\n"
     "(same accumulator and shape); the default P reuse is then\n"
     "refused, wait-for-pv accepted (docs/fmha.md, Ordering)"},
    {"layout", "L",
     "the axes of the --q, --k, --v and --out files: {--layout} (default,\n"
     "[batch, heads, seq, head_dim], PyTorch's) or bshd ([batch,\n"
     "seq, heads, head_dim], FlashAttention's)",
     "bhsd"},
    {"save-inputs", "DIR",
     "write the rounded inputs as DIR/q.npy, DIR/k.npy, DIR/v.npy\n"
     "in --layout (float16 for fp16, float32 for bf16): given back\n"
     "as --q, --k, --v with the same options they run the same\n"
     "problem again; files that exist are refused unless\n"
     "--force, and a file the run reads is never written"},
    {"force", {}, "replace an output file that exists (--out, --lse, --trace,\n--save-inputs' files); never a file the run reads"},
    {"no-reference", {},
     "skip the fp64 reference and the check (large runs): the\n"
     "report says \"not checked\" and the exit is 0"},
    {"json", {}, "the report as one JSON object on stdout, the same facts as fields"},
    {"quiet", {},
     "no estimate and no progress on stderr (CTAs done, rate,\n"
     "time left: in place on a terminal, else a line every 5 s)"},
    {"threads", "N",
     "host and ptx: the OS threads running CTAs at once, 1 to\n"
     "1024 (default: one per core); O and LSE are the same on any\n"
     "number"}};
constexpr auto kOptions = joined(kFmhaOptions, kHostModelOptions);
static_assert(defaults_documented(kOptions));

#if defined(TCGEN_FMHA_PTX)
constexpr const char* kBuiltPtx = TCGEN_FMHA_PTX;
#else
constexpr const char* kBuiltPtx = "";
#endif

// The largest batch, heads, seq and head_dim taken from the options or the
// files' shapes (below validate()'s grid limits of 65535 for batch and heads).
constexpr std::int64_t kMaxSize[4] = {4096, 4096, 1 << 20, 4096};

constexpr std::string_view kAbout = R"(usage: tcgen fmha [--batch B --heads H --heads-kv Hkv --seq-q Sq --seq-k Sk --head-dim D]
                  [--causal | --causal-top-left] [--window L,R] [--scale S]
                  [--q q.npy --k k.npy --v v.npy] [--out o.npy] [--lse lse.npy]
                  [--seed N] [--dtype bf16|fp16] [--backend host|ptx|sm100] [--ptx FILE]
                  [--p-reuse issue-order|wait-for-pv] [--strict-ptx] [--layout bhsd|bshd]
                  [--save-inputs DIR] [--force] [--no-reference] [--out-f32] [--json] [--quiet]
                  [--threads N]

O = softmax(scale · Q·Kᵀ + mask) · V and LSE = ln Σ exp(scale · q·k) per row
over the keys the mask lets through, with tcgen's tcgen05 FMHA kernel
(fmha/include/tcgen/fmha/kernel.hpp): one launch over the whole
problem, on the host model (every tcgen05 rule checked) or on a B200.
Grouped-query attention: head h of Q uses K/V head h / (H / Hkv). Prints the
shapes, the type, the mask, the scale, the work, the time of the kernel and of
the fp64 reference, and the error against that reference: O per row,
||O - O_ref|| / ||O_ref|| (2-norm), bound 1e-2; LSE per element, bound 1e-3.
With no arguments it runs a built-in example. Exit 0: within the bounds (or
not checked: --no-reference); 1: beyond; 2: a bad command line, file or
shape (one sentence on stderr); 3: a file that cannot be read or written
(outputs are checked before the work and written whole or not at all), or
no B200 for --backend sm100.

options:
)";

constexpr std::string_view kExamples = R"(
examples:
  tcgen fmha
  tcgen fmha --batch 2 --heads 8 --heads-kv 2 --seq-q 512 --seq-k 1000 --head-dim 64 --causal
  tcgen fmha --seq-q 300 --seq-k 200 --causal-top-left
  tcgen fmha --seq-q 130 --seq-k 150 --window 32,8 --dtype fp16
  tcgen fmha --q q.npy --k k.npy --v v.npy --out o.npy --lse lse.npy
)";

// kAbout states the bounds; keep it in step.
static_assert(fmha::kFmhaOBound == 1e-2 && fmha::kFmhaLseBound == 1e-3, "update the bounds in kAbout");

// A bound as the help writes it: 1e-2 (printf's %.0e gives 1e-02).
std::string bound_text(double x) {
  char t[16];
  std::snprintf(t, sizeof t, "%.0e", x);
  std::string s = t;
  if (s.size() == 5 && s[3] == '0') s.erase(3, 1);
  return s;
}

// A 4-D .npy of [b, h, s, d], each size from 1 to kMaxSize (as the options);
// `option` names the file's option.
// [d0, d1, d2, d3] → [d0, d2, d1, d3]: BSHD ↔ BHSD, the one transpose between
// FlashAttention's layout and PyTorch's (its own inverse).
void swap_axes_1_2(NpyArray& a) {
  const std::size_t n0 = a.shape[0], n1 = a.shape[1], n2 = a.shape[2], n3 = a.shape[3];
  std::vector<float> out(a.values.size());
  for (std::size_t i = 0; i < n0; ++i)
    for (std::size_t j = 0; j < n1; ++j)
      for (std::size_t k = 0; k < n2; ++k)
        for (std::size_t l = 0; l < n3; ++l)
          out[((i * n2 + k) * n1 + j) * n3 + l] = a.values[((i * n1 + j) * n2 + k) * n3 + l];
  a.values = std::move(out);
  std::swap(a.shape[1], a.shape[2]);
}

// A Q/K/V file as [batch, heads, seq, head_dim], read in `layout` (bhsd or bshd).
NpyArray read_4d(const std::string& option, const std::string& path, const std::string& layout) {
  NpyArray a = read_npy(path);
  const bool bshd = layout == "bshd";
  if (bshd && a.shape.size() == 4) swap_axes_1_2(a);
  bool sizes_ok = a.shape.size() == 4;
  for (std::size_t i = 0; sizes_ok && i < 4; ++i)
    sizes_ok = a.shape[i] >= 1 && a.shape[i] <= std::size_t(kMaxSize[i]);
  if (!sizes_ok)
    fail(("--" + option).c_str(), path + " (shape " + shape_text(a.shape) + ")",
         std::string(bshd ? "expected a 4-D array [batch, seq, heads, head_dim] (--layout bshd)" : "expected a 4-D array [batch, heads, seq, head_dim]") +
             " with sizes from 1 to " + std::to_string(kMaxSize[0]) +
             " (seq: to " + std::to_string(kMaxSize[2]) + ")");
  return a;
}

// "L,R": two integers >= -1 (-1: unbounded).
fmha::FmhaMask parse_window(const std::string& text) {
  const std::string expected = "expected L,R with integers L, R >= -1 (-1: unbounded), e.g. 64,0";
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) fail("--window", text, expected);
  const auto extent = [&](const std::string& part) {
    if (part == "-1") return -1;
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos)
      fail("--window", text, expected);
    return std::atoi(part.c_str());
  };
  return fmha::FmhaMask::window(extent(text.substr(0, comma)), extent(text.substr(comma + 1)));
}

std::string extent_text(int x) { return x < 0 ? std::string("unbounded") : std::to_string(x); }

std::string mask_text(const fmha::FmhaMask& m) {
  if (m.left < 0 && m.right < 0) return "none";
  if (m.is_causal() && m.corner == fmha::MaskCorner::top_left)
    return "causal, top-left aligned (PyTorch's is_causal=True): query i sees keys j <= i";
  if (m.is_causal())
    return "causal, bottom-right aligned (FlashAttention's causal=True): query i sees keys j <= i + seq_k - seq_q";
  return "window left " + extent_text(m.left) + ", right " + extent_text(m.right) +
         " (bottom-right aligned: query i sees keys i + seq_k - seq_q - left <= j <= i + seq_k - seq_q + right)";
}

// --causal, --causal-top-left or --window (at most one of them); none without.
fmha::FmhaMask parse_mask(const Args& a) {
  if (a.flag("causal") && a.flag("causal-top-left"))
    fail("--causal-top-left", "(given)", "expected one causal mask: --causal (bottom-right aligned) or --causal-top-left");
  for (const char* causal : {"causal", "causal-top-left"})
    if (a.flag(causal) && a.has("window"))
      fail("--window", a.text("window"), std::string("expected it not together with --") + causal + "; give one of them");
  if (a.flag("causal")) return fmha::FmhaMask::causal();
  if (a.flag("causal-top-left")) return fmha::FmhaMask::causal(fmha::MaskCorner::top_left);
  if (a.has("window")) return parse_window(a.text("window"));
  return fmha::FmhaMask::none();
}

// What the command line asks for: the problem (not yet validated), the
// kernel's options, and the Q, K, V files when given (in [b, h, s, d] order).
struct FmhaRequest {
  fmha::FmhaProblem problem;
  fmha::FmhaOptions kernel_options;
  std::string layout;  // of the files: bhsd or bshd
  bool files = false;
  bool fp16_files = false;  // float16 files without --dtype: they stay fp16
  bool scale_given = false;
  NpyArray q, k, v;
};

// `dtype_given`: --dtype's type, which float16 files override when --dtype is not given.
FmhaRequest parse_request(const Args& a, ElementType dtype_given) {
  FmhaRequest r;
  r.problem.mask = parse_mask(a);
  r.layout = a.text("layout");
  if (r.layout != "bhsd" && r.layout != "bshd")
    fail("--layout", r.layout, "expected bhsd ([batch, heads, seq, head_dim], PyTorch's) or bshd ([batch, seq, heads, head_dim], FlashAttention's)");
  const int given_files = int(a.has("q")) + int(a.has("k")) + int(a.has("v"));
  if (given_files != 0 && given_files != 3)
    fail(!a.has("q") ? "--q" : !a.has("k") ? "--k" : "--v", "(not given)",
         "expected all three of --q, --k, --v, or none (random inputs)");

  // Files first: sizes not given as options come from them.
  check_input_files_fit(a, {"q", "k", "v"});
  r.files = given_files == 3;
  if (r.files) {
    r.q = read_4d("q", a.text("q"), r.layout);
    r.k = read_4d("k", a.text("k"), r.layout);
    r.v = read_4d("v", a.text("v"), r.layout);
  }
  r.fp16_files = !a.has("dtype") && r.files && r.q.float16 && r.k.float16 && r.v.float16;
  // Size `axis` (0 batch, 1 heads, 2 seq, 3 head_dim): its option, else the file's, else the default.
  const auto dim = [&](const char* option, const NpyArray& file, int axis) {
    const std::size_t i = std::size_t(axis);
    return static_cast<int>(r.files && !a.has(option) ? std::int64_t(file.shape[i]) : a.integer(option, 1, kMaxSize[i]));
  };
  fmha::FmhaProblem& p = r.problem;
  p.batch = dim("batch", r.q, 0);
  p.heads = dim("heads", r.q, 1);
  p.heads_kv = dim("heads-kv", r.k, 1);
  p.seq_q = dim("seq-q", r.q, 2);
  p.seq_k = dim("seq-k", r.k, 2);
  p.head_dim = dim("head-dim", r.q, 3);
  p.dtype = r.fp16_files ? ElementType::fp16 : dtype_given;
  const std::string reuse = a.text("p-reuse");
  if (reuse != "issue-order" && reuse != "wait-for-pv") fail("--p-reuse", reuse, "expected issue-order or wait-for-pv");
  r.kernel_options.p_reuse = reuse == "wait-for-pv" ? fmha::PReuse::wait_for_pv : fmha::PReuse::issue_order;

  p.scale = attention::SoftmaxScale::for_head_dim(p.head_dim);
  r.scale_given = a.has("scale");
  if (r.scale_given) {
    const double x = parse_positive("scale", a.text("scale"), "0.125");
    p.scale = attention::SoftmaxScale::explicit_value(static_cast<float>(x));
  }
  return r;
}

// Refuses a problem whose run would not fit in memory, before any of it is taken: Q, K, V as floats
// and 16-bit patterns (6 bytes an element); O as 16-bit patterns, and as floats for --out (twice with
// bshd); the fp64 reference's O (8); LSE as a float and the reference's double; 64 MiB for the host
// model's CTAs in flight.
void check_fits(const Args& a, const fmha::FmhaProblem& p) {
  const bool check = !a.flag("no-reference");
  const double q = double(p.batch) * p.heads * p.seq_q * p.head_dim, kv = 2.0 * p.batch * p.heads_kv * p.seq_k * p.head_dim,
               rows = double(p.batch) * p.heads * p.seq_q;
  const double bytes = 6 * (q + kv) + q * (2 + (a.has("out") ? 8 : 0) + (check ? 8 : 0)) + rows * (4 + (check ? 8 : 0)) +
                       64.0 * (1 << 20);
  check_memory("--batch, --heads, --heads-kv, --seq-q, --seq-k, --head-dim",
               std::to_string(p.batch) + ", " + std::to_string(p.heads) + ", " + std::to_string(p.heads_kv) + ", " +
                   std::to_string(p.seq_q) + ", " + std::to_string(p.seq_k) + ", " + std::to_string(p.head_dim),
               bytes);
}

// The inputs from the files, checked against the problem's shapes and
// rounded to its type (a value beyond the type's range is refused).
fmha::FmhaInputs file_inputs(const Args& a, FmhaRequest& r) {
  const fmha::FmhaProblem& p = r.problem;
  const std::size_t B = std::size_t(p.batch), H = std::size_t(p.heads), Hkv = std::size_t(p.heads_kv),
                    Sq = std::size_t(p.seq_q), Sk = std::size_t(p.seq_k), D = std::size_t(p.head_dim);
  // Shapes as the files hold them: in --layout's order.
  const bool bshd = r.layout == "bshd";
  const auto check = [&](const char* option, const NpyArray& x, std::vector<std::size_t> want, const char* heads,
                         const char* seq) {
    if (x.shape == want) return;
    std::vector<std::size_t> file = x.shape;
    if (bshd) std::swap(file[1], file[2]), std::swap(want[1], want[2]);
    fail(option, a.text(option + 2) + " (shape " + shape_text(file) + ")",
         "expected shape " + shape_text(want) + " [batch, " + (bshd ? seq : heads) + ", " + (bshd ? heads : seq) +
             ", head_dim] from the options");
  };
  check("--q", r.q, {B, H, Sq, D}, "heads", "seq_q");
  check("--k", r.k, {B, Hkv, Sk, D}, "heads_kv", "seq_k");
  check("--v", r.v, {B, Hkv, Sk, D}, "heads_kv", "seq_k");
  const auto round = [&](const char* option, std::vector<float>& x, std::vector<std::uint16_t>& bits) {
    bits.resize(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      bits[i] = static_cast<std::uint16_t>(encode(p.dtype, x[i]));
      const float rounded = decode(p.dtype, bits[i]);
      if (!std::isfinite(rounded)) {
        std::ostringstream value;
        value << a.text(option + 2) << " (element " << i << " = " << x[i] << ")";
        fail(option, value.str(), std::string("expected finite values within the range of ") + name(p.dtype));
      }
      x[i] = rounded;
    }
  };
  fmha::FmhaInputs in;
  in.q = std::move(r.q.values);
  in.k = std::move(r.k.values);
  in.v = std::move(r.v.values);
  round("--q", in.q, in.qb);
  round("--k", in.k, in.kb);
  round("--v", in.v, in.vb);
  return in;
}

// The problem as the report states it, before the run: sizes, type, mask, P reuse, scale, inputs, work.
void describe(const Args& a, const FmhaRequest& r, const std::string& inputs, Report& report) {
  const fmha::FmhaProblem& p = r.problem;
  const std::size_t B = std::size_t(p.batch), H = std::size_t(p.heads), Hkv = std::size_t(p.heads_kv),
                    Sq = std::size_t(p.seq_q), Sk = std::size_t(p.seq_k), D = std::size_t(p.head_dim);
  const char* type = name(p.dtype);
  int empty_rows = 0;
  for (int i = 0; i < p.seq_q; ++i) {
    const fmha::KeyRange keys = p.mask.keys(i, p.seq_q, p.seq_k);
    if (keys.begin >= keys.end) ++empty_rows;
  }
  report.text("tcgen fmha: O = softmax(scale·Q·Kᵀ)·V, batch %d, heads %d, heads_kv %d, seq_q %d, seq_k %d, "
              "head_dim %d\n",
              p.batch, p.heads, p.heads_kv, p.seq_q, p.seq_k, p.head_dim);
  report.text("shapes: Q [%zu, %zu, %zu, %zu], K and V [%zu, %zu, %zu, %zu], O [%zu, %zu, %zu, %zu], LSE [%zu, %zu, %zu]"
              " (grouped-query: %zu Q heads per K/V head)\n",
              B, H, Sq, D, B, Hkv, Sk, D, B, H, Sq, D, B, H, Sq, H / Hkv);
  report.text("dtype: %s Q, K, V, O and P%s, f32 accumulation, f32 LSE\n", type,
              r.fp16_files ? " (the files' float16; --dtype bf16 rounds them)" : "");
  report.text("mask: %s\n", mask_text(p.mask).c_str());
  report.text("P reuse: %s%s\n",
              r.kernel_options.p_reuse == fmha::PReuse::wait_for_pv
                  ? "wait-for-pv (S waits until the P·V reading P completes)"
                  : "issue-order (S right after the P·V reading P, as FA4)",
              a.flag("strict-ptx") ? "; strict PTX mma pipelining" : "");
  if (empty_rows > 0)
    report.text("masked rows: %d of %d query rows see no key: O = 0, LSE = -inf there\n", empty_rows, p.seq_q);
  if (r.scale_given)
    report.text("scale: %.9g (from --scale)\n", double(p.scale.value()));
  else
    report.text("scale: %.9g (1/sqrt(head_dim), the default)\n", double(p.scale.value()));
  report.text("%s\n", inputs.c_str());
  report.text("work: %.6g TFLOP (4 · head_dim per (query, key) pair the mask lets through)\n", p.flops() * 1e-12);
  report.field("verb", "fmha");
  report.field("batch", p.batch);
  report.field("heads", p.heads);
  report.field("heads_kv", p.heads_kv);
  report.field("seq_q", p.seq_q);
  report.field("seq_k", p.seq_k);
  report.field("head_dim", p.head_dim);
  report.field("dtype", type);
  report.field("mask", mask_text(p.mask));
  report.field("scale", double(p.scale.value()));
  report.field("inputs", inputs.starts_with("inputs: ") ? inputs.substr(8) : inputs);
  report.field("tflop", p.flops() * 1e-12);
}

// A [batch, heads, seq, head_dim] array of the problem, its axes in --layout's order.
NpyArray in_layout(const FmhaRequest& r, std::vector<float> values, std::size_t heads, std::size_t seq) {
  NpyArray x{{std::size_t(r.problem.batch), heads, seq, std::size_t(r.problem.head_dim)}, std::move(values), false};
  if (r.layout == "bshd") swap_axes_1_2(x);
  return x;
}

void save_inputs(const SavedInputs& saved, const FmhaRequest& r, const fmha::FmhaInputs& in, Report& report) {
  const fmha::FmhaProblem& p = r.problem;
  const bool half = p.dtype == ElementType::fp16;
  const auto save = [&](const char* name, const std::vector<float>& values, int heads, int seq) {
    const NpyArray x = in_layout(r, values, std::size_t(heads), std::size_t(seq));
    write_npy("--save-inputs", saved.path(name), x.shape, x.values, half);
    report.text("saved %s (%s %s)\n", saved.path(name).c_str(), shape_text(x.shape).c_str(), half ? "float16" : "float32");
  };
  save("q", in.q, p.heads, p.seq_q);
  save("k", in.k, p.heads_kv, p.seq_k);
  save("v", in.v, p.heads_kv, p.seq_k);
  report.field("saved_inputs", saved.dir());
}

// One launch of the FMHA kernel over the whole problem, checked and written as the driver asks.
class FmhaJob : public KernelJob {
 public:
  FmhaJob(const Args& a, const FmhaRequest& r, const fmha::CheckedFmhaProblem& problem,
          const fmha::FmhaInputs& in, unsigned at_once)
      : a_(a), r_(r), problem_(problem), in_(in), at_once_(at_once) {}

  const char* kernel() const override { return "FMHA"; }

  std::string backend_text(Backend backend, const ptx::Module* kernels) const override {
    const std::size_t pairs = std::size_t(r_.problem.batch) * std::size_t(r_.problem.heads);
    const std::string over = "one launch over all " + std::to_string(pairs) + " (batch, head) pair" + (pairs == 1 ? "" : "s");
    const std::string at_once = std::to_string(at_once_) + " CTA" + (at_once_ == 1 ? "" : "s") + " at once";
    if (backend == Backend::host) return "host model, " + over + ", " + at_once + ", every tcgen05 rule checked";
    if (backend == Backend::ptx) return "ptx, " + kernels->name() + " on the host model, " + over + ", " + at_once;
    return "sm100 (device 0), " + over;
  }

  exec::RunStats launch(Backend backend, const ptx::Module* kernels, PtxRun& ptx,
                        const exec::LaunchOptions& launch) override {
    run_ = {};
    return on_backend(backend, kernels, ptx, launch, [&](const auto& on) {
      run_ = fmha::run(problem_, in_.operands(), r_.kernel_options, on);
      return run_.stats;
    });
  }

  void report_time(Backend backend, double seconds, Report& report) const override {
    report.text("kernel time %.6f s (%s, %.4g GFLOP/s)\n", seconds,
                backend == Backend::sm100 ? "sm100, CUDA events" : backend == Backend::ptx ? "PTX on the host model" : "host model",
                r_.problem.flops() / seconds * 1e-9);
    report.field("seconds", seconds);
  }

  bool check(Report& report) const override {
    const auto ref_start = std::chrono::steady_clock::now();
    const fmha::FmhaResult<double> ref = fmha::fmha_reference(problem_, in_.q, in_.k, in_.v);
    const double ref_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - ref_start).count();
    report.text("reference time %.6f s (fp64, plain C++)\n", ref_seconds);
    report.field("reference_seconds", ref_seconds);
    // On failure compare() has logged its report (per-row ratio and cosine, a diagnosis) to stderr.
    const fmha::FmhaCheck c = fmha::check_fmha(problem_, ref, run_.out);
    report.text("O max row relative error (2-norm) %.3g (bound %s)\n", c.o.max_rel_error,
                bound_text(fmha::kFmhaOBound).c_str());
    report.text("LSE max relative error %.3g (bound %s)\n", c.lse.max_rel_error,
                bound_text(fmha::kFmhaLseBound).c_str());
    report.text("result: %s\n", c.ok() ? "PASSED" : "FAILED");
    report.field("o_max_row_relative_error", c.o.max_rel_error);
    report.field("o_bound", fmha::kFmhaOBound);
    report.field("lse_max_relative_error", c.lse.max_rel_error);
    report.field("lse_bound", fmha::kFmhaLseBound);
    report.field("passed", c.ok());
    return c.ok();
  }

  void write_outputs(Report& report) const override {
    const fmha::FmhaProblem& p = r_.problem;
    const std::size_t B = std::size_t(p.batch), H = std::size_t(p.heads), Sq = std::size_t(p.seq_q);
    if (a_.has("out")) {
      std::vector<float> o(run_.out.o.size());
      for (std::size_t i = 0; i < o.size(); ++i) o[i] = decode(p.dtype, run_.out.o[i]);
      const NpyArray out = in_layout(r_, std::move(o), H, Sq);
      const bool half = p.dtype == ElementType::fp16 && !a_.flag("out-f32");
      write_npy("--out", a_.text("out"), out.shape, out.values, half);
      report.text("wrote %s (%s %s%s)\n", a_.text("out").c_str(), shape_text(out.shape).c_str(),
                  half ? "float16" : p.dtype == ElementType::bf16 ? "float32, bf16 values" : "float32",
                  r_.layout == "bshd" ? ", [batch, seq, heads, head_dim]" : "");
      report.field("wrote", a_.text("out"));
    }
    if (a_.has("lse")) {
      write_npy("--lse", a_.text("lse"), {B, H, Sq}, run_.out.lse);
      report.text("wrote %s (%zux%zux%zu float32)\n", a_.text("lse").c_str(), B, H, Sq);
      report.field("wrote_lse", a_.text("lse"));
    }
  }

 private:
  const Args& a_;
  const FmhaRequest& r_;
  const fmha::CheckedFmhaProblem& problem_;
  const fmha::FmhaInputs& in_;
  unsigned at_once_;
  fmha::FmhaRun run_;
};

}  // namespace

const std::span<const Option> fmha_options{kOptions};

int fmha(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << kAbout << options_help(kOptions) << kExamples;
    return 0;
  }
  const Args a(args, kOptions);
  const SavedInputs saved(a, {"q", "k", "v"});
  check_run_files(a, {"q", "k", "v", "ptx"}, {"out", "lse"}, saved);
  constexpr ElementType kTypes[] = {ElementType::bf16, ElementType::fp16};
  const ElementType dtype_given = parse_element("--dtype", a.text("dtype"), kTypes);
  if (a.flag("strict-ptx") && a.text("backend") == "sm100")
    fail("--strict-ptx", "(given)", "expected the host model (--backend host or ptx): the B200 runs as it runs");
  const Backend backend = parse_backend(a);
  FmhaRequest r = parse_request(a, dtype_given);
  const fmha::FmhaProblem& p = r.problem;
  // Validated once, here; the inputs, the kernel, the reference and the check take the checked problem.
  const fmha::CheckedFmhaProblem problem = as_options(a, [&]() -> fmha::CheckedFmhaProblem { return p; });
  const std::uint64_t seed = static_cast<std::uint64_t>(a.integer("seed", 0, (std::int64_t{1} << 62)));
  check_fits(a, p);

  // Said before the inputs are drawn, which for a long run takes a while itself.
  const std::size_t rows = std::size_t(fmha::kFmhaBlockM) * fmha::fmha_q_tiles(p.head_dim);  // per CTA
  const std::uint64_t ctas = std::uint64_t(p.batch) * p.heads * ((std::size_t(p.seq_q) + rows - 1) / rows);
  const auto at_once = static_cast<unsigned>(std::min<std::uint64_t>(exec::pool_threads(parse_threads(a)), ctas));
  if (backend != Backend::sm100) {
    // Measured per OS thread on the 2-core CI VM (tcgen fmha --threads 1 --seq-q 1024 --seq-k 2048, and
    // --seq-q 512 --seq-k 1024 --backend ptx): 2.8 and 1.0 GFLOP/s; the fp64 reference 4.8 GFLOP/s.
    // Rounded down: they only say when a run is long.
    const TimeEstimate t{.kernel_flops = p.flops(), .kernel_rate = backend == Backend::host ? 2e9 : 0.7e9, .threads = at_once,
                         .reference_flops = a.flag("no-reference") ? 0 : p.flops(), .reference_rate = 3e9};
    announce_long_run(t, a.flag("quiet"));
  }
  // Inputs as float values (exactly those of dtype) and as dtype bit patterns.
  const std::string type = name(p.dtype);
  const fmha::FmhaInputs in = r.files ? file_inputs(a, r) : fmha::random_fmha_inputs(problem, seed);
  const std::string inputs =
      r.files ? "inputs: " + input_name(a.text("q"), r.q) + ", " + input_name(a.text("k"), r.k) + ", " +
                    input_name(a.text("v"), r.v) + ", rounded to " + type
              : "inputs: Q, K uniform in [-2, 2), V uniform in [-1, 1) from seed " + std::to_string(seed) + ", rounded to " + type;

  Report report(a.flag("json"));
  describe(a, r, inputs, report);
  report.field("backend", name(backend));
  // Loaded before anything is written: a missing file exits 3, a bad one 2, and --save-inputs has written nothing.
  std::optional<ptx::Module> kernels;
  if (backend == Backend::ptx) kernels = load_kernels(a, kBuiltPtx, "FMHA");
  if (saved.wanted()) save_inputs(saved, r, in, report);
  exec::LaunchOptions launch = host_model_launch(a);  // on the host model, directly or through the PTX
  launch.strict_mma_pipelining = a.flag("strict-ptx");
  FmhaJob job(a, r, problem, in, at_once);
  return run_kernel_job(job, a, backend, kernels ? &*kernels : nullptr, launch, report);
}

}  // namespace tcgen::cli
