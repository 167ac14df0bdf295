#include "tcgen/ptx/tensor_map.hpp"

#include <cstring>

namespace tcgen::ptx {

namespace {

constexpr std::uint32_t kMagic = 0x314d5447;  // "GTM1"

// The layout inside the 128 bytes. Bytes 8-15 carry nothing: CUTLASS 4.3.4
// and later clear bit 21 of that word after encoding (a driver workaround,
// copy_traits_sm90_tma.hpp), which must not change the map.
struct Packed {
  std::uint32_t magic;
  std::uint8_t element_bytes, rank, swizzle, oob_fill;
  std::uint64_t untouched;
  std::uint64_t global;
  std::uint64_t dims[5];
  std::uint64_t strides[4];
  std::uint32_t box[5];
  std::uint8_t element_strides[5];
  std::int8_t data_type;
  std::uint8_t im2col;  // 1: box holds channels, pixels, then the corners as 16-bit pairs (lower, upper)
};
static_assert(sizeof(Packed) <= sizeof(TensorMap::bytes));

}  // namespace

TensorMap encode_tensor_map(const tma::TensorMapSpec& spec, const void* global) {
  spec.validate(reinterpret_cast<std::uintptr_t>(global));
  return encode_unchecked(spec, reinterpret_cast<std::uintptr_t>(global));
}

TensorMap encode_unchecked(const tma::TensorMapSpec& spec, std::uint64_t global) {
  Packed p{};
  p.magic = kMagic;
  p.element_bytes = static_cast<std::uint8_t>(spec.element_bytes);
  p.rank = static_cast<std::uint8_t>(spec.rank);
  p.swizzle = static_cast<std::uint8_t>(spec.swizzle);
  p.oob_fill = static_cast<std::uint8_t>(spec.oob_fill);
  p.data_type = static_cast<std::int8_t>(spec.data_type);
  p.global = global;
  for (int i = 0; i < 5; ++i) {
    p.dims[i] = spec.global_dims[i];
    p.box[i] = spec.box_dims[i];
    p.element_strides[i] = static_cast<std::uint8_t>(spec.element_strides[i]);
  }
  if (spec.im2col.on) {  // validate() keeps each corner within 16 bits
    p.im2col = 1;
    p.box[0] = spec.im2col.channels_per_pixel;
    p.box[1] = spec.im2col.pixels_per_column;
    for (int i = 0; i < 3; ++i)
      p.box[2 + i] = static_cast<std::uint16_t>(spec.im2col.lower_corner[i]) |
                     static_cast<std::uint32_t>(static_cast<std::uint16_t>(spec.im2col.upper_corner[i])) << 16;
  }
  for (int i = 0; i < 4; ++i) p.strides[i] = spec.global_strides[i];
  TensorMap m{};
  std::memcpy(m.bytes, &p, sizeof p);
  return m;
}

std::optional<DecodedTensorMap> decode_tensor_map(const std::uint8_t* bytes) {
  Packed p;
  std::memcpy(&p, bytes, sizeof p);
  if (p.magic != kMagic) return std::nullopt;
  DecodedTensorMap d;
  d.spec.element_bytes = p.element_bytes;
  d.spec.rank = p.rank;
  d.spec.swizzle = static_cast<tma::TmaSwizzle>(p.swizzle);
  d.spec.oob_fill = static_cast<tma::TmaOobFill>(p.oob_fill);
  d.spec.data_type = p.data_type;
  for (int i = 0; i < 5; ++i) {
    d.spec.global_dims[i] = p.dims[i];
    d.spec.box_dims[i] = p.box[i];
    d.spec.element_strides[i] = p.element_strides[i];
  }
  for (int i = 0; i < 4; ++i) d.spec.global_strides[i] = p.strides[i];
  if (p.im2col) {
    d.spec.im2col.on = true;
    d.spec.im2col.channels_per_pixel = p.box[0];
    d.spec.im2col.pixels_per_column = p.box[1];
    for (int i = 0; i < 3; ++i) {
      d.spec.im2col.lower_corner[i] = static_cast<std::int16_t>(p.box[2 + i] & 0xFFFFu);
      d.spec.im2col.upper_corner[i] = static_cast<std::int16_t>(p.box[2 + i] >> 16);
      d.spec.box_dims[i] = 0;
    }
    d.spec.box_dims[3] = d.spec.box_dims[4] = 0;
  }
  d.global = p.global;
  return d;
}

}  // namespace tcgen::ptx
