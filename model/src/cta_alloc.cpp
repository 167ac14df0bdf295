// tcgen05.alloc / dealloc / relinquish_alloc_permit (PTX
// #tcgen05-instructions-tcgen05-alloc, tcgen05-facts.md §6).
//
// cta_group::2: "Issue from two warps, one in each of the current CTA and
// its Peer CTA, in order to collectively perform the operation" (PTX
// #tcgen05-issue-granularity); the columns are the same in both CTAs. The
// model allocates them in both Tensor Memories when the first of the two
// warps arrives (where hardware may block it until the second does) and
// hands them to the second, which checks that it asks for as many; each
// CTA's dealloc frees its own, so a peer still reading its columns keeps them.
#include <string>

#include "tcgen/model/cta.hpp"
#include "tcgen/core/hex.hpp"

namespace tcgen::model {

namespace {

std::string group_name(CtaGroup g) { return "cta_group::" + std::to_string(static_cast<int>(g)); }

}  // namespace

void Cta::alloc(int warp, std::uint32_t dst, std::uint32_t ncols, CtaGroup group) {
  const Issue issue{"tcgen05.alloc." + group_name(group) + ".sync.aligned.shared::cta.b32", warp};
  check_thread(issue, {warp, 0});
  check_cta_group(issue, group);
  if (relinquished_by_)
    raise(ModelError(issue, Rule::alloc_after_relinquish, "nCols", std::to_string(ncols),
                     "warp " + std::to_string(*relinquished_by_) +
                         " already executed tcgen05.relinquish_alloc_permit."));
  if (ncols < 32 || ncols > 512 || (ncols & (ncols - 1)) != 0)
    raise(ModelError(issue, Rule::alloc_columns, "nCols", std::to_string(ncols),
                     "columns are allocated in powers of two."));
  if (last_alloc_columns_ != 0 && static_cast<int>(ncols) > last_alloc_columns_)
    raise(ModelError(issue, Rule::alloc_increase, "nCols", std::to_string(ncols),
                      "the CTA's previous tcgen05.alloc took " + std::to_string(last_alloc_columns_) + " columns."));
  check_smem(issue, "dst", dst, 4);
  int column = -1;
  if (group == CtaGroup::two && !pair_allocs_.empty()) {  // the peer's alloc took them for both
    const auto [paired, columns] = pair_allocs_.front();
    if (columns != static_cast<int>(ncols))
      raise(ModelError(issue, Rule::pair_alloc_mismatch, "nCols", std::to_string(ncols),
                       "the peer CTA (rank " + std::to_string(peer_->rank()) +
                           ")'s tcgen05.alloc.cta_group::2 that this one pairs with took " + std::to_string(columns) +
                           " columns."));
    pair_allocs_.erase(pair_allocs_.begin());
    column = paired;
  } else {
    const TensorMemory* also = group == CtaGroup::two ? &peer_->tmem_ : nullptr;
    column = tmem_.find_space(static_cast<int>(ncols), also);
    if (column < 0)
      raise(ModelError(issue, Rule::alloc_unavailable, "nCols", std::to_string(ncols),
                       "no free aligned range of that many columns; allocated: " + tmem_.describe() +
                           (also ? "; in the peer CTA: " + also->describe() : std::string()) + "."));
    tmem_.allocate({column, static_cast<int>(ncols), warp});
    if (also) {
      peer_->tmem_.allocate({column, static_cast<int>(ncols), warp});
      peer_->pair_allocs_.push_back({column, static_cast<int>(ncols)});
    }
  }
  last_alloc_columns_ = static_cast<int>(ncols);
  // The address (lane 0, the first column) goes to dst with a weak store:
  // other warps may read it only once a barrier orders them after it.
  const std::uint32_t taddr = static_cast<std::uint32_t>(column);
  auto out = smem_.write(dst, 4);
  for (int i = 0; i < 4; ++i) out[i] = static_cast<std::uint8_t>(taddr >> (8 * i));
  const std::uint64_t id = ++alloc_store_count_;
  alloc_stores_.push_back({dst, warp, std::uint64_t{1} << warp, id});
  // An mbarrier arrival after it publishes it too (CUTLASS's FMHA hands it to its epilogue warp so).
  warps_[warp].released.complete.raise(keys_.alloc_store(warp), id + 1);
}

void Cta::dealloc(int warp, std::uint32_t taddr, std::uint32_t ncols, CtaGroup group) {
  const Issue issue{"tcgen05.dealloc." + group_name(group) + ".sync.aligned.b32", warp};
  check_thread(issue, {warp, 0});
  check_cta_group(issue, group);
  const int column = static_cast<int>(taddr & 0xFFFF);
  if ((taddr >> 16) != 0 || !tmem_.release(column, static_cast<int>(ncols), warp))
    raise(ModelError(issue, Rule::dealloc_mismatch, "taddr", hex(taddr) + " with nCols " + std::to_string(ncols),
                     "live allocations: " + tmem_.describe() + "."));
  std::erase_if(mma_writes_, [&](const MmaWrite& w) {  // a later alloc's cells are never written by them
    const int c = static_cast<int>(w.d_tmem & 0xFFFF);
    return c >= column && c < column + static_cast<int>(ncols);
  });
}

void Cta::relinquish_alloc_permit(int warp, CtaGroup group) {
  const Issue issue{"tcgen05.relinquish_alloc_permit." + group_name(group) + ".sync.aligned", warp};
  check_thread(issue, {warp, 0});
  check_cta_group(issue, group);
  if (!relinquished_by_) relinquished_by_ = warp;
}

}  // namespace tcgen::model
