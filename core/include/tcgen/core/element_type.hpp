#pragma once
// Element types of tcgen05 operands and accumulators, and exact conversions
// between float and their bit patterns (round to nearest, ties to even).
// Everything but parse_element_type is constexpr and TCGEN_HD, so the same
// code rounds on the host, on the device and in constant expressions.
#include <cstdint>
#include <string_view>

#include "tcgen/core/host_device.hpp"

namespace tcgen {

enum class ElementType : std::uint8_t { bf16, fp16, tf32, f32, e4m3, e5m2, e2m3, e3m2, e2m1, s8, u8, s32 };

inline constexpr ElementType all_element_types[] = {
    ElementType::bf16, ElementType::fp16, ElementType::tf32, ElementType::f32,
    ElementType::e4m3, ElementType::e5m2, ElementType::e2m3, ElementType::e3m2,
    ElementType::e2m1, ElementType::s8,   ElementType::u8,   ElementType::s32};

// Storage bits of one value; tf32 travels in a 32-bit f32 container.
constexpr TCGEN_HD int bits(ElementType t) {
  switch (t) {
    case ElementType::bf16: case ElementType::fp16: return 16;
    case ElementType::tf32: case ElementType::f32: case ElementType::s32: return 32;
    case ElementType::e4m3: case ElementType::e5m2: case ElementType::s8: case ElementType::u8: return 8;
    case ElementType::e2m3: case ElementType::e3m2: return 6;
    case ElementType::e2m1: return 4;
  }
  return 0;
}

constexpr TCGEN_HD const char* name(ElementType t) {
  switch (t) {
    case ElementType::bf16: return "bf16";
    case ElementType::fp16: return "fp16";
    case ElementType::tf32: return "tf32";
    case ElementType::f32: return "f32";
    case ElementType::e4m3: return "e4m3";
    case ElementType::e5m2: return "e5m2";
    case ElementType::e2m3: return "e2m3";
    case ElementType::e3m2: return "e3m2";
    case ElementType::e2m1: return "e2m1";
    case ElementType::s8: return "s8";
    case ElementType::u8: return "u8";
    case ElementType::s32: return "s32";
  }
  return "?";
}

constexpr TCGEN_HD bool is_integer(ElementType t) {
  return t == ElementType::s8 || t == ElementType::u8 || t == ElementType::s32;
}

// The inverse of name(); throws Error("dtype", text, "one of bf16, fp16, ...").
ElementType parse_element_type(std::string_view text);

namespace detail {

// std::bit_cast is a host function to nvcc; the builtin behind it is not.
template <class To, class From>
constexpr TCGEN_HD To bit_cast(const From& from) { return __builtin_bit_cast(To, from); }

// A sign-magnitude binary float narrower than f32; encodings are the low
// 1 + exp_bits + man_bits bits, sign on top.
struct FloatFormat {
  int exp_bits, man_bits, bias;
  std::uint32_t max_finite;  // magnitude encoding of the largest finite value
  bool has_inf;              // max_finite + 1 encodes infinity (IEEE-style top exponent)
  bool satfinite;            // overflow and +-inf give +-max_finite, not +-inf
  std::uint32_t nan;         // magnitude encoding a NaN input converts to
  bool nan_signed;           // whether that NaN keeps the input's sign
};

constexpr TCGEN_HD FloatFormat float_format(ElementType t) {
  switch (t) {
    // IEEE-like: round to inf on overflow, canonical quiet NaN (top mantissa bit) with the input's sign.
    case ElementType::bf16: return {8, 7, 127, 0x7F7F, true, false, 0x7FC0, true};
    case ElementType::fp16: return {5, 10, 15, 0x7BFF, true, false, 0x7E00, true};
    // tf32 as a 19-bit pattern; encode() shifts it into the top of an f32.
    case ElementType::tf32: return {8, 10, 127, 0x3FBFF, true, false, 0x3FE00, true};
    // OCP FP8 E4M3FN: no inf, S.1111.111 is the only NaN, so 0x7E (448) is the max.
    case ElementType::e4m3: return {4, 3, 7, 0x7E, false, true, 0x7F, true};
    // OCP FP8 E5M2 has inf (0x7C) but cvt .satfinite never produces it; NaN as 0x7F like PTX cvt.
    case ElementType::e5m2: return {5, 2, 15, 0x7B, true, true, 0x7F, true};
    // OCP MX FP6/FP4 have no inf or NaN. Assumption: NaN -> +max. PTX cvt for
    // these types is .satfinite only, and cuda_fp6.h/cuda_fp4.h document
    // "NaN input values result in positive MAXNORM" for the same conversion.
    case ElementType::e2m3: return {2, 3, 1, 0x1F, false, true, 0x1F, false};
    case ElementType::e3m2: return {3, 2, 3, 0x1F, false, true, 0x1F, false};
    case ElementType::e2m1: return {2, 1, 1, 0x7, false, true, 0x7, false};
    default: return {8, 7, 127, 0x7F7F, true, false, 0x7FC0, true};  // not a narrow float
  }
}

// float -> format, round to nearest, ties to even (also into subnormals).
constexpr TCGEN_HD std::uint32_t encode(const FloatFormat& f, float x) {
  const std::uint32_t u = bit_cast<std::uint32_t>(x), a = u & 0x7FFFFFFFu;
  const std::uint32_t sign = (u >> 31) << (f.exp_bits + f.man_bits);
  const std::uint32_t overflow = f.satfinite ? f.max_finite : f.max_finite + 1;  // +-max or +-inf
  if (a > 0x7F800000u) return (f.nan_signed ? sign : 0u) | f.nan;
  if (a == 0x7F800000u) return sign | overflow;
  // |x| = sig * 2^(e - 150) exactly; f32 subnormals have exponent 1 and no implicit bit.
  const int e = (a >> 23) ? int(a >> 23) : 1;
  const std::uint32_t sig = (a & 0x7FFFFFu) | ((a >> 23) ? 0x800000u : 0u);
  // Below the target's smallest normal exponent all values share one quantum (subnormals).
  const int emin = 1 - f.bias, te = e - 127 > emin ? e - 127 : emin;
  // The target quantum is 2^(te - man_bits): drop that many low bits of sig.
  int shift = te - f.man_bits - (e - 150);
  if (shift > 31) shift = 31;  // sig < 2^24, so shifts past 25 all round to 0 alike
  std::uint32_t q = sig >> shift;
  if (shift > 0) {
    const std::uint32_t rem = sig & ((1u << shift) - 1), half = 1u << (shift - 1);
    q += (rem > half || (rem == half && (q & 1u))) ? 1u : 0u;  // ties go to the even pattern
  }
  // Exponent field times 2^man_bits plus q: q's implicit bit (or a rounding carry) bumps the exponent.
  const std::uint32_t mag = (std::uint32_t(te - emin) << f.man_bits) + q;
  return sign | (mag > f.max_finite ? overflow : mag);
}

// format -> float; exact (every narrow value is an f32), NaNs become the quiet f32 NaN.
constexpr TCGEN_HD float decode(const FloatFormat& f, std::uint32_t enc) {
  const int w = f.exp_bits + f.man_bits;
  const std::uint32_t sign = ((enc >> w) & 1u) << 31, mag = enc & ((1u << w) - 1);
  if (mag > f.max_finite)  // past the finite range: inf where the format has one, else NaN
    return bit_cast<float>(sign | ((f.has_inf && mag == f.max_finite + 1) ? 0x7F800000u : 0x7FC00000u));
  const std::uint32_t field = mag >> f.man_bits, frac = mag & ((1u << f.man_bits) - 1);
  // |value| = s * 2^k; normals add the implicit bit, subnormals use exponent field 1.
  std::uint32_t s = field ? (frac | (1u << f.man_bits)) : frac;
  int k = (field ? int(field) : 1) - f.bias - f.man_bits;
  if (s == 0) return bit_cast<float>(sign);
  while (s < 0x800000u) { s <<= 1; --k; }  // normalise to f32's 24-bit significand
  const int fe = k + 150;  // f32 biased exponent of s * 2^k
  // Built from bits, not by multiplying, so flush-to-zero modes cannot touch it;
  // fe <= 0 happens only for bf16 subnormals, which are exactly f32 subnormals.
  return bit_cast<float>(sign | (fe > 0 ? (std::uint32_t(fe) << 23) | (s & 0x7FFFFFu) : s >> (1 - fe)));
}

// Nearest integer, ties to even, clamped to [lo, hi]; NaN -> 0 (as PTX cvt.rni.sat).
constexpr TCGEN_HD std::int64_t round_to_int(float x, std::int64_t lo, std::int64_t hi) {
  if (x != x) return 0;
  if (x <= float(lo)) return lo;  // float(lo), float(hi) are exact or round outward (2^31)
  if (x >= float(hi)) return hi;
  const std::int64_t t = static_cast<std::int64_t>(x);  // truncation toward zero
  const float r = x - float(t);                          // exact: same sign, |t| <= |x|
  if (r > 0.5f || (r == 0.5f && (t & 1))) return t + 1;
  if (r < -0.5f || (r == -0.5f && (t & 1))) return t - 1;
  return t;
}

}  // namespace detail

// float -> bit pattern of type t, in the low bits(t) bits.
// f32 is the identity; integers round to nearest even and saturate.
constexpr TCGEN_HD std::uint32_t encode(ElementType t, float x) {
  switch (t) {
    case ElementType::f32: return detail::bit_cast<std::uint32_t>(x);
    case ElementType::tf32: return detail::encode(detail::float_format(t), x) << 13;  // low 13 bits zero
    case ElementType::s8: return std::uint32_t(detail::round_to_int(x, -128, 127)) & 0xFFu;
    case ElementType::u8: return std::uint32_t(detail::round_to_int(x, 0, 255));
    case ElementType::s32: return std::uint32_t(detail::round_to_int(x, INT32_MIN, INT32_MAX));
    default: return detail::encode(detail::float_format(t), x);
  }
}

// Bit pattern of type t -> float. Bits above bits(t) are ignored; for tf32
// the low 13 bits are ignored too (assumed: the MMA reads only the top 19).
// Exact for every type except s32 beyond 2^24, which rounds to nearest even.
constexpr TCGEN_HD float decode(ElementType t, std::uint32_t b) {
  switch (t) {
    case ElementType::f32: return detail::bit_cast<float>(b);
    case ElementType::tf32: return detail::decode(detail::float_format(t), b >> 13);
    case ElementType::s8: return float(std::int8_t(b & 0xFFu));
    case ElementType::u8: return float(b & 0xFFu);
    case ElementType::s32: return float(std::int32_t(b));
    default: return detail::decode(detail::float_format(t), b);
  }
}

// x rounded to the nearest value of type t (encode, then decode).
constexpr TCGEN_HD float round_to(ElementType t, float x) { return decode(t, encode(t, x)); }

}  // namespace tcgen
