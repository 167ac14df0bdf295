#pragma once
// Sets of threads and lanes as a reader wants them in a report: by warp,
// with ranges ("warps 2-5 (threads 64-191)", "warp 1, lanes 1-31").
#include <cstdint>
#include <string>
#include <vector>

namespace tcgen::exec {

// "lanes 0-15, 20", "lane 3", "no lane".
std::string lanes_text(std::uint32_t mask);

// Thread indices of a CTA (any order, no repeats), whole warps merged into
// ranges, parts of a warp by lane, groups joined with "; ":
// "warps 2-5 (threads 64-191); warp 0, lane 0 (thread 0)".
std::string threads_text(std::vector<int> threads);

}  // namespace tcgen::exec
