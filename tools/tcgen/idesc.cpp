// tcgen idesc: build or explain the 32-bit instruction descriptor of tcgen05.mma.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "help.hpp"
#include "dtype.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/mma/instr_descriptor.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

using layout::Major;
using mma::InstrDescriptorSpec;
using mma::MmaKind;
using mma::ScaleType;

constexpr Option kBuildOptions[] = {
    {"kind", "K", "f16, tf32, f8f6f4, i8, mxf8f6f4, mxf4 or mxf4nvf4"},
    {"a-type", "A"},
    {"b-type", "B",
     "operand types: fp16 (or f16)/bf16 (f16), tf32 (tf32),\n"
     "e4m3/e5m2/e2m3/e3m2/e2m1 (f8f6f4, mxf8f6f4), s8/u8 (i8),\n"
     "e2m1 (mxf4, mxf4nvf4)"},
    {"d-type", "D", "accumulator type: f32 (default), fp16 (f16, f8f6f4), s32 (i8, default there)"},
    {"m", "M"},
    {"n", "N", "the MMA shape; K follows from the kind and sparsity"},
    {"a-major", "K|MN", "A's major-ness (default {--a-major}; MN sets the \"transpose A\" bit)", "K"},
    {"b-major", "K|MN", "B's major-ness (default {--b-major})", "K"},
    {"negate-a"},
    {"negate-b", {}, "negate A, or B (the descriptor's negate bits)"},
    {"sparse", {}, "tcgen05.mma.sp: structured-sparse A, K doubles"},
    {"selector", "S", "sparsity selector 0-3 (sparse f16/tf32; default {--selector})", "0"},
    {"cta-group", "G", "{--cta-group} (default) or 2", "1"},
    {"ws", {}, "tcgen05.mma.ws (weight stationary)"},
    {"ws-shift", "S", ".ws maximum B-reuse shift: 0, 8, 16 or 32 (default {--ws-shift})", "0"},
    {"saturate", {}, "saturate the s32 result (i8)"},
    {"scale", "T", "block-scaled kinds: {--scale} (default) or ue4m3 (mxf4nvf4)", "ue8m0"},
    {"a-sf-id", "I", "A's scale-factor sub-column ID (block-scaled kinds; default {--a-sf-id})", "0"},
    {"b-sf-id", "I", "B's scale-factor sub-column ID (block-scaled kinds; default {--b-sf-id})", "0"},
    {"k96", {}, "mxf4/mxf4nvf4 K = 96 (sm_103a)"},
    {"json", {}, "one JSON object instead of the table"}};
constexpr Option kDecodeOptions[] = {
    {"kind", "K", "the instruction's kind (default {--kind}; Tables 42-44 differ by kind)", "f16"},
    {"cta-group", "G", "the instruction's .cta_group (default: 2 if M = 256, else 1)"},
    {"ws", {}, "the instruction is tcgen05.mma.ws (default: when M = 32)"},
    {"json", {}, "one JSON object instead of the table"}};
static_assert(defaults_documented(kBuildOptions) && defaults_documented(kDecodeOptions));

constexpr std::string_view kAbout = R"(usage: tcgen idesc --kind K --a-type A --b-type B [--d-type D] --m M --n N [options] [--json]
       tcgen idesc decode IDESC [--kind K] [--cta-group 1|2] [--ws] [--json]

The 32-bit instruction descriptor (idesc) of tcgen05.mma, PTX
#tcgen05-instruction-descriptor (Tables 42-44), checked against the legal
shapes and types of #tcgen05-kind-shapes (Table 39). An illegal request exits
with status 2 and one line naming the field and the legal values.

build options:
)";

constexpr std::string_view kExamples = R"(
examples:
  tcgen idesc --kind f16 --a-type bf16 --b-type bf16 --d-type f32 --m 128 --n 256 --json
  tcgen idesc decode 0x08400490 --kind f16
)";

// The --help of both forms: the build options, then decode's argument and options, aligned.
std::string help_text() {
  const std::size_t column = std::max(help_column(kBuildOptions), help_column(kDecodeOptions));
  std::string idesc = "  IDESC";
  idesc.resize(column, ' ');
  return std::string(kAbout) + options_help(kBuildOptions, column) + "\ndecode options:\n" + idesc +
         "the descriptor, hex (0x...) or decimal\n" + options_help(kDecodeOptions, column) + std::string(kExamples);
}

ElementType parse_type(const Args& args, std::string_view option, ElementType fallback, bool required) {
  if (!args.has(option)) {
    if (required) args.text(option);  // throws "(not given)"
    return fallback;
  }
  return parse_element("--" + std::string(option), args.text(option), all_element_types);
}

std::string instruction(const InstrDescriptorSpec& s) {
  return std::string("tcgen05.mma") + (s.ws ? ".ws" : "") + (s.sparse ? ".sp" : "") + ".cta_group::" +
         std::to_string(s.cta_group) + ".kind::" + mma::name(s.kind) + (mma::block_scaled(s.kind) ? ".block_scale" : "");
}

// One row of the explanation: bits, field, the code stored there, and what it means.
struct Row {
  int lo, hi;
  std::string field;
  std::uint32_t code;
  std::string meaning;
};

std::string meaning(const BitField& f, const InstrDescriptorSpec& s) {
  const std::string name = f.name;
  const bool bs = mma::block_scaled(s.kind);
  if (name == "sparse_selector") return s.sparse ? "sparsity selector " + std::to_string(s.sparse_selector) : "unused (dense)";
  if (name == "sparse") return s.sparse ? "sparse A (tcgen05.mma.sp)" : "dense";
  if (name == "saturate") return s.saturate ? "saturate the s32 result" : "no saturation";
  if (name == "d") return std::string("D (accumulator) ") + tcgen::name(s.d);
  if (name == "a") return std::string("A ") + tcgen::name(s.a);
  if (name == "b") return std::string("B ") + tcgen::name(s.b);
  if (name == "negate_a") return s.negate_a ? "A negated" : "A not negated";
  if (name == "negate_b") return s.negate_b ? "B negated" : "B not negated";
  if (name == "a_major") return s.a_major == Major::K ? "A K-major (no transpose)" : "A M-major (transposed)";
  if (name == "b_major") return s.b_major == Major::K ? "B K-major (no transpose)" : "B N-major (transposed)";
  if (name == "n") return "N = " + std::to_string(s.n) + " (N >> 3)";
  if (name == "m") return "M = " + std::to_string(s.m) + (bs ? " (M >> 7)" : " (M >> 4)");
  if (name == "ws_b_reuse_shift")
    return s.ws_b_reuse_shift ? ".ws B reuse, maximum shift " + std::to_string(s.ws_b_reuse_shift) : "no B-reuse shift";
  if (name == "scale_type") return std::string("scale_A and scale_B are ") + mma::name(s.scale_type);
  if (name == "a_sf_id") return "scale_A sub-column " + std::to_string(s.a_sf_id);
  if (name == "b_sf_id") return "scale_B sub-column " + std::to_string(s.b_sf_id);
  if (name == "k96") return s.k96 ? "K = 96 (sm_103a)" : "K = 64 (128 sparse)";
  return "";
}

std::vector<Row> rows(std::uint32_t w, const InstrDescriptorSpec& s) {
  std::vector<Row> out;
  const std::uint32_t reserved = mma::reserved_bits(s.kind);
  const auto fields = mma::instr_descriptor_fields(s.kind);
  for (int bit = 0; bit < 32;) {
    if ((reserved >> bit) & 1u) {
      int hi = bit;
      while (hi + 1 < 32 && ((reserved >> (hi + 1)) & 1u)) ++hi;
      out.push_back({bit, hi, "reserved", (w >> bit) & ((2u << (hi - bit)) - 1), "reserved, must be 0"});
      bit = hi + 1;
      continue;
    }
    const BitField* field = nullptr;
    for (const BitField& f : fields)
      if (f.lo == bit) field = &f;
    if (!field) {  // cannot happen: the fields and the reserved bits cover all 32
      ++bit;
      continue;
    }
    out.push_back({bit, bit + field->width - 1, field->name, static_cast<std::uint32_t>(field->extract(w)), meaning(*field, s)});
    bit += field->width;
  }
  return out;
}

std::string bits_text(const Row& r) { return r.lo == r.hi ? std::to_string(r.lo) : std::to_string(r.lo) + "-" + std::to_string(r.hi); }

void print(std::uint32_t w, const InstrDescriptorSpec& s, bool json, const std::string& note) {
  const std::vector<Row> table = rows(w, s);
  const auto b = [](bool v) { return v ? "true" : "false"; };
  if (json) {
    std::cout << "{\"idesc\":\"" << hex_upper(w, 8) << "\",\"instruction\":\"" << instruction(s) << "\",\"kind\":\""
              << mma::name(s.kind) << "\",\"a\":\"" << name(s.a) << "\",\"b\":\"" << name(s.b) << "\",\"d\":\""
              << name(s.d) << "\",\"m\":" << s.m << ",\"n\":" << s.n << ",\"k\":" << mma::k_per_instruction(s)
              << ",\"a_major\":\"" << layout::name(s.a_major) << "\",\"b_major\":\"" << layout::name(s.b_major)
              << "\",\"negate_a\":" << b(s.negate_a) << ",\"negate_b\":" << b(s.negate_b) << ",\"sparse\":" << b(s.sparse)
              << ",\"sparse_selector\":" << s.sparse_selector << ",\"cta_group\":" << s.cta_group << ",\"ws\":" << b(s.ws)
              << ",\"ws_b_reuse_shift\":" << s.ws_b_reuse_shift << ",\"saturate\":" << b(s.saturate);
    if (mma::block_scaled(s.kind))
      std::cout << ",\"scale_type\":\"" << mma::name(s.scale_type) << "\",\"a_sf_id\":" << s.a_sf_id
                << ",\"b_sf_id\":" << s.b_sf_id << ",\"k96\":" << b(s.k96);
    std::cout << ",\"fields\":[";
    for (std::size_t i = 0; i < table.size(); ++i)
      std::cout << (i ? "," : "") << "{\"bits\":\"" << bits_text(table[i]) << "\",\"field\":\"" << table[i].field
                << "\",\"value\":" << table[i].code << ",\"meaning\":\"" << table[i].meaning << "\"}";
    std::cout << "]}\n";
    return;
  }
  std::cout << "idesc: " << hex_upper(w, 8) << "\n"
            << "instruction: " << instruction(s) << "\n"
            << "shape: M=" << s.m << " N=" << s.n << " K=" << mma::k_per_instruction(s) << "\n";
  if (!note.empty()) std::cout << note << "\n";
  std::cout << "bits   field             value  meaning\n";
  for (const Row& r : table) {
    std::string line = bits_text(r);
    line.resize(7, ' ');
    line += r.field;
    line.resize(25, ' ');
    line += std::to_string(r.code);
    line.resize(32, ' ');
    std::cout << line << r.meaning << "\n";
  }
}

std::uint32_t parse_word(const std::string& text) {
  const std::string expected = "expected a 32-bit descriptor, hex (0x...) or decimal";
  const bool is_hex = text.size() > 2 && (text.compare(0, 2, "0x") == 0 || text.compare(0, 2, "0X") == 0);
  const std::string digits = is_hex ? text.substr(2) : text;
  if (digits.empty() || digits.size() > (is_hex ? 8u : 10u)) fail("idesc", text, expected);
  std::uint64_t v = 0;
  for (char c : digits) {
    int d = -1;
    if (c >= '0' && c <= '9') d = c - '0';
    if (is_hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
    if (is_hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
    if (d < 0) fail("idesc", text, expected);
    v = v * (is_hex ? 16 : 10) + static_cast<std::uint64_t>(d);
  }
  if (v > 0xFFFFFFFFu) fail("idesc", text, expected);
  return static_cast<std::uint32_t>(v);
}

int decode_verb(std::span<const std::string> argv) {
  if (argv.empty() || argv[0].compare(0, 2, "--") == 0) fail("idesc", "(not given)", "expected tcgen idesc decode IDESC");
  const std::uint32_t w = parse_word(argv[0]);
  const Args args(argv.subspan(1), kDecodeOptions);
  const MmaKind kind = mma::parse_mma_kind(args.text("kind"));
  // cta_group and .ws are qualifiers of the instruction, not bits of the
  // descriptor; unless given, take the only ones M allows.
  const int m = mma::block_scaled(kind) ? static_cast<int>(mma::idesc_mx::m.extract(w)) << 7
                                        : static_cast<int>(mma::idesc::m.extract(w)) << 4;
  const int cta_group = static_cast<int>(args.integer_or("cta-group", m == 256 ? 2 : 1, 0, 65536));
  const bool ws = args.flag("ws") || m == 32;
  std::string note;
  if (!args.has("cta-group") && cta_group == 2) note += "cta_group::2 assumed from M = 256 (--cta-group to change)";
  if (!args.flag("ws") && ws) note += "tcgen05.mma.ws assumed from M = 32";
  const InstrDescriptorSpec s = mma::decode(w, kind, cta_group, ws);
  print(w, s, args.flag("json"), note);
  return 0;
}

}  // namespace

const std::span<const Option> idesc_options{kBuildOptions};
const std::span<const Option> idesc_decode_options{kDecodeOptions};

int idesc(std::span<const std::string> argv) {
  if (wants_help(argv)) {
    std::cout << help_text();
    return 0;
  }
  if (!argv.empty() && argv[0] == "decode") return decode_verb(argv.subspan(1));
  const Args args(argv, kBuildOptions);
  InstrDescriptorSpec s;
  s.kind = mma::parse_mma_kind(args.text("kind"));
  s.a = parse_type(args, "a-type", s.a, true);
  s.b = parse_type(args, "b-type", s.b, true);
  s.d = parse_type(args, "d-type", s.kind == MmaKind::i8 ? ElementType::s32 : ElementType::f32, false);
  s.m = static_cast<int>(args.integer("m", 0, 65536));
  s.n = static_cast<int>(args.integer("n", 0, 65536));
  s.a_major = parse_major("--a-major", args.text("a-major"));
  s.b_major = parse_major("--b-major", args.text("b-major"));
  s.negate_a = args.flag("negate-a");
  s.negate_b = args.flag("negate-b");
  s.sparse = args.flag("sparse");
  s.sparse_selector = static_cast<int>(args.integer("selector", 0, 65536));
  s.cta_group = static_cast<int>(args.integer("cta-group", 0, 65536));
  s.ws = args.flag("ws");
  s.ws_b_reuse_shift = static_cast<int>(args.integer("ws-shift", 0, 65536));
  s.saturate = args.flag("saturate");
  const std::string scale = args.text("scale");
  if (scale != "ue8m0" && scale != "ue4m3") fail("--scale", scale, "expected ue8m0 or ue4m3");
  s.scale_type = scale == "ue8m0" ? ScaleType::ue8m0 : ScaleType::ue4m3;
  s.a_sf_id = static_cast<int>(args.integer("a-sf-id", 0, 65536));
  s.b_sf_id = static_cast<int>(args.integer("b-sf-id", 0, 65536));
  s.k96 = args.flag("k96");
  print(mma::make_instr_descriptor(s), s, args.flag("json"), "");
  return 0;
}

}  // namespace tcgen::cli
