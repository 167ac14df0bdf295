#pragma once
// The timing trace of one warp, written by its lane 0 while the kernel runs
// (tcgen::timing replays it): the instructions it issues, counted between the
// records that order the warp against others and against the units (mbarrier
// arrivals and waits, barriers, tcgen05.mma and commit, TMA, tcgen05.ld), and
// which barrier phases each record completes. A spin loop on a phase not yet
// complete is left out: the trace holds one wait for it, as a warp on a B200
// would be woken when the phase completes, whatever the host's fibers did.
// Lane 0 speaks for its warp: kernels elect lane 0 to issue (elect.sync picks
// the lowest active lane), and the whole warp's bytes are its bytes times 32.
#include <cstdint>
#include <map>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "tcgen/ptx/instruction.hpp"
#include "tcgen/ptx/opcode_table.hpp"
#include "tcgen/ptx/types.hpp"
#include "tcgen/timing/trace.hpp"

namespace tcgen::ptx {

class Thread;
struct Opcode;

// What an opcode is to the trace, from its table row and its suffixes; set once at decode.
TimingOp timing_op(std::string_view row, Family family, const Opcode& op);

// Global memory a CTA touched, as 4 KiB chunk numbers of host addresses (all threads).
struct TouchedChunks {
  std::unordered_set<std::uint64_t> read, written;
  void add(std::uint64_t address, std::uint64_t bytes, bool write);
};

class WarpRecorder {
 public:
  WarpRecorder(timing::WarpTrace& trace, TouchedChunks& chunks, std::uint64_t cluster, std::uint32_t rank)
      : trace_(trace), chunks_(chunks), cluster_(cluster), rank_(rank) {}

  // After lane 0 ran `in` (its guard held).
  void after(Thread& t, const Instruction& in);
  // An ld/st of lane 0 (not cp.async's): shared-memory bytes, global stores, global loads.
  void memory(Space space, std::uint64_t address, std::uint32_t bytes, bool write);
  // An arrival or complete_tx the running instruction applies to an mbarrier of CTA `rank`.
  void signal(std::uint32_t rank, std::uint32_t mbar, std::uint64_t phase);
  // The warp's end: the work after its last record.
  void finish();

 private:
  timing::Record& add(timing::Op op, const Instruction& in);
  void tma(Thread& t, const Instruction& in, bool load);
  timing::PhaseKey key(timing::PhaseKey::Kind kind, std::uint32_t id, std::uint64_t phase, std::uint32_t rank) const {
    return {cluster_, rank, kind, id, phase};
  }

  timing::WarpTrace& trace_;
  TouchedChunks& chunks_;
  std::uint64_t cluster_;
  std::uint32_t rank_;
  timing::Work work_;
  std::vector<timing::PhaseKey> signals_;  // from the running instruction, not yet in a record
  bool spinning_ = false;                  // in a loop of try_wait that found its phase incomplete
  std::map<std::uint32_t, std::uint64_t> bar_uses_;  // bar/barrier by id: uses so far
  std::uint64_t cluster_arrivals_ = 0;
  std::unordered_set<std::uint64_t> lines_;  // 128-byte lines lane 0 loaded with ld.global: in L1 after
};

}  // namespace tcgen::ptx
