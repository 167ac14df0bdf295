// tcgen05.ld / tcgen05.st (PTX #tcgen05-instructions-tcgen05-ld,
// #tcgen05-instructions-tcgen05-st): warp-collective, one taddr for the warp,
// lanes restricted to the warp's quarter, the thread maps of ld_st_access.hpp.
#include <algorithm>
#include <string>

#include "tcgen/model/cta.hpp"
#include "tcgen/core/hex.hpp"

namespace tcgen::model {

namespace {

std::array<std::uint32_t, 32> same_for_all(std::uint32_t taddr) {
  std::array<std::uint32_t, 32> a;
  a.fill(taddr);
  return a;
}

// Calls f(thread, register, half, lane, column) for every cell of the access.
template <class F>
void for_each_cell(const LdStAccess& a, std::uint32_t taddr, F&& f) {
  const int lane0 = static_cast<int>(taddr >> 16), col0 = static_cast<int>(taddr & 0xFFFF);
  const int regs = registers(a), halves = a.pack ? 2 : 1;
  for (int t = 0; t < 32; ++t)
    for (int i = 0; i < regs; ++i)
      for (int h = 0; h < halves; ++h) {
        const CellOffset o = cell_offset(a, t, i, h);
        f(t, i, h, lane0 + o.lane, col0 + o.column);
      }
}

}  // namespace

std::uint32_t Cta::uniform_taddr(const Issue& issue, int warp, const std::array<std::uint32_t, 32>& taddr) {
  for (int t = 1; t < 32; ++t)
    if (taddr[t] != taddr[0])
      raise(ModelError(issue, Rule::taddr_not_uniform, "taddr", hex(taddr[t]) + " in thread " + std::to_string(t),
                       "thread 0 gives " + hex(taddr[0]) + "; a per-thread address does not select per-thread cells, "
                       "the thread map does."));
  std::uint32_t lane = taddr[0] >> 16;
  const std::uint32_t column = taddr[0] & 0xFFFFu, quarter = static_cast<std::uint32_t>(warp % 4);
  if (lane >= TensorMemory::kLanes) {
    // A PTX letter: unless it is an error, the access goes on at lane % 128, as on B200s (rule.hpp).
    raise(ModelError(issue, Rule::tmem_lane_past_127, "taddr lane", std::to_string(lane),
                     "the model takes lane " + std::to_string(lane % TensorMemory::kLanes) +
                         " (lane % 128); an M = 256 pair's second 128 rows are lanes 0-127 of the odd CTA."));
    lane %= TensorMemory::kLanes;
  }
  if (lane / 32 == quarter) return lane << 16 | column;
  // A PTX letter: unless it is an error, the access goes on in the warp's own quarter, at the same
  // lane within it (rule.hpp): B200s ignore the lane field's quarter bits.
  const std::uint32_t own = 32 * quarter + lane % 32;
  raise(ModelError(issue, Rule::lane_quarter_implied, "taddr lane", std::to_string(lane),
                   "warp " + std::to_string(warp) + " owns lanes " + std::to_string(32 * quarter) + " to " +
                       std::to_string(32 * quarter + 31) + "; the model takes lane " + std::to_string(own) +
                       ", as B200s do: they ignore the lane field's warp bits (DeepGEMM's and FlashMLA's kernels "
                       "rely on it)."));
  return own << 16 | column;
}

void Cta::check_ld_st(const Issue& issue, int warp, const LdStAccess& a, std::uint32_t taddr) {
  const std::string p = problem(a);
  if (!p.empty()) raise(ModelError(issue, Rule::ldst_access, "shape", issue.instruction, p + "."));
  // PTX #tcgen05-tensor-memory-ld-st-access-restrictions: warp w owns lanes 32·(w%4) … +31.
  const int lane0 = static_cast<int>(taddr >> 16), q = warp % 4, n = lanes(a.shape);
  if (lane0 < 32 * q || lane0 + n > 32 * q + 32)
    raise(ModelError(issue, Rule::lane_quarter, "taddr lane", std::to_string(lane0),
                     "the access covers lanes " + std::to_string(lane0) + " to " + std::to_string(lane0 + n - 1) +
                         ", but warp " + std::to_string(warp) + " (warp % 4 = " + std::to_string(q) +
                         ") may access only lanes " + std::to_string(32 * q) + " to " + std::to_string(32 * q + 31) +
                         "."));
  int first = 1 << 30, last = -1;
  for_each_cell(a, taddr, [&](int, int, int, int, int col) {
    first = std::min(first, col);
    last = std::max(last, col);
  });
  for_each_cell(a, taddr, [&](int, int, int, int, int col) { check_column(issue, col, first, last); });
}

WarpRegisters Cta::ld(int warp, const LdStAccess& access, std::uint32_t taddr) {
  return ld(warp, access, same_for_all(taddr));
}

WarpRegisters Cta::ld(int warp, const LdStAccess& a, const std::array<std::uint32_t, 32>& taddr) {
  return ld(warp, a, taddr, nullptr);
}

WarpRegisters Cta::ld(int warp, const LdStAccess& a, const std::array<std::uint32_t, 32>& taddr,
                      std::vector<UndefinedRead>* undefined) {
  const Issue issue{instruction_name(true, a), warp};
  check_thread(issue, {warp, 0});
  const std::uint32_t base = uniform_taddr(issue, warp, taddr);
  check_ld_st(issue, warp, a, base);
  WarpRegisters regs;
  for (auto& r : regs) r.assign(static_cast<std::size_t>(registers(a)), 0);
  for_each_cell(a, base, [&](int t, int i, int h, int lane, int col) {
    check_order(issue, Touch::ld, warp, keys_.ld(warp), lane, col);
    if (!undefined) {
      check_written(issue, lane, col, "");
    } else if (const std::uint32_t by_mma = tmem_.undefined_by(lane, col); by_mma || tmem_.writer(lane, col) == 0) {
      undefined->push_back({static_cast<std::uint16_t>(t), static_cast<std::uint16_t>(i),
                            static_cast<std::uint16_t>(lane), static_cast<std::uint16_t>(col), by_mma});
    }
    const std::uint32_t v = tmem_.value(lane, col);
    regs[t][i] |= a.pack ? (v & 0xFFFFu) << (16 * h) : v;
  });
  const std::uint32_t id = issue_op(OpKind::ld, keys_.ld(warp), warp, -1, issue.instruction, lanes(a.shape));
  warps_[warp].ld_last = id;
  warps_[warp].released.complete.raise(keys_.ld_issued(warp), id + 1);  // what its next arrival publishes
  for_each_cell(a, base, [&](int, int, int, int lane, int col) { tmem_.set_reader(lane, col, id); });
  return regs;
}

void Cta::st(int warp, const LdStAccess& access, std::uint32_t taddr, const WarpRegisters& regs) {
  st(warp, access, same_for_all(taddr), regs);
}

void Cta::st(int warp, const LdStAccess& a, const std::array<std::uint32_t, 32>& taddr, const WarpRegisters& regs,
             const WarpSources* sources) {
  const Issue issue{instruction_name(false, a), warp};
  check_thread(issue, {warp, 0});
  const std::uint32_t base = uniform_taddr(issue, warp, taddr);
  check_ld_st(issue, warp, a, base);
  for (int t = 0; t < 32; ++t)
    if (regs[t].size() != static_cast<std::size_t>(registers(a)))
      raise(ModelError(issue, Rule::ldst_access, "registers", std::to_string(regs[t].size()) + " in thread " +
                       std::to_string(t), "the access takes " + std::to_string(registers(a)) + " per thread."));
  for_each_cell(a, base, [&](int, int, int, int lane, int col) {
    check_order(issue, Touch::st, warp, keys_.st(warp), lane, col);
  });
  const std::uint32_t id = issue_op(OpKind::st, keys_.st(warp), warp, -1, issue.instruction, lanes(a.shape));
  warps_[warp].released.complete.raise(keys_.st_issued(warp), id + 1);  // what its next arrival publishes
  for_each_cell(a, base, [&](int t, int i, int h, int lane, int col) {
    // .unpack::16b: each half into the low 16 bits of its column; the model
    // writes the high 16 bits as zero (PTX leaves them unstated).
    tmem_.set_value(lane, col, a.pack ? (regs[t][i] >> (16 * h)) & 0xFFFFu : regs[t][i]);
    tmem_.set_writer(lane, col, id);
  });
  // A register's 4 bytes land whole in one cell unless .unpack::16b splits them: only whole ones keep a source.
  if (!config_.provenance || sources == nullptr || a.pack) return;
  if (tmem_sources_.empty()) tmem_sources_.resize(std::size_t{TensorMemory::kLanes} * TensorMemory::kColumns);
  for_each_cell(a, base, [&](int t, int i, int, int lane, int col) {
    const std::vector<std::uint64_t>& s = (*sources)[static_cast<std::size_t>(t)];
    const std::uint64_t global = static_cast<std::size_t>(i) < s.size() ? s[static_cast<std::size_t>(i)] : 0;
    tmem_sources_[static_cast<std::size_t>(lane) * TensorMemory::kColumns + col] = {id, global, true};
  });
}

}  // namespace tcgen::model
