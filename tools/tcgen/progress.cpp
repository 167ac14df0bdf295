#include "progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

namespace tcgen::cli {

std::function<void(std::uint64_t, std::uint64_t)> progress_display(bool quiet) {
  if (quiet) return {};
  using Clock = std::chrono::steady_clock;
  struct State {
    bool terminal = isatty(STDERR_FILENO) != 0;
    // On a terminal the first CTA shows the line; a plain line waits its 5 s, so that short runs print none.
    Clock::time_point start = Clock::now(), shown = terminal ? Clock::time_point{} : start;
  };
  auto state = std::make_shared<State>();
  return [state](std::uint64_t done, std::uint64_t total) {
    const Clock::time_point now = Clock::now();
    if (done == total) {
      if (state->terminal) std::fprintf(stderr, "\r\033[K");  // the line goes: the report follows
      return;
    }
    if (now - state->shown < (state->terminal ? std::chrono::milliseconds(200) : std::chrono::seconds(5))) return;
    state->shown = now;
    const double seconds = std::chrono::duration<double>(now - state->start).count(), rate = done / seconds;
    std::fprintf(stderr, state->terminal ? "\rCTA %llu of %llu (%.0f%%), %.3g CTAs/s, about %.0f s left\033[K"
                                         : "tcgen: CTA %llu of %llu (%.0f%%), %.3g CTAs/s, about %.0f s left\n",
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), 100.0 * done / total,
                 rate, (total - done) / rate);
    std::fflush(stderr);
  };
}

}  // namespace tcgen::cli
