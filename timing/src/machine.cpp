#include "tcgen/timing/machine.hpp"

#include <iterator>

#include "tcgen/core/error.hpp"

namespace tcgen::timing {

namespace {

#define TCGEN_CONSTANT(member) Constant{#member, &Machine::member}
constexpr Constant kConstants[] = {
    TCGEN_CONSTANT(clock_hz),           TCGEN_CONSTANT(mma_flops_16bit),    TCGEN_CONSTANT(mma_flops_tf32),
    TCGEN_CONSTANT(mma_flops_8bit),     TCGEN_CONSTANT(mma_flops_4bit),
    TCGEN_CONSTANT(mma_tail_ss),        TCGEN_CONSTANT(mma_tail_ts),        TCGEN_CONSTANT(mma_tail_pair),
    TCGEN_CONSTANT(hbm_bytes_per_s),    TCGEN_CONSTANT(tma_latency),
    TCGEN_CONSTANT(tma_rows_per_cycle), TCGEN_CONSTANT(l2_bytes_per_cycle), TCGEN_CONSTANT(global_latency),
    TCGEN_CONSTANT(l1_latency),         TCGEN_CONSTANT(smem_bytes_per_cycle), TCGEN_CONSTANT(mufu_ops_per_cycle),
    TCGEN_CONSTANT(tmem_ld_latency),    TCGEN_CONSTANT(tmem_bytes_per_cycle), TCGEN_CONSTANT(mbarrier_wake),
    TCGEN_CONSTANT(peer_signal_latency), TCGEN_CONSTANT(launch_seconds),
};
#undef TCGEN_CONSTANT

}  // namespace

std::span<const Constant> constants() { return kConstants; }

void set_constant(Machine& m, const std::string& name, double value) {
  std::string names;
  for (const Constant& c : kConstants) {
    if (name == c.name) {
      if (!(value > 0)) fail(("timing constant " + name).c_str(), std::to_string(value), "a positive value");
      m.*c.value = value;
      return;
    }
    names += (names.empty() ? "" : ", ") + std::string(c.name);
  }
  fail("timing constant", name, "one of " + names);
}

}  // namespace tcgen::timing
