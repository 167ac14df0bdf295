#include "tcgen/core/hex.hpp"
#include "tcgen/exec/warp_collectives.hpp"

#include <cstdio>
#include <string_view>

#include "tcgen/exec/errors.hpp"
#include "tcgen/exec/thread_set.hpp"

namespace tcgen::exec {

namespace {

constexpr const char* kAlignedRule =
    "a .sync.aligned instruction is executed by all 32 threads of the warp together, at the same instruction "
    "(PTX #tcgen05-instructions-tcgen05-ld, #parallel-synchronization-and-communication-instructions-bar)";
constexpr const char* kMaskRule =
    "the threads of membermask that have not exited execute the same .sync instruction with the same membermask, "
    "which holds the executing thread (PTX #data-movement-and-conversion-instructions-shfl-sync)";

std::string at(const CollectiveOp& op) { return op.instruction + " at " + site_text(op.site); }

// "with membermask 0x0000001f", for the instructions that take one.
std::string with_mask(const CollectiveOp& op, std::uint32_t mask) {
  return op.aligned ? "" : " with membermask " + hex(mask, 8);
}

// "lanes 0-15 wait", "lane 0 waits".
std::string lanes_wait(std::uint32_t lanes) {
  return lanes_text(lanes) + ((lanes & (lanes - 1)) == 0 ? " waits" : " wait");
}

bool same_instruction(const CollectiveOp& a, const CollectiveOp& b) {
  if (a.instruction != b.instruction || a.aligned != b.aligned) return false;
  if (!a.aligned) return true;  // shfl.sync and friends may meet from different sites (sm_70 and later)
  return a.site.line == b.site.line && a.site.column == b.site.column &&
         std::string_view(a.site.file) == b.site.file;
}

}  // namespace

std::string site_text(const CodeSite& site) {
  const std::string_view file = site.file;
  const std::size_t slash = file.find_last_of('/');
  return std::string(slash == std::string_view::npos ? file : file.substr(slash + 1)) + ":" +
         std::to_string(site.line);
}

void WarpCollectives::fail(const CollectiveOp& op, const std::string& detail) const {
  throw ConvergenceError(op.instruction, warp_, detail, op.aligned ? kAlignedRule : kMaskRule);
}

std::optional<std::uint32_t> WarpCollectives::arrive(int lane, const CollectiveOp& op, std::uint32_t mask, void* frame,
                                                     Run run) {
  const std::uint32_t me = 1u << lane;
  if (op.aligned && mask != 0xFFFFFFFFu)
    fail(op, "it is issued with member mask " + hex(mask, 8) + " at " + site_text(op.site));
  if (!(mask & me))
    fail(op, "lane " + std::to_string(lane) + " executes it with membermask " + hex(mask, 8) + ", which leaves it out");
  const auto exited_fail = [&] {
    fail(op, "lane " + std::to_string(lane) + " arrives at " + site_text(op.site) + " but " + lanes_text(exited_) +
                 " of the warp have exited");
  };
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    Pending& p = pending_[i];
    if (p.mask & me) {
      if (op.aligned && (exited_ & mask) && !p.apart) exited_fail();
      if (!same_instruction(p.op, op) || p.mask != mask)
        fail(op, "lane " + std::to_string(lane) + " arrives at " + at(op) + with_mask(op, mask) + ", while " +
                     lanes_wait(p.arrived) + " at " + at(p.op) + with_mask(p.op, p.mask));
      p.arrived |= me;
      p.frames[lane] = frame;
      return complete_if_ready(i, lane);
    }
    // Lanes of this mask waiting at another collective: an error for .aligned instructions; a
    // .sync one waits until they come (a diverged warp's halves finish their own collectives first).
    if ((p.arrived & mask) && (op.aligned || p.op.aligned))
      fail(op, "lane " + std::to_string(lane) + " arrives at " + at(op) + with_mask(op, mask) + ", but " +
                   lanes_wait(p.arrived & mask) + " at " + at(p.op) + with_mask(p.op, p.mask));
  }
  // The first lane of an aligned instruction whose warp has exited lanes asks once whether it runs apart.
  const bool apart = op.aligned && (exited_ & mask) && apart_ && apart_(op, mask & ~exited_, exited_ & mask);
  if (op.aligned && (exited_ & mask) && !apart) exited_fail();
  Pending p{op, mask, me, {}, std::move(run), apart};
  p.frames[lane] = frame;
  pending_.push_back(std::move(p));
  return complete_if_ready(pending_.size() - 1, lane);
}

std::optional<std::uint32_t> WarpCollectives::complete_if_ready(std::size_t i, int lane) {
  Pending& p = pending_[i];
  const std::uint32_t needed = p.op.aligned && !p.apart ? p.mask : p.mask & ~exited_;
  if ((p.arrived & needed) != needed) return std::nullopt;
  Pending done = std::move(p);
  pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
  for (int l = 0; l < 32; ++l)
    if (done.arrived >> l & 1u) ++met_[static_cast<std::size_t>(l)];
  done.run(done.frames);
  return done.arrived & ~(1u << lane);
}

std::uint32_t WarpCollectives::exit(int lane) {
  const std::uint32_t me = 1u << lane;
  exited_ |= me;
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    const Pending& p = pending_[i];
    if (!(p.mask & me)) continue;
    if (p.op.aligned && !p.apart) {
      if (!apart_ || !apart_(p.op, p.arrived, p.mask & ~p.arrived))
        fail(p.op, "lane " + std::to_string(lane) + " exits while " + lanes_wait(p.arrived) + " at " + at(p.op));
      pending_[i].apart = true;
    }
    return complete_if_ready(i, lane).value_or(0);
  }
  return 0;
}

std::uint32_t WarpCollectives::run_apart() {
  for (std::size_t i = 0; i < pending_.size(); ++i) {
    Pending& p = pending_[i];
    if (!p.op.aligned || !apart_ || !apart_(p.op, p.arrived, p.mask & ~p.arrived)) continue;
    Pending done = std::move(p);
    pending_.erase(pending_.begin() + static_cast<std::ptrdiff_t>(i));
    for (int l = 0; l < 32; ++l)
      if (done.arrived >> l & 1u) ++met_[static_cast<std::size_t>(l)];
    done.run(done.frames);
    return done.arrived;
  }
  return 0;
}

std::uint32_t WarpCollectives::converged_with(int lane) const {
  std::uint32_t lanes = 0;
  for (int l = 0; l < 32; ++l)
    if (!(exited_ >> l & 1u) || met_[static_cast<std::size_t>(l)] >= met_[static_cast<std::size_t>(lane)])
      lanes |= 1u << l;
  return lanes & ~absent_;
}

void WarpCollectives::remove_lanes(std::uint32_t lanes) {
  absent_ |= lanes;
  exited_ |= lanes;
}

std::string WarpCollectives::describe(int lane) const {
  for (const Pending& p : pending_)
    if (p.arrived >> lane & 1u) {
      const std::uint32_t needed = p.op.aligned && !p.apart ? p.mask : p.mask & ~exited_;
      return "wait at " + at(p.op) + " (warp " + std::to_string(warp_) + "): " + lanes_text(p.arrived) +
             " arrived, " + lanes_text(needed & ~p.arrived) + " missing";
    }
  return "wait at no collective";
}

}  // namespace tcgen::exec
