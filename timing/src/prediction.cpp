#include "tcgen/timing/prediction.hpp"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <string>
#include <vector>

#include "tcgen/core/json_string.hpp"

namespace tcgen::timing {

const char* name(Unit u) {
  switch (u) {
    case Unit::tensor: return "tensor pipe";
    case Unit::tma: return "TMA";
    case Unit::l2: return "L2";
    case Unit::hbm: return "HBM";
    case Unit::smem: return "shared memory";
    case Unit::mufu: return "MUFU";
    case Unit::tmem: return "tcgen05.ld/st";
    case Unit::issue: return "issue slots";
  }
  return "?";
}

namespace {

std::string format(const char* f, double a) {
  char b[64];
  std::snprintf(b, sizeof b, f, a);
  return b;
}

// The kernel's name, demangled, without its return type and parameters, its template arguments cut
// short: a CUTLASS kernel's run to thousands of characters.
std::string short_name(const std::string& kernel) {
  std::string s = kernel;
  int status = 0;
  if (char* d = abi::__cxa_demangle(kernel.c_str(), nullptr, nullptr, &status)) {
    s = d;
    std::free(d);
  }
  if (s.starts_with("void ")) s = s.substr(5);
  int depth = 0;  // the parameter list: the first '(' outside template arguments
  for (std::size_t i = 0; i < s.size(); ++i) {
    depth += s[i] == '<' ? 1 : s[i] == '>' ? -1 : 0;
    if (s[i] == '(' && depth == 0) {
      s.resize(i);
      break;
    }
  }
  constexpr std::size_t kLongest = 120;
  return s.size() > kLongest ? s.substr(0, kLongest) + "..." : s;
}

std::string time_text(double s) {
  return s >= 1e-3 ? format("%.3f ms", s * 1e3) : format("%.2f us", s * 1e6);
}

}  // namespace

std::string Prediction::short_kernel() const { return short_name(kernel); }

std::string Prediction::summary() const {
  const std::string head = "tcgen timing: ";
  std::string s = head + short_name(kernel) + " on a B200: " + time_text(seconds);
  if (tensor_flops > 0) {
    s += format(", %.1f TFLOP/s", tflops());
    if (peak_flops > 0) s += format(" (%.1f%% of the dense peak)", 100 * tensor_flops / seconds / peak_flops);
  }
  s += format(", %.2f TB/s from HBM", hbm_tb_per_s()) + "; bound by " + bound + "\n";
  s += head + "simulated " + std::to_string(ctas_simulated) + " of " + std::to_string(ctas_total) + " CTAs on " +
       std::to_string(sms_simulated) + " SMs, " + std::to_string(ctas_per_sm) + " CTA" + (ctas_per_sm == 1 ? "" : "s") +
       " per SM\n";
  s += head + "busy:";
  for (int u = 0; u < kUnits; ++u) s += " " + std::string(name(static_cast<Unit>(u))) + format(" %.0f%%", 100 * busy[u]);
  s += "\n";
  for (std::size_t w = 0; w < waits.size(); ++w) {
    std::vector<std::pair<double, std::string>> top;
    for (const auto& [barrier, share] : waits[w])
      if (share >= 0.01) top.push_back({share, barrier});
    if (top.empty()) continue;
    std::sort(top.rbegin(), top.rend());
    s += head + "warp " + std::to_string(w) + " waits:";
    for (std::size_t i = 0; i < top.size() && i < 4; ++i)
      s += (i ? ", " : " ") + top[i].second + format(" %.0f%%", 100 * top[i].first);
    s += "\n";
  }
  if (unresolved_waits) {
    s += head + std::to_string(unresolved_waits) +
         " waits never completed in the replay (an arrival the trace did not follow) and were let go:";
    for (std::size_t i = 0; i < unresolved.size(); ++i) s += (i ? "; " : " ") + unresolved[i];
    s += "\n";
  }
  if (untimed)
    s += head + std::to_string(untimed) +
         " warp instructions the model has no unit for (mma.sync) were timed as one issue slot each: their own "
         "time is left out, so the prediction is a lower bound\n";
  return s;
}

std::string Prediction::json() const {
  std::string s = "{\"kernel\": " + json_string(short_name(kernel)) + ", \"grid\": [" + std::to_string(grid[0]) + ", " +
                  std::to_string(grid[1]) + ", " + std::to_string(grid[2]) + "]";
  s += ", \"predicted_seconds\": " + format("%.6g", seconds) + ", \"tensor_flops\": " + format("%.6g", tensor_flops) +
       ", \"tflops\": " + format("%.4g", tflops()) + ", \"bytes_hbm\": " + format("%.6g", bytes_hbm) +
       ", \"bound\": " + json_string(bound) + ", \"busy\": {";
  for (int u = 0; u < kUnits; ++u)
    s += (u ? ", " : "") + json_string(name(static_cast<Unit>(u))) + ": " + format("%.4f", busy[u]);
  s += "}, \"ctas_simulated\": " + std::to_string(ctas_simulated) + ", \"ctas_total\": " + std::to_string(ctas_total) +
       ", \"sms_simulated\": " + std::to_string(sms_simulated) + ", \"waits\": [";
  for (std::size_t w = 0; w < waits.size(); ++w) {
    s += (w ? ", {" : "{");
    bool first = true;
    for (const auto& [barrier, share] : waits[w]) {
      s += (first ? "" : ", ") + json_string(barrier) + ": " + format("%.4f", share);
      first = false;
    }
    s += "}";
  }
  s += "], \"unresolved_waits\": " + std::to_string(unresolved_waits) + ", \"untimed_instructions\": " +
       std::to_string(untimed) + "}";
  return s;
}

}  // namespace tcgen::timing
