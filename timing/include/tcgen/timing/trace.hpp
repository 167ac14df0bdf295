#pragma once
// What a kernel did, as the timing model replays it: per warp, the
// instructions it issued between the events that order it against other
// warps and units (a record), and which barrier phases each record completes.
// The PTX interpreter writes it while the kernel runs (one lane per warp,
// spin loops left out); simulate() replays it on the B200's units.
#include <cstdint>
#include <string>
#include <vector>

#include "tcgen/timing/mma_cost.hpp"

namespace tcgen::timing {

// A barrier phase: which barrier of which CTA, and which of its phases (0, 1, ...).
struct PhaseKey {
  enum class Kind : std::uint8_t { mbarrier, named, cluster };
  std::uint64_t cluster = 0;  // the cluster's index in the grid
  std::uint32_t rank = 0;     // the CTA's rank in its cluster (cluster barriers: 0)
  Kind kind = Kind::mbarrier;
  std::uint32_t id = 0;       // mbarrier: its shared-memory offset; named: the barrier number
  std::uint64_t phase = 0;
  auto operator<=>(const PhaseKey&) const = default;
};

// Instructions issued since the warp's previous record.
struct Work {
  std::uint32_t issued = 0;       // warp-instructions
  std::uint32_t mufu = 0;         // of which on the MUFU (ex2, rcp, ...)
  std::uint64_t smem_bytes = 0;   // shared memory moved by ld/st.shared, the whole warp's
  std::uint64_t store_bytes = 0;  // global memory written by st.global, the whole warp's
};

enum class Op : std::uint8_t {
  arrive,        // a thread arrival (mbarrier.arrive, bar.arrive, barrier.cluster.arrive)
  wait,          // a wait for `phase` (try_wait that succeeded, bar.sync, barrier.cluster.wait)
  sync,          // bar.sync: an arrival on `phase` and a wait for it
  mma,           // tcgen05.mma of shape `mma` on the tensor pipe
  tmem_cp,       // tcgen05.cp of `bytes` from shared memory, in the tensor pipe's order
  commit,        // tcgen05.commit: signals when the thread's earlier mma/cp are done
  tma_load,      // cp.async.bulk(.tensor) global → shared: `bytes` in `rows` requests; signals when landed
  tma_store,     // cp.async.bulk(.tensor) shared → global
  bulk_wait,     // cp.async.bulk.wait_group: the thread's stores done
  tmem_ld,       // tcgen05.ld of `bytes` (whole warp)
  tmem_wait,     // tcgen05.wait::ld / ::st
  global_load,   // ld.global (`rows` instructions back to back): the warp waits for the data
  cp_async,      // cp.async of `bytes` (whole warp)
  cp_async_wait, // cp.async.wait_group / wait_all
  cp_async_arrive,  // cp.async.mbarrier.arrive: signals when the thread's cp.async are done
  exit,
};

struct Record {
  Op op = Op::exit;
  Work work;              // issued before this record
  std::uint32_t line = 0; // the PTX line, for the timeline
  MmaShape mma;           // mma: the instruction's shape and kind
  std::uint64_t bytes = 0;  // tma_*, tmem_*, global_load, cp_async: bytes moved
  std::uint64_t rows = 0;   // tma_*: requests of at most 128 contiguous bytes; global_load: instructions
  bool l1 = false;          // global_load: every line was read before by the CTA (an L1 hit)
  PhaseKey phase;           // wait, sync: the phase awaited
  std::vector<PhaseKey> signals;  // the phases this record contributes to (arrive, commit, tma_load, ...)
};

struct WarpTrace {
  std::vector<Record> records;
  // Instructions no unit of the model runs (mma.sync), each taken as one issue slot: the prediction
  // leaves their own time out, and says so (Prediction::untimed).
  std::uint64_t untimed = 0;
};

struct CtaTrace {
  std::uint32_t rank = 0;
  std::vector<WarpTrace> warps;
};

struct ClusterTrace {
  std::uint64_t index = 0;  // in the grid's order
  std::vector<CtaTrace> ctas;
};

// Global memory a launch touched, per allocation: distinct 4 KiB chunks and bytes moved.
struct MemoryUse {
  std::string name;
  std::uint64_t size = 0;
  std::uint64_t chunks_read = 0, chunks_written = 0;
};

struct LaunchTrace {
  std::string kernel;
  std::uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1}, cluster[3] = {1, 1, 1};
  std::uint32_t threads = 32;      // per CTA
  std::uint32_t smem_bytes = 0;    // per CTA, static and dynamic
  std::uint64_t clusters_total = 0;
  std::vector<ClusterTrace> clusters;  // those that ran (all, or the sample's)
  std::vector<MemoryUse> memory;
};

}  // namespace tcgen::timing
