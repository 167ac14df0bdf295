#pragma once
// What a warp may assume about asynchronous tcgen05 operations issued by
// others (PTX #tcgen05-memory-consistency-model, tcgen05-facts.md §7).
//
// Every asynchronous operation gets an id, increasing in issue order, and an
// issuer: the thread for tcgen05.mma/cp (single-thread instructions), the warp
// for tcgen05.st and, separately, tcgen05.ld (each waited on by its own
// wait::st / wait::ld). Knowledge is "every operation of issuer k with id <
// bound", in two strengths:
//   complete: it has finished (commit → mbarrier, wait::ld/st);
//   ordered:  it is ordered before the warp's later tcgen05 operations, which
//             suffices for pipelined pairs (mma → mma, cp → mma) only.
// Knowledge travels through mbarrier phases and bar.sync and takes effect at
// tcgen05.fence::after_thread_sync; the Cta moves it around.
#include <cstdint>
#include <map>

namespace tcgen::model {

inline constexpr int issuer_thread(int warp, int lane) { return 32 * warp + lane; }
inline constexpr int issuer_st(int warp) { return 1024 + warp; }
inline constexpr int issuer_ld(int warp) { return 2048 + warp; }

struct Knowledge {
  std::map<int, std::uint64_t> complete, ordered;  // issuer → bound

  bool knows_complete(int issuer, std::uint64_t id) const {
    const auto it = complete.find(issuer);
    return it != complete.end() && id < it->second;
  }
  bool knows_ordered(int issuer, std::uint64_t id) const {
    const auto it = ordered.find(issuer);
    return knows_complete(issuer, id) || (it != ordered.end() && id < it->second);
  }
  void merge(const Knowledge& other) {
    for (const auto& [k, v] : other.complete) raise(complete, k, v);
    for (const auto& [k, v] : other.ordered) raise(ordered, k, v);
  }
  static void raise(std::map<int, std::uint64_t>& m, int issuer, std::uint64_t bound) {
    auto& b = m[issuer];
    if (bound > b) b = bound;
  }
};

}  // namespace tcgen::model
