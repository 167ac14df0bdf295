// Logic, shifts and bit fields: and, or, xor, not, cnot, shl, shr, shf,
// lop3, popc, clz, brev, bfind, bfe, bfi, prmt (PTX #logic-and-shift-
// instructions, #integer-arithmetic-instructions-bfe ... -prmt).
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

struct And {
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>(a & b); }
};
struct Or {
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>(a | b); }
};
struct Xor {
  template <class T>
  T operator()(T a, T b) const { return static_cast<T>(a ^ b); }
};
struct Not {
  template <class T>
  T operator()(T a) const {
    if constexpr (std::is_same_v<T, bool>) return !a;
    else return static_cast<T>(~a);
  }
};
struct Cnot {
  template <class T>
  T operator()(T a) const { return a == 0 ? T(1) : T(0); }
};

// pred operands of and/or/xor/not are 0/1 in the slot.
template <class Op>
bool logic_of(bool a, bool b) {
  if constexpr (std::is_same_v<Op, Not>) return !a;
  else if constexpr (std::is_same_v<Op, And>) return a && b;
  else if constexpr (std::is_same_v<Op, Or>) return a || b;
  else return a != b;
}
template <class Op>
void logic_pred(Thread& t, const Instruction& in) {
  const bool a = t.pred(in.ops[1]);
  const bool b = in.ops.size() > 2 ? t.pred(in.ops[2]) : false;
  t.set<bool>(in.ops[0], logic_of<Op>(a, b));
}
// and/or/xor/not.pred of plain predicate registers, none negated (alu.hpp, Registers).
template <class Op>
struct PredRegisters : CheckedOrPlain<PredRegisters<Op>, &logic_pred<Op>> {
  template <class Regs>
  static void plain(Regs&& t, const Instruction& in) {
    const bool a = (t.template reg<std::uint32_t>(in.ops[1].slot) & 1u) != 0;
    const bool b = in.ops.size() > 2 && (t.template reg<std::uint32_t>(in.ops[2].slot) & 1u) != 0;
    t.put_reg(in.ops[0].slot, logic_of<Op>(a, b));
  }
};
template <class Op>
Handler pred_logic(const Instruction& in) {
  for (const Operand& o : in.ops)
    if (o.kind != Operand::Kind::reg || o.negate) return &logic_pred<Op>;
  return with_warp_form<PredRegisters<Op>>();
}

// shl and shr by a .u32 amount s (PTX #logic-and-shift-instructions-shl, -shr): an amount past the
// width shifts every bit out (shr.sN: fills with the sign).
struct Shl {
  template <class T>
  T operator()(T a, std::uint32_t s) const {
    using U = std::make_unsigned_t<T>;
    return s >= 8 * sizeof(T) ? T(0) : static_cast<T>(static_cast<U>(a) << s);
  }
};
struct Shr {
  template <class T>
  T operator()(T a, std::uint32_t s) const {
    if constexpr (std::is_signed_v<T>) return static_cast<T>(a >> (s >= 8 * sizeof(T) ? 8 * sizeof(T) - 1 : s));
    else return s >= 8 * sizeof(T) ? T(0) : static_cast<T>(a >> s);
  }
};
template <class T, class Shift>
void shift(Thread& t, const Instruction& in) {
  t.set<T>(in.ops[0], Shift{}(t.get<T>(in.ops[1]), t.get<std::uint32_t>(in.ops[2])));
}
// shl/shr.type d, a, s of plain registers (alu.hpp, Registers), s a register or a literal.
template <class Shift>
struct ShiftRegisters {
  template <class T, bool kImmediate>
  struct Of : CheckedOrPlain<Of<T, kImmediate>, &shift<T, Shift>> {
    template <class Regs>
    static void plain(Regs&& t, const Instruction& in) {
      t.put_reg(in.ops[0].slot, Shift{}(t.template reg<T>(in.ops[1].slot), last_source<std::uint32_t, kImmediate>(t, in.ops[2])));
    }
  };
};
template <class Shift>
Handler shift_handler(const Instruction& in) {
  return by_int(in.type, [&]<class T>() -> Handler {
    return plain_or<ShiftRegisters<Shift>::template Of, T>(in, 3, true, &shift<T, Shift>);
  });
}
template <class T>
void popc(Thread& t, const Instruction& in) {
  t.set<std::uint32_t>(in.ops[0], static_cast<std::uint32_t>(std::popcount(static_cast<std::make_unsigned_t<T>>(t.get<T>(in.ops[1])))));
}
template <class T>
void clz(Thread& t, const Instruction& in) {
  t.set<std::uint32_t>(in.ops[0], static_cast<std::uint32_t>(std::countl_zero(static_cast<std::make_unsigned_t<T>>(t.get<T>(in.ops[1])))));
}
template <class T>
void brev(Thread& t, const Instruction& in) {
  using U = std::make_unsigned_t<T>;
  U a = static_cast<U>(t.get<T>(in.ops[1])), r = 0;
  for (unsigned i = 0; i < 8 * sizeof(U); ++i) r = static_cast<U>(r | (((a >> i) & 1u) << (8 * sizeof(U) - 1 - i)));
  t.set<T>(in.ops[0], static_cast<T>(r));
}
// bfind's modifier: .shiftamt, the count of leading bits instead of the bit's index.
struct BfindModifiers {
  bool shift_amount;
};

template <class T>
void bfind(Thread& t, const Instruction& in) {
  using U = std::make_unsigned_t<T>;
  const T a = t.get<T>(in.ops[1]);
  U v = static_cast<U>(a);
  if constexpr (std::is_signed_v<T>)
    if (a < 0) v = static_cast<U>(~v);
  std::uint32_t r = v == 0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(8 * sizeof(U) - 1 - std::countl_zero(v));
  if (in.modifiers.get<BfindModifiers>().shift_amount && r != 0xFFFFFFFFu) r = static_cast<std::uint32_t>(8 * sizeof(U) - 1) - r;
  t.set<std::uint32_t>(in.ops[0], r);
}
template <class T>
void bfe(Thread& t, const Instruction& in) {
  using U = std::make_unsigned_t<T>;
  constexpr unsigned bits = 8 * sizeof(T);
  const U a = static_cast<U>(t.get<T>(in.ops[1]));
  const unsigned pos = t.get<std::uint32_t>(in.ops[2]) & 0xFF, len = t.get<std::uint32_t>(in.ops[3]) & 0xFF;
  U r = 0;
  bool sign = false;
  if constexpr (std::is_signed_v<T>) sign = len == 0 ? false : ((a >> std::min(pos + len - 1, bits - 1)) & 1u);
  for (unsigned i = 0; i < bits; ++i) {
    const bool bit = i < len && pos + i < bits ? ((a >> (pos + i)) & 1u) : sign;
    r = static_cast<U>(r | (static_cast<U>(bit) << i));
  }
  t.set<T>(in.ops[0], static_cast<T>(r));
}
template <class T>
void bfi(Thread& t, const Instruction& in) {
  using U = std::make_unsigned_t<T>;
  constexpr unsigned bits = 8 * sizeof(T);
  const U f = static_cast<U>(t.get<T>(in.ops[1]));
  U b = static_cast<U>(t.get<T>(in.ops[2]));
  const unsigned pos = t.get<std::uint32_t>(in.ops[3]) & 0xFF, len = t.get<std::uint32_t>(in.ops[4]) & 0xFF;
  for (unsigned i = 0; i < len && pos + i < bits; ++i)
    b = static_cast<U>((b & ~(U(1) << (pos + i))) | (((f >> i) & 1u) << (pos + i)));
  t.set<T>(in.ops[0], static_cast<T>(b));
}
// prmt's mode: the selector's nibbles (the default), or one of the byte patterns (PTX #data-movement-and-conversion-instructions-prmt).
enum class PrmtMode : std::uint8_t { nibbles, f4e, b4e, rc8, ecl, ecr, rc16 };

void prmt(Thread& t, const Instruction& in) {
  const PrmtMode mode = in.modifiers.get<PrmtMode>();
  const std::uint64_t a = t.get<std::uint32_t>(in.ops[1]), b = t.get<std::uint32_t>(in.ops[2]);
  const std::uint32_t c = t.get<std::uint32_t>(in.ops[3]);
  const std::uint64_t x = a | (b << 32);
  std::uint32_t d = 0;
  static constexpr std::uint8_t modes[6][4][4] = {
      {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},   // f4e by c&3
      {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},   // b4e
      {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},   // rc8
      {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},   // ecl
      {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},   // ecr
      {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},   // rc16
  };
  for (int i = 0; i < 4; ++i) {
    std::uint32_t sel;
    bool msb = false;
    if (mode == PrmtMode::nibbles) {
      const std::uint32_t s = (c >> (4 * i)) & 0xF;
      sel = s & 7;
      msb = s & 8;
    } else {
      sel = modes[static_cast<int>(mode) - 1][c & 3][i];
    }
    std::uint8_t byte = static_cast<std::uint8_t>(x >> (8 * sel));
    if (msb) byte = (byte & 0x80) ? 0xFF : 0x00;
    d |= static_cast<std::uint32_t>(byte) << (8 * i);
  }
  t.set<std::uint32_t>(in.ops[0], d);
}
// lop3's d = F(a, b, c), F the look-up table immLut, from the operands starting at `first` (a).
std::uint32_t lop3_value(Thread& t, const Instruction& in, std::size_t first) {
  const std::uint32_t a = t.get<std::uint32_t>(in.ops[first]), b = t.get<std::uint32_t>(in.ops[first + 1]),
                      c = t.get<std::uint32_t>(in.ops[first + 2]), lut = t.get<std::uint32_t>(in.ops[first + 3]);
  std::uint32_t d = 0;
  for (int i = 0; i < 32; ++i) {
    const unsigned idx = ((a >> i) & 1u) << 2 | ((b >> i) & 1u) << 1 | ((c >> i) & 1u);
    d |= ((lut >> idx) & 1u) << i;
  }
  return d;
}
void lop3(Thread& t, const Instruction& in) { t.set<std::uint32_t>(in.ops[0], lop3_value(t, in, 1)); }
// PTX #logic-and-shift-instructions-lop3: lop3.BoolOp.b32 d|p, a, b, c, immLut, q (BoolOp .or, .and):
// d as lop3's, then p = (d != 0) BoolOp q; d may be _. Why: the predicate form read p as a.
template <bool Or>
void lop3_predicate(Thread& t, const Instruction& in) {
  const std::uint32_t d = lop3_value(t, in, 2);
  const bool q = t.pred(in.ops[6]);
  t.set<std::uint32_t>(in.ops[0], d);
  t.set<bool>(in.ops[1], Or ? (d != 0 || q) : (d != 0 && q));
}
// PTX #integer-arithmetic-instructions-bmsk: bmsk.{clamp,wrap}.b32 d, a, b: the mask of b bits from
// bit a, as the ISA's semantics: a and b taken modulo 32 (.wrap), or a mask of 0 from a >= 32 and
// to the top from b >= 32 (.clamp); a sum past 31 runs the mask to the top. Why: bmsk was refused.
void bmsk(Thread& t, const Instruction& in) {
  const bool clamp = in.modifiers.get<bool>();
  const std::uint32_t a = t.get<std::uint32_t>(in.ops[1]), b = t.get<std::uint32_t>(in.ops[2]);
  const std::uint32_t a1 = a & 0x1Fu, b1 = b & 0x1Fu, sum = a1 + b1;
  std::uint32_t mask0 = ~0u << a1, mask1 = sum >= 32 ? 0u : ~0u << sum;
  if (clamp && a >= 32) mask0 = 0;
  if (sum >= 32 || (clamp && (a >= 32 || b >= 32))) mask1 = 0;
  else if (b1 == 0) mask1 = ~0u;
  t.set<std::uint32_t>(in.ops[0], mask0 & ~mask1);
}
// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the funnel of b:a shifted by c.
struct FunnelShiftModifiers {
  bool left;   // .l (else .r)
  bool clamp;  // .clamp: shifts past 32 give 32 (else .wrap: modulo 32)
};

void shf(Thread& t, const Instruction& in) {
  const FunnelShiftModifiers m = in.modifiers.get<FunnelShiftModifiers>();
  const std::uint64_t x = t.get<std::uint32_t>(in.ops[1]) | (std::uint64_t{t.get<std::uint32_t>(in.ops[2])} << 32);
  std::uint32_t n = t.get<std::uint32_t>(in.ops[3]);
  n = m.clamp ? std::min(n, 32u) : n & 31u;
  t.set<std::uint32_t>(in.ops[0], m.left ? static_cast<std::uint32_t>((x << n) >> 32) : static_cast<std::uint32_t>(x >> n));
}

// and/or/xor/not/cnot: predicates as booleans (cnot as not), integers bitwise.
template <class Op>
bool decode_logic(const Opcode& op, Instruction& in, std::string& why) {
  if (in.type == Type::pred) return typed(op, in, why, pred_logic<std::conditional_t<std::is_same_v<Op, Cnot>, Not, Op>>(in));
  if constexpr (std::is_same_v<Op, Not> || std::is_same_v<Op, Cnot>)
    return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &unary<T, Op>; }));
  else
    return typed(op, in, why, int_binary<Op>(in));
}

}  // namespace

bool decode_and(const Opcode& op, Instruction& in, std::string& why) { return decode_logic<And>(op, in, why); }
bool decode_or(const Opcode& op, Instruction& in, std::string& why) { return decode_logic<Or>(op, in, why); }
bool decode_xor(const Opcode& op, Instruction& in, std::string& why) { return decode_logic<Xor>(op, in, why); }
bool decode_not(const Opcode& op, Instruction& in, std::string& why) { return decode_logic<Not>(op, in, why); }
bool decode_cnot(const Opcode& op, Instruction& in, std::string& why) { return decode_logic<Cnot>(op, in, why); }

bool decode_shl(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, shift_handler<Shl>(in));
}
bool decode_shr(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, shift_handler<Shr>(in));
}
bool decode_popc(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &popc<T>; }));
}
bool decode_clz(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &clz<T>; }));
}
bool decode_brev(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &brev<T>; }));
}
bool decode_bfind(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(BfindModifiers{.shift_amount = op.has("shiftamt")});
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &bfind<T>; }));
}
bool decode_bfe(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &bfe<T>; }));
}
bool decode_bfi(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &bfi<T>; }));
}
bool decode_prmt(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(static_cast<PrmtMode>(op.which({"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"}) + 1));
  return typed(op, in, why, &prmt);
}
bool decode_lop3(const Opcode& op, Instruction& in, std::string& why) {
  const int bool_op = op.which({"and", "or"});
  if (in.ops.size() != (bool_op < 0 ? 5u : 7u)) {
    why = "lop3.b32 d, a, b, c, immLut or lop3.{or,and}.b32 d|p, a, b, c, immLut, q";
    return false;
  }
  return typed(op, in, why, bool_op < 0 ? &lop3 : bool_op == 1 ? &lop3_predicate<true> : &lop3_predicate<false>);
}
bool decode_bmsk(const Opcode& op, Instruction& in, std::string& why) {
  const int mode = op.which({"clamp", "wrap"});
  if (mode < 0 || in.ops.size() != 3) {
    why = "bmsk.{clamp,wrap}.b32 d, a, b";
    return false;
  }
  in.modifiers.set(mode == 0);
  return typed(op, in, why, &bmsk);
}
bool decode_shf(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(FunnelShiftModifiers{.left = op.has("l"), .clamp = op.has("clamp")});
  return typed(op, in, why, &shf);
}

}  // namespace tcgen::ptx
