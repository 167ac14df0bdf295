#pragma once
// A handler's warp form (Instruction::warp) made from the handler's common case: a struct Fast whose
// run is the handler and whose plain is the case, for a thread holding no register pending or
// undefined, that needs none of run's checks. The Registers forms (alu.hpp and the decoders'), bra
// (decode_control.cpp) and ld.global of one register (decode_memory.cpp) have one.
#include <bit>
#include <cstdint>
#include <type_traits>

#include "decode.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

// The warp form of a form Fast (decode.hpp, add_warp_form): Fast::plain on each lane its guard lets
// run; a lane holding a register pending or undefined, or whose Fast::plain returns false (having
// done nothing), is left to Fast::run, the checked way.
template <class Fast>
std::uint32_t on_lanes(Thread* const* lanes, std::uint32_t mask, const Instruction& in) {
  std::uint32_t left = 0;
  for (; mask; mask &= mask - 1) {
    Thread& t = *lanes[std::countr_zero(mask)];
    if (t.shadowed()) [[unlikely]] {
      left |= mask & (0u - mask);
      continue;
    }
    if (in.guard != Operand::kNoReg && ((t.reg<std::uint64_t>(in.guard) & 1u) != 0) == in.guard_negated) continue;
    if constexpr (std::is_same_v<decltype(Fast::plain(t, in)), bool>) {
      if (!Fast::plain(t, in)) left |= mask & (0u - mask);
    } else {
      Fast::plain(t, in);
    }
  }
  return left;
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
