#pragma once
// What the timing model predicts for one launch, and how it is shown: a
// summary with the unit that bounds the kernel, the busy table, the waits
// per warp, and one JSON object.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tcgen::timing {

// The units whose busy share is reported, in this order.
enum class Unit : std::uint8_t { tensor, tma, l2, hbm, smem, mufu, tmem, issue };
inline constexpr int kUnits = 8;
const char* name(Unit u);

struct Prediction {
  std::string kernel;
  std::uint32_t grid[3] = {1, 1, 1};
  double seconds = 0;        // predicted B200 time of the whole grid
  double tensor_flops = 0;   // FLOPs of the tcgen05.mma the grid issued
  double bytes_hbm = 0;      // distinct global memory read and written
  double peak_flops = 0;     // the chip's dense tensor peak (FLOP/s) for the kind most of the FLOPs were
  double busy[kUnits] = {};  // share of the predicted time each unit is busy (tensor: of its peak)
  std::string bound;         // the busiest unit, or "latency" when none is busy over half the time
  std::uint64_t sms_simulated = 0, ctas_simulated = 0, ctas_total = 0;
  int ctas_per_sm = 1;
  // Per warp index of a CTA: the share of its time waiting on each barrier ("mbarrier 0x10", "bar 1").
  std::vector<std::map<std::string, double>> waits;
  std::uint64_t unresolved_waits = 0;  // waits the trace never completed, let go to finish the replay
  std::vector<std::string> unresolved; // the first few of them: which warp, barrier and phase
  std::uint64_t untimed = 0;           // warp instructions of the simulated CTAs timed as an issue slot alone

  double tflops() const { return seconds > 0 ? tensor_flops / seconds / 1e12 : 0; }
  double hbm_tb_per_s() const { return seconds > 0 ? bytes_hbm / seconds / 1e12 : 0; }
  std::string short_kernel() const;  // demangled, without parameters, long template arguments cut
  std::string summary() const;  // several lines, each starting "tcgen timing: "
  std::string json() const;                      // one object, no newline
};

}  // namespace tcgen::timing
