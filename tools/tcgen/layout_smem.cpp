// tcgen layout smem: a canonical shared-memory operand tile of tcgen05.mma.
#include <algorithm>
#include <array>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "help.hpp"
#include "csv.hpp"
#include "dtype.hpp"
#include "run_files.hpp"
#include "svg.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/layout/smem_operand.hpp"
#include "tcgen/mma/smem_descriptor.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

using layout::Int;
using layout::Major;
using layout::SmemOperand;
using layout::SmemSwizzle;

constexpr Int kMaxExtent = 65536;
constexpr Int kWindowBytes = Int{1} << 18;  // descriptor start address: 14 bits of 16-byte units

constexpr Option kOptions[] = {
    {"dtype", "T",
     "element: bf16 fp16 tf32 e4m3 e5m2 s8 u8 e2m1 e2m1.p64 e2m3 e3m2\n"
     "(e2m1 = packed 4-bit, kind::mxf4; e2m1.p64, e2m3, e3m2 = the padded\n"
     "f8f6f4 formats, 16 values per 16 bytes)"},
    {"rows", "R", "M or N extent, a multiple of the swizzle atom's (8 for K-major)"},
    {"cols", "C", "K extent, a multiple of the atom's K extent and of the MMA K step"},
    {"major", "K|MN", "which dimension is contiguous (default {--major})", "K"},
    {"swizzle", "S", "none 32B 64B 128B 128B_base32B (default {--swizzle}; 128B_base32B is\nonly for tf32 MN-major, which needs it)",
     "none"},
    {"csv", {},
     "print row,col,offset for every element (row-major); offset is the\n"
     "byte from the tile base after the swizzle; sub-byte types add bit"},
    {"info", {}, "print the summary (the default without --csv): layout, LBO, SBO,\nlayout type, K steps, size"},
    {"svg", "FILE", "draw the tile: memory order (128-byte lines of 16-byte chunks)\nnext to the logical tile"},
    {"force", {}, "with --svg: replace the file if it exists"}};
static_assert(defaults_documented(kOptions));

constexpr std::string_view kAbout = R"(usage: tcgen layout smem --dtype T --rows R --cols C [--major K|MN] [--swizzle S]
                         [--csv | --info] [--svg FILE [--force]]

A tcgen05.mma shared-memory operand tile of R rows (M for A, N for B) by C
columns (K), in the canonical layout (PTX #tcgen05-canonical-layouts), with the
tile base aligned to the swizzle pattern (1024 B for 128B).

options:
)";

constexpr std::string_view kExample = R"(
example:
  tcgen layout smem --dtype bf16 --major K --swizzle 128B --rows 128 --cols 64 --csv
)";

std::string swizzle_text(const layout::Swizzle& z) {
  return "Swizzle<" + std::to_string(z.bits) + "," + std::to_string(z.base) + "," + std::to_string(z.shift) + ">";
}

void print_csv(const SmemOperand& op) {
  const auto& s = op.spec();
  const bool sub_byte = s.element.bits < 8;
  Csv csv(std::cout, sub_byte ? std::initializer_list<std::string_view>{"row", "col", "offset", "bit"}
                              : std::initializer_list<std::string_view>{"row", "col", "offset"});
  for (Int r = 0; r < s.rows; ++r)
    for (Int c = 0; c < s.cols; ++c) {
      if (sub_byte)
        csv.row(r, c, op.address(0, r, c), op.bit(op.layout()(r, c)));
      else
        csv.row(r, c, op.address(0, r, c));
    }
}

void print_summary(const SmemOperand& op, const Dtype& dt) {
  const auto& s = op.spec();
  const auto atom = layout::atom_extent(s);
  const layout::Swizzle z = op.swizzle();
  const bool k_swizzled = s.major == Major::K && s.swizzle != SmemSwizzle::none;
  std::cout << "smem operand: " << dt.name << " (" << dt.note << "), " << layout::name(s.major) << "-major, swizzle "
            << layout::name(s.swizzle) << ", " << s.rows << " rows x " << s.cols << " cols (K)\n"
            << "swizzle atom: " << atom[0] << " rows x " << atom[1] << " cols\n"
            << "layout (row,col) -> element slot, before the swizzle (16 B = " << s.element.per_chunk
            << " slots):\n  " << layout::to_string(op.layout()) << "\n"
            << "swizzle: " << swizzle_text(z) << " on the byte address; "
            << (s.swizzle == SmemSwizzle::none ? std::string("tile base: any 16-byte aligned address")
                                               : "tile base aligned to " + std::to_string(z.period()) +
                                                     " B (descriptor base offset 0)")
            << "\n"
            << "LBO: " << mma::lbo(op) << " B (field " << (mma::lbo(op) >> 4) << ")"
            << (k_swizzled ? ", not used by swizzled K-major operands (assumed 1)" : "") << "\n"
            << "SBO: " << mma::sbo(op) << " B (field " << (mma::sbo(op) >> 4) << ")\n"
            << "layout type: " << mma::layout_type(s.swizzle) << " (descriptor bits 61-63, " << layout::name(s.swizzle) << ")\n"
            << "K steps: " << op.ksteps() << " of " << layout::kstep_elements(s.element)
            << " elements (32 B of K); start offsets:";
  constexpr Int kShown = 32;
  for (Int k = 0; k < std::min(op.ksteps(), kShown); ++k) std::cout << (k ? ", " : " ") << op.kstep_offset(k);
  if (op.ksteps() > kShown) std::cout << ", ... (first " << kShown << " shown)";
  std::cout << " B\nsize: " << op.size_bytes() << " B\n";
}

// ---- picture ---------------------------------------------------------------

struct Chunk {
  Int rmin = -1, rmax = -1, cmin = -1, cmax = -1;
  void add(Int r, Int c) {
    if (rmin < 0) { rmin = rmax = r; cmin = cmax = c; return; }
    rmin = std::min(rmin, r); rmax = std::max(rmax, r);
    cmin = std::min(cmin, c); cmax = std::max(cmax, c);
  }
};

std::string range(const char* p, Int a, Int b) {
  std::string s = p;
  s += std::to_string(a);
  if (a != b) {
    s += '-';
    s += std::to_string(b);
  }
  return s;
}
std::string tag(const char* p, Int v) { return range(p, v, v); }  // p followed by v

// Colour of the 16-byte chunk holding logical (r, c): hue by the chunk's index
// along the contiguous dimension (mod 8, the 128B swizzle phase), shade by the
// 8-row group across it (one core matrix per group).
std::string chunk_colour(const layout::SmemOperandSpec& s, Int r, Int c) {
  const Int T = s.element.per_chunk;
  const Int along = s.major == Major::K ? c / T : r / T;
  const Int across = s.major == Major::K ? r / 8 : c / 8;
  return hsl(static_cast<double>(along % 8) * 45.0 + 10.0, 0.65, across % 2 ? 0.70 : 0.84);
}

void draw(const SmemOperand& op, const Dtype& dt, const std::string& path) {
  const auto& s = op.spec();
  const Int T = s.element.per_chunk;
  const Int nchunks = op.size_bytes() / 16;
  std::vector<Chunk> chunks(static_cast<std::size_t>(nchunks));
  for (Int r = 0; r < s.rows; ++r)
    for (Int c = 0; c < s.cols; ++c) chunks[static_cast<std::size_t>(op.address(0, r, c) / 16)].add(r, c);

  constexpr Int kMaxLines = 64, kMaxLogicalRows = 64, kMaxLogicalCols = 16;
  const Int lines = (nchunks + 7) / 8, shown_lines = std::min(lines, kMaxLines);
  const bool kmaj = s.major == Major::K;
  // Logical view: one cell per 16-byte chunk; K-major rows x K chunks, MN-major K rows x M/N chunks.
  const Int lrows = kmaj ? s.rows : s.cols, lcols = kmaj ? s.cols / T : s.rows / T;
  const Int shown_lrows = std::min(lrows, kMaxLogicalRows), shown_lcols = std::min(lcols, kMaxLogicalCols);

  std::vector<std::string> labels;
  std::size_t longest = 8;
  for (Int i = 0; i < shown_lines * 8 && i < nchunks; ++i) {
    const Chunk& ch = chunks[static_cast<std::size_t>(i)];
    labels.push_back(ch.rmin < 0 ? "" : range("r", ch.rmin, ch.rmax) + " " + range("c", ch.cmin, ch.cmax));
    longest = std::max(longest, labels.back().size());
  }

  Svg svg;
  const double font = 9.5, h = 16, mw = std::max(84.0, 0.6 * font * static_cast<double>(longest) + 10), lw = 52;
  const double x0 = 64, y0 = 92;
  svg.text(10, 20, "tcgen layout smem: " + std::string(dt.name) + ", " + layout::name(s.major) + "-major, swizzle " +
                       layout::name(s.swizzle) + ", " + std::to_string(s.rows) + " x " + std::to_string(s.cols) +
                       " (rows x cols)", 14, "start", true);
  svg.text(10, 38, "LBO " + std::to_string(mma::lbo(op)) + " B, SBO " + std::to_string(mma::sbo(op)) + " B, layout type " +
                       std::to_string(mma::layout_type(s.swizzle)) + ", " + std::to_string(op.size_bytes()) +
                       " B" + (s.swizzle == SmemSwizzle::none ? std::string("; offsets from the tile base")
                                                   : "; offsets from a tile base aligned to " +
                                                         std::to_string(op.swizzle().period()) + " B"),
           11);
  svg.text(10, 54, std::string("colour: 16-B chunk index along ") + (kmaj ? "K" : "M/N") +
                       " (mod 8); light/dark: alternate 8-" + (kmaj ? "row" : "K-row") + " core-matrix groups",
           11);

  // Memory order.
  svg.text(x0, y0 - 16, "shared memory, address order: one line = 128 B, one cell = 16 B (rows r, cols c it holds)", 11,
           "start", true);
  for (int p = 0; p < 8; ++p) svg.text(x0 + (p + 0.5) * mw, y0 - 3, tag("+", 16 * p), 9, "middle");
  for (Int L = 0; L < shown_lines; ++L) {
    const double y = y0 + static_cast<double>(L) * h;
    svg.text(x0 - 4, y + h / 2 + 3, std::to_string(128 * L), 9, "end");
    for (int p = 0; p < 8; ++p) {
      const Int i = 8 * L + p;
      const double x = x0 + p * mw;
      if (i >= nchunks) break;
      const Chunk& ch = chunks[static_cast<std::size_t>(i)];
      svg.cell(x, y, mw, h, ch.rmin < 0 ? "#dddddd" : chunk_colour(s, ch.rmin, ch.cmin),
               labels[static_cast<std::size_t>(i)], font);
    }
  }
  double bottom = y0 + static_cast<double>(shown_lines) * h;
  if (shown_lines < lines)
    svg.text(x0, bottom + 14, "first " + std::to_string(shown_lines) + " of " + std::to_string(lines) +
                                  " lines shown (" + std::to_string(shown_lines * 128) + " of " +
                                  std::to_string(op.size_bytes()) + " B)", 10, "start", false, "#a00");

  // Logical tile.
  const double lx0 = x0 + 8 * mw + 80;
  svg.text(lx0, y0 - 16,
           std::string("logical tile: ") + (kmaj ? "row x 16-B chunk of K" : "K row x 16-B chunk of M/N") +
               "; label = byte offset",
           11, "start", true);
  for (Int j = 0; j < shown_lcols; ++j)
    svg.text(lx0 + (static_cast<double>(j) + 0.5) * lw, y0 - 3,
             range(kmaj ? "c" : "r", j * T, j * T + T - 1), 8, "middle");
  for (Int i = 0; i < shown_lrows; ++i) {
    const double y = y0 + static_cast<double>(i) * h;
    svg.text(lx0 - 4, y + h / 2 + 3, tag(kmaj ? "r" : "c", i), 9, "end");
    for (Int j = 0; j < shown_lcols; ++j) {
      const Int r = kmaj ? i : j * T, c = kmaj ? j * T : i;
      svg.cell(lx0 + static_cast<double>(j) * lw, y, lw, h, chunk_colour(s, r, c),
               std::to_string(op.address(0, r, c) / 16 * 16), font);
    }
    if (i % 8 == 7 && i + 1 < shown_lrows)
      svg.line(lx0, y + h, lx0 + static_cast<double>(shown_lcols) * lw, y + h, "#000", 1.5);
  }
  const double lbottom = y0 + static_cast<double>(shown_lrows) * h;
  if (shown_lrows < lrows || shown_lcols < lcols)
    svg.text(lx0, lbottom + 14, "first " + std::to_string(shown_lrows) + " of " + std::to_string(lrows) +
                                    (kmaj ? " rows" : " K rows") + ", " + std::to_string(shown_lcols) + " of " +
                                    std::to_string(lcols) + " chunks shown", 10, "start", false, "#a00");
  (void)bottom;
  svg.save(path);
}

}  // namespace

const std::span<const Option> layout_smem_options{kOptions};

int layout_smem(std::span<const std::string> argv) {
  if (wants_help(argv)) {
    std::cout << kAbout << options_help(kOptions) << kExample;
    return 0;
  }
  const Args args(argv, kOptions);
  check_force(args, guard_files(args, {}, {"svg"}), "--svg");  // before the work, like every output
  if (args.flag("csv") && args.flag("info")) fail("--info", "with --csv", "expected at most one of --csv and --info");
  const Dtype& dt = parse_dtype(args.text("dtype"));
  layout::SmemOperandSpec spec;
  spec.element = dt.element;
  spec.major = parse_major("--major", args.text("major"));
  spec.swizzle = parse_swizzle(args.text("swizzle"));
  spec.rows = args.integer("rows", 1, kMaxExtent);
  spec.cols = args.integer("cols", 1, kMaxExtent);
  const SmemOperand op = layout::make_smem_operand(spec);
  if (op.size_bytes() > kWindowBytes)
    fail("tile size", std::to_string(op.size_bytes()) + " B",
         "expected at most 262144 B, the 18-bit shared-memory window of the matrix descriptor");
  if (args.has("svg")) draw(op, dt, args.text("svg"));
  if (args.flag("csv"))
    print_csv(op);
  else
    print_summary(op, dt);
  return 0;
}

}  // namespace tcgen::cli
