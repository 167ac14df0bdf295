// tcgen layout tmem: where tcgen05.mma puts the accumulator D in Tensor Memory.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "help.hpp"
#include "csv.hpp"
#include "run_files.hpp"
#include "svg.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/layout/tmem_datapath.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

using layout::AccumulatorSpec;
using layout::DatapathLayout;
using layout::Int;
using layout::kTmemLanes;

constexpr Option kOptions[] = {
    {"m", "M", "rows of D: 64 or 128 (cta_group 1), 32/64/128 with --ws,\n128 or 256 (cta_group 2)"},
    {"n", "N", "columns of D: 8..256 step 8 (cta_group 1), 64/128/256 with --ws,\n16..256 step 16 (cta_group 2)"},
    {"cta-group", "G", "1 or 2 (default {--cta-group}); with 2, CTA v of the pair holds rows\n[v*M/2, (v+1)*M/2)", "1"},
    {"ws", {}, "the .ws (weight-stationary) variant, cta_group 1 only"},
    {"sparse", {}, "sparse A (only changes M=128 cta_group 2: Layout C instead of B)"},
    {"csv", {}, "print row,col,lane,column for every element of D (row-major);\nwith --cta-group 2: row,col,cta,lane,column"},
    {"info", {},
     "print the summary (the default without --csv): layout letter,\n"
     "columns used, allowed lane offsets, which warp reads which rows"},
    {"svg", "FILE",
     "draw lanes x columns, each cell labelled with the (row, col) of D\n"
     "it holds, coloured by lane quarter (the warp that may access it)"},
    {"force", {}, "with --svg: replace the file if it exists"}};
static_assert(defaults_documented(kOptions));

constexpr std::string_view kAbout = R"(usage: tcgen layout tmem --m M --n N [--cta-group 1|2] [--ws] [--sparse]
                         [--csv | --info] [--svg FILE [--force]]

Where tcgen05.mma writes the M x N accumulator D in Tensor Memory: the
datapath Layouts A-G of PTX #tcgen05-data-path-layout-organization, as
(lane, column) from the d-tmem address (cells are 32 bits; f16 D is not packed).

options:
)";

constexpr std::string_view kExample = R"(
example:
  tcgen layout tmem --m 128 --n 256 --cta-group 1 --csv
)";

const char* datapath_text(DatapathLayout l) {
  switch (l) {
    case DatapathLayout::A: return "4x1 datapath, M=256 over a CTA pair";
    case DatapathLayout::B: return "2x2 datapath, M=128 over a CTA pair";
    case DatapathLayout::C: return "4x1, half datapath, sparse M=128 over a CTA pair (modelled as F per CTA; UNCONFIRMED)";
    case DatapathLayout::D: return "4x1 datapath";
    case DatapathLayout::E: return "2x2 datapath (.ws); PTX writes 2x3";
    case DatapathLayout::F: return "4x1, half datapath: lanes 0-15 (or 16-31) of each quarter";
    case DatapathLayout::G: return "1x4 datapath (.ws)";
  }
  return "?";
}

struct Cell {
  Int row = -1, col = -1;
};

// Which (row, col) of D each (cta, lane, column) holds, for columns < shown.
std::vector<Cell> inverse(const layout::Layout& L, const AccumulatorSpec& s, Int ctas, Int shown) {
  std::vector<Cell> cells(static_cast<std::size_t>(ctas * kTmemLanes * shown));
  for (Int r = 0; r < s.m; ++r)
    for (Int c = 0; c < s.n; ++c) {
      const layout::TmemCell t = layout::tmem_cell(L(r, c));
      if (t.column < shown) cells[static_cast<std::size_t>((t.cta * kTmemLanes + t.lane) * shown + t.column)] = {r, c};
    }
  return cells;
}

void print_csv(const layout::Layout& L, const AccumulatorSpec& s) {
  if (s.cta_group == 2) {
    Csv csv(std::cout, {"row", "col", "cta", "lane", "column"});
    for (Int r = 0; r < s.m; ++r)
      for (Int c = 0; c < s.n; ++c) {
        const auto t = layout::tmem_cell(L(r, c));
        csv.row(r, c, t.cta, t.lane, t.column);
      }
  } else {
    Csv csv(std::cout, {"row", "col", "lane", "column"});
    for (Int r = 0; r < s.m; ++r)
      for (Int c = 0; c < s.n; ++c) {
        const auto t = layout::tmem_cell(L(r, c));
        csv.row(r, c, t.lane, t.column);
      }
  }
}

void print_summary(const layout::Layout& L, const AccumulatorSpec& s) {
  const DatapathLayout dl = layout::datapath_layout(s);
  std::cout << "accumulator D: M=" << s.m << " N=" << s.n << " cta_group::" << s.cta_group << (s.ws ? " .ws" : "")
            << (s.sparse ? " sparse" : "") << "\n"
            << "datapath layout: " << layout::name(dl) << " (" << datapath_text(dl) << ")\n"
            << "layout (row,col) -> lane + 128*column" << (s.cta_group == 2 ? " + 65536*cta" : "") << ":\n  "
            << layout::to_string(L) << "\n"
            << "columns used: " << layout::accumulator_columns(s) << " of 512" << (s.cta_group == 2 ? " in each CTA" : "")
            << " (allocate at least " << std::max<Int>(32, std::bit_ceil(static_cast<std::uint64_t>(layout::accumulator_columns(s))))
            << ")\n"
            << "allowed d-tmem lane offsets: "
            << (layout::lane_offset_allowed(dl, 16) ? "0 or 16 (same for A, D and sparsity metadata)" : "0") << "\n"
            << "tcgen05.ld: warp w may read lanes 32*(w%4) .. 32*(w%4)+31 only:\n";
  const Int ctas = s.cta_group;
  for (Int v = 0; v < ctas; ++v)
    for (Int q = 0; q < 4; ++q) {
      Int rmin = -1, rmax = -1, cmin = -1, cmax = -1, count = 0;
      for (Int r = 0; r < s.m; ++r)
        for (Int c = 0; c < s.n; ++c) {
          const auto t = layout::tmem_cell(L(r, c));
          if (t.cta != v || t.lane / 32 != q) continue;
          if (count++ == 0) { rmin = rmax = r; cmin = cmax = c; }
          rmin = std::min(rmin, r); rmax = std::max(rmax, r);
          cmin = std::min(cmin, c); cmax = std::max(cmax, c);
        }
      std::cout << "  " << (ctas == 2 ? "CTA " + std::to_string(v) + " " : "") << "warp " << q << " (lanes "
                << 32 * q << "-" << 32 * q + 31 << "): ";
      if (count == 0)
        std::cout << "nothing\n";
      else
        std::cout << "rows " << rmin << "-" << rmax << ", cols " << cmin << "-" << cmax << " (" << count
                  << " elements)\n";
    }
}

void draw(const layout::Layout& L, const AccumulatorSpec& s, const std::string& path) {
  constexpr Int kMaxColumns = 8;
  const Int used = layout::accumulator_columns(s), shown = std::min(used, kMaxColumns), ctas = s.cta_group;
  const auto cells = inverse(L, s, ctas, shown);
  const DatapathLayout dl = layout::datapath_layout(s);

  Svg svg;
  const double font = 8, w = 46, h = 13, x0 = 62, y0 = 104, gap = 110;
  svg.text(10, 20, "tcgen layout tmem: M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " cta_group::" +
                       std::to_string(s.cta_group) + (s.ws ? " .ws" : "") + (s.sparse ? " sparse" : "") +
                       "  ->  Layout " + layout::name(dl),
           14, "start", true);
  svg.text(10, 38, std::string(datapath_text(dl)) + "; " + std::to_string(used) + " columns used" +
                       (ctas == 2 ? " in each CTA" : ""), 11);
  svg.text(10, 54, "cell = one 32-bit TMEM cell (lane, column) from d-tmem, labelled with the (row,col) of D it holds;", 11);
  svg.text(10, 70, "colour = lane quarter: only warp q (warp id % 4) may tcgen05.ld/st lanes 32q..32q+31; grey = unused", 11);
  for (Int v = 0; v < ctas; ++v) {
    const double px = x0 + static_cast<double>(v) * (static_cast<double>(shown) * w + gap);
    if (ctas == 2) svg.text(px, y0 - 18, "CTA " + std::to_string(v) + " of the pair", 11, "start", true);
    for (Int c = 0; c < shown; ++c)
      svg.text(px + (static_cast<double>(c) + 0.5) * w, y0 - 4, "col " + std::to_string(c), 8, "middle");
    for (Int lane = 0; lane < kTmemLanes; ++lane) {
      const double y = y0 + static_cast<double>(lane) * h;
      svg.text(px - 4, y + h / 2 + 3, "lane " + std::to_string(lane), 8, "end");
      for (Int c = 0; c < shown; ++c) {
        const Cell& cell = cells[static_cast<std::size_t>((v * kTmemLanes + lane) * shown + c)];
        const bool empty = cell.row < 0;
        const std::string fill = empty ? "#e4e4e4" : hsl(static_cast<double>(lane / 32) * 90 + 20, 0.6, lane % 2 ? 0.78 : 0.84);
        svg.cell(px + static_cast<double>(c) * w, y, w, h, fill,
                 empty ? "" : std::to_string(cell.row) + "," + std::to_string(cell.col), font);
      }
      if (lane % 32 == 31 && lane + 1 < kTmemLanes)
        svg.line(px, y + h, px + static_cast<double>(shown) * w, y + h, "#000", 2);
    }
    for (Int q = 0; q < 4; ++q)
      svg.text(px + static_cast<double>(shown) * w + 6, y0 + (static_cast<double>(q) * 32 + 16) * h + 3,
               "warp " + std::to_string(q), 10, "start", true);
  }
  const double bottom = y0 + static_cast<double>(kTmemLanes) * h + 16;
  if (shown < used)
    svg.text(x0, bottom, "columns 0-" + std::to_string(shown - 1) + " of " + std::to_string(used) +
                             " shown; the pattern repeats along the columns", 10, "start", false, "#a00");
  if (layout::lane_offset_allowed(dl, 16))
    svg.text(x0, bottom + 14, "drawn for a d-tmem lane offset of 0; with 16, every row moves down 16 lanes inside its quarter",
             10, "start", false, "#a00");
  svg.save(path);
}

}  // namespace

const std::span<const Option> layout_tmem_options{kOptions};

int layout_tmem(std::span<const std::string> argv) {
  if (wants_help(argv)) {
    std::cout << kAbout << options_help(kOptions) << kExample;
    return 0;
  }
  const Args args(argv, kOptions);
  check_force(args, guard_files(args, {}, {"svg"}), "--svg");  // before the work, like every output
  if (args.flag("csv") && args.flag("info")) fail("--info", "with --csv", "expected at most one of --csv and --info");
  AccumulatorSpec spec;
  spec.m = static_cast<int>(args.integer("m", 0, 65536));
  spec.n = static_cast<int>(args.integer("n", 0, 65536));
  spec.cta_group = static_cast<int>(args.integer("cta-group", 0, 65536));
  spec.ws = args.flag("ws");
  spec.sparse = args.flag("sparse");
  const layout::Layout L = layout::make_accumulator_layout(spec);
  if (args.has("svg")) draw(L, spec, args.text("svg"));
  if (args.flag("csv"))
    print_csv(L, spec);
  else
    print_summary(L, spec);
  return 0;
}

}  // namespace tcgen::cli
