#pragma once
// A CTA's Tensor Memory: 128 lanes × 512 columns of 32-bit cells (PTX
// #tensor-memory), each remembering which asynchronous operation last wrote
// it and which tcgen05.ld last read it, and the live allocations.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tcgen::model {

// Operation ids are 32-bit here to keep a cell at 12 bytes: the MMA's cost
// is dominated by walking its D cells.
struct TmemCell {
  std::uint32_t value = 0;
  std::uint32_t writer = 0;  // id of the tcgen05.mma/cp/st that wrote it; 0: nothing since its tcgen05.alloc
  std::uint32_t reader = 0;  // id of the last tcgen05.ld that read it; 0: none
};

struct Allocation {
  int column, columns, warp;
};

class TensorMemory {
 public:
  static constexpr int kLanes = 128, kColumns = 512;

  TmemCell& cell(int lane, int column) { return cells_[lane * kColumns + column]; }
  const TmemCell& cell(int lane, int column) const { return cells_[lane * kColumns + column]; }

  const std::vector<Allocation>& allocations() const { return allocations_; }
  bool live(int column) const { return column >= 0 && column < kColumns && live_[column]; }
  // The first column, a multiple of `columns`, that starts a free range of
  // that many; -1 when there is none. Aligning to the size is the model's
  // choice: PTX does not say where tcgen05.alloc places columns.
  int find_space(int columns) const;
  // Marks the columns live and their cells unwritten: TMEM contents are
  // undefined after allocation.
  void allocate(const Allocation& a);
  // False when no live allocation has exactly this start and size.
  bool release(int column, int columns);
  // "columns [0, 64) by warp 0, [64, 96) by warp 1", or "none".
  std::string describe() const;

 private:
  std::vector<TmemCell> cells_ = std::vector<TmemCell>(kLanes * kColumns);
  std::array<bool, kColumns> live_{};
  std::vector<Allocation> allocations_;
};

}  // namespace tcgen::model
