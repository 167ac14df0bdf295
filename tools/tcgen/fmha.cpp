// tcgen fmha: O = softmax(scale · Q·Kᵀ) · V and LSE with the FMHA kernel
// (tcgen::attention) over a whole FmhaProblem (batch, heads, grouped-query
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
#include "budget.hpp"
#include "kernel_run.hpp"
#include "dtype.hpp"
#include "npy.hpp"
#include "output_file.hpp"
#include "progress.hpp"
#include "report.hpp"
#include "tcgen/attention/fmha_check.hpp"
#include "tcgen/attention/fmha_inputs.hpp"
#include "tcgen/attention/fmha_plan.hpp"
#include "tcgen/attention/fmha_run.hpp"
#include "tcgen/ptx/backend.hpp"
#include "tcgen/attention/fmha_problem.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/attention/fmha_reference.hpp"
#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/launch_options.hpp"
#include "tcgen/exec/unit_pool.hpp"
#include "verbs.hpp"
#if defined(TCGEN_SM100)
#include "tcgen/attention/sm100_runner.hpp"
#endif

namespace tcgen::cli {

namespace {

constexpr Option kOptions[] = {{"batch", true},  {"heads", true}, {"heads-kv", true}, {"seq-q", true, "s-q"},
                               {"seq-k", true},  {"head-dim", true}, {"scale", true, "softmax-scale"}, {"q", true},
                               {"k", true},      {"v", true},     {"out", true},      {"lse", true},
                               {"seed", true},   {"dtype", true}, {"backend", true},  {"causal", false}, {"causal-top-left", false},
                               {"window", true}, {"p-reuse", true}, {"strict-ptx", false}, {"ptx", true},
                               {"quiet", false}, {"json", false}, {"layout", true}, {"save-inputs", true},
                               {"no-reference", false}, {"out-f32", false}, {"threads", true}, {"force", false}};

#if defined(TCGEN_FMHA_PTX)
constexpr const char* kBuiltPtx = TCGEN_FMHA_PTX;
#else
constexpr const char* kBuiltPtx = "";
#endif

// The largest batch, heads, seq and head_dim taken from the options or the
// files' shapes (below validate()'s grid limits of 65535 for batch and heads).
constexpr std::int64_t kMaxSize[4] = {4096, 4096, 1 << 20, 4096};

constexpr const char* kHelp = R"(usage: tcgen fmha [--batch B --heads H --heads-kv Hkv --seq-q Sq --seq-k Sk --head-dim D]
                  [--causal | --causal-top-left] [--window L,R] [--scale S]
                  [--q q.npy --k k.npy --v v.npy] [--out o.npy] [--lse lse.npy]
                  [--seed N] [--dtype bf16|fp16] [--backend host|ptx|sm100] [--ptx FILE]
                  [--p-reuse issue-order|wait-for-pv] [--strict-ptx] [--layout bhsd|bshd]
                  [--save-inputs DIR [--force]] [--no-reference] [--out-f32] [--json] [--quiet]
                  [--threads N]

O = softmax(scale · Q·Kᵀ + mask) · V and LSE = ln Σ exp(scale · q·k) per row
over the keys the mask lets through, with tcgen's tcgen05 FMHA kernel
(attention/include/tcgen/attention/fmha_kernel.hpp): one launch over the whole
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
  --batch B         batch size (default 1)
  --heads H         query heads (default 2)
  --heads-kv Hkv    key/value heads, dividing H (default 1)
  --seq-q Sq        query length, any >= 1 (default 256); --s-q too
  --seq-k Sk        key length, any >= 1 (default 333)
  --head-dim D      64, 128 or 256 (default 128)
  --causal          causal mask aligned to the bottom-right corner, so the last
                    query sees the last key (FlashAttention's causal=True,
                    PyTorch's causal_lower_right): query i sees key j iff
                    j <= i + Sk - Sq (the same as --window -1,0). A query that
                    sees no key (Sq > Sk) gets O = 0, LSE = -inf
  --causal-top-left causal mask aligned to the top-left corner (PyTorch's
                    scaled_dot_product_attention(is_causal=True),
                    causal_upper_left): query i sees key j iff j <= i. The two
                    differ when Sq != Sk; the report names the one used
  --window L,R      sliding window, bottom-right aligned: query i sees key j iff
                    i + Sk - Sq - L <= j <= i + Sk - Sq + R; L, R >= 0, or -1
                    for unbounded. Not together with --causal
  --scale S         the softmax scale (default 1/sqrt(head_dim)); always printed;
                    --softmax-scale (FlashMLA's and sparse-decode's name) too
  --q, --k, --v     Q [B, H, Sq, D], K and V [B, Hkv, Sk, D] as float32, float16
                    or float64 .npy arrays, rounded to --dtype; all three or none (default:
                    random from --seed, Q and K in [-2, 2), V in [-1, 1)).
                    Sizes not given as options are taken from the files.
  --out FILE        write O [B, H, Sq, D] as .npy in O's type: float16 for
                    fp16, float32 for bf16 (exactly its values: .npy has no
                    bfloat16); --out-f32 writes float32 for fp16 too
  --lse FILE        write LSE [B, H, Sq] (natural log) as a float32 .npy array
  --seed N          the random inputs' seed (default 1)
  --dtype T         bf16 or fp16: the type of Q, K, V, O and P (default bf16,
                    or fp16 when --q, --k and --v are all float16 files)
  --backend B       host (default): the host model; ptx: the kernel's sm_100a
                    PTX, what a B200 runs, executed on the host model by
                    tcgen's PTX interpreter; sm100: a B200 (exit 3 where there
                    is none; 2 where tcgen was built without nvcc)
  --ptx FILE        with --backend ptx: the PTX to run (default: the one this
                    build compiled from attention/src/fmha_kernels.cu)
  --p-reuse R       when S = Q·Kᵀ may overwrite the P that the P·V issued just
                    before it reads: issue-order (default; FA4's order, beyond
                    PTX's letter) or wait-for-pv (after that P·V completes)
  --strict-ptx      host model: pipeline tcgen05.mma pairs only as PTX promises
                    (same accumulator and shape); the default P reuse is then
                    refused, wait-for-pv accepted (docs/fmha.md, Ordering)
  --layout L        the axes of the --q, --k, --v and --out files: bhsd (default,
                    [batch, heads, seq, head_dim], PyTorch's) or bshd ([batch,
                    seq, heads, head_dim], FlashAttention's)
  --save-inputs DIR write the rounded inputs as DIR/q.npy, DIR/k.npy, DIR/v.npy
                    in --layout (float16 for fp16, float32 for bf16): given back
                    as --q, --k, --v with the same options they run the same
                    problem again; files that exist are refused unless
                    --force, and a file the run reads is never written
  --force           with --save-inputs: replace its files where they exist
  --no-reference    skip the fp64 reference and the check (large runs): the
                    report says "not checked" and the exit is 0
  --json            the report as one JSON object on stdout, the same facts as fields
  --quiet           no estimate and no progress on stderr (CTAs done, rate,
                    time left: in place on a terminal, else a line every 5 s)
  --threads N       host and ptx: the OS threads running CTAs at once, 1 to
                    1024 (default: one per core); O and LSE are the same on any
                    number

examples:
  tcgen fmha
  tcgen fmha --batch 2 --heads 8 --heads-kv 2 --seq-q 512 --seq-k 1000 --head-dim 64 --causal
  tcgen fmha --seq-q 300 --seq-k 200 --causal-top-left
  tcgen fmha --seq-q 130 --seq-k 150 --window 32,8 --dtype fp16
  tcgen fmha --q q.npy --k k.npy --v v.npy --out o.npy --lse lse.npy
)";

// kHelp states the bounds; keep it in step.
static_assert(attention::kFmhaOBound == 1e-2 && attention::kFmhaLseBound == 1e-3, "update the bounds in kHelp");

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
attention::FmhaMask parse_window(const std::string& text) {
  const std::string expected = "expected L,R with integers L, R >= -1 (-1: unbounded), e.g. 64,0";
  const std::size_t comma = text.find(',');
  if (comma == std::string::npos || text.find(',', comma + 1) != std::string::npos) fail("--window", text, expected);
  const auto extent = [&](const std::string& part) {
    if (part == "-1") return -1;
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos)
      fail("--window", text, expected);
    return std::atoi(part.c_str());
  };
  return attention::FmhaMask::window(extent(text.substr(0, comma)), extent(text.substr(comma + 1)));
}

std::string extent_text(int x) { return x < 0 ? std::string("unbounded") : std::to_string(x); }

std::string mask_text(const attention::FmhaMask& m) {
  if (m.left < 0 && m.right < 0) return "none";
  if (m.is_causal() && m.corner == attention::MaskCorner::top_left)
    return "causal, top-left aligned (PyTorch's is_causal=True): query i sees keys j <= i";
  if (m.is_causal())
    return "causal, bottom-right aligned (FlashAttention's causal=True): query i sees keys j <= i + seq_k - seq_q";
  return "window left " + extent_text(m.left) + ", right " + extent_text(m.right) +
         " (bottom-right aligned: query i sees keys i + seq_k - seq_q - left <= j <= i + seq_k - seq_q + right)";
}

// FmhaProblem::validate()'s fields and the options that set them. The sizes
// are range-checked as options (and by read_4d), --dtype and --window when
// parsed: what validate() can still refuse is head_dim and heads_kv.
constexpr FieldOption kProblemFields[] = {{"batch", "--batch"},   {"heads", "--heads"},       {"heads_kv", "--heads-kv"},
                                          {"seq_q", "--seq-q"},   {"seq_k", "--seq-k"},       {"head_dim", "--head-dim"},
                                          {"dtype", "--dtype"},   {"backend", "--backend"}};

}  // namespace

const std::span<const Option> fmha_options{kOptions};

int fmha(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return 0;
  }
  const Args a(args, kOptions);
  check_outputs(a, {"out", "lse"});
  const SavedInputs saved(a, {"q", "k", "v"});
  check_run_files(a, {"q", "k", "v", "ptx"}, {"out", "lse"}, saved);
  constexpr ElementType kTypes[] = {ElementType::bf16, ElementType::fp16};
  const ElementType dtype_given = parse_element("--dtype", a.text_or("dtype", "bf16"), kTypes);
  if (a.flag("strict-ptx") && a.text_or("backend", "host") == "sm100")
    fail("--strict-ptx", "(given)", "expected the host model (--backend host or ptx): the B200 runs as it runs");
  const Backend backend = parse_backend(a);
  attention::FmhaMask mask = attention::FmhaMask::none();
  if (a.flag("causal") && a.flag("causal-top-left"))
    fail("--causal-top-left", "(given)", "expected one causal mask: --causal (bottom-right aligned) or --causal-top-left");
  for (const char* causal : {"causal", "causal-top-left"})
    if (a.flag(causal) && a.has("window"))
      fail("--window", a.text("window"), std::string("expected it not together with --") + causal + "; give one of them");
  if (a.flag("causal")) mask = attention::FmhaMask::causal();
  if (a.flag("causal-top-left")) mask = attention::FmhaMask::causal(attention::MaskCorner::top_left);
  if (a.has("window")) mask = parse_window(a.text("window"));
  const std::string layout = a.text_or("layout", "bhsd");
  if (layout != "bhsd" && layout != "bshd")
    fail("--layout", layout, "expected bhsd ([batch, heads, seq, head_dim], PyTorch's) or bshd ([batch, seq, heads, head_dim], FlashAttention's)");
  const int given_files = int(a.has("q")) + int(a.has("k")) + int(a.has("v"));
  if (given_files != 0 && given_files != 3)
    fail(!a.has("q") ? "--q" : !a.has("k") ? "--k" : "--v", "(not given)",
         "expected all three of --q, --k, --v, or none (random inputs)");

  // Files first: sizes not given as options come from them.
  NpyArray fq, fk, fv;
  check_input_files_fit(a, {"q", "k", "v"});
  if (given_files == 3) {
    fq = read_4d("q", a.text("q"), layout);
    fk = read_4d("k", a.text("k"), layout);
    fv = read_4d("v", a.text("v"), layout);
  }
  const bool files = given_files == 3;
  // Without --dtype, float16 files stay fp16 (they are not rounded to bf16); otherwise bf16.
  const bool from_files = !a.has("dtype") && files && fq.float16 && fk.float16 && fv.float16;
  const ElementType dtype = from_files ? ElementType::fp16 : dtype_given;
  // Size `axis` (0 batch, 1 heads, 2 seq, 3 head_dim): its option, else the file's, else the default.
  const auto dim = [&](const char* option, const NpyArray& file, int axis, std::int64_t fallback) {
    const std::size_t i = std::size_t(axis);
    return static_cast<int>(a.integer_or(option, files ? std::int64_t(file.shape[i]) : fallback, 1, kMaxSize[i]));
  };
  attention::FmhaProblem p;
  p.batch = dim("batch", fq, 0, 1);
  p.heads = dim("heads", fq, 1, 2);
  p.heads_kv = dim("heads-kv", fk, 1, 1);
  p.seq_q = dim("seq-q", fq, 2, 256);
  p.seq_k = dim("seq-k", fk, 2, 333);
  p.head_dim = dim("head-dim", fq, 3, 128);
  p.dtype = dtype;
  p.mask = mask;
  const std::string reuse = a.text_or("p-reuse", "issue-order");
  if (reuse != "issue-order" && reuse != "wait-for-pv") fail("--p-reuse", reuse, "expected issue-order or wait-for-pv");
  attention::FmhaOptions kernel_options;
  kernel_options.p_reuse = reuse == "wait-for-pv" ? attention::PReuse::wait_for_pv : attention::PReuse::issue_order;

  p.scale = attention::SoftmaxScale::for_head_dim(p.head_dim);
  const bool scale_given = a.has("scale");
  if (scale_given) {
    const std::string& t = a.text("scale");
    char* end = nullptr;
    const double x = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(x) || x <= 0 || x > 1e6)
      fail("--scale", t, "expected a positive finite number, e.g. 0.125");
    p.scale = attention::SoftmaxScale::explicit_value(static_cast<float>(x));
  }
  // Validated once, here; the inputs, the kernel, the reference and the check take the checked problem.
  const attention::CheckedFmhaProblem problem =
      as_options(kProblemFields, [&]() -> attention::CheckedFmhaProblem { return p; });
  const std::uint64_t seed = static_cast<std::uint64_t>(a.integer_or("seed", 1, 0, (std::int64_t{1} << 62)));

  const std::size_t B = std::size_t(p.batch), H = std::size_t(p.heads), Hkv = std::size_t(p.heads_kv),
                    Sq = std::size_t(p.seq_q), Sk = std::size_t(p.seq_k), D = std::size_t(p.head_dim);
  {
    // What the run holds at once, before any of it is taken: Q, K, V as floats and 16-bit patterns (6 bytes
    // an element); O as 16-bit patterns, and as floats for --out (twice with bshd); the fp64 reference's O
    // (8); LSE as a float and the reference's double; 64 MiB for the host model's CTAs in flight.
    const bool check = !a.flag("no-reference");
    const double q = double(B) * H * Sq * D, kv = 2.0 * B * Hkv * Sk * D, rows = double(B) * H * Sq;
    const double bytes = 6 * (q + kv) + q * (2 + (a.has("out") ? 8 : 0) + (check ? 8 : 0)) + rows * (4 + (check ? 8 : 0)) +
                         64.0 * (1 << 20);
    check_memory("--batch, --heads, --heads-kv, --seq-q, --seq-k, --head-dim",
                 std::to_string(B) + ", " + std::to_string(H) + ", " + std::to_string(Hkv) + ", " + std::to_string(Sq) +
                     ", " + std::to_string(Sk) + ", " + std::to_string(D),
                 bytes);
  }
  // Said before the inputs are drawn, which for a long run takes a while itself.
  const std::size_t rows = std::size_t(attention::kFmhaBlockM) * attention::fmha_q_tiles(p.head_dim);  // per CTA
  const std::uint64_t ctas = B * H * ((Sq + rows - 1) / rows);
  const auto at_once = static_cast<unsigned>(std::min<std::uint64_t>(exec::pool_threads(parse_threads(a)), ctas));
  if (backend != Backend::sm100) {
    // Measured per OS thread on the 2-core CI VM (tcgen fmha --threads 1 --seq-q 1024 --seq-k 2048, and
    // --seq-q 512 --seq-k 1024 --backend ptx): 2.8 and 1.0 GFLOP/s; the fp64 reference 4.8 GFLOP/s.
    // Rounded down: they only say when a run is long.
    const TimeEstimate t{.kernel_flops = p.flops(), .kernel_rate = backend == Backend::host ? 2e9 : 0.7e9, .threads = at_once,
                         .reference_flops = a.flag("no-reference") ? 0 : p.flops(), .reference_rate = 3e9};
    announce_long_run(t, a.flag("quiet"));
  }
  const char* type = name(dtype);
  // Inputs as float values (exactly those of dtype) and as dtype bit patterns.
  attention::FmhaInputs in;
  std::string inputs;
  if (files) {
    // Shapes as the files hold them: in --layout's order.
    const bool bshd = layout == "bshd";
    const auto check = [&](const char* option, const NpyArray& x, std::vector<std::size_t> want, const char* heads,
                           const char* seq) {
      if (x.shape == want) return;
      std::vector<std::size_t> file = x.shape;
      if (bshd) std::swap(file[1], file[2]), std::swap(want[1], want[2]);
      fail(option, a.text(option + 2) + " (shape " + shape_text(file) + ")",
           "expected shape " + shape_text(want) + " [batch, " + (bshd ? seq : heads) + ", " + (bshd ? heads : seq) +
               ", head_dim] from the options");
    };
    check("--q", fq, {B, H, Sq, D}, "heads", "seq_q");
    check("--k", fk, {B, Hkv, Sk, D}, "heads_kv", "seq_k");
    check("--v", fv, {B, Hkv, Sk, D}, "heads_kv", "seq_k");
    const auto round = [&](const char* option, std::vector<float>& x, std::vector<std::uint16_t>& bits) {
      bits.resize(x.size());
      for (std::size_t i = 0; i < x.size(); ++i) {
        bits[i] = static_cast<std::uint16_t>(encode(dtype, x[i]));
        const float r = decode(dtype, bits[i]);
        if (!std::isfinite(r)) {
          std::ostringstream value;
          value << a.text(option + 2) << " (element " << i << " = " << x[i] << ")";
          fail(option, value.str(), std::string("expected finite values within the range of ") + type);
        }
        x[i] = r;
      }
    };
    inputs = "inputs: " + input_name(a.text("q"), fq) + ", " + input_name(a.text("k"), fk) + ", " +
             input_name(a.text("v"), fv) + ", rounded to " + type;
    in.q = std::move(fq.values);
    in.k = std::move(fk.values);
    in.v = std::move(fv.values);
    round("--q", in.q, in.qb);
    round("--k", in.k, in.kb);
    round("--v", in.v, in.vb);
  } else {
    in = attention::random_fmha_inputs(problem, seed);
    inputs = "inputs: Q, K uniform in [-2, 2), V uniform in [-1, 1) from seed " + std::to_string(seed) +
             ", rounded to " + type;
  }

  int empty_rows = 0;
  for (int i = 0; i < p.seq_q; ++i) {
    const attention::KeyRange r = mask.keys(i, p.seq_q, p.seq_k);
    if (r.begin >= r.end) ++empty_rows;
  }
  Report report(a.flag("json"));
  report.text("tcgen fmha: O = softmax(scale·Q·Kᵀ)·V, batch %d, heads %d, heads_kv %d, seq_q %d, seq_k %d, "
              "head_dim %d\n",
              p.batch, p.heads, p.heads_kv, p.seq_q, p.seq_k, p.head_dim);
  report.text("shapes: Q [%zu, %zu, %zu, %zu], K and V [%zu, %zu, %zu, %zu], O [%zu, %zu, %zu, %zu], LSE [%zu, %zu, %zu]"
              " (grouped-query: %zu Q heads per K/V head)\n",
              B, H, Sq, D, B, Hkv, Sk, D, B, H, Sq, D, B, H, Sq, H / Hkv);
  report.text("dtype: %s Q, K, V, O and P%s, f32 accumulation, f32 LSE\n", type,
              from_files ? " (the files' float16; --dtype bf16 rounds them)" : "");
  report.text("mask: %s\n", mask_text(mask).c_str());
  report.text("P reuse: %s%s\n",
              kernel_options.p_reuse == attention::PReuse::wait_for_pv ? "wait-for-pv (S waits until the P·V reading P completes)"
                                                          : "issue-order (S right after the P·V reading P, as FA4)",
              a.flag("strict-ptx") ? "; strict PTX mma pipelining" : "");
  if (empty_rows > 0)
    report.text("masked rows: %d of %d query rows see no key: O = 0, LSE = -inf there\n", empty_rows, p.seq_q);
  if (scale_given)
    report.text("scale: %.9g (from --scale)\n", double(p.scale.value()));
  else
    report.text("scale: %.9g (1/sqrt(head_dim), the default)\n", double(p.scale.value()));
  report.text("%s\n", inputs.c_str());
  const double flops = p.flops();
  report.text("work: %.6g TFLOP (4 · head_dim per (query, key) pair the mask lets through)\n", flops * 1e-12);
  report.field("verb", "fmha");
  report.field("batch", p.batch);
  report.field("heads", p.heads);
  report.field("heads_kv", p.heads_kv);
  report.field("seq_q", p.seq_q);
  report.field("seq_k", p.seq_k);
  report.field("head_dim", p.head_dim);
  report.field("dtype", type);
  report.field("mask", mask_text(mask));
  report.field("scale", double(p.scale.value()));
  report.field("inputs", inputs.starts_with("inputs: ") ? inputs.substr(8) : inputs);
  report.field("tflop", flops * 1e-12);
  report.field("backend", name(backend));

  // Loaded before anything is written: a missing file exits 3, a bad one 2, and --save-inputs has written nothing.
  std::optional<ptx::Module> kernels;
  if (backend == Backend::ptx) kernels = load_kernels(a, kBuiltPtx, "FMHA");
  if (saved.wanted()) {
    const auto save = [&](const char* name, const std::vector<float>& values, std::size_t heads, std::size_t seq) {
      NpyArray x{{B, heads, seq, D}, values, false};
      if (layout == "bshd") swap_axes_1_2(x);
      write_npy("--save-inputs", saved.path(name), x.shape, x.values, dtype == ElementType::fp16);
      report.text("saved %s (%s %s)\n", saved.path(name).c_str(), shape_text(x.shape).c_str(),
                  dtype == ElementType::fp16 ? "float16" : "float32");
    };
    save("q", in.q, H, Sq);
    save("k", in.k, Hkv, Sk);
    save("v", in.v, Hkv, Sk);
    report.field("saved_inputs", saved.dir());
  }

  // The problem is valid by now: an error from the run is the kernel's (a broken
  // tcgen05 rule, a deadlock, a CUDA error), reported with exit 1, not 2.
  attention::FmhaRun run;
  exec::LaunchOptions launch;  // on the host model, directly or through the PTX
  launch.strict_mma_pipelining = a.flag("strict-ptx");
  launch.progress = progress_display(a.flag("quiet"));
  launch.threads = parse_threads(a);
  try {
    if (backend == Backend::host) {
      report.text("backend: host model, one launch over all %zu (batch, head) pair%s, %u CTA%s at once, every tcgen05 rule checked\n",
                  B * H, B * H == 1 ? "" : "s", at_once, at_once == 1 ? "" : "s");
      std::fflush(stdout);
      run = attention::run(problem, in.operands(), kernel_options, exec::HostModel{launch});
    } else if (backend == Backend::ptx) {
      report.text("backend: ptx, %s on the host model, one launch over all %zu (batch, head) pair%s, %u CTA%s at once\n",
                  kernels->name().c_str(), B * H, B * H == 1 ? "" : "s", at_once, at_once == 1 ? "" : "s");
      std::fflush(stdout);
      run = attention::run(problem, in.operands(), kernel_options, ptx::Interpreter{*kernels, launch});
      report_ptx_stats(report, run.stats);
    } else {
#if defined(TCGEN_SM100)
      report.text("backend: sm100 (device 0), one launch over all %zu (batch, head) pair%s\n", B * H,
                  B * H == 1 ? "" : "s");
      std::fflush(stdout);
      run = attention::run(problem, in.operands(), kernel_options, exec::Sm100{});
#endif
    }
  } catch (const std::exception& e) {
    std::fflush(stdout);
    std::cerr << "tcgen: the FMHA kernel failed on " << (backend == Backend::sm100 ? "the sm100 GPU" : "the host model")
              << (backend == Backend::ptx ? " (PTX)" : "") << ": " << e.what() << '\n';
    report.text("result: FAILED (the kernel did not finish)\n");
    report.field("passed", false);
    report.field("failure", e.what());
    report.finish();
    return 1;
  }
  const double seconds = run.stats.seconds;
  const attention::FmhaOutput& got = run.out;
  report.text("kernel time %.6f s (%s, %.4g GFLOP/s)\n", seconds,
              backend == Backend::sm100 ? "sm100, CUDA events" : backend == Backend::ptx ? "PTX on the host model" : "host model",
              flops / seconds * 1e-9);

  report.field("seconds", seconds);
  bool passed = true;
  if (!a.flag("no-reference")) {
    const auto ref_start = std::chrono::steady_clock::now();
    const attention::FmhaResult<double> ref = attention::fmha_reference(problem, in.q, in.k, in.v);
    const double ref_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - ref_start).count();
    report.text("reference time %.6f s (fp64, plain C++)\n", ref_seconds);
    report.field("reference_seconds", ref_seconds);

    // On failure compare() has logged its report (per-row ratio and cosine, a diagnosis) to stderr.
    const attention::FmhaCheck c = attention::check_fmha(problem, ref, got);
    report.text("O max row relative error (2-norm) %.3g (bound %s)\n", c.o.max_rel_error,
                bound_text(attention::kFmhaOBound).c_str());
    report.text("LSE max relative error %.3g (bound %s)\n", c.lse.max_rel_error,
                bound_text(attention::kFmhaLseBound).c_str());
    report.text("result: %s\n", c.ok() ? "PASSED" : "FAILED");
    report.field("o_max_row_relative_error", c.o.max_rel_error);
    report.field("o_bound", attention::kFmhaOBound);
    report.field("lse_max_relative_error", c.lse.max_rel_error);
    report.field("lse_bound", attention::kFmhaLseBound);
    report.field("passed", c.ok());
    passed = c.ok();
  } else {
    report.text("result: not checked (--no-reference: no fp64 reference was computed)\n");
    report.field("checked", false);
  }
  if (a.has("out")) {
    std::vector<float> o(got.o.size());
    for (std::size_t i = 0; i < o.size(); ++i) o[i] = decode(dtype, got.o[i]);
    NpyArray out{{B, H, Sq, D}, std::move(o), false};
    if (layout == "bshd") swap_axes_1_2(out);
    const bool half = dtype == ElementType::fp16 && !a.flag("out-f32");
    write_npy("--out", a.text("out"), out.shape, out.values, half);
    report.text("wrote %s (%s %s%s)\n", a.text("out").c_str(), shape_text(out.shape).c_str(),
                half ? "float16" : dtype == ElementType::bf16 ? "float32, bf16 values" : "float32",
                layout == "bshd" ? ", [batch, seq, heads, head_dim]" : "");
    report.field("wrote", a.text("out"));
  }
  if (a.has("lse")) {
    write_npy("--lse", a.text("lse"), {B, H, Sq}, got.lse);
    report.text("wrote %s (%zux%zux%zu float32)\n", a.text("lse").c_str(), B, H, Sq);
    report.field("wrote_lse", a.text("lse"));
  }
  report.finish();
  return passed ? 0 : 1;
}

}  // namespace tcgen::cli
