#pragma once
// Operand fetch of tcgen05.mma from a shared-memory image: where each element
// lies follows from the descriptor's fields by the PTX address rules alone
// (PTX #tcgen05-canonical-layouts, #tcgen05-shared-memory-descriptor; facts
// §2.1 "Byte-address form for the emulator", §2.3 swizzles). This is written
// apart from tcgen::layout so that a mistake in either is caught by the other.
#include <cstdint>
#include <span>
#include <vector>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/mma_types.hpp"
#include "tcgen/model/smem_descriptor_decode.hpp"

namespace tcgen::model {

// The shared address of 16-byte chunk `chunk` of row `row` of a K-major
// canonical matrix at descriptor fields f (facts §2.1, PTX
// #tcgen05-canonical-layouts), the swizzle applied: with no swizzle,
// start + (row%8)·16 + (row/8)·SBO + chunk·LBO; swizzled by W bytes,
// Swz(start + (row%8)·W + (row/8)·SBO + chunk·16). The MMA's K-major
// operands and tcgen05.cp's sources are read through it. A sparse MMA's B
// has 4 chunks per row, which a 32-byte swizzle atom's 2 do not hold: the
// formula, PTX's linear (T,2k):(1,T) K mode, then runs into the next row,
// and the model reads what it names. f.layout_type 1 (128B_base32B) is
// MN-major only: the caller refuses it first.
std::uint32_t kmajor_chunk_address(const SmemDescriptorFields& f, std::uint32_t row, std::uint32_t chunk);

// How 4-bit values fill a 16-byte chunk of shared memory (PTX
// #tcgen05-packing-formats): 16, each padded to a byte's worth (kind::f8f6f4
// and mxf8f6f4), or 32 packed two to a byte (kind::mxf4 and mxf4nvf4).
enum class Fp4Storage { padded, packed };

// Reads one operand of one MMA: A (rows = M) or B (rows = N), k = the kind's
// K per instruction (256 bits: 16 fp16/bf16, 8 tf32, 32 8-bit or padded
// 6/4-bit values, 64 packed 4-bit values), or twice that for the B of a
// sparse MMA (512 bits; PTX #tcgen05-sparse-matrices), from an image whose
// first byte is at shared address image_base. Elements are decoded exactly
// (core's decode()): bf16, fp16, tf32 (the top 19 bits of its 32), e4m3,
// e5m2, s8, u8, e2m3/e3m2/e2m1 in the padded 16-values-per-16-bytes formats,
// and e2m1 packed 32 values per 16 bytes, low nibble first (fp4 = packed);
// the 6- and 4-bit formats K-major only.
// Every 16-byte chunk read is appended to *chunks_read (its physical shared
// address) if non-null. Throws tcgen::Error naming the field for a bad
// descriptor, type, k, rows or swizzle/major combination, and "address" when
// a chunk lies outside the image.
Operand fetch_operand(std::span<const std::uint8_t> image, std::uint32_t image_base, std::uint64_t desc, int rows, int k,
                      ElementType type, bool mn_major, Fp4Storage fp4 = Fp4Storage::padded,
                      std::vector<std::uint32_t>* chunks_read = nullptr);

}  // namespace tcgen::model
