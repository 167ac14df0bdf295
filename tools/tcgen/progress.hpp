#pragma once
// A progress line for long runs on the host model: "CTA 12 of 64 (18%),
// 3.1 CTAs/s, about 17 s left" rewritten in place on stderr, at most five
// times a second, and cleared at the end. Only where stderr is a terminal
// and the user did not ask for --quiet; otherwise nothing is printed.
#include <cstdint>
#include <functional>

namespace tcgen::cli {

// exec::LaunchOptions::progress for one launch; empty when nothing is to be shown.
std::function<void(std::uint64_t done, std::uint64_t total)> terminal_progress(bool quiet);

}  // namespace tcgen::cli
