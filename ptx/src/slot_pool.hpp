#pragma once
// Register slots (a cluster's warps' files: WarpRegisters) and a thread's pending-load
// marks, reused across the CTAs an OS thread runs. Each of a CTA's threads allocated its own and gave them
// back when it ended (the FMHA's 384 threads, 5,000 slots each, twice): the
// heap's fresh pages, their faults and the zeroing were a tenth of bench_ptx's
// interpreter cost beyond HostArch's.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tcgen::ptx::slot_pool {

// n slots, all 0.
std::vector<std::uint64_t> take(std::size_t n);
// Back to this OS thread's spares; `clean`: all 0 still, so that take() of a
// buffer this size or smaller costs no zeroing.
void give(std::vector<std::uint64_t>&& slots, bool clean);

}  // namespace tcgen::ptx::slot_pool
