// cvt: between integer and float types, rounded, saturated and flushed as
// its modifiers say, and the packed narrow-float forms (PTX
// #data-movement-and-conversion-instructions-cvt, -cvt-pack).
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

enum class Kind : std::uint8_t { sint, uint, f32, f64, f16, bf16, e4m3, e5m2, tf32 };
Kind kind(Type t) {
  switch (t) {
    case Type::s8: case Type::s16: case Type::s32: case Type::s64: return Kind::sint;
    case Type::f32: return Kind::f32;
    case Type::f64: return Kind::f64;
    case Type::f16: case Type::f16x2: return Kind::f16;
    case Type::bf16: case Type::bf16x2: return Kind::bf16;
    case Type::e4m3x2: return Kind::e4m3;
    case Type::e5m2x2: return Kind::e5m2;
    case Type::tf32: return Kind::tf32;
    default: return Kind::uint;
  }
}

// A value on its way through cvt: integers exactly, floats as double.
struct Value {
  bool is_int;
  Int128 i;
  double f;
};

Value read_value(Thread& t, const Operand& o, Type ty) {
  switch (ty) {
    case Type::s8: return {true, t.get<std::int8_t>(o), 0};
    case Type::s16: return {true, t.get<std::int16_t>(o), 0};
    case Type::s32: return {true, t.get<std::int32_t>(o), 0};
    case Type::s64: return {true, t.get<std::int64_t>(o), 0};
    case Type::u8: case Type::b8: return {true, t.get<std::uint8_t>(o), 0};
    case Type::u16: case Type::b16: return {true, t.get<std::uint16_t>(o), 0};
    case Type::u32: case Type::b32: return {true, t.get<std::uint32_t>(o), 0};
    case Type::u64: case Type::b64: return {true, t.get<std::uint64_t>(o), 0};
    case Type::f32: return {false, 0, t.get<float>(o)};
    case Type::f64: return {false, 0, t.get<double>(o)};
    case Type::f16: return {false, 0, F16{t.get<std::uint16_t>(o)}.value()};
    case Type::bf16: return {false, 0, BF16{t.get<std::uint16_t>(o)}.value()};
    default: return {true, 0, 0};
  }
}

double round_integral(double x, RoundingMode mode) {
  switch (mode) {
    case RoundingMode::zero: return std::trunc(x);
    case RoundingMode::down: return std::floor(x);
    case RoundingMode::up: return std::ceil(x);
    case RoundingMode::nearest_even: break;
  }
  return std::nearbyint(x);  // ties to even under the default mode
}

// A double to float, in the rounding mode of the moment (through rounded() or round_to_odd()).
constexpr auto to_float = [](double x) { return static_cast<float>(x); };

// x rounded to a 16-bit format E in `mode`: to nearest even through
// float rounded to odd; directed modes through float rounded the same way,
// then the nearest-even encoding stepped by one when it lies on the wrong side.
// A NaN gives `nan`: 0x7FFF, or a signed 0x7E00 for f16 from f64 (an H200's results).
std::uint16_t to_half(ElementType e, double x, RoundingMode mode, std::uint16_t nan = 0x7FFF) {
  if (std::isnan(x)) return nan;
  if (mode == RoundingMode::nearest_even) return static_cast<std::uint16_t>(encode(e, round_to_odd<float>(to_float, x)));
  const float f = rounded(mode, to_float, x);
  std::uint16_t bits = static_cast<std::uint16_t>(encode(e, f));
  const float got = decode(e, bits);
  const bool above = got > f, below = got < f;
  const bool up = mode == RoundingMode::up && below, down = mode == RoundingMode::down && above;
  const bool toward_zero = mode == RoundingMode::zero && std::fabs(got) > std::fabs(f);
  // Sign-magnitude: +1 on the magnitude moves away from zero.
  if (toward_zero || (down && f > 0) || (up && f < 0)) --bits;
  else if ((down && f < 0) || (up && f > 0)) ++bits;
  return bits;
}

// A float → integer conversion of NaN: 0, except the hardware's 1 << 63 for
// 64-bit results and 0x80000000 for f64 to 32 bits (seen on an H200).
Int128 nan_to_int(int bits, Type source) {
  if (bits == 64) return Int128(1) << 63;
  if (bits == 32 && source == Type::f64) return Int128(1) << 31;
  return 0;
}

void write_value(Thread& t, const Operand& o, Type ty, Value v, const FloatModifiers& m, Type source) {
  const Kind k = kind(ty);
  if (k == Kind::sint || k == Kind::uint) {
    const int bits = 8 * size_of(ty);
    const bool sign = k == Kind::sint;
    const Int128 lo = sign ? -(Int128(1) << (bits - 1)) : 0;
    const Int128 hi = sign ? (Int128(1) << (bits - 1)) - 1 : (Int128(1) << bits) - 1;
    Int128 r;
    if (v.is_int) {
      r = v.i;
      if (m.sat) r = r < lo ? lo : r > hi ? hi : r;
    } else if (std::isnan(v.f)) {
      r = nan_to_int(bits, source);
    } else {  // float → integer saturates (PTX #data-movement-and-conversion-instructions-cvt)
      const double x = round_integral(v.f, m.to_integer ? m.mode : RoundingMode::zero);  // no .rXi: toward zero
      r = x <= static_cast<double>(lo) ? lo : x >= static_cast<double>(hi) ? hi : static_cast<Int128>(x);
    }
    // Truncated to the type's width, then kept sign-extended for signed types (a wider read sees the same number).
    std::uint64_t u = static_cast<std::uint64_t>(r) & (bits == 64 ? ~0ull : (1ull << bits) - 1);
    if (sign && bits < 64 && (u >> (bits - 1) & 1u)) u |= ~0ull << bits;
    t.set<std::uint64_t>(o, u);
    return;
  }
  // An integer goes to a float in one rounding, in the instruction's mode.
  const bool from_int = v.is_int;
  const bool negative_int = from_int && v.i < 0;
  const auto int_to = [&]<class F>() -> F {
    return negative_int ? rounded(m.mode, [](std::int64_t i) { return static_cast<F>(i); }, static_cast<std::int64_t>(v.i))
                        : rounded(m.mode, [](std::uint64_t u) { return static_cast<F>(u); }, static_cast<std::uint64_t>(v.i));
  };
  double x = from_int ? int_to.template operator()<double>() : v.f;
  if (m.to_integer) x = round_integral(x, m.mode);
  if (m.relu && !(x > 0) && !std::isnan(x)) x = 0;  // negative values and -0 to +0
  if (m.sat) x = std::isnan(x) ? 0 : std::fmin(std::fmax(x, 0.0), 1.0);
  switch (k) {
    case Kind::f32: {
      if (source == Type::f64 && std::isnan(x)) {  // a quiet NaN with the sign (an H200's result)
        t.set<std::uint32_t>(o, std::signbit(x) ? 0xFFC00000u : 0x7FC00000u);
        return;
      }
      const float f = from_int && !m.to_integer
                          ? int_to.template operator()<float>()
                          : rounded(m.to_integer ? RoundingMode::nearest_even : m.mode, to_float, x);
      t.set<float>(o, finish(f, m.ftz, false));  // flushed when .ftz; a NaN the canonical 0x7FFFFFFF
      return;
    }
    case Kind::f64: t.set<double>(o, x); return;
    case Kind::f16:
      t.set<std::uint16_t>(o, to_half(ElementType::fp16, x, m.mode,
                                      source != Type::f64 ? 0x7FFF : std::signbit(x) ? 0xFE00 : 0x7E00));
      return;
    case Kind::bf16: t.set<std::uint16_t>(o, to_half(ElementType::bf16, x, m.mode)); return;

    default: return;
  }
}

void cvt(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  // cvt.{rn,rna}.tf32.f32: the top 19 bits, rounded to nearest, ties even (.rn) or away (.rna, the
  // bit operation (u + 2^12) & ~(2^13 - 1)). A NaN: .rna truncates it, .rn gives 0x7FFFE000 (an H200's results).
  if (in.type == Type::tf32 && in.type2 == Type::f32) {
    const std::uint32_t u = t.get<std::uint32_t>(in.ops[1]);
    const float f = std::bit_cast<float>(u);
    t.set<std::uint32_t>(in.ops[0], m.ties_away ? (std::isnan(f) ? u : u + 0x1000u) & ~0x1FFFu
                                    : std::isnan(f)   ? 0x7FFFE000u
                                                      : encode(ElementType::tf32, f));
    return;
  }
  // A 16-bit NaN widens with its payload, except f16 to f32, which gives 0x7FFFFFFF (an H200's results).
  if (in.type2 == Type::f16 && in.type == Type::f32 && std::isnan(decode(ElementType::fp16, t.get<std::uint16_t>(in.ops[1])))) {
    t.set<std::uint32_t>(in.ops[0], 0x7FFFFFFFu);
    return;
  }
  if ((in.type2 == Type::f16 || in.type2 == Type::bf16) && (in.type == Type::f32 || in.type == Type::f64)) {
    const std::uint16_t h = t.get<std::uint16_t>(in.ops[1]);
    const bool f16 = in.type2 == Type::f16;
    const std::uint32_t exponent = f16 ? (h >> 10) & 0x1Fu : (h >> 7) & 0xFFu, mantissa = f16 ? h & 0x3FFu : h & 0x7Fu;
    if (exponent == (f16 ? 0x1Fu : 0xFFu) && mantissa != 0) {
      const int width = f16 ? 10 : 7;
      const std::uint64_t sign = h >> 15;
      if (in.type == Type::f32)
        t.set<std::uint32_t>(in.ops[0], static_cast<std::uint32_t>(sign << 31 | 0x7F800000u | mantissa << (23 - width)));
      else
        t.set<std::uint64_t>(in.ops[0], sign << 63 | 0x7FF0000000000000ull | std::uint64_t{mantissa} << (52 - width));
      return;
    }
  }
  Value v = read_value(t, in.ops[1], in.type2);
  if (m.ftz && in.type2 == Type::f32 && !v.is_int) v.f = flush(static_cast<float>(v.f), true);
  write_value(t, in.ops[0], in.type, v, m, in.type2);
}

// .relu: negative values and -0 to +0; NaN stays.
float relu(float x, bool on) { return on && !(x > 0) && !std::isnan(x) ? 0.0f : x; }

// cvt.rn.{bf16x2,f16x2}.f32 d, a, b: a to the upper half, b to the lower.
template <ElementType E>
void cvt_pack_f32(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  auto one = [&](const Operand& o) { return std::uint32_t{to_half(E, relu(t.get<float>(o), m.relu), m.mode)}; };
  t.set<std::uint32_t>(in.ops[0], one(in.ops[1]) << 16 | one(in.ops[2]));
}
// cvt.rn.satfinite.{e4m3x2,e5m2x2}.{f32, f16x2}: d, a, b (a to the upper byte) or d, a
// (a's upper half to the upper byte). A NaN gives 0x7F, of either sign (an H200's result).
template <ElementType E, bool FromHalves>
void cvt_pack_fp8(Thread& t, const Instruction& in) {
  const bool on = in.modifiers.get<FloatModifiers>().relu;
  auto one = [&](float x) {
    x = relu(x, on);
    return std::isnan(x) ? 0x7Fu : encode(E, x) & 0xFFu;
  };
  float hi, lo;
  if constexpr (FromHalves) {
    const std::uint32_t a = t.get<std::uint32_t>(in.ops[1]);
    hi = decode(ElementType::fp16, a >> 16);
    lo = decode(ElementType::fp16, a & 0xFFFFu);
  } else {
    hi = t.get<float>(in.ops[1]);
    lo = t.get<float>(in.ops[2]);
  }
  t.set<std::uint16_t>(in.ops[0], static_cast<std::uint16_t>(one(hi) << 8 | one(lo)));
}
// cvt.rn.f16x2.{e4m3x2,e5m2x2} d, a: each byte of a to f16, the low byte to the low half.
template <ElementType E>
void cvt_unpack_fp8(Thread& t, const Instruction& in) {
  const std::uint16_t a = t.get<std::uint16_t>(in.ops[1]);
  const auto widen = [](float x) { return std::isnan(x) ? 0x7FFFu : encode(ElementType::fp16, x); };  // an H200's NaN
  const std::uint32_t lo = widen(decode(E, a & 0xFFu)), hi = widen(decode(E, a >> 8u));
  t.set<std::uint32_t>(in.ops[0], hi << 16 | lo);
}

// cvt.rn.bf16x2.ue8m0x2 d, a (sm_100a; block-scale factors to bf16): byte e of
// a is 2^(e − 127), exact in bf16 as its exponent field, 2^-127 a bf16
// subnormal (0x0040); the upper byte to the upper half. 0xFF, UE8M0's NaN,
// gives bf16 0x7FFF (UNCONFIRMED: no sm_100 silicon here; FlashMLA's MODEL1
// decode dequantises its scales so, checked against fp64 under tcgen run).
void cvt_unpack_ue8m0(Thread& t, const Instruction& in) {
  const std::uint16_t a = t.get<std::uint16_t>(in.ops[1]);
  const auto widen = [](std::uint32_t e) -> std::uint32_t { return e == 0xFFu ? 0x7FFFu : e == 0 ? 0x0040u : e << 7; };
  t.set<std::uint32_t>(in.ops[0], widen(a >> 8u) << 16 | widen(a & 0xFFu));
}

// cvt.{rz,rp}{.satfinite}.ue8m0x2.f32 d, a, b and .ue8m0x2.bf16x2 d, a (sm_100a; block-scale factors
// from values): each value's exponent field, the sign ignored (UE8M0 has none), rounded up (.rp)
// when it is not a power of two; a subnormal at or below 2^-127 gives 2^-127 (0x00), UE8M0's least
// value; .satfinite keeps 0xFE (2^127) from rounding up to 0xFF, UE8M0's NaN; NaN and infinity give
// 0xFF. CUTLASS's host form of .rp (float_ue8m0_t::convert_from_float), which its block-scaled GEMMs'
// references use and B200 runs of them match; .rz takes the field as it is. a to the upper byte.
std::uint32_t to_ue8m0(float x, const FloatModifiers& m) {
  if (std::isnan(x) || std::isinf(x)) return 0xFFu;
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x), exponent = (u >> 23) & 0xFFu, mantissa = u & 0x7FFFFFu;
  const bool up = m.mode == RoundingMode::up && mantissa > 0 && !(exponent == 0 && mantissa <= 0x400000u);
  if (up && exponent == 0xFEu) return m.satfinite ? 0xFEu : 0xFFu;
  return up ? exponent + 1 : exponent;
}
void cvt_pack_ue8m0(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  float hi, lo;
  if (in.type2 == Type::bf16x2) {
    const std::uint32_t a = t.get<std::uint32_t>(in.ops[1]);
    hi = std::bit_cast<float>(a & 0xFFFF0000u);
    lo = std::bit_cast<float>(a << 16);
  } else {
    hi = t.get<float>(in.ops[1]);
    lo = t.get<float>(in.ops[2]);
  }
  t.set<std::uint16_t>(in.ops[0], static_cast<std::uint16_t>(to_ue8m0(hi, m) << 8 | to_ue8m0(lo, m)));
}

// cvt.rn.satfinite{.relu}.{e2m1x2, e2m3x2, e3m2x2}.f32 d, a, b: a to the upper
// nibble of a .b8 d (e2m1x2) or the upper byte of a .b16 d (6-bit values in
// 8-bit containers). These formats have no NaN or infinity: satfinite
// clamps, and a NaN takes core's encode() (UNCONFIRMED on silicon).
template <ElementType E>
void cvt_pack_narrow(Thread& t, const Instruction& in) {
  const bool on = in.modifiers.get<FloatModifiers>().relu;
  const auto one = [&](const Operand& o) { return encode(E, relu(t.get<float>(o), on)); };
  const std::uint32_t hi = one(in.ops[1]), lo = one(in.ops[2]);
  if constexpr (bits(E) == 4) t.set<std::uint8_t>(in.ops[0], static_cast<std::uint8_t>(hi << 4 | lo));
  else t.set<std::uint16_t>(in.ops[0], static_cast<std::uint16_t>(hi << 8 | lo));
}
// cvt.rn{.relu}.f16x2.{e2m1x2, e2m3x2, e3m2x2} d, a: the upper value of a to the upper half.
template <ElementType E>
void cvt_unpack_narrow(Thread& t, const Instruction& in) {
  constexpr int width = bits(E) == 4 ? 4 : 8;
  const std::uint32_t a = t.get<std::uint16_t>(in.ops[1]), mask = (1u << bits(E)) - 1;
  const bool on = in.modifiers.get<FloatModifiers>().relu;
  const auto widen = [&](std::uint32_t code) { return encode(ElementType::fp16, relu(decode(E, code & mask), on)); };
  t.set<std::uint32_t>(in.ops[0], widen(a >> width) << 16 | widen(a));
}

}  // namespace

bool decode_cvt(const Opcode& op, Instruction& in, std::string& why) {
  const std::vector<Type> ts = op.types();
  if (ts.size() != 2) {
    why = "cvt with two types";
    return false;
  }
  in.type = ts[0];
  in.type2 = ts[1];
  const FloatModifiers m = float_modifiers(op);
  in.modifiers.set(m);
  Handler h = nullptr;
  if (in.type == Type::bf16x2 && in.type2 == Type::f32) h = &cvt_pack_f32<ElementType::bf16>;
  else if (in.type == Type::f16x2 && in.type2 == Type::f32) h = &cvt_pack_f32<ElementType::fp16>;
  else if (in.type == Type::e4m3x2 && in.type2 == Type::f32) h = &cvt_pack_fp8<ElementType::e4m3, false>;
  else if (in.type == Type::e5m2x2 && in.type2 == Type::f32) h = &cvt_pack_fp8<ElementType::e5m2, false>;
  else if (in.type == Type::e4m3x2 && in.type2 == Type::f16x2) h = &cvt_pack_fp8<ElementType::e4m3, true>;
  else if (in.type == Type::e5m2x2 && in.type2 == Type::f16x2) h = &cvt_pack_fp8<ElementType::e5m2, true>;
  else if (in.type == Type::f16x2 && in.type2 == Type::e4m3x2) h = &cvt_unpack_fp8<ElementType::e4m3>;
  else if (in.type == Type::bf16x2 && in.type2 == Type::ue8m0x2) h = &cvt_unpack_ue8m0;
  else if (in.type == Type::ue8m0x2 && (in.type2 == Type::f32 || in.type2 == Type::bf16x2)) {
    if (m.mode != RoundingMode::zero && m.mode != RoundingMode::up) {
      why = "cvt.rz or cvt.rp to .ue8m0x2 (the only roundings PTX gives it)";
      return false;
    }
    h = &cvt_pack_ue8m0;
  }
  else if (in.type == Type::f16x2 && in.type2 == Type::e5m2x2) h = &cvt_unpack_fp8<ElementType::e5m2>;
  else if (in.type == Type::e2m1x2 && in.type2 == Type::f32) h = &cvt_pack_narrow<ElementType::e2m1>;
  else if (in.type == Type::e2m3x2 && in.type2 == Type::f32) h = &cvt_pack_narrow<ElementType::e2m3>;
  else if (in.type == Type::e3m2x2 && in.type2 == Type::f32) h = &cvt_pack_narrow<ElementType::e3m2>;
  else if (in.type == Type::f16x2 && in.type2 == Type::e2m1x2) h = &cvt_unpack_narrow<ElementType::e2m1>;
  else if (in.type == Type::f16x2 && in.type2 == Type::e2m3x2) h = &cvt_unpack_narrow<ElementType::e2m3>;
  else if (in.type == Type::f16x2 && in.type2 == Type::e3m2x2) h = &cvt_unpack_narrow<ElementType::e3m2>;
  else if (!is_half(in.type) || in.type == Type::f16 || in.type == Type::bf16) {
    if (in.type == Type::f16x2 || in.type == Type::bf16x2 || in.type2 == Type::f16x2 || in.type2 == Type::bf16x2) {
      why = "this packed cvt";
      return false;
    }
    h = &cvt;
  }
  if (!h) {
    why = "type ." + std::string(name(in.type2)) + " for cvt";
    return false;
  }
  return typed(op, in, why, h);
}

}  // namespace tcgen::ptx
