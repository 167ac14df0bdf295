#include "slot_pool.hpp"

#include <algorithm>

namespace tcgen::ptx::slot_pool {

namespace {

struct Spare {
  std::vector<std::uint64_t> slots;
  bool clean;
};
// Per OS thread: a CTA's threads are fibers of one OS thread, which ends them before its next CTA.
thread_local std::vector<Spare> spares;

}  // namespace

std::vector<std::uint64_t> take(std::size_t n) {
  if (spares.empty()) return std::vector<std::uint64_t>(n, 0);
  // A clean one first: resize keeps its zeros and zeroes only what it adds.
  auto it = std::find_if(spares.begin(), spares.end(), [](const Spare& s) { return s.clean; });
  if (it == spares.end()) it = spares.end() - 1;
  Spare s = std::move(*it);
  *it = std::move(spares.back());
  spares.pop_back();
  if (s.clean) s.slots.resize(n);
  else s.slots.assign(n, 0);
  return std::move(s.slots);
}

void give(std::vector<std::uint64_t>&& slots, bool clean) {
  if (slots.capacity() == 0) return;
  spares.push_back({std::move(slots), clean});
}

}  // namespace tcgen::ptx::slot_pool
