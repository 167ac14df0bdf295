// tcgen fmha: O = softmax(scale · Q·Kᵀ) · V and LSE with the FMHA kernel
// (tcgen::attention) on the host model, per (batch, head) with grouped-query
// attention, checked against the fp64 reference.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "args.hpp"
#include "npy.hpp"
#include "tcgen/attention/fmha_host.hpp"
#include "tcgen/attention/fmha_reference.hpp"
#include "tcgen/attention/softmax_scale.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

constexpr Option kOptions[] = {{"batch", true},  {"heads", true}, {"heads-kv", true}, {"seq-q", true},
                               {"seq-k", true},  {"head-dim", true}, {"scale", true}, {"q", true},
                               {"k", true},      {"v", true},     {"out", true},      {"lse", true},
                               {"seed", true},   {"dtype", true}, {"backend", true},  {"causal", false},
                               {"window", true}};

constexpr const char* kHelp = R"(usage: tcgen fmha [--batch B --heads H --heads-kv Hkv --seq-q Sq --seq-k Sk --head-dim D]
                  [--scale S] [--q q.npy --k k.npy --v v.npy] [--out o.npy] [--lse lse.npy]
                  [--seed N] [--dtype bf16] [--backend host]

O = softmax(scale · Q·Kᵀ) · V and LSE = ln Σ exp(scale · q·k) per row, with
tcgen's tcgen05 FMHA kernel (attention/include/tcgen/attention/fmha_kernel.hpp)
on the host model, every tcgen05 rule checked, one (batch, head) after another.
Grouped-query attention: head h of Q uses K/V head h / (H / Hkv). Prints the
shapes, the scale, the time and the error against an fp64 reference (max
relative error of O, bound 1e-2, and of LSE, bound 1e-3). With no arguments it
runs a built-in example. Exit 0: within the bounds; 1: beyond; 2: a bad
command line, file or shape.

options:
  --batch B         batch size (default 1)
  --heads H         query heads (default 2)
  --heads-kv Hkv    key/value heads, dividing H (default 1)
  --seq-q Sq        query length, a multiple of 128 in this stage (default 256)
  --seq-k Sk        key length, any (default 333)
  --head-dim D      64 or 128 (default 128)
  --scale S         the softmax scale (default 1/sqrt(head_dim)); always printed
  --q, --k, --v     Q [B, H, Sq, D], K and V [B, Hkv, Sk, D] as float32 or float16
                    .npy arrays, rounded to bf16; all three or none (default:
                    random from --seed, Q and K in [-2, 2), V in [0.25, 1.75)).
                    Sizes not given as options are taken from the files.
  --out FILE        write O [B, H, Sq, D] as a float32 .npy array
  --lse FILE        write LSE [B, H, Sq] (natural log) as a float32 .npy array
  --seed N          the random inputs' seed (default 1)
  --dtype bf16      the type of Q, K, V and O (fp16: not in this stage)
  --backend host    the host model (sm100: not in this stage)
  not yet: --causal, --window L,R (refused with exit 2)

examples:
  tcgen fmha
  tcgen fmha --batch 2 --heads 8 --heads-kv 2 --seq-q 512 --seq-k 1000 --head-dim 64
  tcgen fmha --q q.npy --k k.npy --v v.npy --out o.npy --lse lse.npy
)";

std::string shape_text(const std::vector<std::size_t>& s) {
  std::ostringstream t;
  for (std::size_t i = 0; i < s.size(); ++i) t << (i ? "x" : "") << s[i];
  return s.empty() ? std::string("scalar") : t.str();
}

// A 4-D .npy of [b, h, s, d]; `option` names the file's option, `what` the expected shape in words.
NpyArray read_4d(const std::string& option, const std::string& path) {
  NpyArray a = read_npy(path);
  if (a.shape.size() != 4)
    fail(("--" + option).c_str(), path + " (shape " + shape_text(a.shape) + ")",
         "a 4-D array [batch, heads, seq, head_dim]");
  return a;
}

struct Sizes {
  int batch, heads, heads_kv, seq_q, seq_k, head_dim;
};

template <int D>
attention::FmhaHostOutput run_head(std::span<const std::uint16_t> q, std::span<const std::uint16_t> k,
                                   std::span<const std::uint16_t> v, int seq_q, int seq_k,
                                   attention::SoftmaxScale scale) {
  return attention::run_fmha_host<D>(q, k, v, seq_q, seq_k, scale);
}

}  // namespace

int fmha(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << kHelp;
    return 0;
  }
  const Args a(args, kOptions);
  if (a.flag("causal"))
    fail("--causal", "(given)", "not supported yet: this stage of the FMHA runs non-causal attention only");
  if (a.has("window"))
    fail("--window", a.text("window"), "not supported yet: this stage of the FMHA has no sliding window");
  const std::string dtype = a.text_or("dtype", "bf16"), backend = a.text_or("backend", "host");
  if (dtype == "fp16") fail("--dtype", dtype, "bf16: this stage of the FMHA runs bf16 only, not fp16 yet");
  if (dtype != "bf16") fail("--dtype", dtype, "bf16 (the only type of this stage)");
  if (backend == "sm100")
    fail("--backend", backend,
         "host: tcgen fmha does not run the sm_100a kernel yet, and there is no B200 (sm_100) here");
  if (backend != "host") fail("--backend", backend, "host (the host model)");
  const int given_files = int(a.has("q")) + int(a.has("k")) + int(a.has("v"));
  if (given_files != 0 && given_files != 3)
    fail(!a.has("q") ? "--q" : !a.has("k") ? "--k" : "--v", "(not given)",
         "all three of --q, --k, --v, or none (random inputs)");

  // Files first: sizes not given as options come from them.
  NpyArray fq, fk, fv;
  if (given_files == 3) {
    fq = read_4d("q", a.text("q"));
    fk = read_4d("k", a.text("k"));
    fv = read_4d("v", a.text("v"));
  }
  const bool files = given_files == 3;
  const auto dim = [&](const char* option, std::int64_t fallback, std::int64_t lo, std::int64_t hi) {
    return static_cast<int>(a.integer_or(option, fallback, lo, hi));
  };
  const auto fs = [&](const NpyArray& x, int i) { return static_cast<std::int64_t>(x.shape[std::size_t(i)]); };
  Sizes s{};
  s.batch = dim("batch", files ? fs(fq, 0) : 1, 1, 4096);
  s.heads = dim("heads", files ? fs(fq, 1) : 2, 1, 4096);
  s.heads_kv = dim("heads-kv", files ? fs(fk, 1) : 1, 1, 4096);
  s.seq_q = dim("seq-q", files ? fs(fq, 2) : 256, 1, 1 << 20);
  s.seq_k = dim("seq-k", files ? fs(fk, 2) : 333, 1, 1 << 20);
  s.head_dim = dim("head-dim", files ? fs(fq, 3) : 128, 1, 4096);
  if (s.head_dim != 64 && s.head_dim != 128)
    fail("--head-dim", std::to_string(s.head_dim), "64 or 128 (this stage of the FMHA; 256 is not supported yet)");
  if (s.seq_q % 128 != 0)
    fail("--seq-q", std::to_string(s.seq_q), "a multiple of 128 (this stage of the FMHA does not mask a Q tail yet)");
  if (s.heads % s.heads_kv != 0)
    fail("--heads-kv", std::to_string(s.heads_kv),
         "a divisor of --heads = " + std::to_string(s.heads) + " (grouped-query attention)");

  attention::SoftmaxScale scale = attention::SoftmaxScale::for_head_dim(s.head_dim);
  const bool scale_given = a.has("scale");
  if (scale_given) {
    const std::string& t = a.text("scale");
    char* end = nullptr;
    const double x = std::strtod(t.c_str(), &end);
    if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(x) || x <= 0 || x > 1e6)
      fail("--scale", t, "a positive finite number, e.g. 0.125");
    scale = attention::SoftmaxScale::explicit_value(static_cast<float>(x));
  }
  const std::uint64_t seed = static_cast<std::uint64_t>(a.integer_or("seed", 1, 0, (std::int64_t{1} << 62)));

  const std::size_t B = std::size_t(s.batch), H = std::size_t(s.heads), Hkv = std::size_t(s.heads_kv),
                    Sq = std::size_t(s.seq_q), Sk = std::size_t(s.seq_k), D = std::size_t(s.head_dim);
  // Inputs as bf16 bit patterns and their exact float values.
  std::vector<float> q, k, v;
  std::string inputs;
  if (files) {
    const auto check = [&](const char* option, const NpyArray& x, std::vector<std::size_t> want, const char* words) {
      if (x.shape != want)
        fail(option, a.text(option + 2) + " (shape " + shape_text(x.shape) + ")",
             "shape " + shape_text(want) + " " + words + " from the options");
    };
    check("--q", fq, {B, H, Sq, D}, "[batch, heads, seq_q, head_dim]");
    check("--k", fk, {B, Hkv, Sk, D}, "[batch, heads_kv, seq_k, head_dim]");
    check("--v", fv, {B, Hkv, Sk, D}, "[batch, heads_kv, seq_k, head_dim]");
    q = std::move(fq.values);
    k = std::move(fk.values);
    v = std::move(fv.values);
    inputs = "inputs: " + a.text("q") + ", " + a.text("k") + ", " + a.text("v") + ", rounded to bf16";
  } else {
    std::mt19937_64 g(seed);
    const auto fill = [&](std::vector<float>& x, std::size_t n, float lo, float hi) {
      std::uniform_real_distribution<float> u(lo, hi);
      x.resize(n);
      for (auto& e : x) e = u(g);
    };
    fill(q, B * H * Sq * D, -2.0f, 2.0f);
    fill(k, B * Hkv * Sk * D, -2.0f, 2.0f);
    fill(v, B * Hkv * Sk * D, 0.25f, 1.75f);
    inputs = "inputs: Q, K uniform in [-2, 2), V uniform in [0.25, 1.75) (away from 0, as the tests: the error is "
             "element-wise relative) from seed " +
             std::to_string(seed) + ", rounded to bf16";
  }
  const auto to_bf16 = [](std::vector<float>& x) {
    std::vector<std::uint16_t> b(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!std::isfinite(x[i])) fail("input", std::to_string(x[i]), "finite values in Q, K and V");
      b[i] = static_cast<std::uint16_t>(encode(ElementType::bf16, x[i]));
      x[i] = decode(ElementType::bf16, b[i]);
    }
    return b;
  };
  const std::vector<std::uint16_t> qb = to_bf16(q), kb = to_bf16(k), vb = to_bf16(v);

  std::printf("tcgen fmha: O = softmax(scale·Q·Kᵀ)·V, non-causal, batch %d, heads %d, heads_kv %d, seq_q %d, "
              "seq_k %d, head_dim %d: bf16 Q, K, V, O, f32 accumulation\n",
              s.batch, s.heads, s.heads_kv, s.seq_q, s.seq_k, s.head_dim);
  std::printf("shapes: Q [%zu, %zu, %zu, %zu], K and V [%zu, %zu, %zu, %zu], O [%zu, %zu, %zu, %zu], LSE [%zu, %zu, %zu]"
              " (grouped-query: %zu Q heads per K/V head)\n",
              B, H, Sq, D, B, Hkv, Sk, D, B, H, Sq, D, B, H, Sq, H / Hkv);
  if (scale_given)
    std::printf("scale: %.9g (from --scale)\n", double(scale.value()));
  else
    std::printf("scale: %.9g (1/sqrt(head_dim), the default)\n", double(scale.value()));
  std::printf("%s\n", inputs.c_str());
  std::printf("backend: host model, %zu (batch, head) pairs run one after another, each on a grid of %zu CTA%s (128 Q rows per CTA)\n",
              B * H, Sq / 128, Sq / 128 == 1 ? "" : "s");

  std::vector<float> o(B * H * Sq * D), lse(B * H * Sq);
  double seconds = 0, max_o = 0, max_lse = 0;
  bool ok = true;
  const std::size_t group = H / Hkv;
  for (std::size_t b = 0; b < B; ++b) {
    for (std::size_t h = 0; h < H; ++h) {
      const std::size_t qo = (b * H + h) * Sq * D, ko = (b * Hkv + h / group) * Sk * D;
      const auto qs = std::span(qb).subspan(qo, Sq * D);
      const auto ks = std::span(kb).subspan(ko, Sk * D), vs = std::span(vb).subspan(ko, Sk * D);
      const auto start = std::chrono::steady_clock::now();
      const attention::FmhaHostOutput got = s.head_dim == 64 ? run_head<64>(qs, ks, vs, s.seq_q, s.seq_k, scale)
                                                             : run_head<128>(qs, ks, vs, s.seq_q, s.seq_k, scale);
      seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      for (std::size_t i = 0; i < Sq * D; ++i) o[qo + i] = decode(ElementType::bf16, got.o[i]);
      std::copy(got.lse.begin(), got.lse.end(), lse.begin() + std::ptrdiff_t((b * H + h) * Sq));
      const auto ref = attention::fmha_reference(std::span(q).subspan(qo, Sq * D), std::span(k).subspan(ko, Sk * D),
                                                 std::span(v).subspan(ko, Sk * D), {s.seq_q, s.seq_k, s.head_dim},
                                                 scale);
      const CompareReport ro = compare(std::span(o).subspan(qo, Sq * D), ref.o, s.seq_q, s.head_dim, 1e-2);
      const CompareReport rl = compare(got.lse, ref.lse, s.seq_q, 1, 1e-3);
      max_o = std::max(max_o, ro.max_rel_error);
      max_lse = std::max(max_lse, rl.max_rel_error);
      if (!ro.ok || !rl.ok) {
        ok = false;
        std::printf("batch %zu head %zu (K/V head %zu):\n%s%s", b, h, h / group, ro.ok ? "" : ro.text().c_str(),
                    rl.ok ? "" : rl.text().c_str());
      }
    }
  }
  const double flops = 4.0 * double(B * H) * double(Sq) * double(Sk) * double(D);
  std::printf("time: %.6f s on the host model, %.3g GFLOP/s\n", seconds, flops / seconds * 1e-9);
  std::printf("error: max relative error of O %.3g (bound 1e-2), of LSE %.3g (bound 1e-3) against the fp64 "
              "reference: %s\n",
              max_o, max_lse, ok ? "PASSED" : "FAILED");
  if (a.has("out")) {
    write_npy(a.text("out"), {B, H, Sq, D}, o);
    std::printf("wrote %s (%zux%zux%zux%zu float32)\n", a.text("out").c_str(), B, H, Sq, D);
  }
  if (a.has("lse")) {
    write_npy(a.text("lse"), {B, H, Sq}, lse);
    std::printf("wrote %s (%zux%zux%zu float32)\n", a.text("lse").c_str(), B, H, Sq);
  }
  return ok ? 0 : 1;
}

}  // namespace tcgen::cli
