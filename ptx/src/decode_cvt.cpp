// cvt: between integer and float types, rounded, saturated and flushed as
// its modifiers say, and the packed narrow-float forms (PTX
// #data-movement-and-conversion-instructions-cvt, -cvt-pack).
#include <array>
#include <vector>

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
  if (mode == RoundingMode::nearest_even) {
    // A float's value (every f32 source) needs no rounding to float, nor the rounding-mode switch.
    if (const float f = static_cast<float>(x); static_cast<double>(f) == x) return static_cast<std::uint16_t>(encode(e, f));
    return static_cast<std::uint16_t>(encode(e, round_to_odd<float>(to_float, x)));
  }
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

// A float → integer conversion of NaN: the ISA says 0 ("In float-to-integer conversion, NaN inputs are
// converted to 0", PTX #data-movement-and-conversion-instructions-cvt), but silicon gives 1 << (bits - 1)
// of the destination (unsigned ones too) where it is 64 bits wide or the source is f64, and 0 only for
// f16, bf16 and f32 to 8, 16 or 32 bits (an H100 and an H200: docs/ptx.md, Conformance).
Int128 nan_to_int(int bits, Type source) {
  return bits == 64 || source == Type::f64 ? Int128(1) << (bits - 1) : Int128(0);
}

// .satfinite (PTX #data-movement-and-conversion-instructions-cvt): "if the input value is NaN, then
// the result is NaN in the specified destination format. If the absolute value of input (ignoring
// sign) is greater than MAX_NORM of the specified destination format, then the result is
// sign-preserved MAX_NORM" (infinities included). Why: .satfinite was ignored for .f16/.bf16 (x2).
double finite(double x, ElementType e, bool on) {
  const double max_norm = decode(e, detail::float_format(e).max_finite);
  return on && std::fabs(x) > max_norm ? std::copysign(max_norm, x) : x;
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
      t.set<std::uint16_t>(o, to_half(ElementType::fp16, finite(x, ElementType::fp16, m.satfinite), m.mode,
                                      source != Type::f64 ? 0x7FFF : std::signbit(x) ? 0xFE00 : 0x7E00));
      return;
    case Kind::bf16: t.set<std::uint16_t>(o, to_half(ElementType::bf16, finite(x, ElementType::bf16, m.satfinite), m.mode)); return;

    default: return;
  }
}

// cvt.{rn,rz,rna}{.relu}{.satfinite}.tf32.f32: the top 19 bits of u (in a .b32), rounded to
// nearest ties even (.rn), toward zero (.rz) or ties away (.rna, the bit operation
// (u + 2^12) & ~(2^13 - 1)). A NaN: .rna truncates it, .rn gives 0x7FFFE000 (an H200's results);
// under .satfinite always 0x7FFFE000 (truncating can leave an infinity), and an infinite or
// overflowing value gives sign-preserved MAX_NORM 0x7F7FE000 (PTX #data-movement-and-conversion-
// instructions-cvt, .satfinite). Why: .satfinite, .rz and .relu were ignored on .tf32.
std::uint32_t to_tf32(std::uint32_t u, const FloatModifiers& m) {
  const std::uint32_t sign = u & 0x80000000u, mag = u & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) {
    if (!m.ties_away) return 0x7FFFE000u;
    // .rna keeps a NaN's top 19 bits (an H100: 0x7F800001 gives 0x7F800000, an infinity, which
    // .satfinite then makes ±MAX_NORM as any infinity; docs/ptx.md, Conformance).
    const std::uint32_t cut = u & ~0x1FFFu;
    if ((cut & 0x7FFFFFFFu) == 0x7F800000u) return m.satfinite ? sign | 0x7F7FE000u : cut;
    return m.satfinite ? 0x7FFFE000u : cut;
  }
  if (m.relu && (sign || mag == 0)) return 0;
  const std::uint32_t add = m.ties_away ? 0x1000u : m.mode == RoundingMode::zero ? 0u : 0xFFFu + ((mag >> 13) & 1u);
  const std::uint32_t r = mag == 0x7F800000u ? mag : (mag + add) & ~0x1FFFu;
  return sign | (r >= 0x7F800000u && m.satfinite ? 0x7F7FE000u : r);
}

void cvt(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  if (in.type == Type::tf32 && in.type2 == Type::f32) return t.set<std::uint32_t>(in.ops[0], to_tf32(t.get<std::uint32_t>(in.ops[1]), m));
  // A 16-bit NaN widens with its payload, except f16 to f32, which gives 0x7FFFFFFF (an H200's results);
  // under .sat it is 0 as any NaN is (PTX #data-movement-and-conversion-instructions-cvt, write_value).
  const bool widens = (in.type2 == Type::f16 || in.type2 == Type::bf16) && (in.type == Type::f32 || in.type == Type::f64);
  if (widens && !m.sat && in.type2 == Type::f16 && in.type == Type::f32 &&
      std::isnan(decode(ElementType::fp16, t.get<std::uint16_t>(in.ops[1])))) {
    t.set<std::uint32_t>(in.ops[0], 0x7FFFFFFFu);
    return;
  }
  if (widens && !m.sat) {
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
  // .ftz flushes an f32 source's subnormals, but not on the way to f16: there an H100 rounds them as
  // they are (cvt.rp.ftz.f16.f32 of 0x00000001 gives 0x0001; docs/ptx.md, Conformance).
  if (m.ftz && in.type2 == Type::f32 && in.type != Type::f16 && !v.is_int)
    v.f = flush(static_cast<float>(v.f), true);
  write_value(t, in.ops[0], in.type, v, m, in.type2);
}

// cvt.f32.f16 d, a with no modifier: each f16's f32, exact, as cvt gives it (an f16 NaN gives
// 0x7FFFFFFF), made once; CUTLASS's reference kernels widen every f16 and fp8 element they read.
void cvt_f32_f16(Thread& t, const Instruction& in) {
  static const std::vector<std::uint32_t> f32 = [] {
    std::vector<std::uint32_t> table(1u << 16);
    for (std::uint32_t h = 0; h < table.size(); ++h) {
      const float x = decode(ElementType::fp16, h);
      table[h] = std::isnan(x) ? 0x7FFFFFFFu : std::bit_cast<std::uint32_t>(x);
    }
    return table;
  }();
  t.set<std::uint32_t>(in.ops[0], f32[t.get<std::uint16_t>(in.ops[1])]);
}

// .relu: negative values and -0 to +0; NaN stays.
float relu(float x, bool on) { return on && !(x > 0) && !std::isnan(x) ? 0.0f : x; }

// cvt.rn.{bf16x2,f16x2}.f32 d, a, b: a to the upper half, b to the lower.
template <ElementType E>
void cvt_pack_f32(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  auto one = [&](const Operand& o) -> std::uint32_t {
    const float x = relu(t.get<float>(o), m.relu);
    // .rn without .satfinite of a number: what to_half computes, by the format's encoder with E known
    // here (the FMHA's P packing: to_half's double round trip was 2.5% of bench_ptx's PTX run).
    if (m.mode == RoundingMode::nearest_even && !m.satfinite && !std::isnan(x)) return encode(E, x);
    return to_half(E, finite(x, E, m.satfinite), m.mode);
  };
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
// Each byte's f16, made once (CUTLASS's reference kernels unpack every fp8 element they read).
template <ElementType E>
void cvt_unpack_fp8(Thread& t, const Instruction& in) {
  static const std::array<std::uint16_t, 256> f16 = [] {
    std::array<std::uint16_t, 256> table{};
    for (std::uint32_t b = 0; b < 256; ++b) {
      const float x = decode(E, b);
      table[b] = static_cast<std::uint16_t>(std::isnan(x) ? 0x7FFFu : encode(ElementType::fp16, x));  // an H200's NaN
    }
    return table;
  }();
  const std::uint16_t a = t.get<std::uint16_t>(in.ops[1]);
  t.set<std::uint32_t>(in.ops[0], std::uint32_t{f16[a >> 8u]} << 16 | f16[a & 0xFFu]);
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
// value; .satfinite keeps 0xFE (2^127) from rounding up to 0xFF, UE8M0's NaN; NaN gives 0xFF, and
// infinity 0xFF (0xFE under .satfinite). CUTLASS's host form of .rp (float_ue8m0_t::convert_from_float), which its block-scaled GEMMs'
// references use and B200 runs of them match; .rz takes the field as it is. a to the upper byte.
// .satfinite (PTX #data-movement-and-conversion-instructions-cvt): NaN stays NaN (0xFF); an
// infinity, being past MAX_NORM, gives MAX_NORM 0xFE. Why: an infinity gave 0xFF under .satfinite.
std::uint32_t to_ue8m0(float x, const FloatModifiers& m) {
  if (std::isnan(x)) return 0xFFu;
  if (std::isinf(x)) return m.satfinite ? 0xFEu : 0xFFu;
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

// cvt.rs (stochastic rounding, sm_100a; PTX #data-movement-and-conversion-instructions-cvt): x
// rounded to format f toward zero after k random bits are added to the bits being discarded
// (aligned to their top, so a value 1/4 of the way to the next step rounds up for a quarter of the
// random values). f16 from f32 discards 13 bits, bf16 16, which the ISA's 13 and 16 random bits
// cover exactly; the narrower formats get 8 bits each (rs_bits). NaN gives `nan`; past MAX_NORM
// gives MAX_NORM under .satfinite, else infinity. Why: rbits was ignored (rounded to nearest).
std::uint32_t stochastic(ElementType e, float x, std::uint32_t random, int k, bool satfinite, std::uint32_t nan) {
  const detail::FloatFormat f = detail::float_format(e);
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x), a = u & 0x7FFFFFFFu;
  const std::uint32_t sign = (u >> 31) << (f.exp_bits + f.man_bits);
  const std::uint32_t overflow = satfinite || !f.has_inf ? f.max_finite : f.max_finite + 1;
  if (a > 0x7F800000u) return nan;
  if (a == 0x7F800000u) return sign | overflow;
  // |x| = sig * 2^(e - 150); the destination's step at |x| is 2^(te - man_bits).
  const int e32 = (a >> 23) ? int(a >> 23) : 1, emin = 1 - f.bias, te = std::max(e32 - 127, emin);
  const std::uint64_t sig = (a & 0x7FFFFFu) | ((a >> 23) ? 0x800000u : 0u);
  const int shift = std::min(te - f.man_bits - (e32 - 150), 63);  // the discarded bits: > 0 for every narrower format
  const std::uint64_t rem = sig & ((std::uint64_t{1} << shift) - 1);
  const std::uint64_t top = shift >= k ? rem >> (shift - k) : rem << (k - shift);
  const std::uint32_t up = top + random >= (std::uint64_t{1} << k) ? 1u : 0u;
  const std::uint32_t mag = (static_cast<std::uint32_t>(te - emin) << f.man_bits) + static_cast<std::uint32_t>(sig >> shift) + up;
  return sign | (mag > f.max_finite ? overflow : mag);
}

// The random bits of value i (a = 0) of a cvt.rs: the ISA's rbits layout. .f16x2: 13 LSBs of the
// upper half for a, of the lower half for b; .bf16x2: the upper half for a, the lower for b. x4
// forms: the upper 16 bits for a, b and the lower for e, f, read as one byte each, a in the top
// byte (UNCONFIRMED: the ISA's figure of the byte order is not at hand); .e2m1x4: the upper bytes
// of the two halves for a, b, the lower bytes for e, f.
std::uint32_t rs_bits(ElementType e, int n, std::uint32_t rbits, int i, int& k) {
  if (n == 2) {
    k = e == ElementType::fp16 ? 13 : 16;
    return (rbits >> (i == 0 ? 16 : 0)) & ((1u << k) - 1);
  }
  k = 8;
  static constexpr int kByte[2][4] = {{3, 2, 1, 0}, {3, 1, 2, 0}};  // byte of rbits for a, b, e, f
  return (rbits >> (8 * kByte[e == ElementType::e2m1][i])) & 0xFFu;
}

// cvt.rs{.relu}{.satfinite}.{f16x2,bf16x2}.f32 d, a, b, rbits (N = 2) and
// cvt.rs{.relu}.satfinite.{e4m3x4,e5m2x4,e2m3x4,e3m2x4,e2m1x4}.f32 d, {a, b, e, f}, rbits (N = 4):
// a in the top field of d (16 bits a value for the halves, 8 for the x4 forms, 6-bit values
// zero-padded, 4 for e2m1x4 in a .b16). .relu: negatives to +0 first; a NaN gives 0x7FFF (the
// halves, as cvt.rn) or the format's NaN (core's float_format).
template <ElementType E, int N>
void cvt_rs(Thread& t, const Instruction& in) {
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  constexpr int width = N == 2 ? 16 : bits(E) == 4 ? 4 : 8;
  const detail::FloatFormat f = detail::float_format(E);
  const std::uint32_t rbits = t.get<std::uint32_t>(in.ops[N == 2 ? 3 : 2]);
  std::uint32_t d = 0;
  for (int i = 0; i < N; ++i) {
    const float x = relu(t.get<float>(N == 2 ? in.ops[1 + i] : in.elements[in.ops[1].first + i]), m.relu);
    int k = 0;
    const std::uint32_t random = rs_bits(E, N, rbits, i, k);
    const std::uint32_t nan = N == 2 ? 0x7FFFu : (f.nan_signed && std::signbit(x) ? 1u << (f.exp_bits + f.man_bits) : 0u) | f.nan;
    d |= stochastic(E, x, random, k, m.satfinite, nan) << (width * (N - 1 - i));
  }
  if constexpr (N * width == 16) t.set<std::uint16_t>(in.ops[0], static_cast<std::uint16_t>(d));
  else t.set<std::uint32_t>(in.ops[0], d);
}

// The cvt.rs forms: their handler, or false with `why` (another type pair, the x4 forms without the
// .satfinite the ISA makes mandatory, or operands not as the ISA writes them).
bool decode_cvt_rs(const Opcode& op, Instruction& in, std::string& why) {
  const bool x4 = in.type == Type::e4m3x4 || in.type == Type::e5m2x4 || in.type == Type::e2m1x4 ||
                  in.type == Type::e2m3x4 || in.type == Type::e3m2x4;
  const bool shaped = x4 ? in.ops.size() == 3 && in.ops[1].kind == Operand::Kind::vector && in.ops[1].count == 4
                         : in.ops.size() == 4;
  if (in.type2 != Type::f32 || !(x4 || in.type == Type::f16x2 || in.type == Type::bf16x2) || !shaped ||
      (x4 && !op.has("satfinite"))) {
    why = "cvt.rs to ." + std::string(name(in.type)) + " from ." + std::string(name(in.type2)) +
          " (only .f16x2/.bf16x2.f32 d, a, b, rbits and .satfinite x4 forms d, {a, b, e, f}, rbits)";
    return false;
  }
  Handler h = nullptr;
  switch (in.type) {
    case Type::f16x2: h = &cvt_rs<ElementType::fp16, 2>; break;
    case Type::bf16x2: h = &cvt_rs<ElementType::bf16, 2>; break;
    case Type::e4m3x4: h = &cvt_rs<ElementType::e4m3, 4>; break;
    case Type::e5m2x4: h = &cvt_rs<ElementType::e5m2, 4>; break;
    case Type::e2m3x4: h = &cvt_rs<ElementType::e2m3, 4>; break;
    case Type::e3m2x4: h = &cvt_rs<ElementType::e3m2, 4>; break;
    default: h = &cvt_rs<ElementType::e2m1, 4>; break;
  }
  return typed(op, in, why, h);
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
  if (op.has("rs")) return decode_cvt_rs(op, in, why);
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
    h = in.type == Type::f32 && in.type2 == Type::f16 && !m.sat && !m.ftz && !m.relu ? &cvt_f32_f16 : &cvt;
  }
  if (!h) {
    why = "type ." + std::string(name(in.type2)) + " for cvt";
    return false;
  }
  return typed(op, in, why, h);
}

}  // namespace tcgen::ptx
