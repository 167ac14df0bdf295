// tcgen atom: one tcgen05.ld / tcgen05.st access, thread register <-> TMEM cell.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "args.hpp"
#include "help.hpp"
#include "csv.hpp"
#include "run_files.hpp"
#include "svg.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/layout/tmem_thread_map.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

namespace {

using layout::Int;
using layout::TmemAccess;
using layout::TmemShape;

constexpr Option kOptions[] = {
    {"shape", "S", "32x32b 16x64b 16x128b 16x256b 16x32bx2"},
    {"num", "N", ".num: 1, 2, 4, ... 128, at most 128 registers per thread (default {--num})", "1"},
    {"pack", {},
     ".pack::16b (ld) / .unpack::16b (st): a register holds two 16-bit\n"
     "values, bits 0-15 from column 2c and bits 16-31 from column 2c+1"},
    {"half-split", "C",
     "16x32bx2 only: immHalfSplitoff, the column of the second 16-lane\n"
     "half (default N, or 2N with --pack: the halves side by side)"},
    {"csv", {}, "print thread,reg,bits,lane,col per register (per 16-bit half\nwith --pack: bits 0-15 / 16-31; otherwise 0-31)"},
    {"info", {}, "print the summary (the default without --csv)"},
    {"svg", "FILE", "draw lanes x columns, each cell labelled T<thread>.R<reg>\n(.lo/.hi with --pack), coloured by thread"},
    {"force", {}, "with --svg: replace the file if it exists"}};
static_assert(defaults_documented(kOptions));

constexpr std::string_view kAbout = R"(usage: tcgen atom --shape S [--num N] [--pack] [--half-split C]
                  [--csv | --info] [--svg FILE [--force]]

One warp-wide tcgen05.ld / tcgen05.st: which Tensor Memory cell (lane, column),
relative to taddr, register i of thread t holds (PTX #tcgen05-matrix-fragments;
CUTLASS Copy_Traits<SM100_TMEM_LOAD_*>). st uses the same map as ld.

options:
)";

constexpr std::string_view kExample = R"(
example:
  tcgen atom --shape 16x256b --num 1 --csv
)";

TmemShape parse_shape(const std::string& s) {
  for (TmemShape t : {TmemShape::s32x32b, TmemShape::s16x64b, TmemShape::s16x128b, TmemShape::s16x256b,
                      TmemShape::s16x32bx2})
    if (s == layout::name(t)) return t;
  fail("--shape", s, "expected 32x32b, 16x64b, 16x128b, 16x256b or 16x32bx2");
}

Int halves(const TmemAccess& a) { return a.pack ? 2 : 1; }

Int index(const layout::Layout& L, const TmemAccess& a, Int t, Int i, Int h) { return a.pack ? L(t, i, h) : L(t, i); }

std::string access_text(const TmemAccess& a) {
  std::string s = ".";
  s += layout::name(a.shape);
  s += ".x" + std::to_string(a.num);
  if (a.pack) s += ".pack::16b";
  return s;
}

void print_csv(const layout::Layout& L, const TmemAccess& a) {
  Csv csv(std::cout, {"thread", "reg", "bits", "lane", "col"});
  for (Int t = 0; t < 32; ++t)
    for (Int i = 0; i < a.registers(); ++i)
      for (Int h = 0; h < halves(a); ++h) {
        const auto cell = layout::tmem_cell(index(L, a, t, i, h));
        csv.row(t, i, a.pack ? (h ? "16-31" : "0-15") : "0-31", cell.lane, cell.column);
      }
}

void print_summary(const layout::Layout& L, const TmemAccess& a) {
  const Int lanes = layout::access_lanes(a.shape);
  std::cout << "tcgen05.ld/st" << access_text(a) << ": " << a.registers() << " registers per thread, " << lanes
            << " lanes x " << a.columns() << " columns from taddr\n"
            << "layout (thread, register" << (a.pack ? ", half" : "") << ") -> lane + 128*column:\n  "
            << layout::to_string(L) << "\n";
  if (a.shape == TmemShape::s16x32bx2)
    std::cout << "halves: threads 0-15 at taddr, threads 16-31 at taddr + " << a.split() << " (immHalfSplitoff)\n";
  std::cout << "the lane of taddr must be in the issuing warp's quarter: lane / 32 == warp id % 4\n";
  if (lanes == 32) std::cout << "one access covers all 32 lanes of the warp's quarter (taddr's lane = 32 * (warp id % 4))\n";
  if (lanes == 16)
    std::cout << "a warp's other 16 lanes: a second access at taddr + (16 << 16) = taddr + 0x100000 (lane + 16),"
                 " not taddr + 16 (column + 16)\n";
  std::cout << "next block of columns: taddr + " << a.columns() << "\n";
}

struct Slot {
  Int t = -1, i = -1, h = 0;
};

void draw(const layout::Layout& L, const TmemAccess& a, const std::string& path) {
  constexpr Int kMaxColumns = 32;
  const Int lanes = layout::access_lanes(a.shape), cols = a.columns(), shown = std::min(cols, kMaxColumns);
  std::vector<Slot> slots(static_cast<std::size_t>(lanes * shown));
  for (Int t = 0; t < 32; ++t)
    for (Int i = 0; i < a.registers(); ++i)
      for (Int h = 0; h < halves(a); ++h) {
        const auto cell = layout::tmem_cell(index(L, a, t, i, h));
        if (cell.column < shown) slots[static_cast<std::size_t>(cell.lane * shown + cell.column)] = {t, i, h};
      }
  auto label = [&](const Slot& s) {
    std::string text = "T";
    text += std::to_string(s.t) + ".R" + std::to_string(s.i);
    if (a.pack) text += s.h ? ".hi" : ".lo";
    return text;
  };

  Svg svg;
  const double font = 8, w = a.pack ? 60 : 48, h = 15, x0 = 62, y0 = 104;
  svg.text(10, 20, "tcgen atom: tcgen05.ld/st" + access_text(a) + " - " + std::to_string(a.registers()) +
                       " registers per thread, " + std::to_string(lanes) + " lanes x " + std::to_string(cols) +
                       " columns",
           14, "start", true);
  svg.text(10, 38, "cell = TMEM (lane, column) relative to taddr; label T<thread>.R<register>" +
                       std::string(a.pack ? ".lo (bits 0-15) / .hi (bits 16-31)" : "") + "; colour = thread",
           11);
  if (a.shape == TmemShape::s16x32bx2)
    svg.text(10, 54, "threads 0-15 at taddr, threads 16-31 at taddr + immHalfSplitoff = column " +
                         std::to_string(a.split()), 11);
  else
    svg.text(10, 54, "taddr's lane must lie in the issuing warp's lane quarter (lane / 32 == warp id % 4)", 11);
  for (Int c = 0; c < shown; ++c)
    svg.text(x0 + (static_cast<double>(c) + 0.5) * w, y0 - 4, "col " + std::to_string(c), 8, "middle");
  for (Int lane = 0; lane < 32; ++lane) {
    const double y = y0 + static_cast<double>(lane) * h;
    svg.text(x0 - 4, y + h / 2 + 3, "lane " + std::to_string(lane), 8, "end");
    const bool second = lane >= lanes;  // 16-lane shapes: the other half of the quarter
    for (Int c = 0; c < shown; ++c) {
      const Slot& s = slots[static_cast<std::size_t>((lane % lanes) * shown + c)];
      const double x = x0 + static_cast<double>(c) * w;
      if (s.t < 0) {
        svg.cell(x, y, w, h, "#e4e4e4", "", font);
      } else if (second) {
        svg.rect(x, y, w, h, hsl(spread_hue(static_cast<int>(s.t)), 0.35, 0.94), "#bbb");
        svg.text(x + w / 2, y + h / 2 + 3, label(s), font, "middle", false, "#999");
      } else {
        svg.cell(x, y, w, h, hsl(spread_hue(static_cast<int>(s.t)), 0.65, s.t % 2 ? 0.74 : 0.82), label(s), font);
      }
    }
  }
  const double right = x0 + static_cast<double>(shown) * w;
  if (lanes == 16) {
    svg.line(x0, y0 + 16 * h, right, y0 + 16 * h, "#000", 2.5);
    svg.text(right + 8, y0 + 8 * h, "this access: lanes 0-15", 10, "start", true);
    svg.text(right + 8, y0 + 24 * h - 8, "lanes 16-31: a SECOND access at", 10, "start", true, "#a00");
    svg.text(right + 8, y0 + 24 * h + 6, "taddr + (16 << 16) = lane + 16,", 10, "start", true, "#a00");
    svg.text(right + 8, y0 + 24 * h + 20, "not taddr + 16 (= column + 16)", 10, "start", true, "#a00");
    svg.text(right + 8, y0 + 24 * h + 34, "(same pattern, that access's registers)", 10, "start", false, "#a00");
  }
  if (a.shape == TmemShape::s32x32b)
    svg.text(right + 8, y0 + 16 * h, "thread t = lane t, register i = column i", 10, "start", true);
  const double bottom = y0 + 32 * h + 16;
  svg.text(x0, bottom, "the next block of columns starts at taddr + " + std::to_string(cols), 10);
  if (shown < cols)
    svg.text(x0, bottom + 14, "columns 0-" + std::to_string(shown - 1) + " of " + std::to_string(cols) + " shown", 10,
             "start", false, "#a00");
  svg.save(path);
}

}  // namespace

const std::span<const Option> atom_options{kOptions};

int atom(std::span<const std::string> argv) {
  if (wants_help(argv)) {
    std::cout << kAbout << options_help(kOptions) << kExample;
    return 0;
  }
  const Args args(argv, kOptions);
  check_force(args, guard_files(args, {}, {"svg"}), "--svg");  // before the work, like every output
  if (args.flag("csv") && args.flag("info")) fail("--info", "with --csv", "expected at most one of --csv and --info");
  TmemAccess a;
  a.shape = parse_shape(args.text("shape"));
  a.num = args.integer("num", 0, 65536);
  a.pack = args.flag("pack");
  if (args.has("half-split")) {
    if (a.shape != TmemShape::s16x32bx2)
      fail("--half-split", args.text("half-split"), "expected only with --shape 16x32bx2");
    a.half_split = args.integer("half-split", 1, 511);
  }
  const layout::Layout L = layout::make_thread_map(a);
  if (a.columns() > layout::kTmemColumns)
    fail("half_split", std::to_string(a.half_split),
         "expected the access (" + std::to_string(a.columns()) +
             " columns from taddr) to fit in the 512 Tensor Memory columns");
  if (args.has("svg")) draw(L, a, args.text("svg"));
  if (args.flag("csv"))
    print_csv(L, a);
  else
    print_summary(L, a);
  return 0;
}

}  // namespace tcgen::cli
