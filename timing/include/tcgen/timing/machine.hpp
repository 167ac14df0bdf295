#pragma once
// The B200 as the timing model sees it: every constant with the public
// measurement it comes from (docs/timing.md; the figures are gathered with
// their sources in b200-timing-facts.md), or, where no public figure exists,
// marked "fitted" with the calibration that set it (tools/timing_fit.py, the
// six gau-nernst GEMMs at 4096³ only).
#include <cstdint>
#include <span>
#include <string>

namespace tcgen::timing {

struct Machine {
  // ---- the chip
  int sms = 148;                      // device query (pytorch/ao #4002; chipsandcheese B200)
  double clock_hz = 1.86e9;           // 2.25 PFLOP/s dense BF16 = 148 SMs × 8192 FLOP/clk × 1.86 GHz
  std::uint32_t smem_per_sm = 233472; // 228 KiB per SM (pytorch/ao #4002)
  std::uint32_t smem_reserved_per_cta = 1024;  // the driver's 1 KiB per CTA (CUDA C++ guide, shared memory)
  int threads_per_sm = 2048;          // pytorch/ao #4002
  int ctas_per_sm = 32;               // CUDA C++ guide, compute capability 10.0
  int schedulers = 4;                 // warp schedulers per SM, one warp-instruction per cycle each

  // ---- tcgen05.mma (SemiAnalysis microbench-blackwell, umma_throughput/tput_results_max.csv)
  double mma_flops_16bit = 8192;      // dense FLOP per clock per SM: BF16/F16 (128x256x16 SS: 128.61 cycles)
  double mma_flops_tf32 = 4096;       // half the 16-bit rate (the 16-bit figure over 2; no B200 measurement found)
  double mma_flops_8bit = 16384;      // E4M3, MXF8, I8 (128x256x32 SS: 128.31 cycles)
  double mma_flops_4bit = 32768;      // F4, MXF4, NVF4 (128x256x64 SS: 128.18 cycles)
  // Latency after the pipe cycles (umma_latency/fit_results.csv: latency = cycles + fixed)
  double mma_tail_ss = 136;           // BF16 SS M128: N128 200 = 64 + 136, N256 264 = 128 + 136
  double mma_tail_ts = 104;           // BF16 TS M128: N128 168 = 64 + 104, N256 232 = 128 + 104
  double mma_tail_pair = 170;         // 2-SM M256: N128 234 = 64 + 170, N256 298 = 128 + 170

  // ---- TMA and the memory system
  double hbm_bytes_per_s = 7.26e12;   // TMA 2D stream, 128 KiB in flight per SM (tma2d_throughput)
  // Fitted on the calibration kernels (docs/timing.md): tools/timing_fit.py, RMS of log(predicted /
  // published) 0.032 over gau-nernst's v1a-v6 at 4096³.
  double tma_latency = 440;           // fitted: issue to landing beyond the transfer (tma2d_latency: 1606-2088 from DRAM)
  double tma_rows_per_cycle = 1.0;    // fitted: 128-byte requests a TMA unit issues per clock (v1a's 16-byte rows)
  double l2_bytes_per_cycle = 94;     // fitted: bytes per clock per SM from L2
  double global_latency = 800;        // ld.global from L2 (ldgsts_latency medians ~1000-2060 cycles from DRAM); fitted
  double l1_latency = 36;             // ld.global hitting L1: 19.6 ns (chipsandcheese B200 article, via besthub.dev)
  // ---- on the SM
  // Shared memory's port per SM per clock, shared by TMA, the tensor pipe's SS operands and the warps
  // (FA4 paper, arXiv 2603.05451; SemiAnalysis: 128x64x16 SS is SMEM-bound at 48.56 cycles = 6 KiB / 126.5)
  double smem_bytes_per_cycle = 128;
  double mufu_ops_per_cycle = 16;     // MUFU per SM per clock (same)
  double tmem_ld_latency = 60;        // fitted: tcgen05.ld issue to registers (no public figure)
  double tmem_bytes_per_cycle = 512;  // fitted: tcgen05.ld/st bytes per clock per SM (no public figure)
  double mbarrier_wake = 120;         // fitted: a phase completing to its waiter running (no public figure)
  double peer_signal_latency = 600;   // fitted: an arrival or complete_tx reaching a peer CTA's mbarrier (no public figure)
  double launch_seconds = 2e-6;       // fitted: grid launch and drain
};

// The constants by name, for tcgen run --timing-set NAME=VALUE (what if L2 were
// faster?) and the docs' table: one row per member of Machine that is a figure.
struct Constant {
  const char* name;
  double Machine::*value;
};
std::span<const Constant> constants();
// Sets one constant; throws tcgen::Error naming an unknown constant or a value that is not positive.
void set_constant(Machine& m, const std::string& name, double value);

}  // namespace tcgen::timing
