// tcgen desc: the 64-bit shared-memory matrix descriptors of tcgen05.mma
// (and wgmma): build them for each MMA K step of an operand tile, or decode
// one. PTX #tcgen05-shared-memory-descriptor, #tcgen05-canonical-layouts.
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
#include "tcgen/mma/descriptor_iterator.hpp"
#include "tcgen/mma/smem_descriptor.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

using layout::Int;
using layout::Major;
using layout::SmemSwizzle;
using mma::DescriptorArch;

constexpr Int kWindowBytes = Int{1} << 18;  // the 18-bit shared-memory window of the start address
constexpr Int kMaxExtent = 65536;

constexpr Option kSmemOptions[] = {
    {"dtype", "T", "element: bf16 fp16 tf32 e4m3 e5m2 s8 u8 e2m1 e2m1.p64 e2m3 e3m2"},
    {"rows", "R"},
    {"cols", "C", "M or N extent; K extent (see 'tcgen layout smem --help')"},
    {"major", "K|MN", "which dimension is contiguous (default {--major})", "K"},
    {"swizzle", "S", "none 32B 64B 128B 128B_base32B (default {--swizzle})", "none"},
    {"addr", "A",
     "shared-memory address of the tile, decimal or 0x hex, a multiple\n"
     "of 16 below 0x40000 (default {--addr})",
     "0"},
    {"arch", "A",
     "{--arch} (default): tcgen05.mma form, layout_type is the SM100 code\n"
     "(0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B); sm90: wgmma form,\n"
     "no version bit, layout_type is the SM90 code (0 none, 1 128B,\n"
     "2 64B, 3 32B). The code reported is always the asked arch's.",
     "sm100"},
    {"anchor", "A",
     "{--anchor} (default): the data is swizzled on its absolute address\n"
     "(CuTe, TMA), base offset 0; tile: swizzled on the offset from the\n"
     "tile, the base offset says where the pattern starts (the tile\n"
     "address must then be a multiple of 128)",
     "absolute"},
    {"json", {},
     "a JSON array, one object per K step:\n"
     "{\"kstep\":0,\"desc\":\"0x...\",\"start_address\":..,\"lbo\":..,\"sbo\":..,\n"
     " \"base_offset\":..,\"layout_type\":..}"}};
constexpr Option kDecodeOptions[] = {
    {"arch", "A", "the instruction the descriptor is for: {--arch} (default) or sm90, as above", "sm100"},
    {"json", {}, "one JSON object of the fields"}};
static_assert(defaults_documented(kSmemOptions) && defaults_documented(kDecodeOptions));

constexpr std::string_view kAbout = R"(usage: tcgen desc smem --dtype T --rows R --cols C [--major K|MN] [--swizzle S]
                        [--addr A] [--arch sm100|sm90] [--anchor absolute|tile] [--json]
       tcgen desc decode VALUE [--arch sm100|sm90] [--json]

The 64-bit shared-memory matrix descriptor of tcgen05.mma (sm100) or of its
Hopper twin wgmma (sm90): PTX #tcgen05-shared-memory-descriptor.

desc smem: one descriptor per MMA K step (32 B of K) of a canonical operand tile
(the tile of 'tcgen layout smem'), in issue order. Each step's start address
advances by the step's offset, inside a swizzle atom too; LBO, SBO and base
offset stay the tile's. Addresses and offsets are in bytes.
)";

constexpr std::string_view kDecodeAbout = R"(
desc decode: every field of VALUE (0x hex or decimal) and what it means. A value
the hardware would reject (reserved bits set, swizzle code 3/5/7, no version bit,
absolute LBO mode, base offset without a swizzle) exits 2 naming the field.
)";

constexpr std::string_view kExamples = R"(
examples:
  tcgen desc smem --dtype bf16 --major K --swizzle 128B --rows 128 --cols 64 --addr 0x400 --json
  tcgen desc decode 0x4000404000010040
)";

// The --help of both forms: each one's paragraph and options, the options aligned.
std::string help_text() {
  const std::size_t column = std::max(help_column(kSmemOptions), help_column(kDecodeOptions));
  return std::string(kAbout) + options_help(kSmemOptions, column) + std::string(kDecodeAbout) +
         options_help(kDecodeOptions, column) + std::string(kExamples);
}

// 0x followed by 1-16 hex digits, or a decimal integer.
std::uint64_t parse_u64(const char* option, const std::string& text, const char* expected) {
  const bool is_hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const std::string digits = is_hex ? text.substr(2) : text;
  if (digits.empty() || digits.size() > (is_hex ? 16u : 19u)) fail(option, "\"" + text + "\"", expected);
  std::uint64_t v = 0;
  for (char ch : digits) {
    int d = -1;
    if (ch >= '0' && ch <= '9') d = ch - '0';
    else if (is_hex && ch >= 'a' && ch <= 'f') d = ch - 'a' + 10;
    else if (is_hex && ch >= 'A' && ch <= 'F') d = ch - 'A' + 10;
    if (d < 0) fail(option, "\"" + text + "\"", expected);
    v = v * (is_hex ? 16 : 10) + static_cast<std::uint64_t>(d);
  }
  return v;
}

DescriptorArch parse_arch(const std::string& s) {
  if (s == "sm100") return DescriptorArch::sm100;
  if (s == "sm90") return DescriptorArch::sm90;
  fail("--arch", s, "expected sm100 (tcgen05.mma) or sm90 (wgmma)");
}

layout::SwizzleAnchor parse_anchor(const std::string& s) {
  if (s == "absolute") return layout::SwizzleAnchor::absolute;
  if (s == "tile") return layout::SwizzleAnchor::tile;
  fail("--anchor", s, "expected absolute or tile");
}

const char* arch_name(DescriptorArch a) { return a == DescriptorArch::sm100 ? "sm100" : "sm90"; }
const char* arch_instr(DescriptorArch a) { return a == DescriptorArch::sm100 ? "tcgen05.mma" : "wgmma"; }
// The layout-type code of the asked arch.
int code_for(DescriptorArch a, int sm100_code) {
  return a == DescriptorArch::sm100 ? sm100_code : mma::sm90_layout_type(sm100_code);
}

std::string pad(std::string s, std::size_t w) {
  if (s.size() < w) s.append(w - s.size(), ' ');
  return s;
}

int desc_smem(std::span<const std::string> argv) {
  const Args args(argv, kSmemOptions);
  const Dtype& dt = parse_dtype(args.text("dtype"));
  layout::SmemOperandSpec spec;
  spec.element = dt.element;
  spec.major = parse_major("--major", args.text("major"));
  spec.swizzle = parse_swizzle(args.text("swizzle"));
  spec.rows = args.integer("rows", 1, kMaxExtent);
  spec.cols = args.integer("cols", 1, kMaxExtent);
  const DescriptorArch arch = parse_arch(args.text("arch"));
  const layout::SwizzleAnchor anchor = parse_anchor(args.text("anchor"));
  const char* addr_expected = "expected a multiple of 16 below 262144 (0x40000), decimal or 0x hex: the descriptor "
                              "stores (addr & 0x3FFFF) >> 4";
  const std::string addr_text = args.text("addr");
  const std::uint64_t addr = parse_u64("--addr", addr_text, addr_expected);
  if (addr % 16 != 0 || addr >= static_cast<std::uint64_t>(kWindowBytes)) fail("--addr", addr_text, addr_expected);
  const layout::SmemOperand op = layout::make_smem_operand(spec);
  const Int base = static_cast<Int>(addr);
  if (base + op.size_bytes() > kWindowBytes)
    fail("--addr", addr_text,
         "expected the tile (" + std::to_string(op.size_bytes()) +
             " B) to end inside the 18-bit shared-memory window of the descriptor (262144 B)");

  const mma::KStepDescriptors steps(op, base, arch, anchor);
  struct Row {
    Int k;
    std::uint64_t desc;
    mma::SmemDescriptorFields f;
  };
  std::vector<Row> rows;
  for (auto it = steps.begin(); it != steps.end(); ++it) rows.push_back({it.kstep(), *it, steps.fields(it.kstep())});

  if (args.flag("json")) {
    std::cout << "[\n";
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      std::cout << "  {\"kstep\":" << r.k << ",\"desc\":\"" << hex(r.desc, 16) << "\",\"start_address\":"
                << r.f.start_address << ",\"lbo\":" << r.f.lbo << ",\"sbo\":" << r.f.sbo
                << ",\"base_offset\":" << r.f.base_offset << ",\"layout_type\":" << code_for(arch, r.f.layout_type)
                << "}" << (i + 1 < rows.size() ? "," : "") << "\n";
    }
    std::cout << "]\n";
    return 0;
  }
  const mma::SmemDescriptorFields& f0 = rows.front().f;
  std::cout << "smem descriptors: " << dt.name << ", " << layout::name(spec.major) << "-major, swizzle "
            << layout::name(spec.swizzle) << ", " << spec.rows << " rows x " << spec.cols << " cols (K), tile at "
            << base << " (0x" << std::hex << addr << std::dec << ")\n"
            << "form: " << arch_name(arch) << " (" << arch_instr(arch) << "), swizzle anchored to the "
            << (anchor == layout::SwizzleAnchor::absolute ? "absolute address" : "tile start") << "\n"
            << "LBO " << f0.lbo << " B, SBO " << f0.sbo << " B, base offset " << f0.base_offset << ", layout type "
            << code_for(arch, f0.layout_type) << " (" << mma::swizzle_name(f0.layout_type) << ", " << arch_name(arch)
            << " code)\n"
            << op.ksteps() << " K steps of " << layout::kstep_elements(spec.element)
            << " elements (32 B of K); only the start address moves:\n";
  std::cout << "kstep  desc                start_address  lbo     sbo     base_offset  layout_type\n";
  for (const Row& r : rows)
    std::cout << pad(std::to_string(r.k), 7) << pad(hex(r.desc, 16), 20) << pad(std::to_string(r.f.start_address), 15)
              << pad(std::to_string(r.f.lbo), 8) << pad(std::to_string(r.f.sbo), 8)
              << pad(std::to_string(r.f.base_offset), 13) << code_for(arch, r.f.layout_type) << "\n";
  return 0;
}

int desc_decode(std::span<const std::string> argv) {
  const char* expected = "expected a 64-bit descriptor: 0x followed by 1-16 hex digits, or a decimal integer";
  if (argv.empty() || argv[0].compare(0, 2, "--") == 0) fail("descriptor", "(not given)", expected);
  const std::uint64_t value = parse_u64("descriptor", argv[0], expected);
  const Args args(argv.subspan(1), kDecodeOptions);
  const DescriptorArch arch = parse_arch(args.text("arch"));
  const mma::SmemDescriptorFields f = mma::decode(value, arch);  // refuses naming the field
  const auto lines = mma::describe(value, arch);
  if (args.flag("json")) {
    std::cout << "{\"arch\":\"" << arch_name(arch) << "\",\"desc\":\"" << hex(value, 16)
              << "\",\"start_address\":" << f.start_address << ",\"lbo\":" << f.lbo << ",\"sbo\":" << f.sbo
              << ",\"base_offset\":" << f.base_offset << ",\"layout_type\":" << code_for(arch, f.layout_type)
              << ",\"swizzle\":\"" << mma::swizzle_name(f.layout_type) << "\"}\n";
    return 0;
  }
  std::cout << "descriptor " << hex(value, 16) << ", " << arch_name(arch) << " (" << arch_instr(arch) << ")\n"
            << "bits   field                raw     meaning\n";
  for (const auto& l : lines) {
    const std::string raw = hex(l.raw);
    const std::string bits = l.lo == l.hi ? std::to_string(l.lo) : std::to_string(l.lo) + "-" + std::to_string(l.hi);
    std::cout << pad(bits, 7) << pad(l.name, 21) << pad(raw, 8)
              << l.meaning << "\n";
  }
  return 0;
}

}  // namespace

const std::span<const Option> desc_smem_options{kSmemOptions};
const std::span<const Option> desc_decode_options{kDecodeOptions};

int desc(std::span<const std::string> argv) {
  if (argv.empty()) fail("desc", "(none)", "expected smem or decode after desc; see tcgen desc --help");
  if (wants_help(argv)) {
    std::cout << help_text();
    return 0;
  }
  if (argv[0] == "smem") return desc_smem(argv.subspan(1));
  if (argv[0] == "decode") return desc_decode(argv.subspan(1));
  fail("desc", argv[0], "expected smem or decode after desc; see tcgen desc --help");
}

}  // namespace tcgen::cli
