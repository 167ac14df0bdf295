#include "tcgen/tma/tensor_map.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "tcgen/core/error.hpp"
#include "tcgen/tma/sm100_limits.hpp"

namespace tcgen::tma {

namespace {

[[noreturn]] void fail_entry(const char* array, std::uint32_t i, std::uint64_t value, const char* expected) {
  throw Error(std::string(array) + "[" + std::to_string(i) + "]", std::to_string(value), expected);
}

// DRV, cuTensorMapEncodeIm2col: the rank, channelsPerPixel and pixelsPerColumn, and the corners'
// range, which narrows with the rank (one 16-bit offset for rank 3, two of 8 bits, three of 5).
void validate_im2col(const TensorMapSpec& m) {
  if (m.rank < 3) fail("rank", m.rank, "3 to 5 for an im2col map (DRV: tensorRank at least 3)");
  if (m.packing() != TmaPacking::none)
    fail("data_type", m.data_type, "a type of whole bytes: the host model's im2col maps do not move packed 4- or 6-bit types");
  if (m.im2col.channels_per_pixel == 0 || m.im2col.channels_per_pixel > 256)
    fail("channels_per_pixel", m.im2col.channels_per_pixel, "1 to 256 (DRV)");
  if (m.im2col.pixels_per_column == 0 || m.im2col.pixels_per_column > 1024)
    fail("pixels_per_column", m.im2col.pixels_per_column, "1 to 1024 (DRV)");
  const std::int32_t limit = m.rank == 3 ? 32768 : m.rank == 4 ? 128 : 16;
  for (std::uint32_t i = 0; i + 2 < m.rank; ++i)
    for (const auto& [name, corner] : {std::pair{"lower_corner", m.im2col.lower_corner[i]},
                                       std::pair{"upper_corner", m.im2col.upper_corner[i]}})
      if (corner < -limit || corner >= limit)
        throw Error(std::string(name) + "[" + std::to_string(i) + "]", std::to_string(corner),
             "-" + std::to_string(limit) + " to " + std::to_string(limit - 1) + " for a rank-" +
                 std::to_string(m.rank) + " im2col map (DRV)");
  // The bounding box holds a position along each spatial dim (H200 sweep, docs/tensor_map.md:
  // globalDim - 1 + upper - lower of -3 and below refused, 2 and above taken).
  for (std::uint32_t i = 1; i + 1 < m.rank; ++i)
    if (static_cast<std::int64_t>(m.global_dims[i]) - 1 + m.im2col.upper_corner[i - 1] - m.im2col.lower_corner[i - 1] < 0)
      throw Error("lower_corner[" + std::to_string(i - 1) + "]", std::to_string(m.im2col.lower_corner[i - 1]),
                  "a bounding box of at least one position: globalDim[" + std::to_string(i) + "] - 1 + upper_corner - "
                  "lower_corner >= 0 (the driver refuses an empty one)");
}

}  // namespace

TmaPacking TensorMapSpec::packing() const {
  switch (data_type) {
    case 13: return TmaPacking::u4_align8b;
    case 14: return TmaPacking::u4_align16b;
    case 15: return TmaPacking::u6_align16b;
    default: return TmaPacking::none;
  }
}

std::uint32_t TensorMapSpec::unit_elements() const {
  switch (packing()) {
    case TmaPacking::none: return 1;
    case TmaPacking::u4_align8b: return 2;
    default: return 16;
  }
}

std::uint32_t TensorMapSpec::unit_global_bytes() const {
  switch (packing()) {
    case TmaPacking::none: return element_bytes;
    case TmaPacking::u4_align8b: return 1;
    case TmaPacking::u4_align16b: return 8;
    case TmaPacking::u6_align16b: return 12;
  }
  return element_bytes;
}

std::uint32_t TensorMapSpec::unit_smem_bytes() const {
  switch (packing()) {
    case TmaPacking::none: return element_bytes;
    case TmaPacking::u4_align8b: return 1;
    default: return 16;
  }
}

std::uint32_t TensorMapSpec::box_extent(std::uint32_t dim) const {
  if (im2col.on) return dim == 0 ? im2col.channels_per_pixel : dim == 1 ? im2col.pixels_per_column : 1;
  if (dim >= rank) return 1;
  if (dim == 0) return box_dims[0];
  return (box_dims[dim] + element_strides[dim] - 1) / element_strides[dim];  // DRV: ceil(boxDim/elementStrides)
}

std::uint64_t TensorMapSpec::box_bytes() const {
  std::uint64_t n = std::uint64_t{box_extent(0)} / unit_elements() * unit_smem_bytes();
  for (std::uint32_t i = 1; i < rank; ++i) n *= box_extent(i);
  return n;
}

std::uint64_t TensorMapSpec::transaction_bytes() const {
  return box_bytes() / unit_smem_bytes() * unit_global_bytes();
}

std::uint64_t TensorMapSpec::driver_box_bytes() const {
  if (im2col.on) return std::uint64_t{element_bytes} * im2col.channels_per_pixel * im2col.pixels_per_column;
  std::uint64_t n = element_bytes;
  for (std::uint32_t i = 0; i < rank && i < 5; ++i) n *= element_strides[i] ? box_dims[i] / element_strides[i] : 0;
  return n;
}

std::uint64_t TensorMapSpec::spanned_bytes() const {
  std::uint64_t spanned = global_dims[0] / unit_elements() * unit_global_bytes();
  for (std::uint32_t i = 1; i < rank; ++i) spanned += (global_dims[i] - 1) * global_strides[i - 1];
  return spanned;
}

std::int64_t TensorMapSpec::im2col_positions(std::uint32_t dim) const {
  const std::int64_t last = static_cast<std::int64_t>(global_dims[dim]) - 1 + im2col.upper_corner[dim - 1];
  const std::int64_t span = last - im2col.lower_corner[dim - 1];
  return span < 0 ? 0 : span / element_strides[dim] + 1;
}

std::int64_t TensorMapSpec::im2col_row_offset(const std::array<std::int32_t, 5>& coords,
                                              const std::array<std::int32_t, 3>& offsets, std::uint32_t r) const {
  // The pixels of the bounding box in order, W fastest, then H, D and the batch: the first one's
  // index, plus r, taken apart again.
  const std::uint32_t spatial = rank - 2;
  std::int64_t index = coords[rank - 1];
  for (std::uint32_t i = spatial; i >= 1; --i)
    index = index * im2col_positions(i) + (coords[i] - im2col.lower_corner[i - 1]) / element_strides[i];
  index += r;
  std::int64_t offset = 0;
  for (std::uint32_t i = 1; i <= spatial; ++i) {
    const std::int64_t positions = im2col_positions(i);
    if (positions == 0) return -1;
    const std::int64_t p = im2col.lower_corner[i - 1] + index % positions * element_strides[i] + offsets[i - 1];
    index /= positions;
    if (p < 0 || p >= static_cast<std::int64_t>(global_dims[i])) return -1;
    offset += p * static_cast<std::int64_t>(global_strides[i - 1]);
  }
  if (index >= static_cast<std::int64_t>(global_dims[rank - 1])) return -1;
  return offset + index * static_cast<std::int64_t>(global_strides[rank - 2]);
}

std::array<std::uint64_t, 2> TensorMapSpec::touched_bytes(const std::array<std::int32_t, 5>& coords,
                                                          const std::array<std::int32_t, 3>& offsets) const {
  if (im2col.on) {  // each pixel's channels [c, c + channels_per_pixel), those inside the tensor
    const std::int64_t c0 = std::max<std::int64_t>(coords[0], 0);
    const std::int64_t c1 = std::min<std::int64_t>(std::int64_t{coords[0]} + im2col.channels_per_pixel,
                                                   static_cast<std::int64_t>(global_dims[0]));
    std::int64_t first = -1, end = -1;
    for (std::uint32_t r = 0; c0 < c1 && r < im2col.pixels_per_column; ++r)
      if (const std::int64_t row = im2col_row_offset(coords, offsets, r); row >= 0) {
        first = first < 0 ? row + c0 * element_bytes : std::min(first, row + c0 * element_bytes);
        end = std::max(end, row + c1 * element_bytes);
      }
    return first < 0 ? std::array<std::uint64_t, 2>{0, 0}
                     : std::array<std::uint64_t, 2>{static_cast<std::uint64_t>(first), static_cast<std::uint64_t>(end)};
  }
  std::uint64_t first = 0, last = 0;
  for (std::uint32_t i = 0; i < rank; ++i) {
    // The box's elements along dim i at coords[i] + x·step, x < box_extent(i), kept inside [0, global_dims[i]).
    const std::int64_t step = i == 0 ? 1 : element_strides[i], lo = coords[i];
    const std::int64_t hi = lo + (static_cast<std::int64_t>(box_extent(i)) - 1) * step;
    const auto dim = static_cast<std::int64_t>(global_dims[i]);
    if (hi < 0 || lo >= dim) return {0, 0};
    const std::int64_t in_lo = lo >= 0 ? lo : lo + ((-lo + step - 1) / step) * step;
    const std::int64_t in_hi = hi < dim ? hi : hi - ((hi - dim) / step + 1) * step;
    if (in_lo > in_hi) return {0, 0};
    const std::uint64_t bytes = i == 0 ? unit_global_bytes() : global_strides[i - 1];
    const std::uint64_t per = i == 0 ? unit_elements() : 1;
    first += static_cast<std::uint64_t>(in_lo) / per * bytes;
    last += static_cast<std::uint64_t>(in_hi) / per * bytes;
  }
  return {first, last + unit_global_bytes()};
}

std::uint64_t TensorMapSpec::smem_row_bytes() const {
  return swizzle == TmaSwizzle::none ? std::uint64_t{box_extent(0)} / unit_elements() * unit_smem_bytes()
                                     : swizzle_span(swizzle);
}

// Each rule is the DRV text of cuTensorMapEncodeTiled (interleave NONE).
void TensorMapSpec::validate(std::uint64_t global_address) const {
  const TmaPacking packed = packing();
  const bool align16b = packed == TmaPacking::u4_align16b || packed == TmaPacking::u6_align16b;
  if (packed == TmaPacking::none && element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8)
    fail("element_bytes", element_bytes, "1, 2, 4 or 8 bytes (the CUtensorMapDataType sizes modelled here)");
  if (rank < 1 || rank > 5) fail("rank", rank, "1 to 5 (DRV: tensorRank non-zero and at most 5)");
  if (global_address >> 57 != 0)  // the H200's driver refused every address from 2^57 (docs/tensor_map.md)
    fail("global_address", static_cast<std::int64_t>(global_address), "an address below 2^57 (the driver's limit)");
  if (global_address % kGlobalAlignment != 0)
    fail("global_address", static_cast<std::int64_t>(global_address), "a multiple of 16 (DRV: globalAddress 16 byte aligned)");
  if (align16b && global_address % 32 != 0)
    fail("global_address", static_cast<std::int64_t>(global_address),
         "a multiple of 32 for the 16U4_ALIGN16B and 16U6_ALIGN16B types (DRV)");
  if (global_dims[0] % unit_elements() != 0)
    fail_entry("global_dims", 0, global_dims[0],
               align16b ? "a multiple of 128 for the 16U4_ALIGN16B and 16U6_ALIGN16B types (DRV)"
                        : "a multiple of 2 for the 16U4_ALIGN8B type (DRV)");
  if (align16b && !im2col.on && box_dims[0] != 128)
    fail_entry("box_dims", 0, box_dims[0], "128 for the 16U4_ALIGN16B and 16U6_ALIGN16B types (DRV)");
  for (std::uint32_t i = 0; i < rank; ++i) {
    if (global_dims[i] == 0 || global_dims[i] > (std::uint64_t{1} << 32))
      fail_entry("global_dims", i, global_dims[i], "1 to 2^32 elements (DRV: globalDim non-zero, at most 2^32)");
    if (i > 0 && (global_strides[i - 1] % (align16b ? 32 : kGlobalAlignment) != 0 ||
                  global_strides[i - 1] >= (std::uint64_t{1} << 40)))
      fail_entry("global_strides", i - 1, global_strides[i - 1],
                 align16b ? "a multiple of 32 bytes below 2^40 for the 16U4_ALIGN16B and 16U6_ALIGN16B types (DRV)"
                          : "a multiple of 16 bytes below 2^40 (DRV: globalStrides multiple of 16 and less than 2^40)");
    if (!im2col.on && (box_dims[i] == 0 || box_dims[i] > 256))
      fail_entry("box_dims", i, box_dims[i], "1 to 256 elements (DRV: boxDim non-zero and at most 256)");
    if (element_strides[i] == 0 || element_strides[i] > 8)
      fail_entry("element_strides", i, element_strides[i], "1 to 8 (DRV: elementStrides non-zero and at most 8)");
  }
  if (im2col.on) validate_im2col(*this);
  // The box's inner bytes in shared memory (a packed type's elements at their bits, padded to 16 bytes
  // a chunk for ALIGN16B; box_dims[0] = 128 makes any of those whole).
  const char* inner_field = im2col.on ? "channels_per_pixel" : "box_dims[0]";
  const std::uint32_t inner_elements = box_extent(0);
  if (inner_elements % unit_elements() != 0)
    fail(inner_field, inner_elements, "a multiple of 2 for the 16U4_ALIGN8B type: whole bytes (DRV's 16-byte rule asks 32)");
  const std::uint64_t inner = std::uint64_t{inner_elements} / unit_elements() * unit_smem_bytes();
  if (inner % 16 != 0)
    fail(inner_field, inner_elements, "a row of a multiple of 16 bytes (DRV; PTX #tensor-tiled-mode-bounding-box)");
  if (swizzle != TmaSwizzle::none && inner > swizzle_span(swizzle))
    fail(inner_field, inner_elements,
         "a row of at most the swizzle span of 32/64/128 bytes (DRV: bounding box inner dimension <= swizzle size)");
  if (driver_box_bytes() > kSmemBytesPerCta)  // H200 sweep: 229,376 bytes taken, 238,560 refused
    fail(im2col.on ? "pixels_per_column" : "box_dims", std::to_string(driver_box_bytes()) + " bytes in the box",
         "at most " + std::to_string(kSmemBytesPerCta) +
             ", a CTA's shared memory (the driver counts element bytes times floor(boxDim / elementStrides) per "
             "dim, or channels times pixels)");
  if (oob_fill != TmaOobFill::zero)
    fail("oob_fill", "nan_request_zero_fma", "zero (the driver documents no bit pattern for the special NaN)");
}

}  // namespace tcgen::tma
