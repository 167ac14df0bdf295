#pragma once
// A handler's warp form (Instruction::warp) made from the handler's common case: a struct Fast whose
// run is the handler and whose plain (one lane's registers) or lanes (the warp's) is the case, for
// lanes holding no register pending or undefined, that needs none of run's checks. The Registers
// forms (alu.hpp and the decoders') and ld.global of one register (decode_memory.cpp) have one.
#include <bit>
#include <concepts>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "decode.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

// One lane's registers in its warp's file (warp_registers.hpp), read and written as Thread::reg and
// Thread::put_reg do: what a Registers form's plain case (alu.hpp) needs of its thread.
struct LaneRegisters {
  std::uint64_t* lane;  // its slot 0
  template <class T>
  T reg(std::uint32_t slot) const {
    return Thread::from_bits<T>(lane[std::size_t{slot} * kWarpLanes]);
  }
  template <class T>
  void put_reg(std::uint32_t slot, T v) const {
    lane[std::size_t{slot} * kWarpLanes] = Thread::to_bits(v);
  }
};

// A form whose plain case reads and writes registers only: it runs on the warp's file.
template <class Fast>
concept RegistersOnly = requires(const LaneRegisters& r, const Instruction& in) { Fast::plain(r, in); };
// A form with a warp-wide plain case of its own: Fast::lanes(first, lanes, in) runs the lanes it can
// (none holding a register pending or undefined, each let by its guard) and returns the rest.
template <class Fast>
concept WarpWide = requires(Thread& first, std::uint32_t lanes, const Instruction& in) {
  { Fast::lanes(first, lanes, in) } -> std::same_as<std::uint32_t>;
};

// Bit l: bit 0 of the predicate register `slot`, lane l.
inline std::uint32_t predicate_lanes(const std::uint64_t* file, std::uint32_t slot) {
  const std::uint64_t* p = file + std::size_t{slot} * kWarpLanes;
  std::uint32_t bits = 0;
#if defined(__SSE2__)
  // Two lanes at a time: bit 0 shifted to the sign, then movmskpd (a lane at a time, this loop was a
  // quarter of a branchy warp's bookkeeping).
  for (std::size_t l = 0; l < kWarpLanes; l += 2) {
    const __m128i two = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + l));
    bits |= static_cast<std::uint32_t>(_mm_movemask_pd(_mm_castsi128_pd(_mm_slli_epi64(two, 63)))) << l;
  }
#else
  for (std::size_t l = 0; l < kWarpLanes; ++l) bits |= static_cast<std::uint32_t>(p[l] & 1u) << l;
#endif
  return bits;
}

// The lanes of `mask` whose guard predicate lets `in` run.
inline std::uint32_t guarded(const std::uint64_t* file, std::uint32_t mask, const Instruction& in) {
  if (in.guard == Operand::kNoReg) return mask;
  const std::uint32_t set = predicate_lanes(file, in.guard);
  return mask & (in.guard_negated ? ~set : set);
}

// The warp form of a form Fast (decode.hpp, add_warp_form) for the lanes of `mask`: those holding a
// register pending or undefined are left to Fast::run, the checked way, as are those a WarpWide
// form's lanes() leaves; the rest run where their guard lets them. A RegistersOnly form runs
// Fast::plain on the warp's register file, all 32 lanes in one loop when the whole warp runs.
template <class Fast>
  requires WarpWide<Fast> || RegistersOnly<Fast>
std::uint32_t on_lanes(Thread* const* lanes, std::uint32_t mask, const Instruction& in) {
  Thread& first = *lanes[std::countr_zero(mask)];
  std::uint64_t* file = first.warp_registers();
  const std::uint32_t left = mask & first.shadowed_lanes(), runs = guarded(file, mask & ~left, in);
  if constexpr (WarpWide<Fast>) {
    return left | Fast::lanes(first, runs, in);
  } else {
    if (runs == ~0u) {
      for (std::size_t l = 0; l < kWarpLanes; ++l) Fast::plain(LaneRegisters{file + l}, in);
    } else {
      for (std::uint32_t m = runs; m; m &= m - 1) Fast::plain(LaneRegisters{file + std::countr_zero(m)}, in);
    }
    return left;
  }
}

// A Registers form's handler (alu.hpp), Fast::run for a Fast deriving from it: the checked handler
// while the thread holds a register pending or undefined, else Self::plain.
template <class Self, Handler kChecked>
struct CheckedOrPlain {
  static void run(Thread& t, const Instruction& in) {
    if (t.shadowed()) [[unlikely]] return kChecked(t, in);
    Self::plain(t, in);
  }
};

// Fast::run, its warp form recorded (once).
template <class Fast>
Handler with_warp_form() {
  static const bool recorded = (add_warp_form(&Fast::run, &on_lanes<Fast>), true);
  (void)recorded;
  return &Fast::run;
}

}  // namespace tcgen::ptx
