#pragma once
// The dynamic shared memory a kernel written over Arch may lay out: sm_100's
// 227 KB per CTA (model::SharedMemory::kMaxBytes) less the 1024 bytes that
// exec::device::launch adds so that DeviceArch::smem_base() can skip to a
// 1024-byte boundary, where the 128-byte swizzle atoms must start.
#include <cstdint>

#include "tcgen/model/shared_memory.hpp"

namespace tcgen::exec {

inline constexpr std::uint32_t kSmemAlignment = 1024;
inline constexpr std::uint32_t kKernelSmemBytes = model::SharedMemory::kMaxBytes - kSmemAlignment;

}  // namespace tcgen::exec
