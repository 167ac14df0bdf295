#pragma once
// The 64-bit shared-memory matrix descriptor of tcgen05.mma (SM100) and its
// Hopper twin (wgmma, SM90), built from a canonical operand layout and the
// tile's shared-memory address, never by hand.
//
// PTX #tcgen05-shared-memory-descriptor (Table 40) and
// #asynchronous-warpgroup-level-matrix-shared-memory-layout-matrix-descriptor;
// tcgen05-facts.md §1 compares the two bit for bit.
#include <array>
#include <cstdint>

#include "tcgen/core/bitfield.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/layout/smem_operand.hpp"

namespace tcgen::mma {

using layout::Int;

enum class DescriptorArch { sm100, sm90 };

// Field values in bytes (addresses and strides) or codes, before encoding.
struct SmemDescriptorFields {
  Int start_address = 0;  // shared-memory byte address of the operand's first chunk
  Int lbo = 0;            // leading dimension byte offset
  Int sbo = 0;            // stride dimension byte offset
  Int base_offset = 0;    // swizzle pattern phase, 0 when the pattern starts on its period
  int layout_type = 0;    // SM100 code: 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B
  friend constexpr bool operator==(const SmemDescriptorFields&, const SmemDescriptorFields&) = default;
};

namespace sm100 {
// "matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4": 16-byte units in an 18-bit window.
inline constexpr BitField start_address{"start_address", 0, 14};
inline constexpr BitField lbo{"lbo", 16, 14};
inline constexpr BitField sbo{"sbo", 32, 14};
inline constexpr BitField version{"version", 46, 3};  // "fixed constant value of 0b001"
inline constexpr BitField base_offset{"base_offset", 49, 3};
inline constexpr BitField lbo_mode{"lbo_mode", 52, 1};  // 1 = absolute LBO, sm_103a only
inline constexpr BitField layout_type{"layout_type", 61, 3};
}  // namespace sm100

namespace sm90 {
inline constexpr BitField start_address{"start_address", 0, 14};
inline constexpr BitField lbo{"lbo", 16, 14};
inline constexpr BitField sbo{"sbo", 32, 14};
inline constexpr BitField base_offset{"base_offset", 49, 3};
inline constexpr BitField layout_type{"layout_type", 62, 2};  // 0 none, 1 128B, 2 64B, 3 32B
}  // namespace sm90

// SM100 code -> SM90 code: the same physical bits, one position up (facts §1).
constexpr int sm90_layout_type(int sm100_code) { return sm100_code >> 1; }

// Addresses and strides are stored as bytes >> 4 in 14 bits: each must be a
// multiple of 16 below 256 KiB ("must be 16-byte aligned", PTX Table 40).
constexpr std::uint64_t encode_bytes(const BitField& f, Int bytes) {
  if (bytes < 0 || bytes % 16 != 0) fail(f.name, bytes, "expected a multiple of 16 bytes (the field stores bytes >> 4)");
  if (!f.fits(static_cast<std::uint64_t>(bytes >> 4)))
    fail(f.name, bytes, "expected less than 256 KiB (the field stores 14 bits of bytes >> 4)");
  return static_cast<std::uint64_t>(bytes >> 4);
}

constexpr std::uint64_t encode(const SmemDescriptorFields& d, DescriptorArch arch = DescriptorArch::sm100) {
  if (d.base_offset < 0 || d.base_offset > 7) fail("base_offset", d.base_offset, "expected 0..7");
  const bool sm100_code = d.layout_type == 0 || d.layout_type == 1 || d.layout_type == 2 || d.layout_type == 4 ||
                          d.layout_type == 6;
  if (!sm100_code) fail("layout_type", d.layout_type, "expected an SM100 swizzle code 0, 1, 2, 4 or 6 (3, 5, 7 are invalid)");
  std::uint64_t w = 0;
  if (arch == DescriptorArch::sm100) {
    w = sm100::start_address.insert(w, encode_bytes(sm100::start_address, d.start_address));
    w = sm100::lbo.insert(w, encode_bytes(sm100::lbo, d.lbo));
    w = sm100::sbo.insert(w, encode_bytes(sm100::sbo, d.sbo));
    w = sm100::version.insert(w, 1);
    w = sm100::base_offset.insert(w, static_cast<std::uint64_t>(d.base_offset));
    return sm100::layout_type.insert(w, static_cast<std::uint64_t>(d.layout_type));
  }
  if (d.layout_type == 1) fail("layout_type", d.layout_type, "expected none/32B/64B/128B: wgmma has no 128B_base32B mode");
  w = sm90::start_address.insert(w, encode_bytes(sm90::start_address, d.start_address));
  w = sm90::lbo.insert(w, encode_bytes(sm90::lbo, d.lbo));
  w = sm90::sbo.insert(w, encode_bytes(sm90::sbo, d.sbo));
  w = sm90::base_offset.insert(w, static_cast<std::uint64_t>(d.base_offset));
  return sm90::layout_type.insert(w, static_cast<std::uint64_t>(sm90_layout_type(d.layout_type)));
}

// The descriptor fields of K step `k` of an operand tile at shared-memory
// address `tile_address`. The start address advances by the step's offset,
// inside a swizzle atom too, with the same base offset: the pattern still
// starts where the tile's does (facts §1, CUTLASS DescriptorIterator).
constexpr SmemDescriptorFields descriptor_fields(const layout::SmemOperand& op, Int tile_address, Int k = 0,
                                                 layout::SwizzleAnchor anchor = layout::SwizzleAnchor::absolute) {
  if (k < 0 || k >= op.ksteps()) fail("kstep", k, "expected a K step inside the tile");
  return {tile_address + op.kstep_offset(k), op.lbo(), op.sbo(),
          layout::base_offset(op.spec().swizzle, tile_address, anchor), op.layout_type()};
}

}  // namespace tcgen::mma
