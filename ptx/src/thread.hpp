#pragma once
// One PTX thread on the host model: its registers (64-bit slots, two for
// .b128, its lane's of its warp's file: warp_registers.hpp; a value is read
// back at its type's width, so whatever lies above it is ignored: ld.sN and
// cvt to signed types sign-extend, the rest zero-extend), its local memory,
// its program counter, and the CTA runtime (exec::HostArch) that carries its
// warp-collective and tcgen05 instructions to the model. The handlers
// (decode_*.cpp) read and write operands through get/set.
#include <atomic>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "tcgen/exec/cta_runtime.hpp"
#include "tcgen/exec/host_arch.hpp"
#include "tcgen/model/rule.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/generic_address.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"
#include "warp_lockstep.hpp"
#include "warp_recorder.hpp"
#include "warp_registers.hpp"

namespace tcgen::ptx {

// What every thread of a launch shares. CTAs run on several OS threads at
// once (exec::run_units): all of it is read-only but `atomics`.
struct Grid {
  const Module& module;
  const Function& function;
  const LaunchConfig& config;
  std::vector<std::uint8_t> params;  // the parameter buffer, laid out by the .param list
  std::vector<Allocation> memory;    // what global accesses may touch: the caller's, the module's, the parameters
  std::vector<std::size_t> by_start;  // memory's entries by start address (Thread::host_bytes_search)
  // LaunchOptions::provenance where the kernel has a tcgen05.mma to read it (docs/model.md,
  // operand_not_a_tile): else the sources of its loads, stores and tcgen05.st are not kept.
  bool provenance = false;
  std::mutex atomics;                // held by atom/red outside shared memory: CTAs on other OS threads
  // Moves when a cluster makes progress (a write, a barrier, a thread's end), for the livelock watchdog
  // of threads that spin on what another cluster, on another OS thread, will write.
  std::atomic<std::uint64_t> progress{0};
  // For LaunchConfig::heartbeat: the instructions executed (each CTA's in steps of Thread::kBeat while
  // it runs, the rest when it is done) and the CTAs done, of `ctas`.
  std::atomic<std::uint64_t> executed{0}, ctas_done{0};
  std::uint64_t ctas = 0;
};

// What the threads of one CTA share beyond the runtime.
struct CtaState {
  std::uint64_t instructions = 0;                 // executed by the CTA's threads; its %clock
  std::uint64_t writes = 0;                       // memory writes of its threads: progress, to the watchdog
  std::vector<std::uint64_t> executed;            // LaunchConfig::profile: per instruction, its executions
  std::map<std::string, std::uint64_t> warnings;  // PTX-letter rules broken, by rule
  std::map<std::string, std::string> first_warning;  // rule → where and how its first break in this CTA
  std::string printed;                            // what printf wrote, in order, shown once the CTA is done
  // Definedness: where each undefined value came from (an origin id is its index + 1): a Tensor Memory
  // cell a tcgen05.ld read while it held no defined value, and that load; one per cell and load. Or a
  // byte of shared or local memory never written since the CTA (the thread) started, and the load
  // that read it; one per byte, load (and thread, for local memory). Or the address a mapa made for a
  // rank outside the cluster; one per address, rank and mapa (`ld` is the mapa).
  struct Origin {
    enum class Kind : std::uint8_t { tmem, shared, local, mapa };
    model::Cta::UndefinedRead cell;  // tmem
    const Instruction* ld;
    Kind kind = Kind::tmem;
    std::uint32_t address = 0;  // shared, local: the byte never written (a shared::cta or local address)
    int rank = -1;              // shared: a peer CTA's memory (its rank in the cluster), -1 the reader's own;
                                // mapa: the rank it was given
    int thread = -1;            // local: whose memory
  };
  std::vector<Origin> origins;
  std::map<std::tuple<Origin::Kind, std::uint64_t, const Instruction*>, std::uint32_t> origin_ids;

  // A broken rule of the model's table, by its severity (model/rule.hpp): a fault
  // stops the thread; a letter or convention is counted (under LaunchConfig::strict
  // it is an error) and the instruction goes on as if the rule had been obeyed.
  void raise(const LaunchConfig& config, model::Rule rule, const std::string& where, const std::string& field,
             const std::string& value, const std::string& expected);

  struct Arrivals {
    bool taken;
    std::uint32_t lanes;
  };
  // bra.uni: per warp, (instruction, k-th execution) → the first lane's choice and who has come.
  std::vector<std::map<std::pair<std::uint32_t, std::uint32_t>, Arrivals>> uniform;
  // bar.red: (barrier id, k-th use) → the reduction so far and the threads still to read it.
  struct Reduction {
    std::uint32_t popc = 0;
    bool all = true, any = false;
    unsigned readers = 0;
  };
  std::map<std::pair<unsigned, std::uint64_t>, Reduction> reductions;
  // setmaxnreg: per warp, the counts it set (.inc positive, .dec negative), in order.
  std::vector<std::vector<std::int64_t>> register_counts;
  // Shared memory that TMA stores still read: from their issue until the issuing thread's
  // cp.async.bulk.wait_group.read lets their bulk group go.
  struct BulkRead {
    int thread;
    std::uint64_t group;  // the thread's bulk group it belongs to (its commit count at issue)
    std::uint32_t begin, end;
    std::uint32_t line;   // the store's PTX line
  };
  std::vector<BulkRead> bulk_reads;
  // LaunchConfig::lockstep: each warp's, made before its threads start.
  std::vector<WarpLockstep> lockstep;
  // The timing trace (LaunchConfig::timing): each warp's records, the global memory touched.
  std::vector<timing::WarpTrace> warp_traces;
  TouchedChunks touched;
};

// A load's value: n (1, 2, 4 or 8) little-endian bytes, PTX's memory order and the host's. A copy of
// fixed size each, because a copy of n bytes into a zeroed word read whole stalls store-to-load
// forwarding (bench_ptx: 16% of a SIMT run).
inline std::uint64_t little_endian(const std::uint8_t* p, std::uint32_t n) {
  switch (n) {
    case 1: return *p;
    case 2: { std::uint16_t v; std::memcpy(&v, p, 2); return v; }
    case 4: { std::uint32_t v; std::memcpy(&v, p, 4); return v; }
    case 8: { std::uint64_t v; std::memcpy(&v, p, 8); return v; }
    default: { std::uint64_t v = 0; std::memcpy(&v, p, n); return v; }
  }
}

// An .sN load's value, its n bytes sign-extended to 64 bits.
inline std::uint64_t sign_extend(std::uint64_t v, std::uint32_t n) {
  if (n >= 8) return v;
  const std::uint32_t shift = 64 - 8 * n;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(v << shift) >> shift);
}

class Thread {
 public:
  static constexpr std::uint64_t kBeat = std::uint64_t{1} << 20;  // instructions of a CTA per heartbeat

  // Its lane's registers and the rest a warp form reads are those of `warp` in `warps`.
  Thread(Grid& grid, CtaState& cta, exec::CtaRuntime& rt, int linear, WarpRegisters& warps, std::size_t warp);
  ~Thread();  // its pending marks back to the pool (slot_pool.hpp)
  Thread(const Thread&) = delete;
  Thread& operator=(const Thread&) = delete;

  // Runs to exit; a tcgen::Error becomes an ExecutionError with this thread's context. With a
  // lockstep, its warp runs it while the warp is converged (warp_lockstep.hpp).
  void run();
  void set_lockstep(WarpLockstep* lockstep) { lockstep_ = lockstep; }
  // For its warp's fiber (warp_lockstep.hpp), as run() would, the lanes' pcs and watchdog counts
  // kept in `w` (thread_lockstep.cpp): run_group runs the instruction at `pc` on each lane of
  // `group` (all there), then the next, and so on, until one is neither lane_local, lane_jump nor
  // branch or is at `stop` (not run), or after a lane_jump or branch; it returns whether the lanes
  // are then all at one pc, none exited. step_in_warp runs this lane's next instruction.
  static bool run_group(LockstepLanes& w, std::uint32_t group, std::uint32_t pc, std::uint32_t stop);
  void step_in_warp();
  std::uint32_t pc() const { return pc_; }
  bool exited() const { return exited_; }
  // bar.sync of a warp in lockstep (warp_lockstep.hpp): the other lanes (all at `pc`) only count it
  // as executed, once for all (count_for_warp), and the leader's arrival brings theirs
  // (`companions`, its warp's lanes).
  static void count_for_warp(LockstepLanes& w, Thread& leader, std::uint32_t pc);
  // Brings the watchdog counts of w's lanes up to date with what they ran (their watchdog where one
  // runs out, `last` the instruction it names), and w.slack with them.
  static void settle(LockstepLanes& w, const Instruction& last);
  // The warp splits: each lane that has not exited takes its pc and count from `w`.
  static void leave_lockstep(LockstepLanes& w);
  std::uint32_t warp_companions() const { return warp_companions_; }
  void set_warp_companions(std::uint32_t lanes) { warp_companions_ = lanes; }

  // ---- operands
  template <class T>
  T get(const Operand& o) const {
    if (o.kind == Operand::Kind::reg) [[likely]] {
      if (shadowed_) read_shadow(o.slot);
      return from_bits<T>(slot(o.slot));
    }
    return get_other<T>(o);
  }
  template <class T>
  void set(const Operand& o, T v) {
    if (o.kind != Operand::Kind::reg) return;  // _
    if (shadowed_) write_shadow(o.slot, taint_);
    slot(o.slot) = to_bits(v);
  }
  // The same, the register's definedness given: `origin` 0 defined, else an id of CtaState::origins.
  template <class T>
  void set(const Operand& o, T v, std::uint32_t origin) {
    if (o.kind != Operand::Kind::reg) return;
    if (shadowed_ || origin) write_shadow(o.slot, origin);
    slot(o.slot) = to_bits(v);
  }
  bool pred(const Operand& o) const { return (get<std::uint32_t>(o) & 1u) != o.negate; }
  // Straight to the register file, for the handlers decode chose because their operands are plain
  // registers (alu.hpp, Registers): valid only while shadowed() is false (no register pending or
  // undefined, no undefined source read), which they test first, falling back to get/set.
  bool shadowed() const { return shadowed_; }
  // Its warp's register file (warp_registers.hpp), and the lanes of its warp that are shadowed.
  std::uint64_t* warp_registers() const { return r_ - lane(); }
  std::uint32_t shadowed_lanes() const { return *shadowed_lanes_; }
  template <class T>
  T reg(std::uint32_t slot) const {
    return from_bits<T>(this->slot(slot));
  }
  template <class T>
  void put_reg(std::uint32_t slot, T v) {
    this->slot(slot) = to_bits(v);
  }
  // An immediate operand's value as T.
  template <class T>
  static T immediate(const Operand& o) {
    if constexpr (std::is_same_v<T, float>) return o.f;
    else if constexpr (std::is_same_v<T, double>) return o.d;
    else return convert<T>(o.ival);
  }
  // A register slot read or written directly (.b128 halves, bra.uni's predicate), its definedness kept.
  std::uint64_t read_slot(std::uint32_t s) const {
    if (shadowed_) read_shadow(s);
    return slot(s);
  }
  void write_slot(std::uint32_t s, std::uint64_t v) {
    if (shadowed_) write_shadow(s, taint_);
    slot(s) = v;
  }
  void write_slot(std::uint32_t s, std::uint64_t v, std::uint32_t origin) {
    if (shadowed_ || origin) write_shadow(s, origin);
    slot(s) = v;
  }
  // CC.CF, the condition code's carry flag that add.cc/addc/sub.cc/subc/mad.cc/madc read and write
  // (PTX #extended-precision-integer-arithmetic-instructions); one per thread, clear at launch.
  bool& carry_flag() { return carry_; }

  // ---- memory: `space` as the instruction names it; generic resolves by window
  // Definedness: bytes of shared or local memory never written, or holding an undefined value, make
  // the instruction's results undefined (taint_); with `element_origins`, instead, each of the
  // n / element_bytes elements' origin is written there (0: defined), the return value saying
  // whether any is undefined (ld's registers, one by one).
  bool load(Space space, std::uint64_t addr, void* out, std::uint32_t n, const Instruction& in,
            std::uint32_t* element_origins = nullptr, std::uint32_t element_bytes = 0);
  void store(Space space, std::uint64_t addr, const void* data, std::uint32_t n, const Instruction& in);
  // The shared address behind an operand of a .shared(::cta/::cluster) instruction.
  std::uint32_t shared_address(std::uint64_t addr, const Instruction& in) const;
  // Reads n bytes at a generic, global or param address that must lie in declared memory.
  // The allocation the thread's last global access hit is tried inline (a loop's accesses mostly
  // stay in one); the rest is host_bytes_search.
  const std::uint8_t* host_bytes(std::uint64_t addr, std::uint64_t n, bool write, const Instruction& in) const {
    if (in_last_allocation(addr, n, write)) [[likely]]
      return reinterpret_cast<const std::uint8_t*>(addr);
    return host_bytes_search(addr, n, write, in);
  }
  // Whether [addr, addr + n) lies in the allocation this thread's last global access hit (writable,
  // for a write).
  bool in_last_allocation(std::uint64_t addr, std::uint64_t n, bool write) const {
    const Allocation& a = grid_.memory[last_allocation_];
    const auto begin = reinterpret_cast<std::uint64_t>(a.data);
    return addr >= begin && addr - begin <= a.bytes && n <= a.bytes - (addr - begin) && (a.writable || !write);
  }
  // A global load's common case for lanes `lanes` of its warp (a warp in lockstep, this thread the
  // first of them; warp_form.hpp): ld.global of `n` bytes (sign-extended for `sign`) into one
  // register, aligned, in the allocation this thread's last global access hit, no timing trace.
  // Returns the lanes left to the handler (nothing done for them).
  std::uint32_t load_global_lanes(std::uint32_t lanes, const Instruction& in, std::uint32_t n, bool sign);
  // The allocation that starts last at or below addr (Grid::by_start), made the last one hit; the last
  // one hit where none starts below it. Its index in Grid::memory.
  std::size_t allocation_below(std::uint64_t addr) const;
  // The address an address operand ([reg + off]) names.
  std::uint64_t address(const Operand& o) const {
    if (o.slot == Operand::kNoReg) return static_cast<std::uint64_t>(o.ival);
    if (undefined_) [[unlikely]] require_defined(o.slot, "an address");
    return slot(o.slot) + static_cast<std::uint64_t>(o.ival);
  }

  // ---- definedness (docs/model.md, Definedness): a register read from Tensor Memory that holds no
  // defined value carries "undefined" and where it came from (an origin id, CtaState::origins);
  // an instruction that reads one makes its destinations undefined too (taint_: the first undefined
  // source of the instruction running); its use where the value matters is Rule::undefined_value_used.
  // The register's origin (0: defined).
  std::uint32_t origin(const Operand& o) const {
    return undefined_ && o.kind == Operand::Kind::reg ? origin_[o.slot] : 0;
  }
  // The first undefined source the instruction running has read (0: none so far), and its register.
  std::uint32_t taint() const { return taint_; }
  void clear_taint() { taint_ = 0; }
  // Stops the thread when `slot` is undefined: `use` says where the value went ("an address").
  void require_defined(std::uint32_t slot, const char* use) const {
    if (undefined_ && origin_[slot]) undefined_use(origin_[slot], slot, use);
  }
  // Stops the thread when the instruction running has read an undefined source.
  void require_defined_sources(const char* use) const {
    if (taint_) undefined_use(taint_, taint_slot_, use);
  }
  [[noreturn]] void undefined_use(std::uint32_t origin, std::uint32_t slot, const std::string& use) const;
  // The origin of the undefined value tcgen05.ld read from a cell (an id, made once per cell and load).
  std::uint32_t tmem_origin(const model::Cta::UndefinedRead& r, const Instruction& ld);
  // The origin of the address `mapa` made of shared::cta `address` for `rank`, outside the cluster.
  std::uint32_t mapa_origin(std::uint32_t address, std::uint32_t rank, const Instruction& mapa) {
    return unwritten_origin(CtaState::Origin::Kind::mapa, address, static_cast<int>(rank), mapa);
  }
  // The origin of [addr, addr + n) of the CTA's own shared memory (a shared::cta address, as the model
  // takes it) as `ld` reads it: an undefined value stored there, or a byte never written; 0: defined.
  std::uint32_t shared_origin(std::uint32_t addr, std::uint32_t n, const Instruction& ld);
  // Under LaunchConfig::strict, a read of memory never written is the fault, at the read (as a
  // tcgen05.ld of cells holding none is): stops the thread when `origin` is such a read.
  void strict_read(std::uint32_t origin) const {
    if (origin && grid_.config.strict) [[unlikely]] strict_read_fault(origin);
  }

  // ---- the thread
  int linear() const { return linear_; }
  int lane() const { return linear_ % 32; }
  int warp() const { return linear_ / 32; }
  exec::HostArch& arch() { return arch_; }
  CtaState& cta() { return cta_; }
  // bar.red on barrier `id`: which of this thread's uses this is (0, 1, ...).
  std::uint64_t next_reduction(unsigned id) { return reductions_[id]++; }
  // TMA stores' bulk groups: cp.async.bulk.commit_group closes the open one; wait_group[.read] n
  // lets all but the newest n committed go; a write into shared memory one still reads is a fault.
  void bulk_read(std::uint32_t begin, std::uint32_t end, const Instruction& in);
  void commit_bulk_group() { ++bulk_groups_; }
  void wait_bulk_groups(std::uint64_t pending);
  void check_bulk_reads(std::uint32_t addr, std::uint32_t n, const Instruction& in) const;
  exec::CtaRuntime& runtime() { return rt_; }
  Grid& grid() { return grid_; }
  exec::CodeSite site(const Instruction& in) const { return {grid_.module.name().c_str(), in.line}; }
  std::uint64_t special(Special s) const;
  void jump(std::int64_t target) { pc_ = static_cast<std::uint32_t>(target); }
  void exit() {
    exited_ = true;
    grid_.progress.fetch_add(1, std::memory_order_relaxed);  // another cluster's spinning thread may wait for it
  }

  // bra.uni's promise: this lane's choice agrees with its warp-mates' at the same execution.
  void check_uniform_branch(const Instruction& in, bool taken);

  // Device printf and assert output, and the launch's text sink.
  void print(const std::string& text);

  // tcgen05.ld's destinations: values[i] into registers[i], with origins[i] (0: defined; no origins:
  // all defined), each holding no value until tcgen05.wait::ld (pending on the warp's last load).
  void load_pending(const Operand* registers, std::uint32_t n, const std::uint32_t* values,
                    const std::uint32_t* origins);
  void clear_pending();

  template <class T>
  static T from_bits(std::uint64_t bits) {
    if constexpr (sizeof(T) == 8) {
      return std::bit_cast<T>(bits);
    } else if constexpr (sizeof(T) == 4) {
      return std::bit_cast<T>(static_cast<std::uint32_t>(bits));
    } else if constexpr (sizeof(T) == 2) {
      return std::bit_cast<T>(static_cast<std::uint16_t>(bits));
    } else {
      return static_cast<T>(bits);
    }
  }
  template <class T>
  static std::uint64_t to_bits(T v) {
    if constexpr (std::is_same_v<T, bool>) {
      return v ? 1 : 0;
    } else if constexpr (sizeof(T) == 8) {
      return std::bit_cast<std::uint64_t>(v);
    } else if constexpr (sizeof(T) == 4) {
      return std::bit_cast<std::uint32_t>(v);
    } else if constexpr (sizeof(T) == 2) {
      return std::bit_cast<std::uint16_t>(v);
    } else {
      return static_cast<std::uint8_t>(v);
    }
  }

  // Where the instruction this thread is executing runs (where()); "" before its first.
  std::string where_now() const;

  // The timing trace: every thread notes the global memory it touches; lane 0 records its warp.
  void set_timing(WarpRecorder* recorder, TouchedChunks* touched) {
    recorder_ = recorder;
    touched_ = touched;
  }
  WarpRecorder* recorder() const { return recorder_; }

  // With provenance: where each register's 4 bytes came from, a 4-byte-aligned word of one of the
  // last global loads (0: unknown, or two places hold it); false without provenance (out untouched).
  bool word_origins(const std::uint32_t* words, std::uint32_t n, std::uint64_t* out) const;

 private:
  template <class T>
  T get_other(const Operand& o) const {
    switch (o.kind) {
      case Operand::Kind::imm: return immediate<T>(o);
      case Operand::Kind::special: return convert<T>(special(o.special));
      case Operand::Kind::address: return convert<T>(address(o));
      default: return T{};
    }
  }
  // static_cast<T>(v); for alu::Half, a one-member aggregate, what C++20's parenthesized
  // aggregate initialization makes of that cast, spelled out for clang 14, which lacks it.
  template <class T, class V>
  static T convert(V v) {
    if constexpr (std::is_constructible_v<T, V>) return static_cast<T>(v);
    else return T{static_cast<decltype(T::bits)>(v)};
  }
  void check_pending(std::uint32_t slot) const;
  void read_shadow(std::uint32_t slot) const {
    if (pending_) check_pending(slot);
    if (undefined_ && origin_[slot] && !taint_) taint_ = origin_[slot], taint_slot_ = slot;
  }
  void write_shadow(std::uint32_t slot, std::uint32_t origin);
  void memory_origin(std::uint32_t origin);  // a load read bytes of this origin (0: defined)
  // The origin of n loaded bytes of resolved `space` at addr (remote: a peer CTA's shared memory).
  std::uint32_t loaded_origin(Space space, bool remote, std::uint64_t addr, std::uint32_t n, const Instruction& in);
  std::uint32_t unwritten_origin(CtaState::Origin::Kind kind, std::uint32_t address, int rank, const Instruction& in);
  [[noreturn]] void strict_read_fault(std::uint32_t origin) const;
  void run_shadowed(const Instruction& in);  // one instruction while some register is undefined
  const std::uint8_t* host_bytes_search(std::uint64_t addr, std::uint64_t n, bool write, const Instruction& in) const;
  // A generic address to the space whose window holds it (global outside the windows), the
  // alignment checked. Access sizes are powers of two (PTX's types, vectors of 2 and 4): a mask, not
  // a division, tested by n & (n - 1), not std::has_single_bit, a libgcc call without -mpopcnt (3% of
  // a curand kernel).
  std::uint64_t resolve(Space& space, std::uint64_t addr, std::uint32_t n, const Instruction& in) const {
    if (n <= 16 && ((n & (n - 1)) == 0 ? (addr & (n - 1)) != 0 : addr % n != 0)) [[unlikely]]
      misaligned(addr, n, in);
    if (space != Space::generic) return addr;
    if (in_shared_window(addr)) return space = Space::shared, addr - kSharedWindow;
    if (in_local_window(addr)) return space = Space::local, addr - kLocalWindow;
    space = Space::global;
    return addr;
  }
  [[noreturn]] void misaligned(std::uint64_t addr, std::uint32_t n, const Instruction& in) const;
  bool cluster_access(Space named, std::uint64_t addr, const Instruction& in) const;
  std::uint8_t* bytes(Space space, std::uint64_t addr, std::uint32_t n, bool write, const Instruction& in);
  [[noreturn]] void report(const Error& e, const Instruction& in) const;
  // The interpreter's loop, to exit, of step()s. kCount: count each instruction's executions
  // (LaunchConfig::profile), in an instantiation of its own so that a launch without the profile
  // pays nothing for it (bench_ptx measured 7% for a run-time test in the loop).
  template <bool kCount>
  void execute();
  // One instruction: the next, or `in` at this thread's pc (counted by the caller under the profile).
  template <bool kCount>
  void step(const Instruction* code, std::uint64_t& count);  // code_, cta_.instructions
  void step_at(const Instruction& in, std::uint64_t& count);
  template <bool kCount>
  static bool group_steps(LockstepLanes& w, std::uint32_t group, std::uint32_t pc, std::uint32_t stop);
  // `in` at `pc` through its handler for each of `lanes`; `jumps`: their pcs into w as it leaves them.
  static void lanes_step(LockstepLanes& w, const Instruction& in, std::uint32_t pc, std::uint32_t lanes, bool jumps);
  // Runs f, a tcgen::Error becoming an ExecutionError with this thread's context.
  template <class F>
  void reporting(F f) {
    try {
      f();
    } catch (const Error& e) {
      if (dynamic_cast<const ExecutionError*>(&e)) throw;
      report(e, *current_);
    }
  }
  // The launch's heartbeat (LaunchConfig::heartbeat): each kBeat instructions of the CTA.
  void beat();
  // The livelock watchdog (LaunchOptions::watchdog), its slow path: once the count runs out.
  void watchdog(const Instruction& in);
  bool progressed();
  [[noreturn]] void livelock(const Instruction& in);
  // Where `in` runs, on one line: its CUDA file:line (where -lineinfo gave one), its PTX line, the
  // kernel, block, warp and lane.
  std::string where(const Instruction& in) const;


  Grid& grid_;
  CtaState& cta_;
  exec::CtaRuntime& rt_;
  // Its own, in the Thread, not the fiber's (exec::CtaRuntime::run_thread's, on the fiber's stack): a
  // warp in lockstep runs its lanes in turn, and their Threads lie side by side (launch.cpp).
  exec::HostArch arch_;
  int linear_;
  const Instruction* code_;  // the function's
  std::uint32_t pc_ = 0;
  bool exited_ = false;
  bool carry_ = false;
  std::uint32_t warp_companions_ = 0;
  WarpLockstep* lockstep_ = nullptr;
  // Its registers: lane `lane()` of its warp's register file, lane-major (WarpRegisters): slot s at
  // r_[s * kWarpLanes].
  std::uint64_t* r_;
  std::uint32_t* shadowed_lanes_;  // its warp's lanes that are shadowed_ (WarpRegisters::shadowed)
  std::uint64_t& slot(std::uint32_t s) { return r_[std::size_t{s} * kWarpLanes]; }
  std::uint64_t slot(std::uint32_t s) const { return r_[std::size_t{s} * kWarpLanes]; }
  void set_shadowed(bool on) {
    shadowed_ = on;
    const std::uint32_t bit = 1u << lane();
    *shadowed_lanes_ = on ? *shadowed_lanes_ | bit : *shadowed_lanes_ & ~bit;
  }
  std::vector<std::uint8_t> local_;
  std::vector<std::uint8_t> call_params_;  // the function's call-site .param variables
  std::uint64_t* pending_ = nullptr;  // per slot, the model's id of the tcgen05.ld that filled it, unwaited (0: none)
  std::vector<std::uint64_t> pending_storage_;
  mutable std::vector<std::uint32_t> pending_slots_;  // the slots marked since the last wait (some since cleared)
  // Definedness: per slot its origin (0: defined), kept once one is undefined; how many are; shadowed_
  // while pending_ or undefined_ (get/set's one test); the instruction's first undefined source.
  std::vector<std::uint32_t> origin_;
  std::uint32_t undefined_ = 0;
  bool shadowed_ = false;
  mutable std::uint32_t taint_ = 0, taint_slot_ = 0;
  // Local memory's: per byte, once an undefined value is stored there; a bit per byte written since
  // the thread started (local memory is not zero on silicon).
  std::vector<std::uint32_t> local_origin_;
  std::uint32_t local_undefined_ = 0;
  std::vector<std::uint64_t> local_written_;
  const Instruction* current_ = nullptr;
  std::uint64_t watchdog_left_ = 0;  // instructions before the watchdog looks again
  mutable std::size_t last_allocation_ = 0;  // Grid::memory's entry of the last global access (host_bytes)
  std::uint64_t seen_local_ = 0, seen_grid_ = 0;  // the progress counts it saw then
  std::map<std::uint32_t, std::uint32_t> uniform_visits_;  // bra.uni executions by instruction
  std::map<unsigned, std::uint64_t> reductions_;           // bar.red uses by barrier id
  std::uint64_t bulk_groups_ = 0;                          // cp.async.bulk.commit_group executed
  WarpRecorder* recorder_ = nullptr;                       // lane 0 under timing
  TouchedChunks* touched_ = nullptr;                       // under timing
  std::uint64_t last_touched_[2] = {~0ull, ~0ull};         // the chunk last read and written: not noted again
  void touch(std::uint64_t addr, std::uint32_t n, bool write);
  RecentLoads* recent_;  // its lane's in its warp's (WarpRegisters)
  std::uint64_t origin_of(const void* data, std::uint32_t n) const;
  void note_global_load(std::uint64_t addr, const void* data, std::uint32_t n) {
    if (n <= 16 && grid_.provenance) recent_->note(addr, data, n);
  }
};

// A fault of the interpreter itself (an address outside memory, an operand it
// cannot use, a failed assert), with what a GPU would report for it.
struct ThreadFault : Error {
  ThreadFault(FaultKind k, const std::string& field, const std::string& value, const std::string& expected)
      : Error(field, value, expected), kind(k) {}
  FaultKind kind;
};
[[noreturn]] void fault(const std::string& field, const std::string& value, const std::string& expected,
                        FaultKind kind = FaultKind::launch_failure);

}  // namespace tcgen::ptx
