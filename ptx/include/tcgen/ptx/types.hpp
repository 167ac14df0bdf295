#pragma once
// PTX's fundamental types and state spaces, as the interpreter names them
// (PTX #fundamental-types, #state-spaces).
#include <cstdint>
#include <optional>
#include <string_view>

namespace tcgen::ptx {

enum class Type : std::uint8_t {
  none, pred,
  b8, b16, b32, b64, b128,
  u8, u16, u32, u64,
  s8, s16, s32, s64,
  f16, f16x2, bf16, bf16x2, tf32, f32, f64, f32x2,
  e4m3x2, e5m2x2, e2m1x2, e2m3x2, e3m2x2, ue8m0x2,
  u16x2, s16x2,                              // two 16-bit integer lanes (add, sub, min, max)
  e4m3x4, e5m2x4, e2m1x4, e2m3x4, e3m2x4,    // cvt.rs's four-value destinations
};

enum class Space : std::uint8_t { generic, global, shared, local, param, const_ };

// ".u32" without the dot → Type::u32; nullopt for a suffix that is no type.
std::optional<Type> parse_type(std::string_view suffix);
std::string_view name(Type t);
std::string_view name(Space s);
// Bytes of one value (pred: 1; b128: 16).
int size_of(Type t);
constexpr bool is_float(Type t) {
  return t == Type::f16 || t == Type::f16x2 || t == Type::bf16 || t == Type::bf16x2 || t == Type::f32 ||
         t == Type::f64 || t == Type::f32x2;
}
constexpr bool is_signed(Type t) { return t == Type::s8 || t == Type::s16 || t == Type::s32 || t == Type::s64; }

}  // namespace tcgen::ptx
