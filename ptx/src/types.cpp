#include "tcgen/ptx/types.hpp"

#include <array>
#include <utility>

namespace tcgen::ptx {

namespace {

struct TypeRow {
  Type type;
  std::string_view name;
  int bytes;
};
constexpr std::array<TypeRow, 36> kTypes{{
    {Type::pred, "pred", 1},    {Type::b8, "b8", 1},       {Type::b16, "b16", 2},     {Type::b32, "b32", 4},
    {Type::b64, "b64", 8},      {Type::b128, "b128", 16},  {Type::u8, "u8", 1},       {Type::u16, "u16", 2},
    {Type::u32, "u32", 4},      {Type::u64, "u64", 8},     {Type::s8, "s8", 1},       {Type::s16, "s16", 2},
    {Type::s32, "s32", 4},      {Type::s64, "s64", 8},     {Type::f16, "f16", 2},     {Type::f16x2, "f16x2", 4},
    {Type::bf16, "bf16", 2},    {Type::bf16x2, "bf16x2", 4}, {Type::tf32, "tf32", 4}, {Type::f32, "f32", 4},
    {Type::f64, "f64", 8},
    {Type::f32x2, "f32x2", 8},  {Type::e4m3x2, "e4m3x2", 2}, {Type::e5m2x2, "e5m2x2", 2},
    {Type::e2m1x2, "e2m1x2", 1}, {Type::e2m3x2, "e2m3x2", 2}, {Type::e3m2x2, "e3m2x2", 2}, {Type::ue8m0x2, "ue8m0x2", 2},
    {Type::u16x2, "u16x2", 4},  {Type::s16x2, "s16x2", 4},  {Type::e4m3x4, "e4m3x4", 4}, {Type::e5m2x4, "e5m2x4", 4},
    {Type::e2m1x4, "e2m1x4", 2}, {Type::e2m3x4, "e2m3x4", 4}, {Type::e3m2x4, "e3m2x4", 4},
    {Type::none, "", 0},
}};

}  // namespace

std::optional<Type> parse_type(std::string_view suffix) {
  for (const TypeRow& r : kTypes)
    if (r.type != Type::none && r.name == suffix) return r.type;
  return std::nullopt;
}

std::string_view name(Type t) {
  for (const TypeRow& r : kTypes)
    if (r.type == t) return r.name;
  return "";
}

int size_of(Type t) {
  for (const TypeRow& r : kTypes)
    if (r.type == t) return r.bytes;
  return 0;
}

std::string_view name(Space s) {
  switch (s) {
    case Space::generic: return "generic";
    case Space::global: return "global";
    case Space::shared: return "shared";
    case Space::local: return "local";
    case Space::param: return "param";
    case Space::const_: return "const";
  }
  return "";
}

}  // namespace tcgen::ptx
