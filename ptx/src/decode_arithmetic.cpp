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

template <class T>
void mul_wide(Thread& t, const Instruction& in) {
  using W = Wide<T>;
  t.set<W>(in.ops[0], static_cast<W>(static_cast<W>(t.get<T>(in.ops[1])) * static_cast<W>(t.get<T>(in.ops[2]))));
}

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

// add and sub: .sat.s32 clamped, the packed forms, or one template over the types.
template <class Op, HalfOp Code>
bool decode_add_sub(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(float_modifiers(op, Code));
  if (Handler h = packed(in.type, Code)) return typed(op, in, why, h);
  if (op.has("sat") && in.type == Type::s32) return typed(op, in, why, &add_saturated<Code == kHalfSub>);
  return typed(op, in, why, arith_binary<Op>(in.type));
}

template <class Op, HalfOp Code>
bool decode_arith_binary(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(float_modifiers(op, Code));
  if (Handler h = packed(in.type, Code)) return typed(op, in, why, h);
  return typed(op, in, why, arith_binary<Op>(in.type));
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
  if (ty == Type::f32 || ty == Type::f64) return typed(op, in, why, by_float(ty, []<class T>() -> Handler { return &fma_float<T>; }));
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
bool decode_min(const Opcode& op, Instruction& in, std::string& why) { return decode_arith_binary<Min, kHalfMin>(op, in, why); }
bool decode_max(const Opcode& op, Instruction& in, std::string& why) { return decode_arith_binary<Max, kHalfMax>(op, in, why); }
bool decode_neg(const Opcode& op, Instruction& in, std::string& why) { return decode_any_unary<Neg, kHalfNeg>(op, in, why); }
bool decode_abs(const Opcode& op, Instruction& in, std::string& why) { return decode_any_unary<Abs, kHalfAbs>(op, in, why); }

bool decode_mul(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(float_modifiers(op, kHalfMul));
  if (Handler h = packed(in.type, kHalfMul)) return typed(op, in, why, h);
  if (op.has("wide"))
    return typed(op, in, why, by_int(in.type, []<class T>() -> Handler {
                   if constexpr (sizeof(T) >= 8) return nullptr;
                   else return &mul_wide<T>;
                 }));
  if (op.has("hi")) return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &binary<T, MulHi>; }));
  return typed(op, in, why, arith_binary<MulLo>(in.type));
}

bool decode_fma(const Opcode& op, Instruction& in, std::string& why) {
  if (Handler h = packed(in.type, kHalfFma)) {
    in.modifiers.set(float_modifiers(op, kHalfFma));
    return typed(op, in, why, h);
  }
  return decode_multiply_add(op, in, why);
}
bool decode_mad(const Opcode& op, Instruction& in, std::string& why) { return decode_multiply_add(op, in, why); }

bool decode_div(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(float_modifiers(op));
  return typed(op, in, why, op.has("approx") && in.type == Type::f32 ? &div_approx<float> : arith_binary<Div>(in.type));
}
bool decode_rem(const Opcode& op, Instruction& in, std::string& why) { return typed(op, in, why, int_binary<Rem>(in.type)); }
bool decode_copysign(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_float(in.type, []<class T>() -> Handler { return &copysign<T>; }));
}

}  // namespace tcgen::ptx
