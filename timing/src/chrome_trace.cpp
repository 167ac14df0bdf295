#include "tcgen/timing/chrome_trace.hpp"

#include <cstdio>
#include <map>
#include <sstream>

#include "tcgen/core/json_string.hpp"

namespace tcgen::timing {

std::string chrome_trace(const std::vector<TraceLaunch>& launches, const Machine& m) {
  std::ostringstream out;
  const double us_per_cycle = 1e6 / m.clock_hz;
  out << "{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n";
  bool first = true;
  const auto event = [&](const std::string& text) {
    out << (first ? "" : ",\n") << text;
    first = false;
  };
  int pid = 0, index = 0;
  for (const TraceLaunch& launch : launches) {
    const std::string title = "launch " + std::to_string(index++) + ": " + launch.kernel;
    std::map<std::uint32_t, std::map<std::string, int>> tracks;  // sm → track → tid
    for (const Span& s : launch.spans) {
      auto& sm = tracks[s.sm];
      if (sm.empty())
        event("{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": " + std::to_string(pid + static_cast<int>(s.sm)) +
              ", \"args\": {\"name\": " + json_string(title + ", SM " + std::to_string(s.sm)) + "}}");
      auto [it, fresh] = sm.try_emplace(s.track, static_cast<int>(sm.size()));
      if (fresh) {
        event("{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": " + std::to_string(pid + static_cast<int>(s.sm)) +
              ", \"tid\": " + std::to_string(it->second) + ", \"args\": {\"name\": " + json_string(s.track) + "}}");
      }
      char times[96];
      std::snprintf(times, sizeof times, "\"ts\": %.4f, \"dur\": %.4f", launch.start_seconds * 1e6 + s.start * us_per_cycle,
                    s.cycles * us_per_cycle);
      event("{\"ph\": \"X\", \"name\": " + json_string(s.name) + ", \"pid\": " + std::to_string(pid + static_cast<int>(s.sm)) +
            ", \"tid\": " + std::to_string(it->second) + ", " + times + "}");
    }
    pid += static_cast<int>(tracks.size());
  }
  out << "\n]}\n";
  return out.str();
}

}  // namespace tcgen::timing
