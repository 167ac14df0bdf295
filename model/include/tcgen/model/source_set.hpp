#pragma once
// The global sources (host addresses, never 0) of the chunks one accumulation's MMAs read
// (Cta::check_k_block): a flat set, open addressing with linear probing. A GEMM's
// accumulation adds some 10⁴ of them and looks each MMA's up; std::unordered_set's node per
// key made the model a fifth slower on tcgen's GEMM, this a few hundredths.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tcgen::model {

class SourceSet {
 public:
  bool contains(std::uint64_t key) const {
    if (slots_.empty()) return false;
    for (std::size_t i = slot(key);; i = (i + 1) & (slots_.size() - 1)) {
      if (slots_[i] == key) return true;
      if (slots_[i] == 0) return false;
    }
  }
  void insert(std::uint64_t key) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    std::size_t i = slot(key);
    while (slots_[i] != 0 && slots_[i] != key) i = (i + 1) & (slots_.size() - 1);
    if (slots_[i] == 0) ++size_;
    slots_[i] = key;
  }
  // Empty, keeping the room: the next accumulation is usually as large.
  void clear() {
    slots_.assign(slots_.size(), 0);
    size_ = 0;
  }

 private:
  // Fibonacci hashing of the address less its 16-byte alignment, into a power-of-two table.
  std::size_t slot(std::uint64_t key) const {
    return static_cast<std::size_t>(((key >> 4) * 0x9E3779B97F4A7C15ull) >> 32) & (slots_.size() - 1);
  }
  void grow() {
    std::vector<std::uint64_t> old(slots_.empty() ? 1024 : 2 * slots_.size(), 0);
    old.swap(slots_);
    size_ = 0;
    for (std::uint64_t key : old)
      if (key != 0) insert(key);
  }

  std::vector<std::uint64_t> slots_;  // 0: empty; at most half full
  std::size_t size_ = 0;
};

}  // namespace tcgen::model
