#pragma once
// The sm_100 (B200) limits that kernels, the host model and the emulated
// runtime all obey, named once.
#include <cstdint>

namespace tcgen::tma {

// Dynamic shared memory one CTA may opt in to: 227 KiB
// (cudaDevAttrMaxSharedMemoryPerBlockOptin; CUTLASS sm100_smem_capacity_bytes).
inline constexpr std::uint32_t kSmemBytesPerCta = 232448;
// The KiB below a CTA's shared memory that sm_90 and later reserve for the
// system (cudaDevAttrReservedSharedMemoryPerBlock).
inline constexpr std::uint32_t kSmemReservedBytes = 1024;
// An SM's shared memory: 228 KiB (cudaDevAttrMaxSharedMemoryPerMultiprocessor).
inline constexpr std::uint32_t kSmemBytesPerSm = 233472;
// Shared-memory matrix descriptors address 18 bits: (addr & 0x3FFFF) >> 4
// (PTX #tcgen05-shared-memory-descriptor; tcgen05-facts.md §1).
inline constexpr std::uint32_t kDescriptorWindowBytes = 1u << 18;
// The 128-byte swizzle's 8-row atom repeats every 1024 bytes of absolute
// address: swizzled tiles start on such a boundary (PTX #tensor-swizzling-modes).
inline constexpr std::uint32_t kSwizzleAtomAlignment = 1024;
// A TMA box's shared-memory address: 128-byte aligned (CUDA C++ Programming
// Guide, TMA alignment; tcgen05-facts-2.md §5.2).
inline constexpr std::uint32_t kBoxSmemAlignment = 128;
// A tensor map's global address and strides: 16-byte aligned (DRV cuTensorMapEncodeTiled).
inline constexpr std::uint32_t kGlobalAlignment = 16;

}  // namespace tcgen::tma
