#pragma once
// The timeline in the Chrome trace-event format, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open: one process per SM, one
// thread (track) per warp and per unit, a complete event ("ph": "X") per span.
// Processes are named "launch N: KERNEL, SM s", N counting the launches from 0.
#include <string>
#include <vector>

#include "tcgen/timing/machine.hpp"
#include "tcgen/timing/simulate.hpp"

namespace tcgen::timing {

// One launch's spans; `first` false for launches after the first, written after a comma.
struct TraceLaunch {
  std::string kernel;
  std::vector<Span> spans;
  double start_seconds = 0;  // where the launch starts on the trace's clock
};

// Every launch as one trace-event JSON document.
std::string chrome_trace(const std::vector<TraceLaunch>& launches, const Machine& m);

}  // namespace tcgen::timing
