#include "tcgen/model/tma.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::model {

namespace {

[[noreturn]] void fail_entry(const char* array, std::uint32_t i, std::uint64_t value, const char* expected) {
  throw Error(std::string(array) + "[" + std::to_string(i) + "]", std::to_string(value), expected);
}

// The XOR patterns on absolute shared-memory byte addresses (tcgen05-facts.md
// §2.3; facts-2 §5.2; PTX #tensor-swizzling-modes): 16-byte chunks (32-byte
// for 128B_atom32B) of a 128-byte line permuted by the line's address bits 7+.
std::uint64_t swizzle(TmaSwizzle s, std::uint64_t a) {
  switch (s) {
    case TmaSwizzle::none: return a;
    case TmaSwizzle::b32: return a ^ ((a & 0x080) >> 3);           // bit 4 ^= bit 7
    case TmaSwizzle::b64: return a ^ ((a & 0x180) >> 3);           // bits 4-5 ^= bits 7-8
    case TmaSwizzle::b128: return a ^ ((a & 0x380) >> 3);          // bits 4-6 ^= bits 7-9
    case TmaSwizzle::b128_atom32b: return a ^ ((a & 0x180) >> 2);  // bits 5-6 ^= bits 7-8
  }
  return a;
}

// Bytes of one swizzle row (DRV: "Swizzle 16B chunks within 32B span", ...).
std::uint32_t swizzle_span(TmaSwizzle s) {
  switch (s) {
    case TmaSwizzle::none: return 0;
    case TmaSwizzle::b32: return 32;
    case TmaSwizzle::b64: return 64;
    case TmaSwizzle::b128:
    case TmaSwizzle::b128_atom32b: return 128;
  }
  return 0;
}

}  // namespace

std::uint32_t TensorMapSpec::box_extent(std::uint32_t dim) const {
  if (dim >= rank) return 1;
  if (dim == 0) return box_dims[0];
  return (box_dims[dim] + element_strides[dim] - 1) / element_strides[dim];  // DRV: ceil(boxDim/elementStrides)
}

std::uint64_t TensorMapSpec::box_bytes() const {
  std::uint64_t n = element_bytes;
  for (std::uint32_t i = 0; i < rank; ++i) n *= box_extent(i);
  return n;
}

std::uint64_t TensorMapSpec::spanned_bytes() const {
  std::uint64_t spanned = global_dims[0] * element_bytes;
  for (std::uint32_t i = 1; i < rank; ++i) spanned += (global_dims[i] - 1) * global_strides[i - 1];
  return spanned;
}

std::uint64_t TensorMapSpec::smem_row_bytes() const {
  return swizzle == TmaSwizzle::none ? std::uint64_t{box_dims[0]} * element_bytes : swizzle_span(swizzle);
}

// Each rule is the DRV text of cuTensorMapEncodeTiled (interleave NONE).
void TensorMapSpec::validate(std::uint64_t global_address) const {
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4)
    fail("element_bytes", element_bytes, "1, 2 or 4 bytes (the CUtensorMapDataType sizes modelled here)");
  if (rank < 1 || rank > 5) fail("rank", rank, "1 to 5 (DRV: tensorRank non-zero and at most 5)");
  if (global_address % 16 != 0)
    fail("global_address", static_cast<std::int64_t>(global_address), "a multiple of 16 (DRV: globalAddress 16 byte aligned)");
  for (std::uint32_t i = 0; i < rank; ++i) {
    if (global_dims[i] == 0 || global_dims[i] > (std::uint64_t{1} << 32))
      fail_entry("global_dims", i, global_dims[i], "1 to 2^32 elements (DRV: globalDim non-zero, at most 2^32)");
    if (i > 0 && (global_strides[i - 1] % 16 != 0 || global_strides[i - 1] >= (std::uint64_t{1} << 40)))
      fail_entry("global_strides", i - 1, global_strides[i - 1],
                 "a multiple of 16 bytes below 2^40 (DRV: globalStrides multiple of 16 and less than 2^40)");
    if (box_dims[i] == 0 || box_dims[i] > 256)
      fail_entry("box_dims", i, box_dims[i], "1 to 256 elements (DRV: boxDim non-zero and at most 256)");
    if (element_strides[i] == 0 || element_strides[i] > 8)
      fail_entry("element_strides", i, element_strides[i], "1 to 8 (DRV: elementStrides non-zero and at most 8)");
  }
  const std::uint64_t inner = std::uint64_t{box_dims[0]} * element_bytes;
  if (inner % 16 != 0)
    fail_entry("box_dims", 0, box_dims[0],
               "box_dims[0] * element_bytes a multiple of 16 bytes (DRV; PTX #tensor-tiled-mode-bounding-box)");
  if (swizzle != TmaSwizzle::none && inner > swizzle_span(swizzle))
    fail_entry("box_dims", 0, box_dims[0],
               "box_dims[0] * element_bytes at most the swizzle span of 32/64/128 bytes (DRV: bounding box inner "
               "dimension <= swizzle size)");
  if (oob_fill != TmaOobFill::zero)
    fail("oob_fill", "nan_request_zero_fma", "zero (the driver documents no bit pattern for the special NaN)");
}

namespace {

// The global memory and the map checked for one load or store of the box at
// smem_address, then f(smem byte address, global byte offset or -1 when the
// element lies outside the tensor) for each element of the box.
template <class F>
void walk_box(const TensorMapSpec& spec, std::span<const std::uint8_t> global, std::array<std::int32_t, 5> coords,
              std::uint32_t image_base, std::size_t image_bytes, std::uint32_t smem_address, const char* field, F f) {
  // The span is the tensor in memory, so its address is the map's globalAddress.
  spec.validate(reinterpret_cast<std::uintptr_t>(global.data()));
  const std::uint64_t e = spec.element_bytes;
  if (global.size() < spec.spanned_bytes())
    fail("global", std::to_string(global.size()) + " bytes",
         "at least " + std::to_string(spec.spanned_bytes()) + " bytes, the extent of global_dims and global_strides");
  // CUDA C++ Programming Guide, TMA alignment table (facts-2 §5.2; a secondary
  // quote). The swizzle needs no more: its pattern follows the absolute address.
  if (smem_address % 128 != 0) fail(field, smem_address, "a multiple of 128 (TMA shared-memory address alignment)");

  // Element n of the box in linear order, dim 0 fastest (PTX #tensors: "linear
  // data"; #tensor-tiled-mode-traversal-stride for dims 1+), rows
  // smem_row_bytes() apart.
  const std::uint64_t count = spec.box_bytes() / e, row_elements = spec.box_extent(0);
  for (std::uint64_t n = 0; n < count; ++n) {
    bool inside = true;
    std::uint64_t offset = 0;
    std::uint64_t rest = n;
    for (std::uint32_t i = 0; i < spec.rank; ++i) {
      const std::uint64_t x = rest % spec.box_extent(i);
      rest /= spec.box_extent(i);
      const std::int64_t g = std::int64_t{coords[i]} + static_cast<std::int64_t>(x * (i == 0 ? 1 : spec.element_strides[i]));
      if (g < 0 || static_cast<std::uint64_t>(g) >= spec.global_dims[i]) {
        inside = false;  // PTX #tensor-tiled-mode-oob-access
        continue;
      }
      offset += static_cast<std::uint64_t>(g) * (i == 0 ? e : spec.global_strides[i - 1]);
    }
    // The swizzle never splits an element: its XOR moves 16-byte (or larger) units.
    const std::uint64_t linear = n % row_elements * e + n / row_elements * spec.smem_row_bytes();
    const std::uint64_t address = swizzle(spec.swizzle, smem_address + linear);
    if (address < image_base || address + e > image_base + image_bytes)
      fail(field, std::to_string(smem_address),
           "a box of " + std::to_string(spec.box_bytes()) + " bytes whose every byte (swizzled) lies in the image [" +
               std::to_string(image_base) + ", " + std::to_string(image_base + image_bytes) + ")");
    f(address, inside ? static_cast<std::int64_t>(offset) : std::int64_t{-1});
  }
}

}  // namespace

std::uint32_t tma_load(const TensorMapSpec& spec, std::span<const std::uint8_t> global,
                       std::array<std::int32_t, 5> coords, std::span<std::uint8_t> smem_image,
                       std::uint32_t image_base, std::uint32_t dst_address) {
  const std::uint64_t e = spec.element_bytes;
  walk_box(spec, global, coords, image_base, smem_image.size(), dst_address, "dst_address",
           [&](std::uint64_t address, std::int64_t offset) {
             // Elements outside the tensor are filled with zeros.
             for (std::uint64_t b = 0; b < e; ++b)
               smem_image[address - image_base + b] = offset >= 0 ? global[static_cast<std::uint64_t>(offset) + b] : 0;
           });
  return static_cast<std::uint32_t>(spec.box_bytes());
}

std::uint32_t tma_store(const TensorMapSpec& spec, std::span<std::uint8_t> global, std::array<std::int32_t, 5> coords,
                        std::span<const std::uint8_t> smem_image, std::uint32_t image_base, std::uint32_t src_address) {
  const std::uint64_t e = spec.element_bytes;
  std::uint32_t written = 0;
  walk_box(spec, global, coords, image_base, smem_image.size(), src_address, "src_address",
           [&](std::uint64_t address, std::int64_t offset) {
             if (offset < 0) return;  // elements outside the tensor are not written
             for (std::uint64_t b = 0; b < e; ++b)
               global[static_cast<std::uint64_t>(offset) + b] = smem_image[address - image_base + b];
             written += static_cast<std::uint32_t>(e);
           });
  return written;
}

}  // namespace tcgen::model
