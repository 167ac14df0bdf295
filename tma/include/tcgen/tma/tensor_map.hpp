#pragma once
// A tiled tensor map as cuTensorMapEncodeTiled takes it (interleave NONE),
// the sizes it implies, and the driver's rules for it, each quoted beside
// its check. Kernels describe their maps with it; the host model
// (model/tma.hpp), the PTX interpreter and tcgen run's driver consume it.
//
// Sources: CUDA Driver API cuTensorMapEncodeTiled (DRV, the argument rules);
// PTX #tensor-tiled-mode-bounding-box, #tensor-swizzling-modes.
// Facts: ../shared/reference/tcgen05-facts-2.md §5.
#include <array>
#include <cstdint>

namespace tcgen::tma {

// CUtensorMapSwizzle: NONE, 32B, 64B, 128B, 128B_ATOM_32B (the atom modes
// need compute capability 10 or later).
enum class TmaSwizzle { none, b32, b64, b128, b128_atom32b };

// CUtensorMapDataType's packed types (13 16U4_ALIGN8B, 14 16U4_ALIGN16B, 15 16U6_ALIGN16B): chunks
// of "16 x U4" or "16 x U6" values, packed without gaps in global memory; in shared memory packed too
// (ALIGN8B: "no gaps between packed values") or each chunk padded to 16 bytes (ALIGN16B: "8 byte gaps
// between every 8 byte chunk", "4 byte gaps between every 12 byte chunk", DRV), the image the
// kind::f8f6f4 MMA reads its 4- and 6-bit operands from (PTX #tcgen05-packing-formats).
enum class TmaPacking { none, u4_align8b, u4_align16b, u6_align16b };

// CUtensorMapFloatOOBfill. Only zero fill is modelled: the driver documents
// no bit pattern for the "special NaN" of NAN_REQUEST_ZERO_FMA.
enum class TmaOobFill { zero, nan_request_zero_fma };

// CUtensorMapL2promotion: NONE, L2_64B, L2_128B, L2_256B, the "L2 fetch size" of the map's loads
// (DRV). A cache hint: the map holds it (CUTLASS asks for L2_128B), the model's TMA moves the same
// bytes under each.
enum class TmaL2Promotion { none, b64, b128, b256 };

constexpr const char* name(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::none: return "none";
    case TmaSwizzle::b32: return "32B";
    case TmaSwizzle::b64: return "64B";
    case TmaSwizzle::b128: return "128B";
    case TmaSwizzle::b128_atom32b: return "128B_atom32B";
  }
  return "?";
}

// What makes a map an im2col map (cuTensorMapEncodeIm2col; PTX #tensor-im2col-mode): dim 0 holds
// the channels, dims 1 .. rank-2 the spatial dims (W, H, D: corner entry i is dim i + 1, as CUTLASS
// passes them), dim rank-1 the batch. Along each spatial dim the bounding box holds the positions
// lower_corner + k·elementStrides from lower_corner to globalDim - 1 + upper_corner; a load takes
// pixels_per_column pixels of it in order (W fastest, then H, D and the batch) from the pixel its
// coordinates name, each moved by the instruction's im2col offsets, channels_per_pixel channels each.
struct TmaIm2col {
  bool on = false;
  std::array<std::int32_t, 3> lower_corner{}, upper_corner{};  // pixelBoxLowerCorner, pixelBoxUpperCorner
  std::uint32_t channels_per_pixel = 0, pixels_per_column = 0;
};

// A tiled tensor map with interleave NONE, as cuTensorMapEncodeTiled takes it,
// or an im2col map (im2col.on), whose box is channels × pixels.
// Entries at and beyond rank are ignored.
struct TensorMapSpec {
  std::uint32_t element_bytes = 2;            // elementSizeInBytes(tensorDataType): 1, 2, 4 or 8 (unpacked types)
  std::uint32_t rank = 2;                     // tensorRank
  std::array<std::uint64_t, 5> global_dims{};     // globalDim, in elements, dim 0 contiguous
  std::array<std::uint64_t, 4> global_strides{};  // globalStrides: bytes between steps of dims 1..rank-1
  std::array<std::uint32_t, 5> box_dims{};        // boxDim, in elements
  std::array<std::uint32_t, 5> element_strides{1, 1, 1, 1, 1};  // elementStrides (entry 0 is ignored)
  TmaSwizzle swizzle = TmaSwizzle::none;
  TmaOobFill oob_fill = TmaOobFill::zero;
  TmaL2Promotion l2_promotion = TmaL2Promotion::none;
  // tensorDataType as CUDA numbers it (CUtensorMapDataType: 0 UINT8, 1 UINT16, 2 UINT32, 3 INT32,
  // 4 UINT64, 5 INT64, 6 FLOAT16, 7 FLOAT32, 8 FLOAT64, 9 BFLOAT16, 10 FLOAT32_FTZ, 11 TFLOAT32,
  // 12 TFLOAT32_FTZ, 13-15 the packed types of TmaPacking); -1 where a map was built without one. Loads
  // and stores move bytes and need only element_bytes, or the packing; a TMA reduction combines values
  // and needs the type.
  int data_type = -1;
  TmaIm2col im2col;  // box_dims are not arguments of an im2col map

  TmaPacking packing() const;
  // The TMA moves dim 0 in units: the fewest elements that fill whole bytes in global and in shared
  // memory (one element; two 4-bit values packed in a byte; a padded type's 16-value chunk), the
  // unit's bytes in each. DRV's rules keep units whole: globalDim[0] a multiple of 2 (ALIGN8B) or 128.
  std::uint32_t unit_elements() const;
  std::uint32_t unit_global_bytes() const;
  std::uint32_t unit_smem_bytes() const;

  // Elements the box holds along dim i: ceil(boxDim[i] / elementStrides[i])
  // for i >= 1; boxDim[0] (DRV: "the first element of this array is ignored").
  // An im2col box: channels_per_pixel along dim 0, pixels_per_column rows.
  std::uint32_t box_extent(std::uint32_t dim) const;
  // Bytes the box holds in shared memory, a padded type's gaps included
  // (out-of-bounds elements included, as CUTLASS expects; swizzle padding excluded).
  std::uint64_t box_bytes() const;
  // The box's transaction count: its elements' bits in bytes, a padded type's gaps excluded. The
  // count CUTLASS's block-scaled GEMMs expect (TmaTransactionBytes: cosize · sizeof_bits of the 4- or
  // 6-bit type, with shared memory allocated at 8 bits an element), on which B200 runs complete.
  std::uint64_t transaction_bytes() const;
  // Bytes from one box row (a dim-0 run) to the next in shared memory: the
  // swizzle span when swizzled, also for rows narrower than the span, which
  // are padded to it (seen on an H200: a 64-byte row under 128B swizzle left
  // the line's other 64 bytes untouched); else the row's own bytes in shared memory.
  std::uint64_t smem_row_bytes() const;
  // The box's bytes as the driver counts them: element_bytes times floor(box_dims[i] / element_strides[i])
  // over the dims, entry 0 included (an im2col map: times channels_per_pixel and pixels_per_column); the
  // driver refuses a box of more than a CTA's shared memory by this count and writes it into the map
  // (H200 sweep, docs/tensor_map.md). Not what the TMA moves (box_bytes: ceil, entry 0's stride ignored).
  std::uint64_t driver_box_bytes() const;
  // Bytes of global memory the map spans: one past its last element's last byte.
  std::uint64_t spanned_bytes() const;
  // An im2col map's bounding box along spatial dim i (1 .. rank-2): how many positions it holds.
  std::int64_t im2col_positions(std::uint32_t dim) const;
  // Row r of an im2col load from the pixel at coords (dims 1 .. rank-1; coords[i] must be a position
  // of the bounding box) with the instruction's offsets (spatial dims, W first): the global byte
  // offset of that pixel's channel 0, or -1 when the pixel lies outside the tensor (zeros; also
  // past the last batch).
  std::int64_t im2col_row_offset(const std::array<std::int32_t, 5>& coords, const std::array<std::int32_t, 3>& offsets,
                                 std::uint32_t r) const;
  // The global bytes a box at coords (element coordinates of its first element) reads or writes:
  // [first, end) as offsets from the global address, the elements inside the tensor alone; first ==
  // end when none is. What the TMA touches, which may lie inside a buffer smaller than the map spans.
  // For an im2col map, the rows' pixels with `offsets` (im2col_row_offset).
  std::array<std::uint64_t, 2> touched_bytes(const std::array<std::int32_t, 5>& coords,
                                             const std::array<std::int32_t, 3>& offsets = {}) const;

  // The DRV rules of cuTensorMapEncodeTiled for this map over a tensor at
  // global_address; throws tcgen::Error naming the field (e.g.
  // "box_dims[1]", "global_strides[0]", "global_address").
  void validate(std::uint64_t global_address) const;
};

// Bytes of one swizzle row (DRV: "Swizzle 16B chunks within 32B span", ...);
// 0 for none.
constexpr std::uint32_t swizzle_span(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::none: return 0;
    case TmaSwizzle::b32: return 32;
    case TmaSwizzle::b64: return 64;
    case TmaSwizzle::b128:
    case TmaSwizzle::b128_atom32b: return 128;
  }
  return 0;
}

}  // namespace tcgen::tma
