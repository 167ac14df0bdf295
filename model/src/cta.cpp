// The Cta's state and the checks its instructions share. The instructions
// are in cta_*.cpp, one family per file.
#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/model/cta.hpp"
#include "tcgen/core/hex.hpp"

namespace tcgen::model {

Cta::Cta(const CtaConfig& config)
    : config_(config), keys_{config.rank * Issuers::kPerCta}, smem_(config.smem_base, config.smem_bytes) {
  if (config.warps < 1 || config.warps > 32) fail("warps", config.warps, "1 to 32 warps (1024 threads) per CTA");
  if (config.rank < 0 || config.rank > 15) fail("rank", config.rank, "0 to 15: a rank of a cluster of at most 16 CTAs");
  warps_.resize(static_cast<std::size_t>(config.warps));
}

void Cta::pair_with(Cta& peer) {
  if ((peer.rank() ^ rank()) != 1)
    fail("peer rank", std::to_string(peer.rank()) + " for rank " + std::to_string(rank()),
         "the rank that differs from this CTA's in the last bit only (PTX #tcgen05-issue-granularity)");
  peer_ = &peer;
  peer.peer_ = this;
}

Cta::WarpState& Cta::state(int warp) { return acting_ ? acting_->warps_[warp] : warps_[warp]; }

std::string Cta::op_instruction(const std::string& instruction) const {
  return acting_ ? instruction + " (issued by rank " + std::to_string(acting_->rank()) + ")" : instruction;
}

std::string Cta::warp_name(int warp) const {
  return "warp " + std::to_string(warp) + (acting_ ? " of rank " + std::to_string(acting_->rank()) : "");
}

void Cta::raise(const ModelError& e) {
  if (config_.letters_as_errors || severity(e.rule()) == Severity::fault) throw e;
  Warning& w = warnings_[e.rule()];
  if (w.count++ != 0) return;
  w.first = e.what();
  // The issuer is the one running now; a CTA-pair instruction of the peer lands here with its locator.
  const Cta& issuer = acting_ ? *acting_ : *this;
  if (issuer.locator_) w.where = issuer.locator_();
}

void Cta::check_thread(const Issue& issue, Thread t) const {
  if (t.warp < 0 || t.warp >= config_.warps)
    fail("warp", std::to_string(t.warp), "a warp of this CTA, 0 to " + std::to_string(config_.warps - 1) +
                                             " (in " + issue.instruction + ")");
  if (t.lane < 0 || t.lane > 31) fail("lane", std::to_string(t.lane), "0 to 31 (in " + issue.instruction + ")");
}

void Cta::check_cta_group(const Issue& issue, CtaGroup group) {
  if (!cta_group_) {
    cta_group_ = group;
    cta_group_first_ = issue.instruction + " by warp " + std::to_string(issue.warp);
  }
  if (*cta_group_ != group)
    raise(ModelError(issue, Rule::mixed_cta_group, ".cta_group", "::" + std::to_string(static_cast<int>(group)),
                     "the kernel's first tcgen05 instruction with a .cta_group, " + cta_group_first_ + ", used ::" +
                         std::to_string(static_cast<int>(*cta_group_)) + "."));
  if (group == CtaGroup::two && !peer_)
    raise(ModelError(issue, Rule::pair_missing, ".cta_group", "::2",
                     "this CTA, of rank " + std::to_string(rank()) + ", has no peer of rank " +
                         std::to_string(rank() ^ 1) + " in its cluster (a cluster of an even number of CTAs pairs "
                         "them all)."));
}

void Cta::check_smem(const Issue& issue, const char* field, std::uint32_t addr, std::uint64_t n) {
  if (smem_.contains(addr, n)) return;
  raise(ModelError(issue, Rule::smem_outside_image, field, hex(addr),
                   "the " + std::to_string(n) + " bytes there are not all inside the shared memory image [" +
                       hex(smem_.base()) + ", " + hex(smem_.base() + smem_.size()) + ")."));
}

void Cta::check_column(const Issue& issue, int column, int first, int last) {
  if (tmem_.live(column)) return;
  // CUTLASS's FMHA backward (77_blackwell_fmha_bwd, B200s) frees Tensor Memory from its compute warps once
  // they stored dK, while its MMA warp, with nothing ordering the two, still issues the dQ MMAs it committed
  // nothing for yet and its reduce warps load dQ: the hardware leaves freed cells as they were until an
  // allocation takes them, and the MMA warp's few instructions run before the epilogue's many. Another
  // warp's free, with no allocation since, is a PTX letter; the freeing warp's own later access stays a fault.
  if (const int freer = tmem_.freed_by(column); freer >= 0 && freer != issue.warp) {
    // Counted once per instruction, not per cell it touches.
    std::string key = issue.instruction + "/" + std::to_string(issue.warp) + "/" + std::to_string(first) + "/" +
                      std::to_string(last) + "/" + std::to_string(ops_.size());
    if (key == after_free_lettered_) return;
    after_free_lettered_ = std::move(key);
    raise(ModelError(issue, Rule::tmem_used_after_free, "column", std::to_string(column),
                      "the access covers columns " + std::to_string(first) + " to " + std::to_string(last) +
                          ", which warp " + std::to_string(freer) + " freed with tcgen05.dealloc; allocated: " +
                          tmem_.describe() + "."));
    return;
  }
  std::string detail = "the access covers columns " + std::to_string(first) + " to " + std::to_string(last) +
                       "; allocated: " + tmem_.describe() + ".";
  // A column field past the 512 columns usually holds a row offset computed
  // as if Tensor Memory were linear (tcgen05-facts.md §8a (i)).
  if (column >= TensorMemory::kColumns)
    detail += " Tensor Memory has 512 columns; the lane is in taddr bits 31-16, so 16 lanes down is "
              "taddr + (16 << 16).";
  raise(ModelError(issue, Rule::tmem_outside_allocation, "column", std::to_string(column), detail));
}

std::uint32_t Cta::issue_op(OpKind kind, int issuer, int warp, int lane, std::string instruction, int lanes_covered,
                            const MmaShape& shape) {
  ops_.push_back({kind, issuer, warp, lane, std::move(instruction), lanes_covered, shape});
  return static_cast<std::uint32_t>(ops_.size());
}

void Cta::finish() {
  if (!pair_allocs_.empty())
    raise(ModelError({"kernel exit"}, Rule::pair_alloc_mismatch, "allocations",
                     std::to_string(pair_allocs_.size()) + " of the peer's",
                     "the peer CTA (rank " + std::to_string(rank() ^ 1) + ") executed tcgen05.alloc.cta_group::2 " +
                         "for both CTAs, and this CTA never executed the tcgen05.alloc.cta_group::2 that pairs with it."));
  if (tmem_.allocations().empty()) return;
  raise(ModelError({"kernel exit"}, Rule::tmem_not_freed, "allocations", tmem_.describe(),
                   "the kernel ends with Tensor Memory still allocated; call tcgen05.dealloc for each."));
}

}  // namespace tcgen::model
