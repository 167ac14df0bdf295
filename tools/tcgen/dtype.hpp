#pragma once
// The operand options the verbs share: element names accepted by --dtype and
// how each sits in shared memory (dense, 128/bits per 16 bytes, or the padded
// f8f6f4 formats, 16 values per 16 bytes; PTX #tcgen05-packing-formats), and
// the spellings of majors and swizzles.
#include <span>
#include <string_view>

#include "tcgen/core/element_type.hpp"
#include "tcgen/layout/smem_operand.hpp"

namespace tcgen::cli {

struct Dtype {
  std::string_view name;
  layout::SmemElement element;
  std::string_view note;  // one line for --help and the summary
};

// The element type named `text` in any verb: its name (bf16, fp16, e4m3, ...)
// or the alias f16 for fp16, as PTX spells the type. Throws tcgen::Error
// naming `option` when it is none of `allowed`.
ElementType parse_element(std::string_view option, std::string_view text, std::span<const ElementType> allowed);

// The table, in --help order.
std::span<const Dtype> dtypes();
// Throws tcgen::Error("--dtype", text, "expected one of ...").
const Dtype& parse_dtype(std::string_view text);

// "K" or "MN"; otherwise throws tcgen::Error naming `option` (e.g. "--major").
layout::Major parse_major(std::string_view option, std::string_view text);
// none, 32B, 64B, 128B or 128B_base32B; otherwise throws naming --swizzle.
layout::SmemSwizzle parse_swizzle(std::string_view text);

}  // namespace tcgen::cli
