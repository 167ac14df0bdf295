#pragma once
// The device code nvcc embeds in a program: the fatbinary behind the
// `__fatDeviceText` wrapper that __cudaRegisterFatBinary receives, its
// entries (cubins and PTX, one per target), and the PTX the host model runs.
//
// The layout is NVIDIA's and undocumented; it is read here as nvcc 12.8-13.x
// writes it (checked against nvcc 13.0's output, tests/host/test_fatbin.cpp):
//   wrapper:  u32 magic 0x466243B1, u32 version (2: relocatable device code,
//             nvlink's cubin alone), u64 fatbin address, u64 (unused)
//   fatbin:   u32 magic 0xBA55ED50, u16 version, u16 header bytes, u64 entry bytes
//   entry:    u16 kind (1 PTX, 2 ELF), u16, u32 header bytes, u64 payload bytes,
//             u32 compressed bytes, u32, u16 minor, u16 major, u32 arch (100 for
//             sm_100), u32 name offset, u32 name bytes, u64 flags, u64,
//             u64 uncompressed bytes (64 header bytes in all for sm_90's and
//             older cubins, 80 to 112 for PTX and sm_100's); then the payload
//   flags:    0x8000 the payload is ZSTD-compressed (nvcc 13's default),
//             0x100000 the arch-specific target (compute_100a, sm_100a)
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tcgen::run {

struct FatbinEntry {
  enum class Kind { ptx, elf, other };
  Kind kind = Kind::other;
  int arch = 0;                // 100 for compute_100 / sm_100
  bool arch_specific = false;  // the "a" targets
  bool compressed = false;
  int ptx_major = 0, ptx_minor = 0;  // PTX ISA version of a PTX entry
  std::span<const std::uint8_t> payload;
  std::uint64_t uncompressed_bytes = 0;

  std::string target() const;  // "compute_100a", "sm_90"
};

// The entries of the fatbinary at `fatbin` (its magic first). Throws
// tcgen::Error naming the field for a header that is not one.
std::vector<FatbinEntry> parse_fatbin(const std::uint8_t* fatbin);
// The same for a fatbinary read from a file (or any untrusted buffer): the
// header's sizes are checked against `bytes` first, so a truncated or forged
// header is a tcgen::Error, never a read past the buffer.
std::vector<FatbinEntry> parse_fatbin(std::span<const std::uint8_t> bytes);
// The fatbinary that a __cudaRegisterFatBinary wrapper points to; refused
// (naming -rdc) for relocatable device code.
const std::uint8_t* unwrap_fatbin(const void* wrapper);

// A PTX entry's text, decompressed with libzstd where nvcc compressed it.
std::string ptx_text(const FatbinEntry& entry);

// The PTX that runs on the host model as on a B200: compute_100a's. Throws
// tcgen::Error saying how to build the program when there is none.
const FatbinEntry& sm100a_ptx(std::span<const FatbinEntry> entries);

}  // namespace tcgen::run
