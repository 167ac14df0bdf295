// Integer arithmetic beyond one operation a type: sad, dp4a, dp2a (PTX
// #integer-arithmetic-instructions-sad, -dp4a, -dp2a) and the carry chain of
// add.cc, addc, sub.cc, subc, mad.cc and madc through the thread's CC.CF (PTX
// #extended-precision-integer-arithmetic-instructions).
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

// PTX #integer-arithmetic-instructions-sad: d = c + ((a < b) ? b - a : a - b), modulo 2^n.
// Why: sad was refused.
template <class T>
void sad(Thread& t, const Instruction& in) {
  using U = std::make_unsigned_t<T>;
  const T a = t.get<T>(in.ops[1]), b = t.get<T>(in.ops[2]);
  const U diff = a < b ? static_cast<U>(static_cast<U>(b) - static_cast<U>(a)) : static_cast<U>(static_cast<U>(a) - static_cast<U>(b));
  t.set<T>(in.ops[0], static_cast<T>(static_cast<U>(static_cast<U>(t.get<T>(in.ops[3])) + diff)));
}

// Lane i of a .b32 holding `lanes` equal fields, sign- or zero-extended as .s32 or .u32 says.
std::int64_t field(std::uint32_t x, int lanes, int i, bool is_signed) {
  const int width = 32 / lanes;
  const std::uint32_t v = (x >> (width * i)) & ((1u << width) - 1);
  return is_signed && (v >> (width - 1)) ? static_cast<std::int64_t>(v) - (std::int64_t{1} << width) : v;
}

struct DotModifiers {
  bool a_signed, b_signed;
  int b_first;  // dp2a: the first byte of b used (.lo 0, .hi 2); dp4a 0
};

// PTX #integer-arithmetic-instructions-dp4a / -dp2a: d = c + sum Va[i] * Vb[first + i], with Va
// four bytes of a (dp4a) or two 16-bit halves (dp2a) and Vb bytes of b, each extended as its type;
// c .u32 when both are .u32, else .s32; the sum modulo 2^32. Why: both were refused.
template <int ALanes>
void dot(Thread& t, const Instruction& in) {
  const DotModifiers m = in.modifiers.get<DotModifiers>();
  const std::uint32_t a = t.get<std::uint32_t>(in.ops[1]), b = t.get<std::uint32_t>(in.ops[2]);
  std::int64_t d = t.get<std::uint32_t>(in.ops[3]);
  for (int i = 0; i < ALanes; ++i) d += field(a, ALanes, i, m.a_signed) * field(b, 4, m.b_first + i, m.b_signed);
  t.set<std::uint32_t>(in.ops[0], static_cast<std::uint32_t>(d));
}

template <int ALanes>
bool decode_dot(const Opcode& op, Instruction& in, std::string& why) {
  const std::vector<Type> ts = op.types();
  const auto int32 = [](Type x) { return x == Type::u32 || x == Type::s32; };
  const int mode = op.which({"lo", "hi"});
  if (ts.size() != 2 || !int32(ts[0]) || !int32(ts[1]) || in.ops.size() != 4 || (ALanes == 2 && mode < 0)) {
    why = std::string(op.base()) + (ALanes == 2 ? ".{lo,hi}" : "") + ".{u32,s32}.{u32,s32} d, a, b, c";
    return false;
  }
  in.modifiers.set(DotModifiers{.a_signed = ts[0] == Type::s32, .b_signed = ts[1] == Type::s32, .b_first = mode > 0 ? 2 : 0});
  return typed(op, in, why, &dot<ALanes>);
}

// The carry chain's forms: which of a + b, a - b and (a * b).lo/.hi + c, and whether CC.CF goes in and out.
struct CarryModifiers {
  bool carry_in, carry_out, subtract;
  std::uint8_t multiply;  // 0: none; 1: .lo; 2: .hi
};

// PTX #extended-precision-integer-arithmetic-instructions: add.cc d = a + b, CC.CF the carry-out;
// addc{.cc} d = a + b + CC.CF; mad{.lo,.hi}.cc and madc{.lo,.hi}{.cc}: t = a * b, d = t.lo (or .hi) + c
// (+ CC.CF), CC.CF the carry out of the addition. A subtraction is the addition silicon does:
// sub.cc d = a + ~b + 1, subc{.cc} d = a + ~b + CC.CF, CC.CF their carry-out, so 1 when nothing is
// borrowed. The ISA writes subc as a - (b + CC.CF) with CC.CF a borrow; the same values in a chain of
// subtractions, but an H100 gives the carry in a mixed chain (sub.cc 0, 0xFFFFFFFF then addc 0, 0 is 0;
// docs/ptx.md, Conformance). .s32/.s64 are the same bits as .u32/.u64 but for the .hi product.
template <class T>
void carry_op(Thread& t, const Instruction& in) {
  using U = std::make_unsigned_t<T>;
  using W = Wide<U>;
  constexpr int kBits = 8 * sizeof(T);
  const CarryModifiers m = in.modifiers.get<CarryModifiers>();
  const T a = t.get<T>(in.ops[1]), b = t.get<T>(in.ops[2]);
  U x = static_cast<U>(a), y = static_cast<U>(b);
  if (m.multiply) {
    const Wide<T> p = static_cast<Wide<T>>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
    x = static_cast<U>(m.multiply == 2 ? static_cast<W>(p) >> kBits : static_cast<W>(p));
    y = static_cast<U>(t.get<T>(in.ops[3]));
  }
  if (m.subtract) y = static_cast<U>(~y);
  const W cin = m.carry_in ? (t.carry_flag() ? 1 : 0) : (m.subtract ? 1 : 0);
  const W r = static_cast<W>(W{x} + W{y} + cin);
  t.set<U>(in.ops[0], static_cast<U>(r));
  if (m.carry_out) t.carry_flag() = (r >> kBits) != 0;
}

}  // namespace

bool decode_sad(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler {
                 if constexpr (sizeof(T) == 1) return nullptr;  // .u16 ... .s64 only
                 else return &sad<T>;
               }));
}
bool decode_dp4a(const Opcode& op, Instruction& in, std::string& why) { return decode_dot<4>(op, in, why); }
bool decode_dp2a(const Opcode& op, Instruction& in, std::string& why) { return decode_dot<2>(op, in, why); }

// add.cc, addc, sub.cc, subc, madc (their rows) and mad.{lo,hi}.cc (from decode_mad).
bool decode_carry(const Opcode& op, Instruction& in, std::string& why) {
  const std::string_view base = op.base();
  const bool mad = base == "mad" || base == "madc", chained = base == "addc" || base == "subc" || base == "madc";
  const int half = op.which({"lo", "hi"});
  const Type ty = in.type;
  const bool typed_ok = ty == Type::u32 || ty == Type::s32 || ty == Type::u64 || ty == Type::s64;
  if (!typed_ok || in.ops.size() != (mad ? 4u : 3u) || (base == "mad" && half < 0) || (!mad && half >= 0) ||
      op.has("sat") || op.has("wide")) {
    why = std::string(base) + (mad ? "{.lo,.hi}" : "") + "{.cc}.{u32,s32,u64,s64} with " + (mad ? "4" : "3") + " operands";
    return false;
  }
  in.modifiers.set(CarryModifiers{.carry_in = chained,
                                  .carry_out = op.has("cc"),
                                  .subtract = base == "sub" || base == "subc",
                                  .multiply = static_cast<std::uint8_t>(mad ? (half == 1 ? 2 : 1) : 0)});
  return typed(op, in, why, by_int(ty, []<class T>() -> Handler {
                 if constexpr (sizeof(T) < 4) return nullptr;
                 else return &carry_op<T>;
               }));
}

}  // namespace tcgen::ptx
