#pragma once
// The warp-collective instructions one warp's lanes are gathered at on the
// host. Every lane of the member mask arrives with a frame of its own
// operands; the arrival that completes the set runs the instruction once,
// with every lane's frame, and the lanes go on together. Lanes that do not
// meet — different instructions, different member masks, a lane exiting
// while the others wait at a .sync.aligned one — are a ConvergenceError.
//
// PTX: a .sync.aligned instruction (tcgen05.ld/st/wait/alloc/dealloc,
// bar.sync) is executed by all threads of the warp, at the same
// instruction; shfl.sync, vote.sync, elect.sync and bar.warp.sync wait for
// the non-exited threads of membermask, and the executing thread must be in
// membermask (PTX #data-movement-and-conversion-instructions-shfl-sync,
// #parallel-synchronization-and-communication-instructions-vote-sync, -elect-sync,
// -bar-warp-sync, -bar).
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tcgen/core/source_location.hpp"

namespace tcgen::exec {

// Where an instruction stands in the kernel's code: a C++ source line for
// HostArch's calls, a PTX line for the PTX interpreter. `file` outlives the run.
struct CodeSite {
  const char* file = "";
  unsigned line = 0, column = 0;
  CodeSite() = default;
  CodeSite(const char* f, unsigned l, unsigned c = 0) : file(f), line(l), column(c) {}
  CodeSite(const SourceLocation& s) : file(s.file_name()), line(s.line()), column(s.column()) {}  // NOLINT: implicit
};

struct CollectiveOp {
  std::string instruction;  // "tcgen05.ld.sync.aligned.32x32b.x8.b32", "shfl.sync.idx.b32"
  bool aligned = false;     // .sync.aligned: all 32 lanes, at one instruction (one code site)
  CodeSite site;
};

// "kernel.hpp:42" (the file's last path component).
std::string site_text(const CodeSite& site);

class WarpCollectives {
 public:
  using Frames = std::array<void*, 32>;    // a lane's frame, or null for a lane that takes no part
  using Run = std::function<void(const Frames&)>;

  explicit WarpCollectives(int warp) : warp_(warp) {}

  // Lane `lane` arrives at `op` with `mask` and its frame; `run` executes the
  // instruction for all lanes. When this arrival completes the collective,
  // run has been called and the other lanes to wake are returned; nullopt:
  // the lane waits. Throws ConvergenceError.
  std::optional<std::uint32_t> arrive(int lane, const CollectiveOp& op, std::uint32_t mask, void* frame, Run run);
  // Lane `lane` exits. Returns the lanes to wake (0: none) when a collective
  // waited only for it (it has run); throws ConvergenceError when a
  // .sync.aligned instruction waits for it.
  std::uint32_t exit(int lane);
  // The collective `lane` waits at and who is there, for a deadlock report.
  std::string describe(int lane) const;
  // The lanes that count as converged with `lane` (activemask's answer):
  // those that have not exited, and those that exited having met at as many
  // collectives as `lane` has, which a GPU would still run together with it.
  std::uint32_t converged_with(int lane) const;
  // Lanes that do not exist (the padding of a partial last warp): exited
  // from the start, never converged with anyone.
  void remove_lanes(std::uint32_t lanes);

  // A .sync.aligned instruction whose lanes meet apart: PTX asks all 32 at
  // once, and B200s run it for the lanes that come, the others later.
  // `apart(op, arrived, missing)` is asked when that would happen (lanes that
  // exited, or lanes blocked elsewhere while no thread can run); true: it
  // runs for `arrived` alone (frames of the others null), false: it stays
  // the ConvergenceError or the deadlock.
  using Apart = std::function<bool(const CollectiveOp& op, std::uint32_t arrived, std::uint32_t missing)>;
  void allow_apart(Apart apart) { apart_ = std::move(apart); }
  // While no thread can run: the first waiting aligned collective `apart`
  // allows runs for its lanes; returns them (0: none ran).
  std::uint32_t run_apart();

 private:
  struct Pending {
    CollectiveOp op;
    std::uint32_t mask = 0, arrived = 0;
    Frames frames{};
    Run run;
    bool apart = false;  // an aligned one that does not wait for exited lanes
  };
  // When Pending i needs no more lanes: runs it, removes it and returns the
  // lanes it held other than `lane`.
  std::optional<std::uint32_t> complete_if_ready(std::size_t i, int lane);
  [[noreturn]] void fail(const CollectiveOp& op, const std::string& detail) const;

  int warp_;
  std::uint32_t exited_ = 0, absent_ = 0;
  std::array<std::uint64_t, 32> met_{};  // collectives each lane has completed
  std::vector<Pending> pending_;
  Apart apart_;
};

}  // namespace tcgen::exec
