#pragma once
// TMA tiled loads (cp.async.bulk.tensor.Nd.shared::cluster.global.tile) on the
// host: the tensor map a device path hands to cuTensorMapEncodeTiled, its
// rules, and the bytes one load writes into shared memory.
//
// Sources: CUDA Driver API cuTensorMapEncodeTiled (the argument rules);
// PTX #tensor-tiled-mode-bounding-box, #tensor-tiled-mode-traversal-stride,
// #tensor-tiled-mode-oob-access, #tensor-swizzling-modes,
// #data-movement-and-conversion-instructions-cp-async-bulk-tensor.
// Facts: ../shared/reference/tcgen05-facts-2.md §5, tcgen05-facts.md §2.3.
// Written apart from tcgen::layout so that each can be held against the other.
#include <array>
#include <cstdint>
#include <span>

namespace tcgen::model {

// CUtensorMapSwizzle: NONE, 32B, 64B, 128B, 128B_ATOM_32B (the atom modes
// need compute capability 10 or later).
enum class TmaSwizzle { none, b32, b64, b128, b128_atom32b };

// CUtensorMapFloatOOBfill. Only zero fill is modelled: the driver documents
// no bit pattern for the "special NaN" of NAN_REQUEST_ZERO_FMA.
enum class TmaOobFill { zero, nan_request_zero_fma };

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

// A tiled tensor map with interleave NONE, as cuTensorMapEncodeTiled takes it.
// Entries at and beyond rank are ignored.
struct TensorMapSpec {
  std::uint32_t element_bytes = 2;            // elementSizeInBytes(tensorDataType): 1, 2 or 4
  std::uint32_t rank = 2;                     // tensorRank
  std::array<std::uint64_t, 5> global_dims{};     // globalDim, in elements, dim 0 contiguous
  std::array<std::uint64_t, 4> global_strides{};  // globalStrides: bytes between steps of dims 1..rank-1
  std::array<std::uint32_t, 5> box_dims{};        // boxDim, in elements
  std::array<std::uint32_t, 5> element_strides{1, 1, 1, 1, 1};  // elementStrides (entry 0 is ignored)
  TmaSwizzle swizzle = TmaSwizzle::none;
  TmaOobFill oob_fill = TmaOobFill::zero;

  // Elements the box holds along dim i: ceil(boxDim[i] / elementStrides[i])
  // for i >= 1; boxDim[0] (DRV: "the first element of this array is ignored").
  std::uint32_t box_extent(std::uint32_t dim) const;
  // Bytes the box holds: what one load writes and its transaction count
  // (out-of-bounds elements included, as CUTLASS expects; padding excluded).
  std::uint64_t box_bytes() const;
  // Bytes from one box row (a dim-0 run) to the next in shared memory: the
  // swizzle span when swizzled, also for rows narrower than the span, which
  // are padded to it (seen on an H200: a 64-byte row under 128B swizzle left
  // the line's other 64 bytes untouched); else the row's own bytes.
  std::uint64_t smem_row_bytes() const;
  // Bytes of global memory the map spans: one past its last element's last byte.
  std::uint64_t spanned_bytes() const;

  // The DRV rules of cuTensorMapEncodeTiled for this map over a tensor at
  // global_address; throws tcgen::Error naming the field (e.g.
  // "box_dims[1]", "global_strides[0]", "global_address").
  void validate(std::uint64_t global_address) const;
};

// One tiled load of the box at coords (element coordinates of the box's
// first element, dims 0..rank-1; negative and out-of-range are allowed) from
// `global` (the tensor's bytes; its address is the map's global address)
// into a shared-memory image whose first byte has shared address image_base,
// the box starting at shared address dst_address. Element (x0..x4) of the box
// goes to byte element_bytes·x0 + smem_row_bytes()·(x1 + B1·(x2 + B2·(...)))
// after dst_address (Bi = box_extent(i)), then through the swizzle XOR of that
// absolute address; elements outside [0, global_dims) are written as zeros.
// Returns the transaction bytes, box_bytes() (it fits 32 bits: the box fits
// the image). Throws tcgen::Error naming the field for an invalid map, a
// `global` span shorter than the map spans ("global"), a dst_address not
// 128-byte aligned or a byte that would land outside the image ("dst_address").
std::uint32_t tma_load(const TensorMapSpec& spec, std::span<const std::uint8_t> global,
                       std::array<std::int32_t, 5> coords, std::span<std::uint8_t> smem_image,
                       std::uint32_t image_base, std::uint32_t dst_address);

// One tiled store (cp.async.bulk.tensor.Nd.global.shared::cta.tile): the box
// at coords read from shared memory at src_address, laid out and swizzled
// as tma_load writes it, into `global`; elements outside [0, global_dims)
// are not written (PTX #tensor-tiled-mode-oob-access). Returns the bytes
// written. Throws as tma_load, naming "src_address".
std::uint32_t tma_store(const TensorMapSpec& spec, std::span<std::uint8_t> global, std::array<std::int32_t, 5> coords,
                        std::span<const std::uint8_t> smem_image, std::uint32_t image_base, std::uint32_t src_address);

}  // namespace tcgen::model
