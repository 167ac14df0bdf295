#include "tcgen/exec/thread_set.hpp"

#include <algorithm>
#include <map>

namespace tcgen::exec {

namespace {

std::string range(int first, int last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

}  // namespace

std::string lanes_text(std::uint32_t mask) {
  std::string runs;
  int count = 0;
  for (int lane = 0; lane < 32;) {
    if (!(mask >> lane & 1u)) {
      ++lane;
      continue;
    }
    int last = lane;
    while (last + 1 < 32 && (mask >> (last + 1) & 1u)) ++last;
    runs += (runs.empty() ? "" : ", ") + range(lane, last);
    count += last - lane + 1;
    lane = last + 1;
  }
  if (count == 0) return "no lane";
  return (count == 1 ? "lane " : "lanes ") + runs;
}

std::string threads_text(std::vector<int> threads) {
  std::sort(threads.begin(), threads.end());
  std::map<int, std::uint32_t> by_warp;
  for (int t : threads) by_warp[t / 32] |= 1u << (t % 32);

  std::string out;
  const auto add = [&](const std::string& s) { out += (out.empty() ? "" : "; ") + s; };
  for (auto it = by_warp.begin(); it != by_warp.end();) {
    const int warp = it->first;
    if (it->second != 0xFFFFFFFFu) {
      const std::uint32_t m = it->second;
      std::string s = "warp " + std::to_string(warp) + ", " + lanes_text(m);
      if ((m & (m - 1)) == 0) s += " (thread " + std::to_string(32 * warp + __builtin_ctz(m)) + ")";
      add(s);
      ++it;
      continue;
    }
    int last = warp;  // a run of whole warps
    for (++it; it != by_warp.end() && it->first == last + 1 && it->second == 0xFFFFFFFFu; ++it) ++last;
    add((last == warp ? "warp " : "warps ") + range(warp, last) + " (threads " + range(32 * warp, 32 * last + 31) +
        ")");
  }
  return out.empty() ? "no thread" : out;
}

}  // namespace tcgen::exec
