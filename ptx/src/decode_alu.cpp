// Integer, bit, float, comparison, selection, move and conversion
// instructions (PTX #integer-arithmetic-instructions, #floating-point-
// instructions, #half-precision-floating-point-instructions,
// #comparison-and-selection-instructions, #logic-and-shift-instructions,
// #data-movement-and-conversion-instructions-mov, -cvt, -cvta). One template
// per operation; the decoder picks its instantiation by type.
#include <bit>
#include <cfenv>
#include <cmath>
#include <limits>
#include <type_traits>

#include "decode.hpp"
#include "tcgen/core/element_type.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

// ---- types

// 128-bit integers (a GCC and Clang extension) hold 64-bit products and cvt's values exactly.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

// 16-bit floats as their bits; arithmetic goes through f32 and rounds back (RNE).
template <ElementType E>
struct Half {
  std::uint16_t bits;
  static Half from(float x) { return {static_cast<std::uint16_t>(encode(E, x))}; }
  float value() const { return decode(E, bits); }
};
using F16 = Half<ElementType::fp16>;
using BF16 = Half<ElementType::bf16>;

}  // namespace

template <>
inline F16 Thread::from_bits<F16>(std::uint64_t b) {
  return {static_cast<std::uint16_t>(b)};
}
template <>
inline BF16 Thread::from_bits<BF16>(std::uint64_t b) {
  return {static_cast<std::uint16_t>(b)};
}
template <>
inline std::uint64_t Thread::to_bits<F16>(F16 v) {
  return v.bits;
}
template <>
inline std::uint64_t Thread::to_bits<BF16>(BF16 v) {
  return v.bits;
}

namespace {

// Calls f.template operator()<T>() with T the C++ type of an integer type.
template <class F>
Handler by_int(Type t, F f) {
  switch (t) {
    case Type::u8: case Type::b8: return f.template operator()<std::uint8_t>();
    case Type::s8: return f.template operator()<std::int8_t>();
    case Type::u16: case Type::b16: return f.template operator()<std::uint16_t>();
    case Type::s16: return f.template operator()<std::int16_t>();
    case Type::u32: case Type::b32: return f.template operator()<std::uint32_t>();
    case Type::s32: return f.template operator()<std::int32_t>();
    case Type::u64: case Type::b64: return f.template operator()<std::uint64_t>();
    case Type::s64: return f.template operator()<std::int64_t>();
    default: return nullptr;
  }
}
template <class F>
Handler by_float(Type t, F f) {
  switch (t) {
    case Type::f32: return f.template operator()<float>();
    case Type::f64: return f.template operator()<double>();
    default: return nullptr;
  }
}
template <class F>
Handler by_any(Type t, F f) {
  if (Handler h = by_int(t, f)) return h;
  if (Handler h = by_float(t, f)) return h;
  if (t == Type::pred) return f.template operator()<bool>();
  if (t == Type::f16) return f.template operator()<F16>();
  if (t == Type::bf16) return f.template operator()<BF16>();
  if (t == Type::f16x2 || t == Type::bf16x2) return f.template operator()<std::uint32_t>();
  if (t == Type::f32x2) return f.template operator()<std::uint64_t>();
  return nullptr;
}

template <class T>
using Wide = std::conditional_t<
    sizeof(T) == 1, std::conditional_t<std::is_signed_v<T>, std::int16_t, std::uint16_t>,
    std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>,
                       std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>,
                                          std::conditional_t<std::is_signed_v<T>, Int128, UInt128>>>>;

// Modifier bits in Instruction::flags.
enum Flag : std::uint32_t {
  kFtz = 1, kSat = 2, kRz = 16, kRm = 32, kRp = 64, kRi = 128 /* round to integer */,
  kRelu = 256, kApprox = 2048, kNaN = 4096, kRna = 8192, kSatFinite = 16384,
  kSecondDestination = 1u << 31,  // setp p|q
};

std::uint32_t rounding_flags(const Opcode& op) {
  std::uint32_t f = 0;
  if (op.has("ftz")) f |= kFtz;
  if (op.has("sat")) f |= kSat;
  if (op.has("rz") || op.has("rzi")) f |= kRz;
  if (op.has("rm") || op.has("rmi")) f |= kRm;
  if (op.has("rp") || op.has("rpi")) f |= kRp;
  if (op.has("rni") || op.has("rzi") || op.has("rmi") || op.has("rpi")) f |= kRi;
  if (op.has("relu")) f |= kRelu;
  if (op.has("approx")) f |= kApprox;
  if (op.has("NaN")) f |= kNaN;
  if (op.has("rna")) f |= kRna;
  if (op.has("satfinite")) f |= kSatFinite;
  return f;
}

template <class T>
T flush(T x, std::uint32_t flags) {
  if constexpr (std::is_floating_point_v<T>)
    if ((flags & kFtz) && std::fpclassify(x) == FP_SUBNORMAL) return std::copysign(T(0), x);
  return x;
}
// An f32 NaN result is the canonical 0x7FFFFFFF, whatever the inputs (seen on an
// H200: device_ptx_semantics_sm90); f64 NaNs keep the hardware's propagation,
// which is not modelled bit for bit.
template <class T>
T finish(T x, std::uint32_t flags) {
  x = flush(x, flags);
  if constexpr (std::is_floating_point_v<T>)
    if (flags & kSat) x = std::isnan(x) ? T(0) : std::fmin(std::fmax(x, T(0)), T(1));
  if constexpr (std::is_same_v<T, float>)
    if (std::isnan(x)) return std::bit_cast<float>(0x7FFFFFFFu);
  return x;
}

// Runs f under the rounding mode of flags (.rz/.rm/.rp; .rn is the default).
template <class F>
auto rounded(std::uint32_t flags, F f) {
  if (!(flags & (kRz | kRm | kRp))) return f();
  const int saved = std::fegetround();
  std::fesetround(flags & kRz ? FE_TOWARDZERO : flags & kRm ? FE_DOWNWARD : FE_UPWARD);
  const auto r = f();
  std::fesetround(saved);
  return r;
}

// ---- integer and float arithmetic: d = op(a, b[, c])

template <class T>
T wrap_add(T a, T b) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
}

struct Add;
struct Sub;

template <class T, class Op>
void binary(Thread& t, const Instruction& in) {
  const T a = t.get<T>(in.ops[1]), b = t.get<T>(in.ops[2]);
  if constexpr (std::is_floating_point_v<T>) {
    if ((in.flags & kNaN) && (std::isnan(a) || std::isnan(b))) {  // min/max.NaN: a NaN operand gives NaN
      t.set<T>(in.ops[0], std::numeric_limits<T>::quiet_NaN());
      if constexpr (std::is_same_v<T, float>) t.set<std::uint32_t>(in.ops[0], 0x7FFFFFFFu);
      return;
    }
    t.set<T>(in.ops[0], finish(rounded(in.flags, [&] { return Op{}(flush(a, in.flags), flush(b, in.flags)); }), in.flags));
  } else if constexpr (std::is_same_v<T, std::int32_t> && (std::is_same_v<Op, Add> || std::is_same_v<Op, Sub>)) {
    if (in.flags & kSat) {  // add.sat.s32, sub.sat.s32: clamped to [INT32_MIN, INT32_MAX]
      const std::int64_t r = std::is_same_v<Op, Add> ? std::int64_t{a} + b : std::int64_t{a} - b;
      t.set<T>(in.ops[0], static_cast<T>(std::clamp<std::int64_t>(r, INT32_MIN, INT32_MAX)));
      return;
    }
    t.set<T>(in.ops[0], Op{}(a, b));
  } else {
    t.set<T>(in.ops[0], Op{}(a, b));
  }
}

template <class T, class Op>
void unary(Thread& t, const Instruction& in) {
  const T a = t.get<T>(in.ops[1]);
  if constexpr (std::is_floating_point_v<T>)
    t.set<T>(in.ops[0], finish(rounded(in.flags, [&] { return Op{}(flush(a, in.flags)); }), in.flags));
  else
    t.set<T>(in.ops[0], Op{}(a));
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
  const T a = flush(t.get<T>(in.ops[1]), in.flags), b = flush(t.get<T>(in.ops[2]), in.flags);
  if (std::fpclassify(b) == FP_SUBNORMAL) return t.set<T>(in.ops[0], finish(a / b, in.flags));
  const T reciprocal = flush(T(1) / b, kFtz);
  t.set<T>(in.ops[0], finish(a * reciprocal, in.flags));
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
// min/max of floats as the hardware does: a NaN operand (quiet or signaling)
// gives the other one, -0 is below +0 (PTX #floating-point-instructions-min).
template <class T>
T min_max(T a, T b, bool max) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b && a == T(0)) return std::signbit(a) == max ? b : a;
  return (max ? a > b : a < b) ? a : b;
}
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
struct Rcp {
  template <class T>
  T operator()(T a) const { return T(1) / a; }
};
struct Sqrt {
  template <class T>
  T operator()(T a) const { return std::sqrt(a); }
};
struct Rsqrt {
  template <class T>
  T operator()(T a) const { return T(1) / std::sqrt(a); }
};
struct Ex2 {
  template <class T>
  T operator()(T a) const { return std::exp2(a); }  // MUFU.EX2 is within 2 ulp of this
};
struct Lg2 {
  template <class T>
  T operator()(T a) const { return std::log2(a); }
};
struct Sin {
  template <class T>
  T operator()(T a) const { return std::sin(a); }
};
struct Cos {
  template <class T>
  T operator()(T a) const { return std::cos(a); }
};
struct Tanh {
  template <class T>
  T operator()(T a) const { return std::tanh(a); }
};

// pred operands of and/or/xor/not are 0/1 in the slot.
template <class Op>
void logic_pred(Thread& t, const Instruction& in) {
  const bool a = t.pred(in.ops[1]);
  const bool b = in.ops.size() > 2 ? t.pred(in.ops[2]) : false;
  bool r;
  if constexpr (std::is_same_v<Op, Not>) r = !a;
  else if constexpr (std::is_same_v<Op, And>) r = a && b;
  else if constexpr (std::is_same_v<Op, Or>) r = a || b;
  else r = a != b;
  t.set<bool>(in.ops[0], r);
}

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
  const T a = flush(t.get<T>(in.ops[1]), in.flags), b = flush(t.get<T>(in.ops[2]), in.flags),
          c = flush(t.get<T>(in.ops[3]), in.flags);
  t.set<T>(in.ops[0], finish(rounded(in.flags, [&] { return std::fma(a, b, c); }), in.flags));
}

// add/sub/mul/fma .f32x2: two f32 lanes in a 64-bit register, low first.
template <int N>
void f32x2(Thread& t, const Instruction& in) {
  float a[2], b[2], c[2] = {0, 0}, d[2];
  const std::uint64_t ra = t.get<std::uint64_t>(in.ops[1]), rb = t.get<std::uint64_t>(in.ops[2]);
  std::memcpy(a, &ra, 8);
  std::memcpy(b, &rb, 8);
  if constexpr (N == 3) {
    const std::uint64_t rc = t.get<std::uint64_t>(in.ops[3]);
    std::memcpy(c, &rc, 8);
  }
  for (int i = 0; i < 2; ++i)
    d[i] = rounded(in.flags, [&] {
      switch (in.aux) {
        case 0: return a[i] + b[i];
        case 1: return a[i] - b[i];
        case 2: return a[i] * b[i];
        default: return std::fma(a[i], b[i], c[i]);
      }
    });
  std::uint64_t rd;
  std::memcpy(&rd, d, 8);
  t.set<std::uint64_t>(in.ops[0], rd);
}

// f() under round-toward-zero, with the lowest bit set when inexact: rounding
// to odd, after which one more rounding to a format of at most T's precision
// less two bits is correctly rounded (Boldo and Melquiond). Operands reach f
// through volatiles, so the computation stays inside the mode change.
template <class T, class F>
T round_to_odd(F f) {
  const int saved = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  const volatile T r = f();
  const bool inexact = std::fetestexcept(FE_INEXACT) != 0;
  std::fesetround(saved);
  T out = r;
  if (inexact && std::isfinite(out)) {
    using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
    out = std::bit_cast<T>(static_cast<U>(std::bit_cast<U>(out) | 1u));
  }
  return out;
}

// 16-bit float arithmetic (.f16, .bf16 and their x2 pairs): the exact result
// rounded once (through double and float, each rounded to odd, then to
// nearest even); a NaN result is the canonical 0x7FFF (as an H200 gives).
template <class H, int Lanes>
void half_op(Thread& t, const Instruction& in) {
  using Bits = std::conditional_t<Lanes == 2, std::uint32_t, std::uint16_t>;
  constexpr ElementType kType = std::is_same_v<H, F16> ? ElementType::fp16 : ElementType::bf16;
  constexpr float kMinNormal = std::is_same_v<H, F16> ? 0x1p-14f : 0x1p-126f;
  const int n = static_cast<int>(in.ops.size()) - 1;
  Bits src[3] = {};
  for (int i = 0; i < n; ++i) src[i] = t.get<Bits>(in.ops[1 + i]);
  Bits out = 0;
  for (int l = 0; l < Lanes; ++l) {
    volatile float v[3] = {};
    for (int i = 0; i < n; ++i) v[i] = H{static_cast<std::uint16_t>(src[i] >> (16 * l))}.value();
    const auto exact = [](double x) { return round_to_odd<float>([&] { return static_cast<float>(x); }); };
    float r = 0;
    switch (in.aux) {
      case 0: r = exact(round_to_odd<double>([&] { return double(v[0]) + double(v[1]); })); break;
      case 1: r = exact(round_to_odd<double>([&] { return double(v[0]) - double(v[1]); })); break;
      case 2: r = exact(double(v[0]) * double(v[1])); break;  // 11- or 8-bit significands: exact in double
      case 3: r = exact(round_to_odd<double>([&] { return std::fma(double(v[0]), double(v[1]), double(v[2])); })); break;
      case 4: r = min_max<float>(v[0], v[1], false); break;
      case 5: r = min_max<float>(v[0], v[1], true); break;
      case 6: r = -v[0]; break;
      case 7: r = std::fabs(v[0]); break;
      case 8: r = std::exp2(v[0]); break;
      default: r = std::tanh(v[0]); break;
    }
    if ((in.flags & kNaN) && (std::isnan(v[0]) || std::isnan(v[1]))) r = std::numeric_limits<float>::quiet_NaN();
    if ((in.flags & kFtz) && std::fabs(r) < kMinNormal) r = std::copysign(0.0f, r);
    if ((in.flags & kRelu) && !(r > 0) && !std::isnan(r)) r = 0;  // negative results and -0 to +0
    if (in.flags & kSat) r = std::isnan(r) ? 0 : std::fmin(std::fmax(r, 0.0f), 1.0f);
    const std::uint16_t bits = std::isnan(r) ? std::uint16_t{0x7FFF} : static_cast<std::uint16_t>(encode(kType, r));
    out = static_cast<Bits>(out | (static_cast<Bits>(bits) << (16 * l)));
  }
  t.set<Bits>(in.ops[0], out);
}

// ---- shifts and bit operations

template <class T>
void shl(Thread& t, const Instruction& in) {
  const std::uint32_t s = t.get<std::uint32_t>(in.ops[2]);
  using U = std::make_unsigned_t<T>;
  t.set<T>(in.ops[0], s >= 8 * sizeof(T) ? T(0) : static_cast<T>(static_cast<U>(t.get<T>(in.ops[1])) << s));
}
template <class T>
void shr(Thread& t, const Instruction& in) {
  const std::uint32_t s = t.get<std::uint32_t>(in.ops[2]);
  const T a = t.get<T>(in.ops[1]);
  if constexpr (std::is_signed_v<T>)
    t.set<T>(in.ops[0], static_cast<T>(a >> (s >= 8 * sizeof(T) ? 8 * sizeof(T) - 1 : s)));
  else
    t.set<T>(in.ops[0], s >= 8 * sizeof(T) ? T(0) : static_cast<T>(a >> s));
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
template <class T>
void bfind(Thread& t, const Instruction& in) {
  using U = std::make_unsigned_t<T>;
  const T a = t.get<T>(in.ops[1]);
  U v = static_cast<U>(a);
  if constexpr (std::is_signed_v<T>)
    if (a < 0) v = static_cast<U>(~v);
  std::uint32_t r = v == 0 ? 0xFFFFFFFFu : static_cast<std::uint32_t>(8 * sizeof(U) - 1 - std::countl_zero(v));
  if (in.aux && r != 0xFFFFFFFFu) r = static_cast<std::uint32_t>(8 * sizeof(U) - 1) - r;  // .shiftamt
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
void prmt(Thread& t, const Instruction& in) {
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
    if (in.aux == 0) {
      const std::uint32_t s = (c >> (4 * i)) & 0xF;
      sel = s & 7;
      msb = s & 8;
    } else {
      sel = modes[in.aux - 1][c & 3][i];
    }
    std::uint8_t byte = static_cast<std::uint8_t>(x >> (8 * sel));
    if (msb) byte = (byte & 0x80) ? 0xFF : 0x00;
    d |= static_cast<std::uint32_t>(byte) << (8 * i);
  }
  t.set<std::uint32_t>(in.ops[0], d);
}
void lop3(Thread& t, const Instruction& in) {
  const std::uint32_t a = t.get<std::uint32_t>(in.ops[1]), b = t.get<std::uint32_t>(in.ops[2]),
                      c = t.get<std::uint32_t>(in.ops[3]), lut = t.get<std::uint32_t>(in.ops[4]);
  std::uint32_t d = 0;
  for (int i = 0; i < 32; ++i) {
    const unsigned idx = ((a >> i) & 1u) << 2 | ((b >> i) & 1u) << 1 | ((c >> i) & 1u);
    d |= ((lut >> idx) & 1u) << i;
  }
  t.set<std::uint32_t>(in.ops[0], d);
}
// shf.{l,r}.{wrap,clamp}.b32 d, a, b, c: the funnel of b:a shifted by c.
void shf(Thread& t, const Instruction& in) {
  const std::uint64_t x = t.get<std::uint32_t>(in.ops[1]) | (std::uint64_t{t.get<std::uint32_t>(in.ops[2])} << 32);
  std::uint32_t n = t.get<std::uint32_t>(in.ops[3]);
  n = (in.flags & kSat) ? std::min(n, 32u) : n & 31u;  // kSat marks .clamp
  const bool left = in.aux != 0;
  t.set<std::uint32_t>(in.ops[0], left ? static_cast<std::uint32_t>((x << n) >> 32) : static_cast<std::uint32_t>(x >> n));
}

// ---- comparisons and selection

enum class Cmp : std::int32_t { eq, ne, lt, le, gt, ge, equ, neu, ltu, leu, gtu, geu, num, nan };

template <class T>
bool compare(Cmp c, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool unordered = std::isnan(a) || std::isnan(b);
    switch (c) {
      case Cmp::eq: return !unordered && a == b;
      case Cmp::ne: return !unordered && a != b;
      case Cmp::lt: return !unordered && a < b;
      case Cmp::le: return !unordered && a <= b;
      case Cmp::gt: return !unordered && a > b;
      case Cmp::ge: return !unordered && a >= b;
      case Cmp::equ: return unordered || a == b;
      case Cmp::neu: return unordered || a != b;
      case Cmp::ltu: return unordered || a < b;
      case Cmp::leu: return unordered || a <= b;
      case Cmp::gtu: return unordered || a > b;
      case Cmp::geu: return unordered || a >= b;
      case Cmp::num: return !unordered;
      case Cmp::nan: return unordered;
    }
    return false;
  } else {
    switch (c) {
      case Cmp::eq: return a == b;
      case Cmp::ne: return a != b;
      case Cmp::lt: return a < b;
      case Cmp::le: return a <= b;
      case Cmp::gt: return a > b;
      case Cmp::ge: return a >= b;
      default: return false;
    }
  }
}

// setp.cmp[.bool].type p[|q], a, b[, {!}c]; aux: Cmp, aux2: 0 none, 1 and, 2 or, 3 xor
template <class T>
void setp(Thread& t, const Instruction& in) {
  const std::uint32_t second = (in.flags & kSecondDestination) ? 1u : 0u;  // p|q: the sources move by one
  const bool r = compare(static_cast<Cmp>(in.aux), flush(t.get<T>(in.ops[1 + second]), in.flags),
                         flush(t.get<T>(in.ops[2 + second]), in.flags));
  auto combine = [&](bool x) {
    if (in.aux2 == 0) return x;
    const bool c = t.pred(in.ops.back());
    return in.aux2 == 1 ? (x && c) : in.aux2 == 2 ? (x || c) : (x != c);
  };
  t.set<bool>(in.ops[0], combine(r));
  if (second) t.set<bool>(in.ops[1], combine(!r));  // p|q: q gets the complement
}
template <class T>
void setp_half(Thread& t, const Instruction& in) {
  const float a = T{t.get<std::uint16_t>(in.ops[1])}.value(), b = T{t.get<std::uint16_t>(in.ops[2])}.value();
  t.set<bool>(in.ops[0], compare(static_cast<Cmp>(in.aux), a, b));
}

template <class T>
void selp(Thread& t, const Instruction& in) {
  t.set<T>(in.ops[0], t.pred(in.ops[3]) ? t.get<T>(in.ops[1]) : t.get<T>(in.ops[2]));
}

// ---- mov

template <class T>
void mov(Thread& t, const Instruction& in) {
  t.set<T>(in.ops[0], t.get<T>(in.ops[1]));
}
// mov.bN d, {a, b, ...}: the elements packed low first; mov.bN {a, b, ...}, d: unpacked.
void mov_pack(Thread& t, const Instruction& in) {
  const Operand& v = in.ops[1];
  const int width = 8 * in.aux / static_cast<int>(v.count);
  std::uint64_t d = 0;
  for (std::uint32_t i = 0; i < v.count; ++i) {
    const std::uint64_t e = t.get<std::uint64_t>(in.elements[v.first + i]);
    d |= (width == 64 ? e : e & ((1ull << width) - 1)) << (width * i);
  }
  t.set<std::uint64_t>(in.ops[0], in.aux == 8 ? d : d & ((1ull << (8 * in.aux)) - 1));
}
// mov.b128: two slots, low 64 bits first; packed from or unpacked to two .b64.
void mov128(Thread& t, const Instruction& in) {
  const Operand &d = in.ops[0], &a = in.ops[1];
  std::uint64_t lo, hi;
  if (a.kind == Operand::Kind::vector) {
    lo = t.get<std::uint64_t>(in.elements[a.first]);
    hi = t.get<std::uint64_t>(in.elements[a.first + 1]);
  } else {
    lo = t.slot(a.slot);
    hi = t.slot(a.slot + 1);
  }
  if (d.kind == Operand::Kind::vector) {
    t.set<std::uint64_t>(in.elements[d.first], lo);
    t.set<std::uint64_t>(in.elements[d.first + 1], hi);
  } else {
    t.slot(d.slot) = lo;
    t.slot(d.slot + 1) = hi;
  }
}

void mov_unpack(Thread& t, const Instruction& in) {
  const Operand& v = in.ops[0];
  const int width = 8 * in.aux / static_cast<int>(v.count);
  const std::uint64_t s = t.get<std::uint64_t>(in.ops[1]);
  for (std::uint32_t i = 0; i < v.count; ++i)
    t.set<std::uint64_t>(in.elements[v.first + i], width == 64 ? s : (s >> (width * i)) & ((1ull << width) - 1));
}

// ---- cvt

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

double round_integral(double x, std::uint32_t flags) {
  if (flags & kRz) return std::trunc(x);
  if (flags & kRm) return std::floor(x);
  if (flags & kRp) return std::ceil(x);
  return std::nearbyint(x);  // ties to even under the default mode
}

// x rounded to a 16-bit format E with flags' mode: to nearest even through
// float rounded to odd; directed modes through float rounded the same way,
// then the nearest-even encoding stepped by one when it lies on the wrong side.
// A NaN gives `nan`: 0x7FFF, or a signed 0x7E00 for f16 from f64 (an H200's results).
std::uint16_t to_half(ElementType e, double x, std::uint32_t flags, std::uint16_t nan = 0x7FFF) {
  if (std::isnan(x)) return nan;
  if (!(flags & (kRz | kRm | kRp))) return static_cast<std::uint16_t>(encode(e, round_to_odd<float>([&] { return static_cast<float>(x); })));
  const float f = rounded(flags, [&] { return static_cast<float>(x); });
  std::uint16_t bits = static_cast<std::uint16_t>(encode(e, f));
  const float got = decode(e, bits);
  const bool above = got > f, below = got < f;
  const bool up = (flags & kRp) ? below : false, down = (flags & kRm) ? above : false;
  const bool toward_zero = (flags & kRz) && std::fabs(got) > std::fabs(f);
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

void write_value(Thread& t, const Operand& o, Type ty, Value v, std::uint32_t flags, Type source) {
  const Kind k = kind(ty);
  if (k == Kind::sint || k == Kind::uint) {
    const int bits = 8 * size_of(ty);
    const bool sign = k == Kind::sint;
    const Int128 lo = sign ? -(Int128(1) << (bits - 1)) : 0;
    const Int128 hi = sign ? (Int128(1) << (bits - 1)) - 1 : (Int128(1) << bits) - 1;
    Int128 r;
    if (v.is_int) {
      r = v.i;
      if (flags & kSat) r = r < lo ? lo : r > hi ? hi : r;
    } else if (std::isnan(v.f)) {
      r = nan_to_int(bits, source);
    } else {  // float → integer saturates (PTX #data-movement-and-conversion-instructions-cvt)
      const double x = round_integral(v.f, (flags & kRi) ? flags : flags | kRz);  // no .rXi: toward zero
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
    return rounded(flags, [&] {
      return negative_int ? static_cast<F>(static_cast<std::int64_t>(v.i)) : static_cast<F>(static_cast<std::uint64_t>(v.i));
    });
  };
  double x = from_int ? int_to.template operator()<double>() : v.f;
  if (flags & kRi) x = round_integral(x, flags);
  if ((flags & kRelu) && !(x > 0) && !std::isnan(x)) x = 0;  // negative values and -0 to +0
  if (flags & kSat) x = std::isnan(x) ? 0 : std::fmin(std::fmax(x, 0.0), 1.0);
  switch (k) {
    case Kind::f32: {
      if (source == Type::f64 && std::isnan(x)) {  // a quiet NaN with the sign (an H200's result)
        t.set<std::uint32_t>(o, std::signbit(x) ? 0xFFC00000u : 0x7FC00000u);
        return;
      }
      const float f = from_int && !(flags & kRi) ? int_to.template operator()<float>()
                                                : rounded(flags & kRi ? 0 : flags, [&] { return static_cast<float>(x); });
      t.set<float>(o, finish(f, flags & kFtz));  // flushed when .ftz; a NaN the canonical 0x7FFFFFFF
      return;
    }
    case Kind::f64: t.set<double>(o, x); return;
    case Kind::f16:
      t.set<std::uint16_t>(o, to_half(ElementType::fp16, x, flags,
                                      source != Type::f64 ? 0x7FFF : std::signbit(x) ? 0xFE00 : 0x7E00));
      return;
    case Kind::bf16: t.set<std::uint16_t>(o, to_half(ElementType::bf16, x, flags)); return;

    default: return;
  }
}

void cvt(Thread& t, const Instruction& in) {
  // cvt.{rn,rna}.tf32.f32: the top 19 bits, rounded to nearest, ties even (.rn) or away (.rna, the
  // bit operation (u + 2^12) & ~(2^13 - 1)). A NaN: .rna truncates it, .rn gives 0x7FFFE000 (an H200's results).
  if (in.type == Type::tf32 && in.type2 == Type::f32) {
    const std::uint32_t u = t.get<std::uint32_t>(in.ops[1]);
    const float f = std::bit_cast<float>(u);
    t.set<std::uint32_t>(in.ops[0], (in.flags & kRna) ? (std::isnan(f) ? u : u + 0x1000u) & ~0x1FFFu
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
  if ((in.flags & kFtz) && in.type2 == Type::f32 && !v.is_int) v.f = flush(static_cast<float>(v.f), in.flags);
  write_value(t, in.ops[0], in.type, v, in.flags, in.type2);
}

// .relu: negative values and -0 to +0; NaN stays.
float relu(float x, std::uint32_t flags) { return (flags & kRelu) && !(x > 0) && !std::isnan(x) ? 0.0f : x; }

// cvt.rn.{bf16x2,f16x2}.f32 d, a, b: a to the upper half, b to the lower.
template <ElementType E>
void cvt_pack_f32(Thread& t, const Instruction& in) {
  auto one = [&](const Operand& o) { return std::uint32_t{to_half(E, relu(t.get<float>(o), in.flags), in.flags)}; };
  t.set<std::uint32_t>(in.ops[0], one(in.ops[1]) << 16 | one(in.ops[2]));
}
// cvt.rn.satfinite.{e4m3x2,e5m2x2}.{f32, f16x2}: d, a, b (a to the upper byte) or d, a
// (a's upper half to the upper byte). A NaN gives 0x7F, of either sign (an H200's result).
template <ElementType E, bool FromHalves>
void cvt_pack_fp8(Thread& t, const Instruction& in) {
  auto one = [&](float x) {
    x = relu(x, in.flags);
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
std::uint32_t to_ue8m0(float x, std::uint32_t flags) {
  if (std::isnan(x) || std::isinf(x)) return 0xFFu;
  const std::uint32_t u = std::bit_cast<std::uint32_t>(x), exponent = (u >> 23) & 0xFFu, mantissa = u & 0x7FFFFFu;
  const bool up = (flags & kRp) && mantissa > 0 && !(exponent == 0 && mantissa <= 0x400000u);
  if (up && exponent == 0xFEu) return (flags & kSatFinite) ? 0xFEu : 0xFFu;
  return up ? exponent + 1 : exponent;
}
void cvt_pack_ue8m0(Thread& t, const Instruction& in) {
  float hi, lo;
  if (in.type2 == Type::bf16x2) {
    const std::uint32_t a = t.get<std::uint32_t>(in.ops[1]);
    hi = std::bit_cast<float>(a & 0xFFFF0000u);
    lo = std::bit_cast<float>(a << 16);
  } else {
    hi = t.get<float>(in.ops[1]);
    lo = t.get<float>(in.ops[2]);
  }
  t.set<std::uint16_t>(in.ops[0], static_cast<std::uint16_t>(to_ue8m0(hi, in.flags) << 8 | to_ue8m0(lo, in.flags)));
}

// cvt.rn.satfinite{.relu}.{e2m1x2, e2m3x2, e3m2x2}.f32 d, a, b: a to the upper
// nibble of a .b8 d (e2m1x2) or the upper byte of a .b16 d (6-bit values in
// 8-bit containers). These formats have no NaN or infinity: satfinite
// clamps, and a NaN takes core's encode() (UNCONFIRMED on silicon).
template <ElementType E>
void cvt_pack_narrow(Thread& t, const Instruction& in) {
  const auto one = [&](const Operand& o) { return encode(E, relu(t.get<float>(o), in.flags)); };
  const std::uint32_t hi = one(in.ops[1]), lo = one(in.ops[2]);
  if constexpr (bits(E) == 4) t.set<std::uint8_t>(in.ops[0], static_cast<std::uint8_t>(hi << 4 | lo));
  else t.set<std::uint16_t>(in.ops[0], static_cast<std::uint16_t>(hi << 8 | lo));
}
// cvt.rn{.relu}.f16x2.{e2m1x2, e2m3x2, e3m2x2} d, a: the upper value of a to the upper half.
template <ElementType E>
void cvt_unpack_narrow(Thread& t, const Instruction& in) {
  constexpr int width = bits(E) == 4 ? 4 : 8;
  const std::uint32_t a = t.get<std::uint16_t>(in.ops[1]), mask = (1u << bits(E)) - 1;
  const auto widen = [&](std::uint32_t code) { return encode(ElementType::fp16, relu(decode(E, code & mask), in.flags)); };
  t.set<std::uint32_t>(in.ops[0], widen(a >> width) << 16 | widen(a));
}

// ---- cvta: between a space's address and its window in the generic space

void cvta(Thread& t, const Instruction& in) {
  const std::uint64_t a = t.get<std::uint64_t>(in.ops[1]);
  const bool to = in.aux != 0;
  std::uint64_t r = a;
  switch (in.space) {
    case Space::shared: r = to ? a - kSharedWindow : kSharedWindow + (a & 0xFFFFFFFFu); break;
    case Space::local: r = to ? a - kLocalWindow : kLocalWindow + (a & 0xFFFFFFFFu); break;
    case Space::param: {
      const auto base = reinterpret_cast<std::uint64_t>(t.grid().params.data());
      r = to ? a - base : base + a;
      break;
    }
    default: break;  // global addresses are generic addresses
  }
  if (in.type == Type::u32 || in.type == Type::b32) r &= 0xFFFFFFFFu;
  t.set<std::uint64_t>(in.ops[0], r);
}

// isspacep.space p, a
void isspacep(Thread& t, const Instruction& in) {
  const std::uint64_t a = t.get<std::uint64_t>(in.ops[1]);
  bool r = false;
  switch (in.space) {
    case Space::shared: r = in_shared_window(a); break;
    case Space::local: r = in_local_window(a); break;
    case Space::global: r = !in_shared_window(a) && !in_local_window(a); break;
    default: break;
  }
  t.set<bool>(in.ops[0], r);
}

Cmp parse_cmp(std::string_view s) {
  if (s == "eq") return Cmp::eq;
  if (s == "ne") return Cmp::ne;
  if (s == "lt" || s == "lo") return Cmp::lt;
  if (s == "le" || s == "ls") return Cmp::le;
  if (s == "gt" || s == "hi") return Cmp::gt;
  if (s == "ge" || s == "hs") return Cmp::ge;
  if (s == "equ") return Cmp::equ;
  if (s == "neu") return Cmp::neu;
  if (s == "ltu") return Cmp::ltu;
  if (s == "leu") return Cmp::leu;
  if (s == "gtu") return Cmp::gtu;
  if (s == "geu") return Cmp::geu;
  if (s == "num") return Cmp::num;
  if (s == "nan") return Cmp::nan;
  return static_cast<Cmp>(-1);
}

template <class Op>
Handler arith_binary(Type type) {
  return by_any(type, []<class T>() -> Handler {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, F16> || std::is_same_v<T, BF16>) return nullptr;
    else return &binary<T, Op>;
  });
}
template <class Op>
Handler int_binary(Type type) {
  return by_int(type, []<class T>() -> Handler { return &binary<T, Op>; });
}
template <class Op>
Handler float_unary(Type type) {
  return by_float(type, []<class T>() -> Handler { return &unary<T, Op>; });
}
template <class Op>
Handler any_unary(Type type) {
  return by_any(type, []<class T>() -> Handler {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, F16> || std::is_same_v<T, BF16>) return nullptr;
    else return &unary<T, Op>;
  });
}

// The f16/bf16 forms: aux is the operation (half_op).
Handler half_handler(Type type) {
  switch (type) {
    case Type::f16: return &half_op<F16, 1>;
    case Type::f16x2: return &half_op<F16, 2>;
    case Type::bf16: return &half_op<BF16, 1>;
    case Type::bf16x2: return &half_op<BF16, 2>;
    default: return nullptr;
  }
}
bool is_half(Type t) { return t == Type::f16 || t == Type::f16x2 || t == Type::bf16 || t == Type::bf16x2; }

}  // namespace

namespace {

// The rows' common end: flags from the opcode's rounding and clamping modifiers,
// and the handler, or `why` naming the type when none fits.
bool typed(const Opcode& op, Instruction& in, std::string& why, Handler h) {
  in.flags |= rounding_flags(op);
  if (!h) {
    why = "type ." + std::string(name(in.type)) + " for " + std::string(op.base());
    return false;
  }
  in.run = h;
  return true;
}

// The operations the f16/bf16 forms (half_op) and the f32x2 forms (f32x2) run, as their aux.
enum HalfOp : std::int32_t { kHalfAdd, kHalfSub, kHalfMul, kHalfFma, kHalfMin, kHalfMax, kHalfNeg, kHalfAbs, kHalfEx2, kHalfTanh };

// The packed and 16-bit float forms of an arithmetic row, or nullptr for the others.
Handler packed(Instruction& in, HalfOp code) {
  if (in.type == Type::f32x2 && code <= kHalfFma) {
    in.aux = code;
    return code == kHalfFma ? &f32x2<3> : &f32x2<2>;
  }
  if (!is_half(in.type)) return nullptr;
  in.aux = code;
  return half_handler(in.type);
}

template <class Op, HalfOp Code>
bool decode_arith_binary(const Opcode& op, Instruction& in, std::string& why) {
  if (Handler h = packed(in, Code)) return typed(op, in, why, h);
  return typed(op, in, why, arith_binary<Op>(in.type));
}

template <class Op, HalfOp Code>
bool decode_any_unary(const Opcode& op, Instruction& in, std::string& why) {
  if (Handler h = packed(in, Code)) return typed(op, in, why, h);
  return typed(op, in, why, any_unary<Op>(in.type));
}

// mad and fma: floats fused, integers .lo/.hi/.wide.
bool decode_multiply_add(const Opcode& op, Instruction& in, std::string& why) {
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

template <class Op>
bool decode_float_unary(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, float_unary<Op>(in.type));
}

// and/or/xor/not/cnot: predicates as booleans (cnot as not), integers bitwise.
template <class Op>
bool decode_logic(const Opcode& op, Instruction& in, std::string& why) {
  if (in.type == Type::pred) return typed(op, in, why, &logic_pred<std::conditional_t<std::is_same_v<Op, Cnot>, Not, Op>>);
  if constexpr (std::is_same_v<Op, Not> || std::is_same_v<Op, Cnot>)
    return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &unary<T, Op>; }));
  else
    return typed(op, in, why, int_binary<Op>(in.type));
}

}  // namespace

bool decode_add(const Opcode& op, Instruction& in, std::string& why) { return decode_arith_binary<Add, kHalfAdd>(op, in, why); }
bool decode_sub(const Opcode& op, Instruction& in, std::string& why) { return decode_arith_binary<Sub, kHalfSub>(op, in, why); }
bool decode_min(const Opcode& op, Instruction& in, std::string& why) { return decode_arith_binary<Min, kHalfMin>(op, in, why); }
bool decode_max(const Opcode& op, Instruction& in, std::string& why) { return decode_arith_binary<Max, kHalfMax>(op, in, why); }
bool decode_neg(const Opcode& op, Instruction& in, std::string& why) { return decode_any_unary<Neg, kHalfNeg>(op, in, why); }
bool decode_abs(const Opcode& op, Instruction& in, std::string& why) { return decode_any_unary<Abs, kHalfAbs>(op, in, why); }

bool decode_mul(const Opcode& op, Instruction& in, std::string& why) {
  if (Handler h = packed(in, kHalfMul)) return typed(op, in, why, h);
  if (op.has("wide"))
    return typed(op, in, why, by_int(in.type, []<class T>() -> Handler {
                   if constexpr (sizeof(T) >= 8) return nullptr;
                   else return &mul_wide<T>;
                 }));
  if (op.has("hi")) return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &binary<T, MulHi>; }));
  return typed(op, in, why, arith_binary<MulLo>(in.type));
}

bool decode_fma(const Opcode& op, Instruction& in, std::string& why) {
  if (Handler h = packed(in, kHalfFma)) return typed(op, in, why, h);
  return decode_multiply_add(op, in, why);
}
bool decode_mad(const Opcode& op, Instruction& in, std::string& why) { return decode_multiply_add(op, in, why); }

bool decode_div(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, op.has("approx") && in.type == Type::f32 ? &div_approx<float> : arith_binary<Div>(in.type));
}
bool decode_rem(const Opcode& op, Instruction& in, std::string& why) { return typed(op, in, why, int_binary<Rem>(in.type)); }
bool decode_copysign(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_float(in.type, []<class T>() -> Handler { return &copysign<T>; }));
}

bool decode_rcp(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Rcp>(op, in, why); }
bool decode_sqrt(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Sqrt>(op, in, why); }
bool decode_rsqrt(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Rsqrt>(op, in, why); }
bool decode_lg2(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Lg2>(op, in, why); }
bool decode_sin(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Sin>(op, in, why); }
bool decode_cos(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Cos>(op, in, why); }
bool decode_ex2(const Opcode& op, Instruction& in, std::string& why) {
  if (Handler h = packed(in, kHalfEx2)) return typed(op, in, why, h);
  return decode_float_unary<Ex2>(op, in, why);
}
bool decode_tanh(const Opcode& op, Instruction& in, std::string& why) {
  if (Handler h = packed(in, kHalfTanh)) return typed(op, in, why, h);
  return decode_float_unary<Tanh>(op, in, why);
}

bool decode_and(const Opcode& op, Instruction& in, std::string& why) { return decode_logic<And>(op, in, why); }
bool decode_or(const Opcode& op, Instruction& in, std::string& why) { return decode_logic<Or>(op, in, why); }
bool decode_xor(const Opcode& op, Instruction& in, std::string& why) { return decode_logic<Xor>(op, in, why); }
bool decode_not(const Opcode& op, Instruction& in, std::string& why) { return decode_logic<Not>(op, in, why); }
bool decode_cnot(const Opcode& op, Instruction& in, std::string& why) { return decode_logic<Cnot>(op, in, why); }

bool decode_shl(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &shl<T>; }));
}
bool decode_shr(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &shr<T>; }));
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
  in.aux = op.has("shiftamt");
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &bfind<T>; }));
}
bool decode_bfe(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &bfe<T>; }));
}
bool decode_bfi(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_int(in.type, []<class T>() -> Handler { return &bfi<T>; }));
}
bool decode_prmt(const Opcode& op, Instruction& in, std::string& why) {
  in.aux = op.which({"f4e", "b4e", "rc8", "ecl", "ecr", "rc16"}) + 1;  // 0: the default mode
  return typed(op, in, why, &prmt);
}
bool decode_lop3(const Opcode& op, Instruction& in, std::string& why) { return typed(op, in, why, &lop3); }
bool decode_shf(const Opcode& op, Instruction& in, std::string& why) {
  in.aux = op.has("l");
  if (op.has("clamp")) in.flags |= kSat;
  return typed(op, in, why, &shf);
}

bool decode_setp(const Opcode& op, Instruction& in, std::string& why) {
  const Type ty = in.type;
  const Cmp c = parse_cmp(op.parts.size() > 1 ? op.parts[1] : "");
  if (static_cast<int>(c) < 0) {
    why = "comparison " + std::string(op.parts[1]);
    return false;
  }
  in.aux = static_cast<std::int32_t>(c);
  in.aux2 = op.has("and") ? 1 : op.has("or") ? 2 : op.has("xor") ? 3 : 0;
  // p|q: two destinations.
  const std::size_t sources = 2 + (in.aux2 ? 1 : 0);
  if (in.ops.size() > 1 + sources) in.flags |= kSecondDestination;
  if (ty == Type::f16x2 || ty == Type::bf16x2 || ((ty == Type::f16 || ty == Type::bf16) && (in.aux2 || in.ops.size() > 3))) {
    why = "setp on .f16x2/.bf16x2, or on .f16/.bf16 with a second destination or .and/.or/.xor";
    return false;
  }
  if (ty == Type::f16 || ty == Type::bf16) return typed(op, in, why, ty == Type::f16 ? &setp_half<F16> : &setp_half<BF16>);
  return typed(op, in, why, by_any(ty, []<class T>() -> Handler {
                 if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, F16> || std::is_same_v<T, BF16>) return nullptr;
                 else return &setp<T>;
               }));
}
bool decode_selp(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_any(in.type, []<class T>() -> Handler { return &selp<T>; }));
}

bool decode_mov(const Opcode& op, Instruction& in, std::string& why) {
  const Type ty = in.type;
  const bool regs128 = in.ops.size() == 2 && (in.ops[0].kind == Operand::Kind::reg || in.ops[0].count == 2) &&
                       (in.ops[1].kind == Operand::Kind::reg || in.ops[1].count == 2);
  const Operand& vec = in.ops[in.ops[1].kind == Operand::Kind::vector ? 1 : 0];
  const bool packs = vec.kind == Operand::Kind::vector && (vec.count == 0 || (8 * size_of(ty)) % vec.count != 0 ||
                                                            8 * size_of(ty) / static_cast<int>(std::max(vec.count, 1u)) > 64);
  if (ty == Type::b128 && regs128) return typed(op, in, why, &mov128);
  if (packs) {
    why = "a mov vector whose elements split the type evenly into parts of at most 64 bits";
    return false;
  }
  if (in.ops.size() == 2 && in.ops[1].kind == Operand::Kind::vector) {
    in.aux = size_of(ty);
    return typed(op, in, why, &mov_pack);
  }
  if (in.ops.size() == 2 && in.ops[0].kind == Operand::Kind::vector) {
    in.aux = size_of(ty);
    return typed(op, in, why, &mov_unpack);
  }
  return typed(op, in, why, by_any(ty, []<class T>() -> Handler { return &mov<T>; }));
}

bool decode_cvt(const Opcode& op, Instruction& in, std::string& why) {
  const std::vector<Type> ts = op.types();
  if (ts.size() != 2) {
    why = "cvt with two types";
    return false;
  }
  in.type = ts[0];
  in.type2 = ts[1];
  const std::uint32_t flags = rounding_flags(op);
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
    if (!(flags & (kRz | kRp))) {
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

bool decode_cvta(const Opcode& op, Instruction& in, std::string& why) {
  in.aux = op.has("to");
  return typed(op, in, why, &cvta);
}
bool decode_isspacep(const Opcode& op, Instruction& in, std::string& why) { return typed(op, in, why, &isspacep); }

}  // namespace tcgen::ptx
