#pragma once
// The block-scaled operand formats of the MoE grouped GEMM: an element type,
// how many consecutive K elements share one scale factor, and the scale's
// type. MXFP8 and MXFP4 are the OCP Microscaling formats (OCP MX v1.0 §5.2,
// Table 1: k = 32, UE8M0 scale); NVFP4 is NVIDIA's FP4 with a UE4M3 scale
// per 16 elements (and a per-tensor fp32 scale, quantise.hpp). These are the
// three kinds tcgen05.mma's block scaling takes (PTX #tcgen05-block-scaling).
#include <string_view>

#include "tcgen/core/element_type.hpp"

namespace tcgen::moe {

struct BlockFormat {
  ElementType element;
  int block;   // K elements per scale factor
  bool ue8m0;  // UE8M0 (a power of two) scale; false: UE4M3

  friend constexpr bool operator==(const BlockFormat&, const BlockFormat&) = default;
};

inline constexpr BlockFormat kMxfp8{ElementType::e4m3, 32, true};
inline constexpr BlockFormat kMxfp4{ElementType::e2m1, 32, true};
inline constexpr BlockFormat kNvfp4{ElementType::e2m1, 16, false};

// "mxfp8", "mxfp4", "nvfp4"; "?" for any other combination.
const char* name(const BlockFormat& f);

// The inverse of name(); throws Error("block format", text, "one of mxfp8, mxfp4, nvfp4").
BlockFormat parse_block_format(std::string_view text);

}  // namespace tcgen::moe
