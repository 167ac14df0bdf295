#include "tcgen/tma/tensor_map.hpp"

#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/tma/sm100_limits.hpp"

namespace tcgen::tma {

namespace {

[[noreturn]] void fail_entry(const char* array, std::uint32_t i, std::uint64_t value, const char* expected) {
  throw Error(std::string(array) + "[" + std::to_string(i) + "]", std::to_string(value), expected);
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
  if (element_bytes != 1 && element_bytes != 2 && element_bytes != 4 && element_bytes != 8)
    fail("element_bytes", element_bytes, "1, 2, 4 or 8 bytes (the CUtensorMapDataType sizes modelled here)");
  if (rank < 1 || rank > 5) fail("rank", rank, "1 to 5 (DRV: tensorRank non-zero and at most 5)");
  if (global_address % kGlobalAlignment != 0)
    fail("global_address", static_cast<std::int64_t>(global_address), "a multiple of 16 (DRV: globalAddress 16 byte aligned)");
  for (std::uint32_t i = 0; i < rank; ++i) {
    if (global_dims[i] == 0 || global_dims[i] > (std::uint64_t{1} << 32))
      fail_entry("global_dims", i, global_dims[i], "1 to 2^32 elements (DRV: globalDim non-zero, at most 2^32)");
    if (i > 0 && (global_strides[i - 1] % kGlobalAlignment != 0 || global_strides[i - 1] >= (std::uint64_t{1} << 40)))
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

}  // namespace tcgen::tma
