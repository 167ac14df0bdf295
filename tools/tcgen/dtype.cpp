#include "dtype.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::cli {

namespace {
using layout::dense_element;
using layout::padded_element;

constexpr Dtype kTable[] = {
    {"bf16", dense_element(16), "16-bit, 8 per 16 B, kind::f16"},
    {"fp16", dense_element(16), "16-bit, 8 per 16 B, kind::f16"},
    {"tf32", dense_element(32), "32-bit, 4 per 16 B, kind::tf32"},
    {"e4m3", dense_element(8), "8-bit, 16 per 16 B, kind::f8f6f4"},
    {"e5m2", dense_element(8), "8-bit, 16 per 16 B, kind::f8f6f4"},
    {"s8", dense_element(8), "8-bit, 16 per 16 B, kind::i8"},
    {"u8", dense_element(8), "8-bit, 16 per 16 B, kind::i8"},
    {"e2m1", dense_element(4), "4-bit packed, 32 per 16 B, kind::mxf4"},
    {"e2m1.p64", padded_element(4), "4-bit padded, 16 values + 8 B per 16 B, kind::f8f6f4 .b4x16_p64"},
    {"e2m3", padded_element(6), "6-bit padded, 16 values + 4 B per 16 B, kind::f8f6f4 .b6x16_p32"},
    {"e3m2", padded_element(6), "6-bit padded, 16 values + 4 B per 16 B, kind::f8f6f4 .b6x16_p32"},
};
}  // namespace

std::span<const Dtype> dtypes() { return kTable; }

ElementType parse_element(std::string_view option, std::string_view text, std::span<const ElementType> allowed) {
  std::string all;
  for (ElementType t : allowed) {
    if (text == name(t) || (t == ElementType::fp16 && text == "f16")) return t;
    all += (all.empty() ? "" : ", ") + std::string(name(t));
  }
  fail(std::string(option).c_str(), std::string(text), "expected one of " + all + (all.find("fp16") != std::string::npos ? " (f16 is fp16)" : ""));
}

const Dtype& parse_dtype(std::string_view text) {
  std::string all;
  for (const Dtype& d : kTable) {
    if (d.name == text || (text == "f16" && d.name == "fp16")) return d;
    all += (all.empty() ? "" : ", ") + std::string(d.name);
  }
  fail("--dtype", std::string(text), "expected one of " + all);
}

layout::Major parse_major(std::string_view option, std::string_view text) {
  if (text == "K") return layout::Major::K;
  if (text == "MN") return layout::Major::MN;
  fail(std::string(option).c_str(), std::string(text), "expected K or MN");
}

layout::SmemSwizzle parse_swizzle(std::string_view text) {
  using layout::SmemSwizzle;
  for (SmemSwizzle z : {SmemSwizzle::none, SmemSwizzle::b32, SmemSwizzle::b64, SmemSwizzle::b128, SmemSwizzle::b128_base32b})
    if (text == layout::name(z)) return z;
  fail("--swizzle", std::string(text), "expected none, 32B, 64B, 128B or 128B_base32B");
}

}  // namespace tcgen::cli
