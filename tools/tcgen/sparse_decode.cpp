// tcgen sparse-decode: DeepSeek-V4 sparse decode attention (FlashMLA's
// flash_mla_with_kvcache with `indices`, MODEL1 FP8 cache) with tcgen's
// kernel (tcgen::sparse_decode, tcgen/sparse_decode/kernel.hpp) on the host model, its
// PTX, or a B200, checked against the fp64 reference of the dequantised cache.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "help.hpp"
#include "budget.hpp"
#include "kernel_run.hpp"
#include "npy.hpp"
#include "report.hpp"
#include "tcgen/sparse_decode/check.hpp"
#include "tcgen/sparse_decode/inputs.hpp"
#include "tcgen/sparse_decode/run.hpp"
#include "tcgen/ptx/backend.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/launch_options.hpp"
#include "tcgen/exec/unit_pool.hpp"
#include "verbs.hpp"
#if defined(TCGEN_SM100)
#include "tcgen/sparse_decode/sm100_runner.hpp"
#endif

namespace tcgen::cli {

namespace {

constexpr Option kExampleOptions[] = {
    {"batch", "B", "batch size (default {--batch})", "2", {}, "batch"},
    {"s-q", "S", "query tokens a batch entry, 1 to 16 (default {--s-q}); --seq-q too", "2", "seq-q", "s_q"},
    {"heads", "H", "query heads, a multiple of 64 (default {--heads}; V4-Pro: 128)", "64", {}, "heads"},
    {"topk", "K", "indices a query row (default {--topk})", "512", {}, "keys.topk"},
    {"block-size", "N", "tokens a cache block (default {--block-size})", "64", {}, "keys.block_size"},
    {"num-blocks", "NB", "blocks of the cache (default {--num-blocks})", "32"},
    {"extra-topk", "K2", {}, "128", {}, "extra.topk"},
    {"extra-block-size", "N2", {}, "64", {}, "extra.block_size"},
    {"extra-num-blocks", "NB2",
     "the extra cache (default {--extra-topk} indices, blocks of {--extra-block-size}, {--extra-num-blocks} blocks)", "4"},
    {"no-extra", {}, "no extra cache"},
    {"no-topk-length", {}, "every row takes all its indices (default: random lengths)"},
    {"no-sink", {}, "no attention sink (default: sinks uniform in [-2, 2))"},
    {"seed", "N", "the example's seed (default {--seed})", "1"}};
constexpr Option kFileOptions[] = {
    {"q", "FILE", "Q [batch, s_q, heads, 512], float32, float16 or float64, rounded to bf16", {}, {}, "batch s_q heads"},
    {"k-cache", "FILE",
     "the cache's bytes [num_blocks, block_bytes], uint8, in MODEL1\n"
     "layout; block_bytes = block_size · 584 rounded up to a multiple\n"
     "of 576 (--block-size is required with it)",
     {}, {}, "keys.cache"},
    {"indices", "FILE",
     "[batch, s_q, topk], int32 (int64 read): block · block_size + slot, -1 none;\n"
     "an index past the cache (>= num_blocks · block_size) is refused,\n"
     "where FlashMLA's kernel reads it as -1: it is more often a wrong\n"
     "block table than a choice, so tcgen names it (write -1 instead)",
     {}, {}, "keys.topk keys.indices"},
    {"topk-length", "FILE", "[batch], int32: the first n indices of each row count", {}, {}, "keys.lengths"},
    {"attn-sink", "FILE", "[heads], float32 (float64 rounded to it): the sinks", {}, {}, "sink"},
    {"extra-k-cache", "FILE", {}, {}, {}, "extra.cache"},
    {"extra-indices", "FILE", {}, {}, {}, "extra.topk extra.indices"},
    {"extra-topk-length", "FILE", "the extra cache, likewise (--extra-block-size with it)", {}, {}, "extra.lengths"}};
constexpr Option kSharedOptions[] = {
    {"softmax-scale", "S", "the scale of q·k (default 1/sqrt(512)); always printed;\n--scale (fmha's name) too", {},
     "scale"},
    {"splits", "N",
     "CTAs over one row's key blocks, 1 to 128 (default: the\n"
     "scheduler's choice, filling 148 SMs; 1: no combine step)",
     {}, {}, "splits"},
    {"out", "FILE", "write O [batch, s_q, heads, 512] as float32 .npy (bf16 values)"},
    {"lse", "FILE",
     "write LSE [batch, heads, s_q] as float32 .npy, the layout of\n"
     "FlashMLA's softmax_lse (+inf: no key)"},
    {"backend", "B",
     "{--backend} (default): the host model, every tcgen05 rule checked;\n"
     "ptx: the kernel's sm_100a PTX on the host model through\n"
     "tcgen's PTX interpreter; sm100: a B200 (exit 3 where there\n"
     "is none; 2 where tcgen was built without nvcc)",
     "host", {}, "backend"},
    {"ptx", "FILE",
     "with --backend ptx: the PTX to run (default: this build's\n"
     "sparse_decode/src/sparse_decode_kernels.cu)"},
    {"strict-ptx", {},
     "host model: PTX-letter rules as errors, and tcgen05.mma\n"
     "pipelined only as PTX promises (kernels that run on B200s\n"
     "may break some; this one keeps them all)"},
    {"save-inputs", "DIR",
     "write the inputs as DIR/q.npy, k_cache.npy, indices.npy,\n"
     "topk_length.npy, attn_sink.npy, extra_k_cache.npy,\n"
     "extra_indices.npy, extra_topk_length.npy (those the problem\n"
     "has): given back as files they run the same problem again;\n"
     "files that exist are refused unless --force, and a file\n"
     "the run reads is never written"},
    {"force", {}, "replace an output file that exists (--out, --lse, --trace,\n--save-inputs' files); never a file the run reads"},
    {"no-reference", {}, "skip the fp64 reference and the check; exit 0"},
    {"json", {}, "the report as one JSON object on stdout"},
    {"quiet", {},
     "no estimate and no progress on stderr (CTAs done, rate,\n"
     "time left: in place on a terminal, else a line every 5 s)"},
    {"threads", "N", "host and ptx: the OS threads running CTAs at once, 1 to 1024"}};
constexpr auto kOptions = joined(kExampleOptions, kFileOptions, kSharedOptions, kHostModelOptions);
static_assert(defaults_documented(kOptions));

#if defined(TCGEN_SPARSE_DECODE_PTX)
constexpr const char* kBuiltPtx = TCGEN_SPARSE_DECODE_PTX;
#else
constexpr const char* kBuiltPtx = "";
#endif

constexpr std::string_view kAbout = R"(usage: tcgen sparse-decode [--batch B --s-q S --heads H --topk K --block-size N --num-blocks NB]
                  [--extra-topk K2 --extra-block-size N2 --extra-num-blocks NB2 | --no-extra]
                  [--no-topk-length] [--no-sink] [--seed N]
                  [--q q.npy --k-cache cache.npy --block-size N --indices idx.npy
                   [--topk-length len.npy] [--attn-sink sink.npy]
                   [--extra-k-cache cache2.npy --extra-block-size N2 --extra-indices idx2.npy
                    [--extra-topk-length len2.npy]]]
                  [--softmax-scale S] [--splits N] [--out o.npy] [--lse lse.npy]
                  [--backend host|ptx|sm100] [--ptx FILE] [--strict-ptx] [--save-inputs DIR] [--force]
                  [--no-reference] [--json] [--quiet] [--threads N]

DeepSeek-V4 sparse decode attention with FlashMLA's semantics
(flash_mla_with_kvcache with indices; tests/ref.py): per query row, the keys
its indices name in a paged FP8 MODEL1 cache (448 e4m3 values with 7 UE8M0
scales and 64 bf16 rope values a token), the first topk_length of them, and
those of an extra cache in the same softmax; K = V = the 512-wide latent.
LSE = ln Σ exp(scale · q·k); O = Σ exp(scale · q·k − LSE) · v, times
1 / (1 + exp(sink[h] − LSE)) with a sink, which LSE leaves out. A row with no
valid key has O = 0 and LSE = +inf (FlashMLA's convention). One launch of
tcgen's kernel (sparse_decode/include/tcgen/sparse_decode/kernel.hpp,
64 heads a CTA) over the whole problem, its key blocks split over several CTAs
and merged by a combine step where the grid would not fill 148 SMs.
Prints the shapes, the scale, the splits, the work, the time of the kernel and
of the fp64 reference, and the error against that reference: O per row,
||O - O_ref|| / ||O_ref|| (2-norm), bound 1e-2; LSE per element, bound 1e-3.
With no arguments it runs a built-in example: a random latent quantised to
MODEL1 by tcgen's own quantiser, random indices with -1 among them, random
topk_length, an extra cache and sinks. Exit 0: within the bounds (or not
checked: --no-reference); 1: beyond; 2: a bad command line, file or shape (one
sentence on stderr); 3: a file that cannot be read or written (outputs are
checked before the work and written whole or not at all), or no B200 for
--backend sm100.

)";

constexpr std::string_view kExamples = R"(
examples:
  tcgen sparse-decode
  tcgen sparse-decode --heads 128 --s-q 1 --topk 2048 --num-blocks 64 --splits 1
  tcgen sparse-decode --q q.npy --k-cache kv.npy --block-size 64 --indices idx.npy --out o.npy --lse lse.npy
)";

// The --help: the description, the options in their three parts, the examples.
std::string help_text() {
  const std::size_t column = help_column(kOptions);
  return std::string(kAbout) + "options (the built-in example):\n" + options_help(kExampleOptions, column) +
         "options (files, FlashMLA's arrays; all or the built-in example):\n" + options_help(kFileOptions, column) +
         "options (both):\n" + options_help(kSharedOptions, column) + std::string(kExamples);
}

static_assert(sparse_decode::kSparseOBound == 1e-2 && sparse_decode::kSparseLseBound == 1e-3, "update the bounds in kAbout");

// A dimension of a file's shape as an int, refused (not clamped) past `most`.
int dimension(const char* option, const std::string& path, const std::vector<std::size_t>& shape, std::size_t i,
              std::size_t most, const char* what) {
  if (shape[i] > most)
    fail(option, path + " (shape " + shape_text(shape) + ")",
         std::string("expected ") + what + " of at most " + std::to_string(most));
  return static_cast<int>(shape[i]);
}

// One cache from files: its bytes, [num_blocks, block_bytes]; its indices [batch, s_q, topk]; its lengths [batch].
sparse_decode::SparseDecodeInputs::Cache read_cache(const Args& a, const char* cache_option, const char* block_option,
                                                const char* indices_option, const char* lengths_option,
                                                std::vector<std::size_t>& index_shape) {
  sparse_decode::SparseDecodeInputs::Cache c;
  if (!a.has(block_option))
    fail((std::string("--") + block_option).c_str(), "(not given)",
         std::string("expected the tokens a block of --") + cache_option + " (its layout depends on it)");
  c.layout = sparse_decode::Model1Layout{static_cast<int>(a.integer(block_option, 1, 4096))};
  const NpyBytes bytes = read_npy_uint8(a.text(cache_option));
  if (bytes.shape.size() != 2 || bytes.shape[1] != c.layout.block_bytes() || bytes.shape[0] == 0)
    fail((std::string("--") + cache_option).c_str(), a.text(cache_option) + " (shape " + shape_text(bytes.shape) + ")",
         "expected [num_blocks, " + std::to_string(c.layout.block_bytes()) + "] uint8: block_size " +
             std::to_string(c.layout.block_size) + " · 584 bytes rounded up to a multiple of 576");
  c.bytes = bytes.values;
  const NpyInts idx = read_npy_int32(a.text(indices_option));
  if (idx.shape.size() != 3 || idx.shape[2] == 0)
    fail((std::string("--") + indices_option).c_str(), a.text(indices_option) + " (shape " + shape_text(idx.shape) + ")",
         "expected [batch, s_q, topk] int32");
  index_shape = idx.shape;
  c.topk = dimension((std::string("--") + indices_option).c_str(), a.text(indices_option), idx.shape, 2, std::size_t{1} << 20,
                     "a topk");
  c.indices = idx.values;
  if (a.has(lengths_option)) {
    const NpyInts len = read_npy_int32(a.text(lengths_option));
    if (len.shape != std::vector<std::size_t>{idx.shape[0]})
      fail((std::string("--") + lengths_option).c_str(), a.text(lengths_option) + " (shape " + shape_text(len.shape) + ")",
           "expected [" + std::to_string(idx.shape[0]) + "] int32: one length per batch entry");
    c.lengths = len.values;
  }
  return c;
}

// The arrays of the files; `q_name` says how Q was given (its file, and float64 when rounded from it).
sparse_decode::SparseDecodeInputs read_inputs(const Args& a, std::string& q_name) {
  sparse_decode::SparseDecodeInputs in;
  const NpyArray q = read_npy(a.text("q"));
  q_name = input_name(a.text("q"), q);
  if (q.shape.size() != 4 || q.shape[3] != 512 || q.shape[0] == 0 || q.shape[1] == 0 || q.shape[2] == 0)
    fail("--q", a.text("q") + " (shape " + shape_text(q.shape) + ")", "expected [batch, s_q, heads, 512]");
  in.batch = dimension("--q", a.text("q"), q.shape, 0, 4096, "a batch");
  in.s_q = dimension("--q", a.text("q"), q.shape, 1, 16, "an s_q");
  in.heads = dimension("--q", a.text("q"), q.shape, 2, 65472, "a head count");
  in.q.resize(q.values.size());
  in.q_bits.resize(q.values.size());
  for (std::size_t i = 0; i < q.values.size(); ++i) {
    in.q_bits[i] = static_cast<std::uint16_t>(encode(ElementType::bf16, q.values[i]));
    in.q[i] = decode(ElementType::bf16, in.q_bits[i]);
    if (!std::isfinite(in.q[i]))
      fail("--q", a.text("q") + " (element " + std::to_string(i) + " = " + std::to_string(q.values[i]) + ")",
           "expected finite values within the range of bf16");
  }
  const auto same_rows = [&](const char* option, const std::vector<std::size_t>& shape) {
    if (shape[0] != q.shape[0] || shape[1] != q.shape[1])
      fail(option, a.text(option + 2) + " (shape " + shape_text(shape) + ")",
           "expected [" + std::to_string(q.shape[0]) + ", " + std::to_string(q.shape[1]) + ", topk]: Q's batch and s_q");
  };
  std::vector<std::size_t> shape;
  in.keys = read_cache(a, "k-cache", "block-size", "indices", "topk-length", shape);
  same_rows("--indices", shape);
  if (a.has("extra-k-cache") != a.has("extra-indices"))
    fail(a.has("extra-k-cache") ? "--extra-indices" : "--extra-k-cache", "(not given)",
         "expected --extra-k-cache and --extra-indices together");
  if (a.has("extra-k-cache")) {
    in.extra = read_cache(a, "extra-k-cache", "extra-block-size", "extra-indices", "extra-topk-length", shape);
    same_rows("--extra-indices", shape);
  }
  if (a.has("attn-sink")) {
    const NpyArray s = read_npy(a.text("attn-sink"));
    if (s.shape != std::vector<std::size_t>{q.shape[2]})
      fail("--attn-sink", a.text("attn-sink") + " (shape " + shape_text(s.shape) + ")",
           "expected [" + std::to_string(q.shape[2]) + "]: one sink per head");
    in.sink = s.values;
  }
  return in;
}

void save_inputs(const SavedInputs& saved, const sparse_decode::SparseDecodeInputs& in, Report& report) {
  const std::size_t B = in.batch, S = in.s_q, H = in.heads;
  const auto saved_as = [&](const char* name, const std::vector<std::size_t>& shape, auto values) {
    write_npy("--save-inputs", saved.path(name), shape, values);
    report.text("saved %s (%s)\n", saved.path(name).c_str(), shape_text(shape).c_str());
  };
  saved_as("q", {B, S, H, 512}, std::span<const float>(in.q));
  const auto cache = [&](const sparse_decode::SparseDecodeInputs::Cache& c, const std::string& prefix) {
    saved_as((prefix + "k_cache").c_str(), {c.bytes.size() / c.layout.block_bytes(), c.layout.block_bytes()},
             std::span<const std::uint8_t>(c.bytes));
    saved_as((prefix + "indices").c_str(), {B, S, std::size_t(c.topk)}, std::span<const std::int32_t>(c.indices));
    if (!c.lengths.empty()) saved_as((prefix + "topk_length").c_str(), {B}, std::span<const std::int32_t>(c.lengths));
  };
  cache(in.keys, "");
  if (in.extra.topk > 0) cache(in.extra, "extra_");
  if (!in.sink.empty()) saved_as("attn_sink", {H}, std::span<const float>(in.sink));
}

// The --save-inputs files this run writes: those of the arrays its problem has.
std::vector<std::string> saved_names(const Args& a) {
  const bool files = a.has("q");
  std::vector<std::string> names = {"q", "k_cache", "indices"};
  if (files ? a.has("topk-length") : !a.flag("no-topk-length")) names.push_back("topk_length");
  if (files ? a.has("attn-sink") : !a.flag("no-sink")) names.push_back("attn_sink");
  if (files ? a.has("extra-k-cache") : !a.flag("no-extra")) {
    names.insert(names.end(), {"extra_k_cache", "extra_indices"});
    if (files ? a.has("extra-topk-length") : !a.flag("no-topk-length")) names.push_back("extra_topk_length");
  }
  return names;
}

// What a run holds at once (bytes), before any of it is taken: Q as floats and bf16 (6 an element); the
// caches' bytes and indices (4 each); O as bf16, floats for --out and the fp64 reference's (8); the float
// partial O of the splits (148 CTAs' rows at most past one split's); the reference's gathered keys per
// thread; 64 MiB for the host model's CTAs in flight. `latent_tokens`: the example's fp32 latent, held
// while it is quantised.
double run_bytes(const Args& a, double batch, double s_q, double heads, double cache_bytes, double indices,
                 double topk, double latent_tokens) {
  const double rows = batch * s_q * heads, o = rows * 512;
  const bool check = !a.flag("no-reference");
  return 6 * o + cache_bytes + 4 * indices + o * (2 + (a.has("out") ? 4 : 0) + (check ? 8 : 0) + 4) +
         148.0 * 64 * 512 * 4 + (check ? 2 * topk * 512 * 4 : 0) + latent_tokens * 512 * 4 + 64.0 * (1 << 20);
}

// Files and the built-in example exclude each other: --q, --k-cache and
// --indices together, the other files only with them, the example's sizes only without.
void check_source(const Args& a, bool files) {
  if (files)
    for (const char* need : {"q", "k-cache", "indices"})
      if (!a.has(need))
        fail((std::string("--") + need).c_str(), "(not given)", "expected --q, --k-cache and --indices together, or none (the built-in example)");
  if (!files)
    for (const char* only : {"topk-length", "attn-sink", "extra-k-cache", "extra-indices", "extra-topk-length"})
      if (a.has(only)) fail((std::string("--") + only).c_str(), a.text(only), "expected it with --q, --k-cache and --indices");
  if (files)
    for (const char* example_only : {"batch", "s-q", "heads", "topk", "num-blocks", "extra-topk", "extra-num-blocks",
                                     "no-extra", "no-topk-length", "no-sink", "seed"})
      if (a.has(example_only)) {
        const std::string value = a.text(example_only);  // "" for a flag
        fail((std::string("--") + example_only).c_str(), value.empty() ? "(given)" : value,
             "expected it only for the built-in example: the files give the sizes and the arrays");
      }
  if (files && a.has("extra-block-size") && !a.has("extra-k-cache"))
    fail("--extra-block-size", a.text("extra-block-size"), "expected it with --extra-k-cache");
}

// The inputs from the files, refused before they are read when the run would not fit; `inputs` names them.
sparse_decode::SparseDecodeInputs file_inputs(const Args& a, std::string& inputs) {
  check_input_files_fit(a, {"q", "k-cache", "indices", "topk-length", "attn-sink", "extra-k-cache", "extra-indices",
                            "extra-topk-length"});
  std::string q_name;
  sparse_decode::SparseDecodeInputs in = read_inputs(a, q_name);
  check_memory("--q, --k-cache, --indices", "batch " + std::to_string(in.batch) + ", s_q " + std::to_string(in.s_q) +
                                                ", heads " + std::to_string(in.heads) + ", topk " +
                                                std::to_string(in.keys.topk + in.extra.topk),
               run_bytes(a, in.batch, in.s_q, in.heads, double(in.keys.bytes.size() + in.extra.bytes.size()),
                         double(in.keys.indices.size() + in.extra.indices.size()), in.keys.topk + in.extra.topk, 0));
  inputs = "inputs: " + q_name + " (rounded to bf16), " + a.text("k-cache") + ", " + a.text("indices");
  return in;
}

// The built-in example's inputs from `seed`, refused before they are drawn when the run would not fit.
sparse_decode::SparseDecodeInputs example_inputs(const Args& a, std::uint64_t seed, std::string& inputs) {
  sparse_decode::SparseDecodeExample e;
  e.batch = static_cast<int>(a.integer("batch", 1, 4096));
  e.s_q = static_cast<int>(a.integer("s-q", 1, 16));
  e.heads = static_cast<int>(a.integer("heads", 1, 65535));
  e.topk = static_cast<int>(a.integer("topk", 1, 1 << 20));
  e.block_size = static_cast<int>(a.integer("block-size", 1, 4096));
  e.num_blocks = static_cast<int>(a.integer("num-blocks", 1, 1 << 16));
  e.extra_topk = a.flag("no-extra") ? 0 : static_cast<int>(a.integer("extra-topk", 1, 1 << 20));
  e.extra_block_size = static_cast<int>(a.integer("extra-block-size", 1, 4096));
  e.extra_num_blocks = static_cast<int>(a.integer("extra-num-blocks", 1, 1 << 16));
  e.lengths = !a.flag("no-topk-length");
  e.sink = !a.flag("no-sink");
  if (e.heads % sparse_decode::kSparseHeadsPerCta != 0)  // before drawing inputs for a problem the kernel refuses
    fail("--heads", std::to_string(e.heads), "expected a multiple of 64 (V4-Flash 64, V4-Pro 128): 64 heads a CTA");
  const double rows = double(e.batch) * e.s_q, tokens = double(e.block_size) * e.num_blocks,
               extra_tokens = double(e.extra_block_size) * e.extra_num_blocks;
  const double cache = double(sparse_decode::Model1Layout{e.block_size}.block_bytes()) * e.num_blocks +
                       (e.extra_topk ? double(sparse_decode::Model1Layout{e.extra_block_size}.block_bytes()) * e.extra_num_blocks : 0);
  check_memory("--batch, --s-q, --heads, --topk, --block-size, --num-blocks",
               std::to_string(e.batch) + ", " + std::to_string(e.s_q) + ", " + std::to_string(e.heads) + ", " +
                   std::to_string(e.topk) + ", " + std::to_string(e.block_size) + ", " + std::to_string(e.num_blocks),
               run_bytes(a, e.batch, e.s_q, e.heads, cache, rows * (e.topk + e.extra_topk), e.topk + e.extra_topk,
                         std::max(tokens, extra_tokens)));
  inputs = "inputs: built-in example from seed " + std::to_string(seed) +
           ": Q uniform in [-1, 1) as bf16; a random latent a token (nope tiles of magnitudes 2^-3 to 2^3) "
           "quantised to MODEL1 by tcgen's quantiser; indices uniform over the cache, 1 in 8 of them -1";
  return sparse_decode::random_sparse_decode_inputs(e, seed);
}

// --softmax-scale, else FlashMLA's default 1/sqrt(512).
attention::SoftmaxScale parse_scale(const Args& a) {
  if (!a.has("softmax-scale")) return attention::SoftmaxScale::explicit_value(0.044194173824159216f);
  const double x = parse_positive("softmax-scale", a.text("softmax-scale"), "0.0441941738");
  return attention::SoftmaxScale::explicit_value(static_cast<float>(x));
}

// The query rows none of whose indices (within their lengths, in either cache) names a key.
int rows_without_keys(const sparse_decode::SparseDecodeInputs& in) {
  int empty_rows = 0;
  for (int b = 0; b < in.batch; ++b)
    for (int s = 0; s < in.s_q; ++s) {
      bool any = false;
      for (const sparse_decode::SparseDecodeInputs::Cache* c : {&in.keys, &in.extra}) {
        if (c->topk == 0) continue;
        const int n = c->lengths.empty() ? c->topk : c->lengths[b];
        for (int j = 0; j < n && !any; ++j) any = c->indices[(std::size_t(b) * in.s_q + s) * c->topk + j] >= 0;
      }
      empty_rows += any ? 0 : 1;
    }
  return empty_rows;
}

// The problem as the report states it, before the run: sizes, shapes, sink, scale, splits, inputs, work.
void describe(const Args& a, const sparse_decode::SparseDecodeInputs& in, const sparse_decode::SparseDecodeProblem& problem,
              const std::string& inputs, Report& report) {
  const std::size_t B = in.batch, S = in.s_q, H = in.heads;
  const int empty_rows = rows_without_keys(in);
  const double scale = problem.scale.value();
  report.text("tcgen sparse-decode: DeepSeek-V4 sparse decode (FlashMLA MODEL1), batch %zu, s_q %zu, heads %zu, "
              "topk %d%s\n",
              B, S, H, in.keys.topk, in.extra.topk > 0 ? (", extra topk " + std::to_string(in.extra.topk)).c_str() : "");
  report.text("shapes: Q [%zu, %zu, %zu, 512] bf16, cache [%zu, %zu] uint8 (block_size %d), indices [%zu, %zu, %d]%s%s, "
              "O [%zu, %zu, %zu, 512] bf16, LSE [%zu, %zu, %zu] float [batch, heads, s_q]\n",
              B, S, H, in.keys.bytes.size() / in.keys.layout.block_bytes(), in.keys.layout.block_bytes(),
              in.keys.layout.block_size, B, S, in.keys.topk, in.keys.lengths.empty() ? "" : ", topk_length [batch]",
              in.extra.topk > 0 ? (", extra cache [" + std::to_string(in.extra.bytes.size() / in.extra.layout.block_bytes()) +
                                   ", " + std::to_string(in.extra.layout.block_bytes()) + "] with indices [" +
                                   std::to_string(B) + ", " + std::to_string(S) + ", " + std::to_string(in.extra.topk) + "]" +
                                   (in.extra.lengths.empty() ? "" : " and extra_topk_length"))
                                      .c_str()
                                : "",
              B, S, H, B, H, S);
  report.text("sink: %s\n", in.sink.empty() ? "none" : "per head, O · 1/(1 + exp(sink − LSE)); LSE without it");
  if (a.has("softmax-scale"))
    report.text("softmax scale: %.9g (from --softmax-scale)\n", scale);
  else
    report.text("softmax scale: %.9g (1/sqrt(512), the default)\n", scale);
  report.text("splits: %d CTA%s over each row's %d key blocks of 64%s\n", problem.split_count(),
              problem.split_count() == 1 ? "" : "s", problem.key_blocks(),
              a.has("splits") ? " (from --splits)" : problem.split_count() == 1 ? " (the scheduler: the grid fills 148 SMs)"
                                                                          : ", then the combine step (the scheduler's choice, to fill 148 SMs)");
  if (empty_rows > 0)
    report.text("rows without a key: %d of %zu query rows: O = 0 and LSE = +inf there (FlashMLA's convention)\n",
                empty_rows, B * S);
  report.text("%s\n", inputs.c_str());
  const double flops = problem.flops(), kv_bytes = problem.kv_bytes();
  report.text("work: %.6g GFLOP (4 · 512 per head and valid key), %.6g MB of cache read (584 bytes a key per 64 heads)\n",
              flops * 1e-9, kv_bytes * 1e-6);
  report.field("verb", "sparse-decode");
  report.field("batch", in.batch);
  report.field("s_q", in.s_q);
  report.field("heads", in.heads);
  report.field("topk", in.keys.topk);
  report.field("extra_topk", in.extra.topk);
  report.field("softmax_scale", scale);
  report.field("splits", problem.split_count());
  report.field("rows_without_keys", empty_rows);
  report.field("inputs", inputs.substr(8));
  report.field("gflop", flops * 1e-9);
  report.field("kv_megabytes", kv_bytes * 1e-6);
}

// One launch of the sparse decode kernel (and its combine step), checked and written as the driver asks.
class SparseDecodeJob : public KernelJob {
 public:
  SparseDecodeJob(const Args& a, const sparse_decode::SparseDecodeInputs& in, const sparse_decode::SparseDecodeProblem& problem)
      : a_(a), in_(in), problem_(problem) {}

  const char* kernel() const override { return "sparse decode"; }

  std::string backend_text(Backend backend, const ptx::Module* kernels) const override {
    if (backend == Backend::host) return "host model, every tcgen05 rule checked";
    if (backend == Backend::ptx) return "ptx, " + kernels->name() + " on the host model";
    return "sm100 (device 0)";
  }

  exec::RunStats launch(Backend backend, const ptx::Module* kernels, PtxRun& ptx,
                        const exec::LaunchOptions& launch) override {
    run_ = {};
    return on_backend(backend, kernels, ptx, launch, [&](const auto& on) {
      run_ = sparse_decode::run(problem_, in_.q_bits, on);
      return run_.stats;
    });
  }

  void report_time(Backend backend, double seconds, Report& report) const override {
    report.text("kernel time %.6f s (%s; %.4g GFLOP/s, %.4g GB/s of cache)\n", seconds,
                backend == Backend::sm100 ? "sm100, CUDA events" : backend == Backend::ptx ? "PTX on the host model" : "host model",
                problem_.flops() / seconds * 1e-9, problem_.kv_bytes() / seconds * 1e-9);
    report.field("seconds", seconds);
  }

  bool check(Report& report) const override {
    const auto ref_start = std::chrono::steady_clock::now();
    const sparse_decode::SparseDecodeResult ref = sparse_decode::sparse_decode_reference(problem_, in_.q);
    const double ref_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - ref_start).count();
    report.text("reference time %.6f s (fp64 over the dequantised cache, plain C++)\n", ref_seconds);
    report.field("reference_seconds", ref_seconds);
    const sparse_decode::SparseDecodeCheck c = sparse_decode::check_sparse_decode(ref, run_.out);
    report.text("O max row relative error (2-norm) %.3g (bound 1e-2)\n", c.o.max_rel_error);
    report.text("LSE max relative error %.3g (bound 1e-3)\n", c.lse.max_rel_error);
    report.text("result: %s\n", c.ok() ? "PASSED" : "FAILED");
    report.field("o_max_row_relative_error", c.o.max_rel_error);
    report.field("lse_max_relative_error", c.lse.max_rel_error);
    report.field("passed", c.ok());
    return c.ok();
  }

  void write_outputs(Report& report) const override {
    const std::size_t B = in_.batch, S = in_.s_q, H = in_.heads;
    if (a_.has("out")) {
      std::vector<float> o(run_.out.o.size());
      for (std::size_t i = 0; i < o.size(); ++i) o[i] = decode(ElementType::bf16, run_.out.o[i]);
      write_npy("--out", a_.text("out"), {B, S, H, 512}, o);
      report.text("wrote %s (%zux%zux%zux512 float32, bf16 values)\n", a_.text("out").c_str(), B, S, H);
      report.field("wrote", a_.text("out"));
    }
    if (a_.has("lse")) {
      // The kernel's LSE is [batch, s_q, heads]; FlashMLA returns softmax_lse as [batch, heads, s_q].
      std::vector<float> lse(run_.out.lse.size());
      for (std::size_t b = 0; b < B; ++b)
        for (std::size_t s = 0; s < S; ++s)
          for (std::size_t h = 0; h < H; ++h) lse[(b * H + h) * S + s] = run_.out.lse[(b * S + s) * H + h];
      write_npy("--lse", a_.text("lse"), {B, H, S}, std::span<const float>(lse));
      report.text("wrote %s (%zux%zux%zu float32 [batch, heads, s_q] as FlashMLA's softmax_lse, +inf for a row without a key)\n",
                  a_.text("lse").c_str(), B, H, S);
      report.field("wrote_lse", a_.text("lse"));
    }
  }

 private:
  const Args& a_;
  const sparse_decode::SparseDecodeInputs& in_;
  const sparse_decode::SparseDecodeProblem& problem_;
  sparse_decode::SparseDecodeRun run_;
};

}  // namespace

const std::span<const Option> sparse_decode_options{kOptions};

int sparse_decode(std::span<const std::string> args) {
  if (wants_help(args)) {
    std::cout << help_text();
    return 0;
  }
  const Args a(args, kOptions);
  const SavedInputs saved(a, saved_names(a));
  check_run_files(a, {"q", "k-cache", "indices", "topk-length", "attn-sink", "extra-k-cache", "extra-indices",
                      "extra-topk-length", "ptx"},
                  {"out", "lse"}, saved);
  if (a.flag("strict-ptx") && a.text("backend") == "sm100")
    fail("--strict-ptx", "(given)", "expected the host model (--backend host or ptx): the B200 runs as it runs");
  const Backend backend = parse_backend(a);
  const bool files = a.has("q") || a.has("k-cache") || a.has("indices");
  check_source(a, files);
  const std::uint64_t seed = static_cast<std::uint64_t>(a.integer("seed", 0, std::int64_t{1} << 62));

  std::string inputs;
  const sparse_decode::SparseDecodeInputs in = files ? file_inputs(a, inputs) : example_inputs(a, seed, inputs);
  const attention::SoftmaxScale scale = parse_scale(a);
  const int splits = static_cast<int>(a.integer_or("splits", 0, 1, sparse_decode::kSparseMaxSplits));
  const sparse_decode::SparseDecodeProblem problem = in.problem(scale, splits);
  as_options(a, [&] { problem.validate(); });

  Report report(a.flag("json"));
  describe(a, in, problem, inputs, report);
  report.field("backend", name(backend));
  // Loaded before anything is written: a missing file exits 3, a bad one 2, and --save-inputs has written nothing.
  std::optional<ptx::Module> kernels;
  if (backend == Backend::ptx) kernels = load_kernels(a, kBuiltPtx, "sparse decode");
  if (saved.wanted()) {
    save_inputs(saved, in, report);
    report.field("saved_inputs", saved.dir());
  }

  exec::LaunchOptions launch = host_model_launch(a);
  launch.letters_as_errors = a.flag("strict-ptx");
  launch.strict_mma_pipelining = a.flag("strict-ptx");
  if (backend != Backend::sm100) {
    // Measured per OS thread on the 2-core CI VM (tcgen sparse-decode --threads 1 --topk 2048 --heads 128
    // --batch 2 --num-blocks 64, and --topk 2048 --num-blocks 64 --backend ptx): 2.6 and 0.31 GFLOP/s; the fp64
    // reference 4.6 GFLOP/s. Rounded down: they only say when a run is long.
    const std::uint64_t ctas =
        std::uint64_t(in.batch) * in.s_q * (in.heads / sparse_decode::kSparseHeadsPerCta) * problem.split_count();
    const TimeEstimate t{.kernel_flops = problem.flops(), .kernel_rate = backend == Backend::host ? 2e9 : 0.25e9,
                         .threads = static_cast<unsigned>(std::min<std::uint64_t>(exec::pool_threads(launch.threads), ctas)),
                         .reference_flops = a.flag("no-reference") ? 0 : problem.flops(), .reference_rate = 3e9};
    announce_long_run(t, a.flag("quiet"));
  }
  SparseDecodeJob job(a, in, problem);
  return run_kernel_job(job, a, backend, kernels ? &*kernels : nullptr, launch, report);
}

}  // namespace tcgen::cli
