#include "progress.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

namespace tcgen::cli {

std::function<void(std::uint64_t, std::uint64_t)> terminal_progress(bool quiet) {
  if (quiet || !isatty(STDERR_FILENO)) return {};
  using Clock = std::chrono::steady_clock;
  struct State {
    Clock::time_point start = Clock::now(), shown{};
  };
  auto state = std::make_shared<State>();
  return [state](std::uint64_t done, std::uint64_t total) {
    const Clock::time_point now = Clock::now();
    if (done == total) {
      std::fprintf(stderr, "\r\033[K");  // the line goes: the report follows
      return;
    }
    if (now - state->shown < std::chrono::milliseconds(200)) return;
    state->shown = now;
    const double seconds = std::chrono::duration<double>(now - state->start).count(), rate = done / seconds;
    std::fprintf(stderr, "\rCTA %llu of %llu (%.0f%%), %.3g CTAs/s, about %.0f s left\033[K",
                 static_cast<unsigned long long>(done), static_cast<unsigned long long>(total), 100.0 * done / total,
                 rate, (total - done) / rate);
    std::fflush(stderr);
  };
}

}  // namespace tcgen::cli
