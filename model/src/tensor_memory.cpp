#include "tcgen/model/tensor_memory.hpp"

#include <algorithm>

namespace tcgen::model {

int TensorMemory::find_space(int columns, const TensorMemory* also) const {
  for (int start = 0; start + columns <= kColumns; start += columns) {
    bool free = true;
    for (int c = start; c < start + columns && free; ++c) free = !live_[c] && !(also && also->live_[c]);
    if (free) return start;
  }
  return -1;
}

void TensorMemory::allocate(const Allocation& a) {
  allocations_.push_back(a);
  for (int c = a.column; c < a.column + a.columns; ++c) {
    live_[c] = true;
    freed_by_[c] = 0;
  }
  for (int lane = 0; lane < kLanes; ++lane) {
    std::fill_n(value_row(lane) + a.column, a.columns, 0.0f);
    set_range(writers_, lane, a.column, a.columns, 0);
    set_range(readers_, lane, a.column, a.columns, 0);
    if (mma_readers_) set_range(*mma_readers_, lane, a.column, a.columns, 0);
    if (undefined_) set_range(*undefined_, lane, a.column, a.columns, 0);
  }
}

bool TensorMemory::release(int column, int columns, int warp) {
  for (auto it = allocations_.begin(); it != allocations_.end(); ++it) {
    if (it->column != column || it->columns != columns) continue;
    for (int c = column; c < column + columns; ++c) {
      live_[c] = false;
      freed_by_[c] = warp + 1;
    }
    allocations_.erase(it);
    return true;
  }
  return false;
}

std::string TensorMemory::describe() const {
  if (allocations_.empty()) return "none";
  std::string s = "columns ";
  for (std::size_t i = 0; i < allocations_.size(); ++i) {
    const Allocation& a = allocations_[i];
    if (i) s += ", ";
    s.append("[").append(std::to_string(a.column)).append(", ").append(std::to_string(a.column + a.columns));
    s.append(") by warp ").append(std::to_string(a.warp));
  }
  return s;
}

}  // namespace tcgen::model
