#include "tcgen/timing/mma_cost.hpp"

#include <algorithm>

namespace tcgen::timing {

MmaCost mma_cost(const MmaShape& s, const Machine& m) {
  MmaCost c;
  c.peak_flops_per_sm_cycle = s.rate == MmaRate::bits16 ? m.mma_flops_16bit
                              : s.rate == MmaRate::tf32 ? m.mma_flops_tf32
                              : s.rate == MmaRate::bits8 ? m.mma_flops_8bit
                                                         : m.mma_flops_4bit;
  c.flops = 2.0 * s.m * s.n * s.k;
  const int sms = s.pair ? 2 : 1;
  // M = 64 on one SM runs at half rate: 64x256x16 takes the cycles of 128x256x16 (128.55 vs 128.61).
  const int m_rows = s.pair ? s.m : std::max(s.m, 128);
  const double k = s.sparse ? s.k / 2.0 : s.k;  // a 2:4 A does half the products (umma .sp: twice the dense rate)
  const double compute = 2.0 * m_rows * s.n * k / (c.peak_flops_per_sm_cycle * sms);
  // Shared-memory reads per SM: its rows of A (unless from TMEM) and its half of B for a pair.
  const double a_bytes = s.a_from_tmem ? 0 : static_cast<double>(s.m) / sms * k * s.element_bytes;  // .sp: A compressed
  const double b_bytes = static_cast<double>(s.n) / sms * s.k * s.element_bytes;
  c.compute = compute;
  c.smem_cycles = (a_bytes + b_bytes) / m.smem_bytes_per_cycle;
  c.cycles = std::max(compute, c.smem_cycles);
  c.latency = compute + (s.pair ? m.mma_tail_pair : s.a_from_tmem ? m.mma_tail_ts : m.mma_tail_ss);
  return c;
}

}  // namespace tcgen::timing
