#pragma once
// The epilogue's element conversions between the f32 accumulator and D / C
// storage: f32 as itself, bf16 and fp16 as 16-bit patterns, rounded to
// nearest even. On sm_100a one cvt converts two values
// (PTX #data-movement-and-conversion-instructions-cvt: for .bf16x2 / .f16x2
// "the value converted from input a is stored in the upper half of d and
// the value converted from input b is stored in the lower half"); on the
// host tcgen::encode / decode round the same way, so both give the same bits.
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tcgen/core/element_type.hpp"
#include "tcgen/core/host_device.hpp"

namespace tcgen::tile {

// An f32 accumulator cell as tcgen05.ld leaves it in a register: its bits.
TCGEN_HD inline float f32(std::uint32_t bits) { return std::bit_cast<float>(bits); }

// Storage of one D element: float for f32, its 16-bit pattern otherwise.
template <ElementType D>
using Storage = std::conditional_t<D == ElementType::f32, float, std::uint16_t>;

// Two values as one 32-bit word of two 16-bit D values, lo in bits 0-15.
template <ElementType D>
TCGEN_HD inline std::uint32_t pack2(float lo, float hi) {
  static_assert(D == ElementType::bf16 || D == ElementType::fp16, "pack2 packs 16-bit types");
#if defined(__CUDA_ARCH__)
  std::uint32_t out;
  if constexpr (D == ElementType::bf16)
    asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(out) : "f"(hi), "f"(lo));
  else
    asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(out) : "f"(hi), "f"(lo));
  return out;
#else
  return encode(D, lo) | (encode(D, hi) << 16);
#endif
}

// One stored value of type D as f32 (exact).
template <ElementType D>
TCGEN_HD inline float to_f32(Storage<D> v) {
  if constexpr (D == ElementType::f32) {
    return v;
  } else {
#if defined(__CUDA_ARCH__)
    if constexpr (D == ElementType::bf16) {
      return __uint_as_float(static_cast<std::uint32_t>(v) << 16);  // bf16 is the top half of an f32
    } else {
      float f;
      asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(v));
      return f;
    }
#else
    return decode(D, v);
#endif
  }
}

// One f32 as a stored value of type D.
template <ElementType D>
TCGEN_HD inline Storage<D> from_f32(float x) {
  if constexpr (D == ElementType::f32)
    return x;
  else
    return static_cast<std::uint16_t>(pack2<D>(x, 0.0f) & 0xFFFFu);
}

// Two e4m3 values, the low byte first, as f32 (exact). On sm_100a one cvt
// (PTX #data-movement-and-conversion-instructions-cvt: .f16x2.e4m3x2, "the
// upper half of a" to the upper half of d; every e4m3 value is an f16 value)
// and two exact widenings; on the host tcgen::decode.
TCGEN_HD inline void e4m3x2_to_f32(std::uint16_t two, float& lo, float& hi) {
#if defined(__CUDA_ARCH__)
  std::uint32_t halves;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(halves) : "h"(two));
  asm("cvt.f32.f16 %0, %1;" : "=f"(lo) : "h"(static_cast<std::uint16_t>(halves & 0xFFFFu)));
  asm("cvt.f32.f16 %0, %1;" : "=f"(hi) : "h"(static_cast<std::uint16_t>(halves >> 16)));
#else
  lo = decode(ElementType::e4m3, two & 0xFFu);
  hi = decode(ElementType::e4m3, two >> 8);
#endif
}

// A UE8M0 scale byte's value 2^(byte − 127) as f32, exact (OCP MX: 0xFF is
// NaN): an f32 whose exponent field is the byte, 2^-127 below the normals.
TCGEN_HD inline float ue8m0_to_f32(std::uint8_t byte) {
  const std::uint32_t bits = byte == 0xFFu ? 0x7FC00000u : byte == 0 ? 0x00400000u : std::uint32_t{byte} << 23;
#if defined(__CUDA_ARCH__)
  return __uint_as_float(bits);
#else
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
#endif
}

}  // namespace tcgen::tile
