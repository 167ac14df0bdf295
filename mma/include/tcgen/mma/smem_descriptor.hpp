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
#include <string>
#include <vector>

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
inline constexpr BitField reserved_14{"reserved bits 14-15", 14, 2};
inline constexpr BitField lbo{"lbo", 16, 14};
inline constexpr BitField reserved_30{"reserved bits 30-31", 30, 2};
inline constexpr BitField sbo{"sbo", 32, 14};
inline constexpr BitField version{"version", 46, 3};  // "fixed constant value of 0b001"
inline constexpr BitField base_offset{"base_offset", 49, 3};
inline constexpr BitField lbo_mode{"lbo_mode", 52, 1};  // 1 = absolute LBO, sm_103a only
inline constexpr BitField reserved_53{"reserved bits 53-60", 53, 8};  // "fixed constant value of 0"
inline constexpr BitField layout_type{"layout_type", 61, 3};
// Every bit, in bit order: the table leaves no bit unnamed (describe() prints one line each).
inline constexpr std::array fields{start_address, reserved_14, lbo, reserved_30, sbo,
                                   version, base_offset, lbo_mode, reserved_53, layout_type};
static_assert(uncovered_bits(fields, ~std::uint64_t{0}) == 0);
}  // namespace sm100

namespace sm90 {
inline constexpr BitField start_address{"start_address", 0, 14};
inline constexpr BitField unused_14{"unused bits 14-15", 14, 2};
inline constexpr BitField lbo{"lbo", 16, 14};
inline constexpr BitField unused_30{"unused bits 30-31", 30, 2};
inline constexpr BitField sbo{"sbo", 32, 14};
inline constexpr BitField unused_46{"unused bits 46-48", 46, 3};  // SM100's version bits
inline constexpr BitField base_offset{"base_offset", 49, 3};
inline constexpr BitField unused_52{"unused bits 52-61", 52, 10};  // SM100's LBO mode, reserved bits, swizzle bit 61
inline constexpr BitField layout_type{"layout_type", 62, 2};  // 0 none, 1 128B, 2 64B, 3 32B
inline constexpr std::array fields{start_address, unused_14, lbo, unused_30, sbo,
                                   unused_46, base_offset, unused_52, layout_type};
static_assert(uncovered_bits(fields, ~std::uint64_t{0}) == 0);
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

// A shared address in a cluster carries the CTA's rank in bits 24 and up
// (hardware-checks.md); the descriptor holds the offset below them, as
// matrix-descriptor-encode's & 0x3FFFF keeps it. Offsets from 256 KiB to
// 16 MiB stay errors: no CTA has that much shared memory.
constexpr Int shared_offset(Int addr) { return addr >= (Int{1} << 24) ? addr & 0xFFFFFF : addr; }

// PTX on the base offset: "This is valid for all swizzling modes except the no-swizzle mode."
inline constexpr const char* kBaseOffsetNoSwizzle =
    "expected 0 with no swizzle: the matrix base offset \"is valid for all swizzling modes except the no-swizzle "
    "mode\" (PTX #tcgen05-shared-memory-descriptor)";

constexpr std::uint64_t encode(const SmemDescriptorFields& d, DescriptorArch arch = DescriptorArch::sm100) {
  if (d.base_offset < 0 || d.base_offset > 7) fail("base_offset", d.base_offset, "expected 0..7");
  if (d.base_offset != 0 && d.layout_type == 0) fail("base_offset", d.base_offset, kBaseOffsetNoSwizzle);
  const bool sm100_code = d.layout_type == 0 || d.layout_type == 1 || d.layout_type == 2 || d.layout_type == 4 ||
                          d.layout_type == 6;
  if (!sm100_code) fail("layout_type", d.layout_type, "expected an SM100 swizzle code 0, 1, 2, 4 or 6 (3, 5, 7 are invalid)");
  std::uint64_t w = 0;
  if (arch == DescriptorArch::sm100) {
    w = sm100::start_address.insert(w, encode_bytes(sm100::start_address, shared_offset(d.start_address)));
    w = sm100::lbo.insert(w, encode_bytes(sm100::lbo, d.lbo));
    w = sm100::sbo.insert(w, encode_bytes(sm100::sbo, d.sbo));
    w = sm100::version.insert(w, 1);
    w = sm100::base_offset.insert(w, static_cast<std::uint64_t>(d.base_offset));
    return sm100::layout_type.insert(w, static_cast<std::uint64_t>(d.layout_type));
  }
  if (d.layout_type == 1) fail("layout_type", d.layout_type, "expected none/32B/64B/128B: wgmma has no 128B_base32B mode");
  w = sm90::start_address.insert(w, encode_bytes(sm90::start_address, shared_offset(d.start_address)));
  w = sm90::lbo.insert(w, encode_bytes(sm90::lbo, d.lbo));
  w = sm90::sbo.insert(w, encode_bytes(sm90::sbo, d.sbo));
  w = sm90::base_offset.insert(w, static_cast<std::uint64_t>(d.base_offset));
  return sm90::layout_type.insert(w, static_cast<std::uint64_t>(sm90_layout_type(d.layout_type)));
}

// The 64-bit descriptor back to fields (bytes and the SM100 layout-type code,
// whichever arch), refusing what the hardware would misread or reject, each
// refusal a tcgen::Error naming the field. encode(decode(x), arch) == x for
// every x decode accepts.
constexpr SmemDescriptorFields decode(std::uint64_t desc, DescriptorArch arch = DescriptorArch::sm100) {
  SmemDescriptorFields f;
  if (arch == DescriptorArch::sm100) {
    for (const BitField& r : {sm100::reserved_14, sm100::reserved_30, sm100::reserved_53})
      if (r.extract(desc) != 0)
        fail(r.name, static_cast<std::int64_t>(r.extract(desc)), "expected 0: reserved (PTX #tcgen05-shared-memory-descriptor)");
    if (sm100::version.extract(desc) != 1)
      fail("version", static_cast<std::int64_t>(sm100::version.extract(desc)),
           "expected 1: bits 46-48 are the \"fixed constant value of 0b001\" (PTX #tcgen05-shared-memory-descriptor); "
           "a value without bit 46 is the SM90 wgmma form");
    if (sm100::lbo_mode.extract(desc) != 0)
      fail("lbo_mode", 1,
           "expected 0: the absolute LBO mode (bit 52 = 1) is sm_103a only (PTX #tcgen05-shared-memory-descriptor, "
           "leading dimension stride mode); sm_100a takes a relative LBO");
    const auto code = static_cast<int>(sm100::layout_type.extract(desc));
    if (code == 3 || code == 5 || code == 7)
      fail("layout_type", code, "expected 0 none, 1 128B_base32B, 2 128B, 4 64B or 6 32B: \"Values 3, 5 and 7 are invalid\" (PTX #tcgen05-shared-memory-descriptor)");
    f.start_address = static_cast<Int>(sm100::start_address.extract(desc)) << 4;
    f.lbo = static_cast<Int>(sm100::lbo.extract(desc)) << 4;
    f.sbo = static_cast<Int>(sm100::sbo.extract(desc)) << 4;
    f.base_offset = static_cast<Int>(sm100::base_offset.extract(desc));
    f.layout_type = code;
  } else {
    for (const BitField& u : {sm90::unused_14, sm90::unused_30, sm90::unused_46, sm90::unused_52})
      if (u.extract(desc) != 0)
        fail(u.name, static_cast<std::int64_t>(u.extract(desc)),
             "expected 0: unused in the wgmma descriptor (PTX #asynchronous-warpgroup-level-matrix-shared-memory-layout-"
             "matrix-descriptor); bit 46 set marks the SM100 form (decode it as sm100)");
    f.start_address = static_cast<Int>(sm90::start_address.extract(desc)) << 4;
    f.lbo = static_cast<Int>(sm90::lbo.extract(desc)) << 4;
    f.sbo = static_cast<Int>(sm90::sbo.extract(desc)) << 4;
    f.base_offset = static_cast<Int>(sm90::base_offset.extract(desc));
    f.layout_type = static_cast<int>(sm90::layout_type.extract(desc)) << 1;  // SM90 code -> SM100 code (facts §1)
  }
  if (f.base_offset != 0 && f.layout_type == 0) fail("base_offset", f.base_offset, kBaseOffsetNoSwizzle);
  return f;
}

// Name of an SM100 layout-type code: none, 128B_base32B, 128B, 64B, 32B.
constexpr const char* swizzle_name(int sm100_code) {
  switch (sm100_code) {
    case 0: return "none";
    case 1: return "128B_base32B";
    case 2: return "128B";
    case 4: return "64B";
    case 6: return "32B";
  }
  return "invalid";
}

// One line per bit field of a valid descriptor, in bit order, for people
// (tcgen desc decode). Throws what decode throws.
struct DescriptorFieldText {
  std::string name;     // the BitField name
  int lo = 0, hi = 0;   // bits lo..hi
  std::uint64_t raw = 0;  // the bits as stored
  std::string meaning;  // the value in bytes or words, and what the hardware does with it
};
std::vector<DescriptorFieldText> describe(std::uint64_t desc, DescriptorArch arch = DescriptorArch::sm100);

// Checks that an arbitrary (row, col) -> element-slot layout of an operand
// tile is what the descriptor can express: the canonical form of `spec`
// (PTX #tcgen05-canonical-layouts) with one LBO and one SBO for every element
// of every MMA K step. LBO and SBO are read off the layout the way
// SmemOperand does; then each element is compared with its neighbour one
// step down in the canonical index, so a wrong stride is named with the two
// elements that show it and the stride that was expected. Returns the fields
// of K step 0 for a tile at address 0 (start_address = where (0, 0) is).
SmemDescriptorFields check_canonical(const layout::Layout& tile_in_slots, const layout::SmemOperandSpec& spec);

// ---- The descriptor's fields, derived from the operand's layout (as CuTe's
// make_umma_desc reads them off its canonical layouts): layout/ says where each
// element lies, the fields below say how the descriptor encodes it.

// Bits 61-63, "swizzling mode" (PTX #tcgen05-shared-memory-descriptor).
constexpr int layout_type(layout::SmemSwizzle s) {
  switch (s) {
    case layout::SmemSwizzle::none: return 0;
    case layout::SmemSwizzle::b128_base32b: return 1;
    case layout::SmemSwizzle::b128: return 2;
    case layout::SmemSwizzle::b64: return 4;
    case layout::SmemSwizzle::b32: return 6;
  }
  return -1;
}

namespace detail {
// Byte distance from element (0,0) to (row,col). A neighbour outside the
// tile is never read by the MMA; the field then holds the atom's own size,
// as if the tile went on densely.
constexpr Int step(const layout::SmemOperand& op, Int row, Int col) {
  const layout::SmemOperandSpec& s = op.spec();
  if (row >= s.rows || col >= s.cols) return op.bytes(layout::smem_atom(s).cosize());
  return op.offset(row, col) - op.offset(0, 0);
}
}  // namespace detail

// The leading and stride dimension byte offsets (PTX #tcgen05-matrix-descriptors,
// tcgen05-facts.md §2.2): where the layout puts the neighbouring core matrices.
constexpr Int lbo(const layout::SmemOperand& op) {
  const layout::SmemOperandSpec& s = op.spec();
  if (s.major == layout::Major::K)
    return s.swizzle == layout::SmemSwizzle::none ? detail::step(op, 0, s.element.per_chunk)  // next 16 B of K
                                                  : 16;  // swizzled K-major: "not used, assumed to be 1"
  if (s.swizzle == layout::SmemSwizzle::none) return detail::step(op, 0, 8);  // next 8 K rows
  return detail::step(op, layout::atom_extent(s)[0], 0);                      // next W-byte M/N block
}
constexpr Int sbo(const layout::SmemOperand& op) {
  const layout::SmemOperandSpec& s = op.spec();
  if (s.major == layout::Major::K) return detail::step(op, 8, 0);                              // next 8 rows
  if (s.swizzle == layout::SmemSwizzle::none) return detail::step(op, s.element.per_chunk, 0);  // next 16 B of M/N
  return detail::step(op, 0, layout::atom_extent(s)[1]);                                       // next 8 (or 4) K rows
}

// Descriptor "matrix base offset" (bits 49-51, PTX Table 41): 0 when the
// swizzle pattern starts on its period boundary (1024/512/256 B), else
// (pattern start >> 7) & 7. Absolute-anchored data needs 0 wherever the tile
// starts; tile-anchored data starts its pattern at the tile base (checked on
// an H200 for both: hardware-checks.md, "base offset").
constexpr Int base_offset(layout::SmemSwizzle s, Int tile_base, layout::SwizzleAnchor anchor) {
  if (anchor == layout::SwizzleAnchor::absolute || s == layout::SmemSwizzle::none ||
      tile_base % layout::swizzle_function(s).period() == 0)
    return 0;
  return (tile_base >> 7) & 7;
}

// The descriptor fields of K step `k` of an operand tile at shared-memory
// address `tile_address`. The start address advances by the step's offset,
// inside a swizzle atom too, with the same base offset: the pattern still
// starts where the tile's does (facts §1, CUTLASS DescriptorIterator).
constexpr SmemDescriptorFields descriptor_fields(const layout::SmemOperand& op, Int tile_address, Int k = 0,
                                                 layout::SwizzleAnchor anchor = layout::SwizzleAnchor::absolute) {
  if (k < 0 || k >= op.ksteps()) fail("kstep", k, "expected a K step inside the tile");
  // A tile-anchored pattern must start on a 128-byte row: the base offset
  // counts rows, "(pattern start addr >> 0x7) & 0x7" (PTX Table 41).
  if (anchor == layout::SwizzleAnchor::tile && op.spec().swizzle != layout::SmemSwizzle::none && tile_address % 128 != 0)
    fail("tile_address", tile_address,
         "expected a multiple of 128 B for a tile-anchored swizzle: the base offset can only move the pattern by "
         "whole 128-byte rows");
  return {tile_address + op.kstep_offset(k), lbo(op), sbo(op), base_offset(op.spec().swizzle, tile_address, anchor),
          layout_type(op.spec().swizzle)};
}

}  // namespace tcgen::mma
