#pragma once
// A CTA's Tensor Memory: 128 lanes × 512 columns of 32-bit cells (PTX
// #tensor-memory), each remembering which asynchronous operation last wrote
// it and which tcgen05.ld last read it, and the live allocations. In strict
// mma pipelining mode the Cta also records which tcgen05.mma last read a cell
// as its TS A operand (kept only then: the default mode never pays for it).
//
// Storage, chosen for the MMA, which checks and rewrites 128 × N cells per
// instruction: values are one array, each lane a row of 512 entries (f32
// bit patterns kept as floats, so an f32 D accumulates in place). Writers
// and readers are kept per segment of 16 columns of a lane when all 16 cells
// agree (an MMA writes whole rows of D, an ld reads whole runs), and per
// cell otherwise; a segment that becomes uniform again is folded back by
// for_each_run. The per-cell accessors hide the difference.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tcgen::model {

// One cell, as a value.
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
  static constexpr int kSegment = 16;  // columns of a lane that share one writer/reader entry when they agree

  TmemCell cell(int lane, int column) const { return {value(lane, column), writer(lane, column), reader(lane, column)}; }
  std::uint32_t value(int lane, int column) const { return std::bit_cast<std::uint32_t>(values_[index(lane, column)]); }
  void set_value(int lane, int column, std::uint32_t v) { values_[index(lane, column)] = std::bit_cast<float>(v); }
  std::uint32_t writer(int lane, int column) const { return get(writers_, lane, column); }
  std::uint32_t reader(int lane, int column) const { return get(readers_, lane, column); }
  // A write defines the cell: any undefined mark goes (see undefined_by).
  void set_writer(int lane, int column, std::uint32_t id) {
    set(writers_, lane, column, id);
    if (undefined_) set(*undefined_, lane, column, 0);
  }
  void set_reader(int lane, int column, std::uint32_t id) { set(readers_, lane, column, id); }
  // Cells [column, column + n) of the lane: writer = id.
  void set_writers(int lane, int column, int n, std::uint32_t id) {
    set_range(writers_, lane, column, n, id);
    if (undefined_) set_range(*undefined_, lane, column, n, 0);
  }
  // The MMA that left the cell undefined, 0 for a defined (or never written) cell: it computed the
  // cell's row from cells never written, its TS A row or its accumulator (PTX: Tensor Memory holds
  // no defined value until written; the hardware computes on whatever is there). Recorded only
  // through set_undefined, whose first call creates the store.
  std::uint32_t undefined_by(int lane, int column) const { return undefined_ ? get(*undefined_, lane, column) : 0; }
  bool any_undefined() const { return undefined_.has_value(); }
  void set_undefined(int lane, int column, int n, std::uint32_t id) {
    if (!undefined_) undefined_.emplace();
    set_range(*undefined_, lane, column, n, id);
  }
  // The last tcgen05.mma that read the cell from Tensor Memory (TS A), 0 for
  // none; recorded only through set_mma_readers, whose first call creates the store.
  std::uint32_t mma_reader(int lane, int column) const { return mma_readers_ ? get(*mma_readers_, lane, column) : 0; }
  void set_mma_readers(int lane, int column, int n, std::uint32_t id) {
    if (!mma_readers_) mma_readers_.emplace();
    set_range(*mma_readers_, lane, column, n, id);
  }

  // A lane's 512 values, column 0 first, as floats (f32 D is accumulated in
  // place; other types are bit patterns, read with value()).
  float* value_row(int lane) { return values_.data() + index(lane, 0); }

  // Calls f(column, count, writer, reader) for the cells [column, column + n)
  // of the lane, in column order, each call covering `count` adjacent cells
  // with that writer and reader (a segment's part, or one cell).
  template <class F>
  void for_each_run(int lane, int column, int n, F&& f) {
    const int end = column + n;
    while (column < end) {
      const int next = std::min(end, (column / kSegment + 1) * kSegment);
      const std::size_t s = segment(lane, column);
      fold(writers_, s);
      fold(readers_, s);
      if (writers_.segment[s] != kMixed && readers_.segment[s] != kMixed) {
        f(column, next - column, writers_.segment[s], readers_.segment[s]);
        column = next;
        continue;
      }
      for (; column < next; ++column) f(column, 1, writer(lane, column), reader(lane, column));
    }
  }

  // True when cells [column, column + n) of lane_a and of lane_b have the
  // same writers and readers, each kept per segment (column and n multiples
  // of kSegment); false otherwise, or when in doubt.
  bool same_ids(int lane_a, int lane_b, int column, int n) const {
    if (column % kSegment != 0 || n % kSegment != 0) return false;
    const std::size_t a = segment(lane_a, column), b = segment(lane_b, column);
    std::uint32_t differ = 0, mixed = 0;
    for (int i = 0; i < n / kSegment; ++i) {
      differ |= (writers_.segment[a + i] ^ writers_.segment[b + i]) | (readers_.segment[a + i] ^ readers_.segment[b + i]);
      mixed |= writers_.segment[a + i] == kMixed || readers_.segment[a + i] == kMixed ? 1u : 0u;
    }
    return differ == 0 && mixed == 0;
  }

  const std::vector<Allocation>& allocations() const { return allocations_; }
  bool live(int column) const { return column >= 0 && column < kColumns && live_[column]; }
  // The warp whose tcgen05.dealloc freed the column, -1 when no dealloc did since it was last allocated (or
  // never). The cells keep their values until an allocation takes them again.
  int freed_by(int column) const { return column >= 0 && column < kColumns ? freed_by_[column] - 1 : -1; }
  // The first column, a multiple of `columns`, that starts a free range of
  // that many; -1 when there is none. Aligning to the size is the model's
  // choice: PTX does not say where tcgen05.alloc places columns. With
  // `also`, the range must be free there too (the two CTAs of a pair).
  int find_space(int columns, const TensorMemory* also = nullptr) const;
  // Marks the columns live and their cells unwritten: TMEM contents are
  // undefined after allocation.
  void allocate(const Allocation& a);
  // False when no live allocation has exactly this start and size; `warp` frees it.
  bool release(int column, int columns, int warp);
  // "columns [0, 64) by warp 0, [64, 96) by warp 1", or "none".
  std::string describe() const;

 private:
  static constexpr int kSegments = kColumns / kSegment;             // per lane
  static constexpr std::uint32_t kMixed = 0xFFFFFFFFu;              // the segment's cells differ: see `cell`
  // Operation ids: one id per instruction, so 2^32 - 1 of them never run out
  // in a host model run (ids are 32-bit to keep the arrays small).
  struct Ids {
    // A constructor rather than default member initializers: clang 14 does not see a nested class
    // with those as default-constructible inside its enclosing class (std::optional<Ids>::emplace).
    Ids() : segment(kLanes * kSegments, 0), cell(kLanes * kColumns, 0) {}
    std::vector<std::uint32_t> segment;
    std::vector<std::uint32_t> cell;  // where segment is kMixed
  };

  static constexpr std::size_t index(int lane, int column) {
    return static_cast<std::size_t>(lane) * kColumns + static_cast<std::size_t>(column);
  }
  static constexpr std::size_t segment(int lane, int column) {
    return static_cast<std::size_t>(lane) * kSegments + static_cast<std::size_t>(column / kSegment);
  }
  static std::uint32_t get(const Ids& ids, int lane, int column) {
    const std::uint32_t s = ids.segment[segment(lane, column)];
    return s != kMixed ? s : ids.cell[index(lane, column)];
  }
  static void set(Ids& ids, int lane, int column, std::uint32_t id) {
    std::uint32_t& s = ids.segment[segment(lane, column)];
    if (s == id) return;
    std::uint32_t* cells = ids.cell.data() + index(lane, column / kSegment * kSegment);
    if (s != kMixed) {  // split the segment: its cells take its id, then this cell changes
      std::fill_n(cells, kSegment, s);
      s = kMixed;
    }
    ids.cell[index(lane, column)] = id;
  }
  static void set_range(Ids& ids, int lane, int column, int n, std::uint32_t id) {
    const int end = column + n;
    const int first_full = (column + kSegment - 1) / kSegment * kSegment, last_full = end / kSegment * kSegment;
    if (first_full >= last_full) {  // no whole segment
      for (int c = column; c < end; ++c) set(ids, lane, c, id);
      return;
    }
    for (int c = column; c < first_full; ++c) set(ids, lane, c, id);
    std::fill(ids.segment.begin() + static_cast<std::ptrdiff_t>(segment(lane, first_full)),
              ids.segment.begin() + static_cast<std::ptrdiff_t>(segment(lane, last_full)), id);
    for (int c = last_full; c < end; ++c) set(ids, lane, c, id);
  }
  // A split segment whose cells all agree again becomes one entry.
  static void fold(Ids& ids, std::size_t s) {
    if (ids.segment[s] != kMixed) return;
    const std::uint32_t* cells = ids.cell.data() + s * kSegment;
    std::uint32_t differ = 0;
    for (int i = 1; i < kSegment; ++i) differ |= cells[i] ^ cells[0];
    if (differ == 0) ids.segment[s] = cells[0];
  }

  std::vector<float> values_ = std::vector<float>(kLanes * kColumns);
  Ids writers_, readers_;
  std::optional<Ids> mma_readers_;
  std::optional<Ids> undefined_;
  std::array<bool, kColumns> live_{};
  std::array<int, kColumns> freed_by_{};  // the warp + 1; 0 for none
  std::vector<Allocation> allocations_;
};

}  // namespace tcgen::model
