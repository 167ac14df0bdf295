#pragma once
// The GEMM configurations test_gemm runs, named once: the host test
// instantiates them for HostArch, gemm_test_kernels.cu for sm_100a PTX,
// which the test runs again through the PTX interpreter.
#include "tcgen/gemm/config.hpp"

namespace tcgen::gemm_tests {

using layout::Major;
inline constexpr ElementType bf16 = ElementType::bf16, fp16 = ElementType::fp16, f32 = ElementType::f32;

inline constexpr gemm::Config kBf16{};
inline constexpr gemm::Config kFp16ToBf16Tile128{.ab = fp16, .d = bf16, .tile_n = 128, .stages = 5};
inline constexpr gemm::Config kBf16MnMn{.a_major = Major::MN, .b_major = Major::MN};
inline constexpr gemm::Config kFp16MnKToFp16Tile64{.ab = fp16, .a_major = Major::MN, .d = fp16, .tile_n = 64, .stages = 3};
inline constexpr gemm::Config kBf16KMnToBf16Tile128{.b_major = Major::MN, .d = bf16, .tile_n = 128};
inline constexpr gemm::Config kFp16Tile48{.ab = fp16, .tile_n = 48, .stages = 2};
inline constexpr gemm::Config kTile64TwoStages{.d = f32, .tile_n = 64, .stages = 2};
// CTA pairs: 256-row tiles, tcgen05 .cta_group::2.
inline constexpr gemm::Config kPair{.cta_group = 2};
inline constexpr gemm::Config kPairFp16MnMnToBf16Tile128{
    .ab = fp16, .a_major = Major::MN, .b_major = Major::MN, .d = bf16, .tile_n = 128, .cta_group = 2};

}  // namespace tcgen::gemm_tests
