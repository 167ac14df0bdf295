// The 16-bit integer pairs of the arithmetic rows: add, min and max .u16x2 and .s16x2, each
// 16-bit lane of a .b32 register on its own (PTX #integer-arithmetic-instructions-add, -min,
// -max), and min/max .relu (.s16x2 and .s32).
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

// One lane: add wraps modulo 2^16 (the ISA gives the pairs no .sat); min and max compare
// as the lane type; .relu then clamps a negative result to 0.
template <class L, HalfOp Code, bool Relu>
L lane(L a, L b) {
  int r;
  if constexpr (Code == kHalfAdd) r = a + b;
  else if constexpr (Code == kHalfMin) r = std::min(a, b);
  else r = std::max(a, b);
  if constexpr (Relu) r = std::max(r, 0);
  return static_cast<L>(r);
}

// PTX #integer-arithmetic-instructions-add: "iA[i] = a[16i + 15 : 16i] ... d[i] = iA[i] op iB[i]"
// for i = 0, 1. Why: these forms were refused (no .u16x2/.s16x2 type).
template <class L, HalfOp Code, bool Relu>
void int_pair(Thread& t, const Instruction& in) {
  const std::uint32_t a = t.get<std::uint32_t>(in.ops[1]), b = t.get<std::uint32_t>(in.ops[2]);
  std::uint32_t d = 0;
  for (int i = 0; i < 2; ++i) {
    const L x = static_cast<L>(a >> (16 * i)), y = static_cast<L>(b >> (16 * i));
    d |= static_cast<std::uint32_t>(static_cast<std::uint16_t>(lane<L, Code, Relu>(x, y))) << (16 * i);
  }
  t.set<std::uint32_t>(in.ops[0], d);
}

// PTX #integer-arithmetic-instructions-min: min{.relu}.s32 d, a, b: the least, then 0 if negative.
// Why: .relu was ignored on .s32.
template <HalfOp Code>
void relu_s32(Thread& t, const Instruction& in) {
  const std::int32_t a = t.get<std::int32_t>(in.ops[1]), b = t.get<std::int32_t>(in.ops[2]);
  t.set<std::int32_t>(in.ops[0], std::max(Code == kHalfMin ? std::min(a, b) : std::max(a, b), 0));
}

template <class L, HalfOp Code>
Handler pair_handler(bool relu) {
  if constexpr (Code == kHalfMin || Code == kHalfMax) return relu ? &int_pair<L, Code, true> : &int_pair<L, Code, false>;
  else return &int_pair<L, Code, false>;
}

}  // namespace

bool alu::packed_int(const Opcode& op, Instruction& in, std::string& why, HalfOp code, Handler& h) {
  const bool pair = in.type == Type::u16x2 || in.type == Type::s16x2, relu = op.has("relu");
  const bool min_max = code == kHalfMin || code == kHalfMax;
  if (relu && !(min_max && (in.type == Type::s16x2 || in.type == Type::s32))) {
    why = std::string(op.base()) + ".relu (only min/max .s16x2 and .s32)";
    return false;
  }
  if (!pair) {
    if (relu) h = code == kHalfMin ? &relu_s32<kHalfMin> : &relu_s32<kHalfMax>;
    return true;
  }
  if (code == kHalfSub) {  // PTX #integer-arithmetic-instructions-sub lists no .u16x2/.s16x2
    why = "sub on a 16-bit pair (the ISA's sub has no .u16x2/.s16x2)";
    return false;
  }
  if (op.has("sat") || in.ops.size() != 3) {
    why = std::string(op.base()) + (op.has("sat") ? ".sat on a 16-bit pair (the ISA gives it none)" : " with other than 3 operands");
    return false;
  }
  const bool s = in.type == Type::s16x2;
  switch (code) {
    case kHalfAdd: h = s ? pair_handler<std::int16_t, kHalfAdd>(relu) : pair_handler<std::uint16_t, kHalfAdd>(relu); break;
    case kHalfMin: h = s ? pair_handler<std::int16_t, kHalfMin>(relu) : pair_handler<std::uint16_t, kHalfMin>(relu); break;
    case kHalfMax: h = s ? pair_handler<std::int16_t, kHalfMax>(relu) : pair_handler<std::uint16_t, kHalfMax>(relu); break;
    default: why = std::string(op.base()) + " on a 16-bit pair"; return false;
  }
  return true;
}

}  // namespace tcgen::ptx
