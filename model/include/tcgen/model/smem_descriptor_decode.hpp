#pragma once
// The model's reading of the 64-bit shared-memory matrix descriptor of
// tcgen05.mma (PTX #tcgen05-shared-memory-descriptor, Table 40; facts §1).
// Written from the PTX table with its own field list, not with tcgen::mma, so
// that the two readings can be held against each other.
#include <cstdint>

namespace tcgen::model {

// Field values after decoding: addresses and strides in bytes.
struct SmemDescriptorFields {
  std::uint32_t start_address = 0;  // shared-memory byte address of the operand's first chunk
  std::uint32_t lbo = 0;            // leading dimension byte offset
  std::uint32_t sbo = 0;            // stride dimension byte offset
  int base_offset = 0;              // bits 49-51: the swizzle pattern's phase, in 128-byte rows
  int layout_type = 0;              // SM100 swizzle code: 0 none, 1 128B_base32B, 2 128B, 4 64B, 6 32B
};

// Throws tcgen::Error naming the field for: a set reserved bit (14-15, 30-31,
// 53-60), a version field other than 0b001 (bit 46 missing: the SM90 wgmma
// form), the sm_103a-only absolute LBO mode (bit 52), swizzle codes 3, 5, 7,
// and a base offset with no swizzle.
SmemDescriptorFields decode_smem_descriptor(std::uint64_t desc);

}  // namespace tcgen::model
