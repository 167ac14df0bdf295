#pragma once
// Progress of a long run on the host model, on stderr: on a terminal,
// "CTA 12 of 64 (18%), 3.1 CTAs/s, about 17 s left" rewritten in place at
// most five times a second and cleared at the end; elsewhere (a log file, a
// pipe, CI) the same facts as a plain line every 5 seconds, so that a run
// of hours is never silent. --quiet shows nothing.
#include <cstdint>
#include <functional>

namespace tcgen::cli {

// exec::LaunchOptions::progress for one launch; empty with `quiet`.
std::function<void(std::uint64_t done, std::uint64_t total)> progress_display(bool quiet);

}  // namespace tcgen::cli
