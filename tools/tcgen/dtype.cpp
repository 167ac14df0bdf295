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

const Dtype& parse_dtype(std::string_view text) {
  std::string all;
  for (const Dtype& d : kTable) {
    if (d.name == text) return d;
    all += (all.empty() ? "" : ", ") + std::string(d.name);
  }
  fail("--dtype", std::string(text), "expected one of " + all);
}

}  // namespace tcgen::cli
