#pragma once
// The dynamic shared memory a kernel written over Arch may lay out: sm_100's
// 227 KB per CTA (tma::kSmemBytesPerCta) less the 1024 bytes that
// exec::device::launch adds so that DeviceArch::smem_base() can skip to a
// 1024-byte boundary, where the 128-byte swizzle atoms must start.
#include <cstdint>

#include "tcgen/tma/sm100_limits.hpp"

namespace tcgen::exec {

inline constexpr std::uint32_t kSmemAlignment = tma::kSwizzleAtomAlignment;
inline constexpr std::uint32_t kKernelSmemBytes = tma::kSmemBytesPerCta - kSmemAlignment;

}  // namespace tcgen::exec
