#pragma once
// The units of a grid that share nothing but global memory (its clusters of
// CTAs) run on several OS threads at once. A unit's fibers all live on the OS
// thread that runs it, and each unit has its own schedule and seed, so a unit
// runs exactly as it would alone. When units do not talk through global
// memory (no atomics or flags between CTAs), a deterministic schedule gives
// the same bits on any number of threads and the first failing unit (by
// index) is the one a one-thread run would have stopped at; units that do
// meet in global memory in the OS threads' order, as on a GPU.
#include <cstdint>
#include <functional>

namespace tcgen::exec {

// The OS threads for a requested count (LaunchOptions::threads): 0 means one per core.
unsigned pool_threads(unsigned requested);

// Runs run(i) for every i in [0, units), handed out in index order to up to
// `threads` OS threads (pool_threads). finish(i) follows in index order, one
// at a time, for every unit up to and including the first that threw; then
// that unit's exception is rethrown. Units after it may have run (their
// global-memory writes stay), but they are not finished.
void run_units(std::uint64_t units, unsigned threads, const std::function<void(std::uint64_t)>& run,
               const std::function<void(std::uint64_t)>& finish);

}  // namespace tcgen::exec
