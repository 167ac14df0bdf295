// Which MMA a Tensor Memory cell never written lies beside: an instruction
// descriptor whose M or N is not the D tile the kernel reads back (M = 128
// put one bit low reads as 64) writes fewer lanes or columns than the
// tcgen05.ld that follows reads, and the ld finds a cell never written. Each
// MMA's shape, lanes and columns are kept per d-tmem so that the ld's error
// names the MMA, what its shape wrote and what shape would have reached the
// cell (PTX #tcgen05-data-path-layout-organization, #tcgen05-instruction-descriptor).
#include <bitset>
#include <string>

#include "tcgen/model/cta.hpp"
#include "tcgen/model/datapath.hpp"

namespace tcgen::model {

namespace {

// "0-15, 32-47, 64-79 and 96-111"
std::string lane_ranges(const std::bitset<128>& lanes) {
  std::string s;
  for (int first = 0; first < 128;) {
    if (!lanes[static_cast<std::size_t>(first)]) {
      ++first;
      continue;
    }
    int last = first;
    while (last + 1 < 128 && lanes[static_cast<std::size_t>(last + 1)]) ++last;
    if (!s.empty()) s += ", ";
    s += std::to_string(first);
    if (last > first) {
      s += '-';
      s += std::to_string(last);
    }
    first = last + 1;
  }
  const std::size_t comma = s.rfind(", ");
  return comma == std::string::npos ? s : s.replace(comma, 2, " and ");
}

}  // namespace

void Cta::note_mma_write(const Issue& issue, const MmaShape& now, int columns, bool one_cta_layout,
                         const std::bitset<128>& lanes) {
  for (const MmaWrite& w : mma_writes_)
    if (w.d_tmem == now.d_tmem && w.m == now.m && w.n == now.n && w.lanes == lanes) return;  // known already
  std::erase_if(mma_writes_, [&](const MmaWrite& w) { return w.d_tmem == now.d_tmem; });
  const Cta& issuer = acting_ ? *acting_ : *this;
  mma_writes_.push_back({now.d_tmem, now.m, now.n, columns, one_cta_layout, lanes, op_instruction(issue.instruction),
                         issuer.locator_ ? issuer.locator_() : std::string()});
}

std::string Cta::mma_write_near(int lane, int column) const {
  const auto named = [](const MmaWrite& w) {
    return " The MMA " + (w.where.empty() ? w.instruction : "at " + w.where) + " (M = " + std::to_string(w.m) +
           ", N = " + std::to_string(w.n) + ") wrote D to lanes " + lane_ranges(w.lanes) + ", columns " +
           std::to_string(w.d_tmem & 0xFFFF) + "-" + std::to_string((w.d_tmem & 0xFFFF) + w.columns - 1);
  };
  // Inside an MMA's columns, in a lane its M (its D layout) did not reach.
  for (const MmaWrite& w : mma_writes_) {
    const int col0 = static_cast<int>(w.d_tmem & 0xFFFF), lane0 = static_cast<int>(w.d_tmem >> 16);
    if (column < col0 || column >= col0 + w.columns || w.lanes[static_cast<std::size_t>(lane)]) continue;
    std::string s = named(w) + ", not lane " + std::to_string(lane);
    // cta_group::1 without .ws: M = 128 is Layout D from lane 0, M = 64 Layout F from lane 0 or 16.
    for (const int m : {64, 128}) {
      if (!w.one_cta_layout || m == w.m || (m == 128 && lane0 != 0)) continue;
      for (int v = 0; v < m; ++v)
        if (datapath_lane(m, v, lane0) == lane) {
          s += "; an M of " + std::to_string(m) + " would have written it (idesc bits 24-28 hold M >> 4: " +
               std::to_string(m >> 4) + ", here " + std::to_string(w.m >> 4) + ")";
          break;
        }
    }
    return s + ".";
  }
  // Past the columns of the nearest MMA to its left that wrote this lane: its N was too small.
  const MmaWrite* near = nullptr;
  for (const MmaWrite& w : mma_writes_) {
    const int col0 = static_cast<int>(w.d_tmem & 0xFFFF);
    if (w.lanes[static_cast<std::size_t>(lane)] && col0 + w.columns <= column && column - col0 < 256 &&
        (!near || col0 > static_cast<int>(near->d_tmem & 0xFFFF)))
      near = &w;
  }
  if (!near) return "";
  // N columns of D take `columns` of Tensor Memory (fewer for .ws, which folds rows into lanes).
  const int reach = (column - static_cast<int>(near->d_tmem & 0xFFFF)) * near->n / near->columns;
  return named(*near) + ", not column " + std::to_string(column) + ": an N above " + std::to_string(reach) +
         " would have reached it (idesc bits 17-22 hold N >> 3: " + std::to_string(near->n >> 3) + " here).";
}

}  // namespace tcgen::model
