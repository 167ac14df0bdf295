#pragma once
// Quantising fp32 matrices into the block-scaled formats (block_format.hpp),
// row by row along K, as the MoE grouped GEMM's operands.
//
// MX (MXFP8, MXFP4), OCP Microscaling Formats (MX) v1.0 §6.3: each block of
// 32 consecutive K elements shares the scale 2^X, X = floor(log2(amax)) -
// emax_elem, where amax is the block's largest magnitude and emax_elem the
// exponent of the element type's largest normal value (§5.3 Table 1: 8 for
// E4M3, 2 for E2M1); the scale is stored as UE8M0, the byte X + 127 (§5.4.1).
// Each element is x / 2^X rounded to nearest, ties to even, saturating to
// the element's largest magnitude (448 for E4M3, 6 for E2M1).
//
// NVFP4 (NVIDIA, "Introducing NVFP4", and the PTX ISA's block scaling,
// #tcgen05-block-scaling): E2M1 elements, a UE4M3 scale per 16 elements and
// a per-tensor fp32 scale `global = amax_tensor / (6 · 448)`, chosen so that
// the largest block's scale amax_block / 6 / global is UE4M3's largest, 448.
// Element = x / (ue4m3 · global) rounded as above; value = e2m1 · ue4m3 · global.
#include <cstdint>
#include <span>
#include <vector>

#include "tcgen/core/aligned_allocator.hpp"
#include "tcgen/moe/block_format.hpp"

namespace tcgen::moe {

struct Quantised {
  BlockFormat format{};
  int rows = 0, k = 0;
  // rows × k row-major: e4m3 one byte each; e2m1 two per byte, element k even
  // in the low nibble. 64-byte aligned: TMA reads e2m1 padded to a byte as
  // 16U4_ALIGN16B, whose array must start on 32 bytes.
  std::vector<std::uint8_t, AlignedAllocator<std::uint8_t, 64>> data;
  // Scale-factor bytes in the blocked layout of scale_layout.hpp (rows padded
  // to 128, k / block padded to 4 per row); padding bytes are 0.
  std::vector<std::uint8_t> scales;
  float global_scale = 1.0f;  // NVFP4's per-tensor fp32 scale; 1 for MX
  // Empty: `scales` is one blocked layout over all rows. Otherwise the rows of
  // each group (an expert's tokens, quantise_grouped), whose scales are one
  // blocked layout after another, each group's rows padded to 128 on its own.
  std::vector<int> counts;

  int sf_cols() const { return k / format.block; }
  // Byte offset in `scales` of the factor of row `row`, K block `sf_col`.
  std::uint64_t scale_index(int row, int sf_col) const;
  // The dequantised element, exactly (fp64): element · scale · global_scale.
  double value(int row, int col) const;
};

// x row-major rows × k. Throws tcgen::Error on k not a multiple of the block
// (or, for e2m1, of 2), rows < 1, a wrong x.size() or a non-finite value.
Quantised quantise(std::span<const float> x, int rows, int k, BlockFormat f);

// The tokens of several experts, contiguous (expert 0's counts[0] rows
// first): data as quantise() writes it, one global scale for all of x
// (NVFP4), and each expert's scales in a blocked layout of its own, at
// expert_scale_offset(counts, e, k / block). counts may hold zeros.
Quantised quantise_grouped(std::span<const float> x, std::span<const int> counts, int k, BlockFormat f);

// Bytes of scales before expert e's: the whole 512-byte blocks of experts 0 .. e-1.
std::uint64_t expert_scale_offset(std::span<const int> counts, int e, int sf_cols);

}  // namespace tcgen::moe
