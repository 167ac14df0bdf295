#pragma once
// One PTX instruction decoded once at load time into what the interpreter
// runs: a handler (a function chosen from the opcode and its suffixes), the
// guard predicate, typed modifiers and operands whose registers are slot
// numbers, whose symbols are resolved addresses and whose labels are
// instruction indices. Nothing is parsed while a kernel runs.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "tcgen/ptx/types.hpp"

namespace tcgen::ptx {

class Thread;
struct Instruction;
using Handler = void (*)(Thread&, const Instruction&);
// A handler's warp form: the same operation on the lanes of `mask` (a warp's, lanes[i] its lane i's
// thread, all at the instruction) at once, but those it leaves, which it returns, for the handler.
using WarpHandler = std::uint32_t (*)(Thread* const* lanes, std::uint32_t mask, const Instruction&);

// %tid.x ... : PTX #special-registers.
enum class Special : std::uint8_t {
  tid_x, tid_y, tid_z, ntid_x, ntid_y, ntid_z, ctaid_x, ctaid_y, ctaid_z, nctaid_x, nctaid_y, nctaid_z,
  laneid, warpid, nwarpid, smid, nsmid, gridid, clock, clock64, globaltimer,
  lanemask_eq, lanemask_lt, lanemask_le, lanemask_gt, lanemask_ge,
  cluster_ctarank, cluster_nctarank, clusterid_x, clusterid_y, clusterid_z, nclusterid_x, nclusterid_y, nclusterid_z,
  cluster_ctaid_x, cluster_ctaid_y, cluster_ctaid_z, cluster_nctaid_x, cluster_nctaid_y, cluster_nctaid_z,
  is_explicit_cluster, dynamic_smem_size, total_smem_size,
};

struct Operand {
  enum class Kind : std::uint8_t {
    none,
    reg,      // slot
    imm,      // ival / f / d
    special,  // special
    address,  // [slot + ival] (slot kNoReg: [ival], a resolved symbol or an absolute address)
    vector,   // elements[first .. first + count) of Instruction::elements
    sink,     // _
    label,    // target: an instruction index
  };
  static constexpr std::uint32_t kNoReg = 0xFFFFFFFFu;

  Kind kind = Kind::none;
  bool negate = false;     // !p
  bool predicate = false;  // a register declared .pred
  bool symbol = false;     // a variable's name: an imm that may become an address once shared memory is laid out
  Special special{};
  std::uint32_t slot = kNoReg;
  std::uint32_t first = 0, count = 0;
  std::int64_t ival = 0;  // an integer literal's value, a 0f/0d literal's bits, an address offset, a label target
  float f = 0;            // the literal read as f32
  double d = 0;           // the literal read as f64
};

// An instruction's decoded modifiers, as the struct or enum its opcode's
// family defines (decode_*.cpp: FloatModifiers, LoadStoreModifiers,
// MmaModifiers, ShflMode, ...): set once by the row's decoder, read by its
// handlers. Held in place in 12 bytes, the size of the untyped fields they
// replace, so a handler reads them without an indirection.
class Modifiers {
 public:
  template <class M>
  void set(const M& m) {
    static_assert(std::is_trivially_copyable_v<M> && sizeof(M) <= kBytes && alignof(M) <= kAlign);
    std::memcpy(bytes_, &m, sizeof m);
  }
  template <class M>
  M get() const {
    static_assert(std::is_trivially_copyable_v<M> && sizeof(M) <= kBytes && alignof(M) <= kAlign);
    M m;
    std::memcpy(&m, bytes_, sizeof m);
    return m;
  }

 private:
  static constexpr std::size_t kBytes = 12, kAlign = 4;
  alignas(kAlign) unsigned char bytes_[kBytes] = {};
};

// What an instruction is to the timing model's trace (warp_recorder.hpp), set at decode.
enum class TimingOp : std::uint8_t {
  plain, mufu, mbarrier_arrive, mbarrier_wait, bar, barrier_cluster, mma, tmem_cp, commit, tmem_ld, tmem_wait,
  tma_load, bulk_load, tma_store, bulk_store, bulk_wait, cp_async, cp_async_wait, cp_async_arrive, try_cancel,
  untimed,  // no unit of the timing model runs it: one issue slot, counted (timing::WarpTrace::untimed)
};

// How a warp in lockstep runs an instruction (ptx/src/warp_lockstep.hpp), set at decode: the lanes
// at it run it one after another where it acts on each lane's own state and never waits
// (lane_local; lane_jump where it may also move a lane's pc elsewhere or end the lane); a plain
// branch to ops[0]'s target, the warp's to take for the lanes its guard lets (branch); bar.sync
// where all lanes stopped is the warp's one arrival (barrier); any other stops the lanes apart.
enum class LaneStep : std::uint8_t { apart, lane_local, lane_jump, branch, barrier };

struct Instruction {
  Handler run = nullptr;
  WarpHandler warp = nullptr;  // run's warp form where it has one (ptx/src/decode.hpp, warp_form)
  TimingOp timing = TimingOp::plain;
  LaneStep lane_step = LaneStep::apart;
  std::uint32_t guard = Operand::kNoReg;  // predicate slot, or kNoReg
  bool guard_negated = false;
  Type type = Type::none, type2 = Type::none;  // the instruction's type(s): cvt.dst.src, setp's compared type
  Space space = Space::generic;
  Modifiers modifiers;            // its family's modifiers (rounding, comparison, vector width, shape, ...)
  std::vector<Operand> ops;
  std::vector<Operand> elements;  // vector operands' elements
  std::string opcode;             // "tcgen05.ld.sync.aligned.32x32b.x32.b32"
  std::string text;               // the whole statement as written, for reports
  std::uint32_t line = 0;         // PTX line
  std::uint32_t loc = 0;          // index into Function::locations (0: none)
};

}  // namespace tcgen::ptx
