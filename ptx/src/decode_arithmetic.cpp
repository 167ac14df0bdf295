// Integer and float arithmetic: add, sub, mul, mad, fma, div, rem, min, max,
// neg, abs, copysign (PTX #integer-arithmetic-instructions,
// #floating-point-instructions). One functor per operation, one template over
// the types; the packed forms are decode_packed_float.cpp's.
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

template <class T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}

// add.sat.s32, sub.sat.s32: clamped to [INT32_MIN, INT32_MAX].
template <bool Subtract>
void add_saturated(Thread& t, const Instruction& in) {
  const std::int64_t a = t.get<std::int32_t>(in.ops[1]), b = t.get<std::int32_t>(in.ops[2]);
  t.set<std::int32_t>(in.ops[0], static_cast<std::int32_t>(std::clamp<std::int64_t>(Subtract ? a - b : a + b, INT32_MIN, INT32_MAX)));
}

struct Add {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return wrap_add(a, b);
    else return a + b;
  }
};
struct Sub {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
    else return a - b;
  }
};
struct MulLo {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(static_cast<Wide<U>>(static_cast<U>(a)) * static_cast<U>(b)));
    } else {
      return a * b;
    }
  }
};
struct MulHi {
  template <class T>
  T operator()(T a, T b) const {
    return static_cast<T>((static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b)) >> (8 * sizeof(T)));
  }
};
// div.approx.f32: a times the reciprocal of b, the reciprocal flushed to zero
// when subnormal (so |b| ≥ 2^126 gives ±0, as on an H200); a subnormal b,
// whose reciprocal is past the largest float, divides exactly (as there).
template <class T>
void div_approx(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  const T a = flush(t.get<T>(in.ops[1]), m.ftz), b = flush(t.get<T>(in.ops[2]), m.ftz);
  if (std::fpclassify(b) == FP_SUBNORMAL) return t.set<T>(in.ops[0], finish(a / b, m));
  const T reciprocal = flush(T(1) / b, true);
  t.set<T>(in.ops[0], finish(a * reciprocal, m));
}

struct Div {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T>) {
      if (b == 0) return static_cast<T>(-1);  // what the hardware gives (PTX: undefined)
      if (std::is_signed_v<T> && a == std::numeric_limits<T>::min() && b == T(-1)) return a;
      return static_cast<T>(a / b);
    } else {
      return a / b;
    }
  }
};
struct Rem {
  template <class T>
  T operator()(T a, T b) const {
    if (b == 0) return a;
    if (std::is_signed_v<T> && a == std::numeric_limits<T>::min() && b == T(-1)) return 0;
    return static_cast<T>(a % b);
  }
};
struct Min {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return min_max(a, b, false);
    else return a < b ? a : b;
  }
};
struct Max {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (std::is_floating_point_v<T>) return min_max(a, b, true);
    else return a > b ? a : b;
  }
};
// PTX #floating-point-instructions-min / -max: min{.ftz}{.NaN}{.xorsign.abs}.f32 d, a, b and
// min{.ftz}{.NaN}{.abs}.f32 d, a, b, c (sm_100): the least (greatest) of two or three inputs. .abs
// takes their magnitudes; .NaN gives the canonical NaN when any input is NaN, otherwise a NaN input
// gives way to the others (NaN only when all are); .xorsign.abs gives the min/max magnitude of |a|,
// |b| the sign of a's sign xor b's, left out when the result is NaN. Why: the third input, .abs and
// .xorsign were dropped before.
template <bool Max>
void min_max_f32(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  const int n = static_cast<int>(in.ops.size()) - 1;
  float raw[3] = {}, r = 0;
  bool any_nan = false;
  for (int i = 0; i < n; ++i) {
    raw[i] = flush(t.get<float>(in.ops[1 + i]), m.ftz);
    const float v = m.abs ? std::fabs(raw[i]) : raw[i];
    any_nan = any_nan || std::isnan(v);
    r = i == 0 ? v : min_max(r, v, Max);
  }
  if (m.nan && any_nan) r = std::numeric_limits<float>::quiet_NaN();
  if (m.xorsign && !std::isnan(r)) r = std::copysign(r, std::signbit(raw[0]) != std::signbit(raw[1]) ? -1.0f : 1.0f);
  t.set<float>(in.ops[0], finish(r, m.ftz, false));  // a NaN result: the canonical 0x7FFFFFFF
}

// copysign.f32 d, a, b: b's bits with a's sign bit (a NaN's payload kept).
template <class T>
void copysign(Thread& t, const Instruction& in) {
  using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
  constexpr U kSign = U{1} << (8 * sizeof(T) - 1);
  const U a = t.get<U>(in.ops[1]), b = t.get<U>(in.ops[2]);
  t.set<U>(in.ops[0], static_cast<U>((b & ~kSign) | (a & kSign)));
}
struct Neg {
  template <class T>
  T operator()(T a) const {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(T(0) - static_cast<std::make_unsigned_t<T>>(a));
    else return -a;
  }
};
struct Abs {
  template <class T>
  T operator()(T a) const {
    if constexpr (std::is_floating_point_v<T>) return std::fabs(a);
    else if constexpr (std::is_signed_v<T>) return a < 0 ? Neg{}(a) : a;
    else return a;
  }
};

// mul.wide: the product at twice the width, exact (PTX #integer-arithmetic-instructions-mul).
template <class T>
Wide<T> wide_product(T a, T b) {
  return static_cast<Wide<T>>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
}
template <class T>
void mul_wide(Thread& t, const Instruction& in) {
  t.set<Wide<T>>(in.ops[0], wide_product(t.get<T>(in.ops[1]), t.get<T>(in.ops[2])));
}
// mul.wide.type d, a, b of plain registers (alu.hpp, Registers), b a register or a literal.
template <class T, bool kImmediate>
struct MulWideRegisters : CheckedOrPlain<MulWideRegisters<T, kImmediate>, &mul_wide<T>> {
  template <class Regs>
  static void plain(Regs&& t, const Instruction& in) {
    t.put_reg(in.ops[0].slot, wide_product(t.template reg<T>(in.ops[1].slot), last_source<T, kImmediate>(t, in.ops[2])));
  }
};

// mad.lo/.hi/.wide, fma.rn, mad.rn (float)
template <class T>
void mad_lo(Thread& t, const Instruction& in) {
  t.set<T>(in.ops[0], Add{}(MulLo{}(t.get<T>(in.ops[1]), t.get<T>(in.ops[2])), t.get<T>(in.ops[3])));
}
template <class T>
void mad_hi(Thread& t, const Instruction& in) {
  t.set<T>(in.ops[0], Add{}(MulHi{}(t.get<T>(in.ops[1]), t.get<T>(in.ops[2])), t.get<T>(in.ops[3])));
}
template <class T>
void mad_wide(Thread& t, const Instruction& in) {
  using W = Wide<T>;
  const W p = static_cast<W>(t.get<T>(in.ops[1])) * static_cast<W>(t.get<T>(in.ops[2]));
  t.set<W>(in.ops[0], Add{}(p, t.get<W>(in.ops[3])));
}
template <class T>
void fma_float(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  const T a = flush(t.get<T>(in.ops[1]), m.ftz), b = flush(t.get<T>(in.ops[2]), m.ftz), c = flush(t.get<T>(in.ops[3]), m.ftz);
  t.set<T>(in.ops[0], finish(rounded(m.mode, [](T x, T y, T z) { return std::fma(x, y, z); }, a, b, c), m));
}
// fma.rn.type d, a, b, c of plain registers (alu.hpp, Registers), c a register or a literal.
template <class T, bool kImmediate>
struct FmaRegisters : CheckedOrPlain<FmaRegisters<T, kImmediate>, &fma_float<T>> {
  template <class Regs>
  static void plain(Regs&& t, const Instruction& in) {
    const T r = std::fma(t.template reg<T>(in.ops[1].slot), t.template reg<T>(in.ops[2].slot), last_source<T, kImmediate>(t, in.ops[3]));
    t.put_reg(in.ops[0].slot, finish(r, false, false));
  }
};

// PTX #mixed-precision-floating-point-instructions-add / -sub (PTX ISA 8.6, sm_100):
// add{.rnd}{.sat}.f32.atype d, a, c with .atype .f16 or .bf16: a (the only 16-bit operand) widened
// exactly, then d = a + c (a - c) rounded once in .rnd; .sat clamps to [0, 1]; no .ftz.
// Why: a was read as the 16-bit result type and its bits written as the f32 result.
template <class H, class Op>
void mixed_add_sub(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  const float a = H{t.get<std::uint16_t>(in.ops[1])}.value(), c = t.get<float>(in.ops[2]);
  t.set<float>(in.ops[0], finish(rounded(m.mode, Op{}, a, c), m));
}
// PTX #mixed-precision-floating-point-instructions-fma: fma.rnd{.sat}.f32.abtype d, a, b, c with a
// and b .f16 or .bf16, c .f32: a * b + c with one rounding (the widened product is exact in f32,
// so std::fma rounds the exact sum once). Why: as for add, the 16-bit bits were the f32 result.
template <class H>
void mixed_fma(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  const float a = H{t.get<std::uint16_t>(in.ops[1])}.value(), b = H{t.get<std::uint16_t>(in.ops[2])}.value();
  const float c = t.get<float>(in.ops[3]);
  t.set<float>(in.ops[0], finish(rounded(m.mode, [](float x, float y, float z) { return std::fma(x, y, z); }, a, b, c), m));
}

// The mixed-precision forms (.f32 then .f16 or .bf16): their handler, or false with `why`.
// `operands`: 3 for add/sub (d, a, c), 4 for fma (d, a, b, c); the ISA gives these forms no .ftz.
template <class Op>
bool decode_mixed(const Opcode& op, Instruction& in, std::string& why, std::size_t operands) {
  const std::vector<Type> ts = op.types();
  const bool f16 = ts[1] == Type::f16;
  if (ts[0] != Type::f32 || (!f16 && ts[1] != Type::bf16)) {
    why = "mixed precision ." + std::string(name(ts[0])) + "." + std::string(name(ts[1])) + " (only .f32.f16, .f32.bf16)";
    return false;
  }
  if (op.has("ftz") || in.ops.size() != operands) {
    why = op.has("ftz") ? "mixed-precision " + std::string(op.base()) + " with .ftz (the ISA gives it none)"
                        : std::to_string(in.ops.size()) + " operands for mixed-precision " + std::string(op.base());
    return false;
  }
  in.type = Type::f32;
  in.type2 = ts[1];
  if (operands == 4) return typed(op, in, why, f16 ? &mixed_fma<F16> : &mixed_fma<BF16>);
  return typed(op, in, why, f16 ? &mixed_add_sub<F16, Op> : &mixed_add_sub<BF16, Op>);
}

// add and sub: .sat.s32 clamped, the packed forms, or one template over the types.
template <class Op, HalfOp Code>
bool decode_add_sub(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(float_modifiers(op, Code));
  if (op.types().size() == 2) return decode_mixed<Op>(op, in, why, 3);
  Handler h = nullptr;
  if (!packed_int(op, in, why, Code, h)) return false;
  if (h || (h = packed(in.type, Code))) return typed(op, in, why, h);
  if (op.has("sat") && in.type == Type::s32) return typed(op, in, why, &add_saturated<Code == kHalfSub>);
  return typed(op, in, why, arith_binary<Op>(in));
}

// min and max: .f32 with two or three inputs, .abs, .xorsign.abs (min_max_f32); the 16-bit floats
// with .xorsign.abs (half_op); integer pairs and .relu (packed_int); else one template over the types.
// A modifier or a third input a type does not take is refused, not ignored.
template <class Op, HalfOp Code>
bool decode_min_max(const Opcode& op, Instruction& in, std::string& why) {
  const FloatModifiers m = float_modifiers(op, Code);
  in.modifiers.set(m);
  const bool three = in.ops.size() == 4, f32 = in.type == Type::f32;
  const char* refused = in.ops.size() > 4                          ? "more than three inputs"
                        : three && !f32                            ? "a third input (only .f32 takes one)"
                        : three && m.xorsign                       ? ".xorsign with a third input"
                        : m.xorsign && !(f32 || is_half(in.type))  ? ".xorsign.abs (only .f32, .f16, .bf16 and pairs)"
                        : m.abs && !m.xorsign && !f32              ? ".abs without .xorsign (only .f32)"
                        : (m.abs || m.nan) && in.type == Type::f64 ? ".abs or .NaN on .f64"
                                                                   : nullptr;
  if (refused) {
    why = std::string(op.base()) + " with " + refused;
    return false;
  }
  Handler h = nullptr;
  if (!packed_int(op, in, why, Code, h)) return false;  // refuses .relu on any float type
  if (f32) return typed(op, in, why, &min_max_f32<Code == kHalfMax>);
  if (h || (h = packed(in.type, Code))) return typed(op, in, why, h);
  return typed(op, in, why, arith_binary<Op>(in));
}

template <class Op, HalfOp Code>
bool decode_any_unary(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(float_modifiers(op, Code));
  if (Handler h = packed(in.type, Code)) return typed(op, in, why, h);
  return typed(op, in, why, any_unary<Op>(in.type));
}

// mad and fma: floats fused, integers .lo/.hi/.wide.
bool decode_multiply_add(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(float_modifiers(op, kHalfFma));
  const Type ty = in.type;
  const bool plain = plain_float(in.modifiers.get<FloatModifiers>());
  if (ty == Type::f32 || ty == Type::f64)
    return typed(op, in, why, by_float(ty, [&]<class T>() -> Handler { return plain_or<FmaRegisters, T>(in, 4, plain, &fma_float<T>); }));
  if (op.has("wide"))
    return typed(op, in, why, by_int(ty, []<class T>() -> Handler {
                   if constexpr (sizeof(T) >= 8) return nullptr;
                   else return &mad_wide<T>;
                 }));
  if (op.has("hi")) return typed(op, in, why, by_int(ty, []<class T>() -> Handler { return &mad_hi<T>; }));
  return typed(op, in, why, by_int(ty, []<class T>() -> Handler { return &mad_lo<T>; }));
}

}  // namespace

bool decode_add(const Opcode& op, Instruction& in, std::string& why) { return decode_add_sub<Add, kHalfAdd>(op, in, why); }
bool decode_sub(const Opcode& op, Instruction& in, std::string& why) { return decode_add_sub<Sub, kHalfSub>(op, in, why); }
bool decode_min(const Opcode& op, Instruction& in, std::string& why) { return decode_min_max<Min, kHalfMin>(op, in, why); }
bool decode_max(const Opcode& op, Instruction& in, std::string& why) { return decode_min_max<Max, kHalfMax>(op, in, why); }
bool decode_neg(const Opcode& op, Instruction& in, std::string& why) { return decode_any_unary<Neg, kHalfNeg>(op, in, why); }
bool decode_abs(const Opcode& op, Instruction& in, std::string& why) { return decode_any_unary<Abs, kHalfAbs>(op, in, why); }

bool decode_mul(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(float_modifiers(op, kHalfMul));
  if (Handler h = packed(in.type, kHalfMul)) return typed(op, in, why, h);
  if (op.has("wide"))
    return typed(op, in, why, by_int(in.type, [&]<class T>() -> Handler {
                   if constexpr (sizeof(T) >= 8) return nullptr;
                   else return plain_or<MulWideRegisters, T>(in, 3, true, &mul_wide<T>);
                 }));
  if (op.has("hi")) return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &binary<T, MulHi>; }));
  return typed(op, in, why, arith_binary<MulLo>(in));
}

bool decode_fma(const Opcode& op, Instruction& in, std::string& why) {
  if (op.types().size() == 2) {
    in.modifiers.set(float_modifiers(op, kHalfFma));
    return decode_mixed<Add>(op, in, why, 4);
  }
  if (Handler h = packed(in.type, kHalfFma)) {
    in.modifiers.set(float_modifiers(op, kHalfFma));
    return typed(op, in, why, h);
  }
  return decode_multiply_add(op, in, why);
}
bool decode_mad(const Opcode& op, Instruction& in, std::string& why) {
  if (op.has("cc")) return decode_carry(op, in, why);  // mad.{lo,hi}.cc: decode_integer.cpp
  return decode_multiply_add(op, in, why);
}

bool decode_div(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(float_modifiers(op));
  return typed(op, in, why, op.has("approx") && in.type == Type::f32 ? &div_approx<float> : arith_binary<Div>(in));
}
bool decode_rem(const Opcode& op, Instruction& in, std::string& why) { return typed(op, in, why, int_binary<Rem>(in)); }
bool decode_copysign(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_float(in.type, []<class T>() -> Handler { return &copysign<T>; }));
}

}  // namespace tcgen::ptx
