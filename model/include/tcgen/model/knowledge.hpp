#pragma once
// What a warp may assume about asynchronous tcgen05 operations issued by
// others (PTX #tcgen05-memory-consistency-model, tcgen05-facts.md §7).
//
// Every asynchronous operation gets an id, increasing in issue order in its
// CTA, and an issuer: the thread for tcgen05.mma/cp (single-thread
// instructions), the warp for tcgen05.st and, separately, tcgen05.ld (each
// waited on by its own wait::st / wait::ld), and, for the half of a
// cta_group::2 operation that lands in the peer CTA, the issuing thread as
// seen from the peer. Issuer keys are unique in the cluster (Issuers), so
// knowledge can travel between CTAs. Knowledge is "every operation of issuer
// k with id < bound", in two strengths:
//   complete: it has finished (commit → mbarrier, wait::ld/st);
//   ordered:  it is ordered before the warp's later tcgen05 operations, which
//             suffices for pipelined pairs (mma → mma, cp → mma) only. It is
//             published by tcgen05.fence::before_thread_sync, a warp's
//             instruction, for all the warp's threads at once, so it is kept
//             per warp.
// Knowledge travels through mbarrier phases and bar.sync and takes effect at
// tcgen05.fence::after_thread_sync; the Cta moves it around, on every
// mbarrier operation: hence sorted flat arrays, merged in place.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace tcgen::model {

// The issuer keys of the CTA of rank `rank` in its cluster.
struct Issuers {
  static constexpr int kPerCta = 4096;
  int base = 0;  // rank · kPerCta

  constexpr int thread(int warp, int lane) const { return base + 32 * warp + lane; }
  constexpr int st(int warp) const { return base + 1024 + warp; }
  constexpr int ld(int warp) const { return base + 2048 + warp; }
  // The same completions as the warp's wait::st / wait::ld knows them, published by its next barrier or
  // arrival without tcgen05.fence::before_thread_sync: to rely on them is a PTX letter
  // (Rule::missing_before_thread_sync). unfenced(st(w)) == st_unfenced(w), likewise for ld.
  constexpr int st_unfenced(int warp) const { return base + 1024 + 64 + warp; }
  constexpr int ld_unfenced(int warp) const { return base + 2048 + 64 + warp; }
  static constexpr int unfenced(int st_or_ld_issuer) { return st_or_ld_issuer + 64; }
  // The warp's tcgen05.st (ld) issued so far, waited for or not, as its next barrier or arrival
  // publishes them: to read (overwrite) their cells so is Rule::st_published_unwaited
  // (ld_published_unwaited). issued(st(w)) == st_issued(w), likewise for ld.
  constexpr int st_issued(int warp) const { return base + 1024 + 128 + warp; }
  constexpr int ld_issued(int warp) const { return base + 2048 + 128 + warp; }
  static constexpr int issued(int st_or_ld_issuer) { return st_or_ld_issuer + 128; }
  // The addresses the warp's tcgen05.alloc stored: its next arrival publishes them (numbered per CTA).
  constexpr int alloc_store(int warp) const { return base + 1024 + 192 + warp; }
  // The peer CTA's thread (warp, lane), issuing the half of a cta_group::2 operation that lands here.
  constexpr int pair(int warp, int lane) const { return base + 3072 + 32 * warp + lane; }
};

// The key of the `ordered` bound that covers a thread or pair issuer: its
// warp's (tcgen05.fence::before_thread_sync is a warp's instruction); -1 for
// tcgen05.ld/st issuers, which only completion covers.
inline constexpr int ordering_key(int issuer) {
  const int local = issuer % Issuers::kPerCta, base = issuer - local;
  if (local < 1024) return base + local / 32;
  if (local >= 3072) return base + 32 + (local - 3072) / 32;
  return -1;
}

// Key → bound, sorted by key; a missing key has bound 0 (nothing known).
class Bounds {
 public:
  std::uint64_t at(int key) const {
    const auto it = find(key);
    return it != entries_.end() && it->first == key ? it->second : 0;
  }
  void raise(int key, std::uint64_t bound) {
    const auto it = find(key);
    if (it != entries_.end() && it->first == key) {
      it->second = std::max(it->second, bound);
    } else {
      entries_.insert(it, {key, bound});
    }
  }
  // Every bound raised to at least the other's.
  void merge(const Bounds& other) {
    auto mine = entries_.begin();
    bool missing = false;
    for (const auto& [key, bound] : other.entries_) {
      while (mine != entries_.end() && mine->first < key) ++mine;
      if (mine != entries_.end() && mine->first == key) {
        mine->second = std::max(mine->second, bound);
      } else {
        missing = true;
      }
    }
    if (!missing) return;  // the steady state: no allocation
    std::vector<std::pair<int, std::uint64_t>> merged;
    merged.reserve(entries_.size() + other.entries_.size());
    std::merge(entries_.begin(), entries_.end(), other.entries_.begin(), other.entries_.end(), std::back_inserter(merged),
               [](const auto& a, const auto& b) { return a.first < b.first; });
    entries_.clear();
    for (const auto& e : merged) {  // equal keys sit together: keep the larger bound
      if (!entries_.empty() && entries_.back().first == e.first) {
        entries_.back().second = std::max(entries_.back().second, e.second);
      } else {
        entries_.push_back(e);
      }
    }
  }
  void clear() { entries_.clear(); }

 private:
  std::vector<std::pair<int, std::uint64_t>>::iterator find(int key) {
    return std::lower_bound(entries_.begin(), entries_.end(), key, [](const auto& e, int k) { return e.first < k; });
  }
  std::vector<std::pair<int, std::uint64_t>>::const_iterator find(int key) const {
    return std::lower_bound(entries_.begin(), entries_.end(), key, [](const auto& e, int k) { return e.first < k; });
  }
  std::vector<std::pair<int, std::uint64_t>> entries_;
};

struct Knowledge {
  Bounds complete;  // issuer → bound
  Bounds ordered;   // ordering_key → bound, for the thread and pair issuers of a warp

  bool knows_complete(int issuer, std::uint64_t id) const { return id < complete.at(issuer); }
  bool knows_ordered(int issuer, std::uint64_t id) const {
    if (knows_complete(issuer, id)) return true;
    const int key = ordering_key(issuer);
    return key >= 0 && id < ordered.at(key);
  }
  void merge(const Knowledge& other) {
    complete.merge(other.complete);
    ordered.merge(other.ordered);
  }
  void clear() {
    complete.clear();
    ordered.clear();
  }
};

}  // namespace tcgen::model
