#include "budget.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "tcgen/core/error.hpp"
#include "tcgen/core/host_memory.hpp"

namespace tcgen::cli {

namespace {

std::string gib(double bytes) {
  char t[32];
  std::snprintf(t, sizeof t, bytes < 10.0 * (1 << 30) ? "%.1f GiB" : "%.0f GiB", bytes / (1 << 30));
  return t;
}

std::string duration(double seconds) {
  char t[32];
  if (seconds < 90) std::snprintf(t, sizeof t, "%.0f s", seconds);
  else if (seconds < 3600) std::snprintf(t, sizeof t, "%.0f min", seconds / 60);
  else if (seconds < 48 * 3600) std::snprintf(t, sizeof t, "%.1f hours", seconds / 3600);
  else std::snprintf(t, sizeof t, "%.0f days", seconds / 86400);
  return t;
}

}  // namespace

double memory_limit_bytes() { return host_memory_limit_bytes(); }

void check_memory(const std::string& options, const std::string& sizes, double bytes) {
  const double limit = memory_limit_bytes();
  if (bytes > limit)
    fail(options.c_str(), sizes,
         "expected a problem that fits in memory: it needs about " + gib(bytes) + ", this machine has " + gib(limit));
}

void check_input_files_fit(const Args& a, std::initializer_list<const char*> options) {
  double bytes = 0;
  std::string names;
  for (const char* o : options) {
    std::error_code ec;
    if (!a.has(o)) continue;
    if (const auto size = std::filesystem::file_size(a.text(o), ec); !ec) bytes += 3.0 * double(size);
    names += (names.empty() ? "--" : ", --") + std::string(o);
  }
  if (!names.empty()) check_memory(names, "the files' sizes", bytes);
}

double TimeEstimate::seconds() const {
  return kernel_flops / (kernel_rate * std::max(threads, 1u)) + reference_flops / reference_rate;
}

void announce_long_run(const TimeEstimate& t, bool quiet) {
  constexpr double kLong = 120;  // seconds: past this a run is worth a word before it starts
  if (quiet || t.seconds() < kLong) return;
  const double kernel = t.kernel_flops / (t.kernel_rate * std::max(t.threads, 1u)), reference = t.seconds() - kernel;
  std::fprintf(stderr, "tcgen: estimated time about %s: the kernel on the host model about %s (%u thread%s)%s\n",
               duration(t.seconds()).c_str(), duration(kernel).c_str(), t.threads, t.threads == 1 ? "" : "s",
               t.reference_flops > 0
                   ? (", the fp64 reference about " + duration(reference) + " (--no-reference skips it)").c_str()
                   : "");
  std::fflush(stderr);
}

}  // namespace tcgen::cli
