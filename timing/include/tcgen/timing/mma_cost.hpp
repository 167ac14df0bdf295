#pragma once
// What one tcgen05.mma costs the tensor pipe: its cycles (the FLOP rate of
// its kind, or the shared-memory rate for the operands it reads from shared
// memory, whichever is slower) and the latency after them. Figures:
// SemiAnalysis microbench-blackwell umma_throughput and umma_latency (machine.hpp).
#include "tcgen/timing/machine.hpp"

namespace tcgen::timing {

enum class MmaRate : unsigned char { bits16, tf32, bits8, bits4 };

struct MmaShape {
  int m = 128, n = 256, k = 16;  // the instruction's, M over both CTAs for a pair
  MmaRate rate = MmaRate::bits16;
  double element_bytes = 2;      // bytes per element of A and B as stored: 2, 1, 0.5 for 4-bit, 4 for tf32
  bool a_from_tmem = false;      // .kind with [a-tmem]
  bool pair = false;             // cta_group::2
  bool sparse = false;           // tcgen05.mma.sp: K counts A's logical (decompressed) columns
};

struct MmaCost {
  double cycles = 0;   // tensor-pipe occupancy alone: the slower of the FLOP rate and the shared-memory reads
  double compute = 0;  // the FLOP rate's cycles
  double smem_cycles = 0;  // its operands' shared-memory reads at the port's rate, per SM
  double latency = 0;  // issue to done: the FLOP rate's cycles and a fixed part (SS 128x64 SS: 32 + 136
                       // = 168 measured, though it occupies the pipe 48.56 cycles)
  double flops = 0;   // 2·M·N·K
  double peak_flops_per_sm_cycle = 0;
};

MmaCost mma_cost(const MmaShape& s, const Machine& m);

}  // namespace tcgen::timing
