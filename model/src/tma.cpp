#include "tcgen/model/tma.hpp"

#include <cstring>
#include <string>
#include <type_traits>

#include "tcgen/core/element_type.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/tma/sm100_limits.hpp"

namespace tcgen::model {

namespace {

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

// The global memory and the map checked for one load or store of the box at
// smem_address, then f(smem byte address, global byte offset or -1 when the
// element lies outside the tensor) for each element of the box. Row r of the
// box (a dim-0 run) starts at global byte row_at(r), -1 when the row lies
// outside the tensor.
// first_row: the box's rows land from that row of the window on (a gather4's row i).
template <class RowAt, class F>
void walk_rows(const TensorMapSpec& spec, std::span<const std::uint8_t> global, std::int32_t coord0,
               std::uint32_t image_base, std::size_t image_bytes, std::uint32_t smem_address, const char* field,
               RowAt row_at, F f, std::uint64_t first_row = 0) {
  // The span is the tensor in memory, so its address is the map's globalAddress.
  spec.validate(reinterpret_cast<std::uintptr_t>(global.data()));
  if (global.size() < spec.spanned_bytes())
    fail("global", std::to_string(global.size()) + " bytes",
         "at least " + std::to_string(spec.spanned_bytes()) + " bytes, the extent of global_dims and global_strides");
  // CUDA C++ Programming Guide, TMA alignment table (facts-2 §5.2; a secondary
  // quote). The swizzle needs no more: its pattern follows the absolute address.
  if (smem_address % tma::kBoxSmemAlignment != 0)
    fail(field, smem_address, "a multiple of 128 (TMA shared-memory address alignment)");
  // A packed type moves whole units (tma/tensor_map.hpp): a box starting inside one is not modelled
  // (PTX does not say what it reads; CUTLASS's boxes start at multiples of the box).
  const std::uint64_t unit = spec.unit_elements();
  if (coord0 % static_cast<std::int64_t>(unit) != 0)
    fail("coords[0]", std::to_string(coord0),
         "a multiple of " + std::to_string(unit) + " for a map of a packed 4- or 6-bit type (whole " +
             std::to_string(spec.unit_global_bytes()) + "-byte units; the host model moves no part of one)");

  const std::uint64_t row_units = spec.box_extent(0) / unit, rows = spec.box_bytes() / spec.unit_smem_bytes() / row_units;
  const std::uint64_t global_unit = spec.unit_global_bytes(), smem_unit = spec.unit_smem_bytes();
  const std::uint64_t row_bytes = spec.smem_row_bytes();
  const std::int64_t first_unit = coord0 / static_cast<std::int64_t>(unit);  // exact: checked above
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::int64_t row = row_at(r);
    for (std::uint64_t x = 0; x < row_units; ++x) {
      const std::int64_t g = std::int64_t{coord0} + static_cast<std::int64_t>(x * unit);  // its first element
      const bool inside = row >= 0 && g >= 0 && static_cast<std::uint64_t>(g) < spec.global_dims[0];
      // The swizzle never splits a unit: its XOR moves 16-byte (or larger) chunks.
      const std::uint64_t address = swizzle(spec.swizzle, smem_address + x * smem_unit + (first_row + r) * row_bytes);
      if (address < image_base || address + smem_unit > image_base + image_bytes)
        fail(field, std::to_string(smem_address),
             "a box of " + std::to_string(spec.box_bytes() * (first_row + 1)) +
                 " bytes whose every byte (swizzled) lies in the image [" +
                 std::to_string(image_base) + ", " + std::to_string(image_base + image_bytes) + ")");
      f(address, inside ? row + (first_unit + static_cast<std::int64_t>(x)) * static_cast<std::int64_t>(global_unit)
                        : std::int64_t{-1});
    }
  }
}

// A tiled box: element n of the box in linear order, dim 0 fastest (PTX
// #tensors: "linear data"; #tensor-tiled-mode-traversal-stride for dims 1+),
// rows smem_row_bytes() apart; the coordinates of dims 1+ and whether they lie
// inside the tensor hold for a whole row.
template <class F>
void walk_box(const TensorMapSpec& spec, std::span<const std::uint8_t> global, std::array<std::int32_t, 5> coords,
              std::uint32_t image_base, std::size_t image_bytes, std::uint32_t smem_address, const char* field, F f,
              std::uint64_t first_row = 0) {
  if (spec.im2col.on)
    fail("mode", "im2col", "a tiled map for a .tile TMA (an im2col map's loads are .im2col, with offsets)");
  const auto row_at = [&](std::uint64_t r) -> std::int64_t {
    std::int64_t offset = 0;
    for (std::uint32_t i = 1; i < spec.rank; ++i) {
      const std::uint64_t extent = spec.box_extent(i), x = r % extent;
      r /= extent;
      const std::int64_t g = std::int64_t{coords[i]} + static_cast<std::int64_t>(x * spec.element_strides[i]);
      if (g < 0 || static_cast<std::uint64_t>(g) >= spec.global_dims[i]) return -1;  // #tensor-tiled-mode-oob-access
      offset += g * static_cast<std::int64_t>(spec.global_strides[i - 1]);
    }
    return offset;
  };
  walk_rows(spec, global, coords[0], image_base, image_bytes, smem_address, field, row_at, f, first_row);
}

// The data types PTX reduces and the operations it defines on each (CUtensorMapDataType numbers).
enum : int { kU32 = 2, kS32 = 3, kU64 = 4, kS64 = 5, kF16 = 6, kF32 = 7, kBF16 = 9, kF32Ftz = 10 };

void check_reduction(int type, TmaReduce op) {
  const bool integer = type == kU32 || type == kS32 || type == kU64 || type == kS64;
  const bool floating = type == kF32 || type == kF32Ftz || type == kF16 || type == kBF16;
  bool defined = false;
  switch (op) {
    case TmaReduce::add: defined = floating || (integer && type != kS64); break;
    // PTX lists min and max for the 16-bit floats and the integers; f32 takes add only.
    case TmaReduce::min:
    case TmaReduce::max: defined = type == kF16 || type == kBF16 || integer; break;
    case TmaReduce::inc:
    case TmaReduce::dec: defined = type == kU32; break;
    case TmaReduce::and_:
    case TmaReduce::or_:
    case TmaReduce::xor_: defined = integer; break;
    case TmaReduce::none: defined = true; break;
  }
  if (!defined)
    fail("data_type", type,
         type < 0 ? "the map's data type, which a TMA reduction combines by (a map from cuTensorMapEncodeTiled "
                    "under tcgen run carries it)"
                  : "a type the reduction's operation is defined on (PTX #data-movement-and-conversion-"
                    "instructions-cp-reduce-async-bulk-tensor): add of u32/s32/u64/f32/f16/bf16, min/max of "
                    "the integer types and f16/bf16, inc/dec of u32, and/or/xor of the integer types");
}

template <class T>
T combine(TmaReduce op, T g, T s) {
  switch (op) {
    case TmaReduce::add: return static_cast<T>(g + s);
    case TmaReduce::min: return s < g ? s : g;
    case TmaReduce::max: return s > g ? s : g;
    default: break;
  }
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      case TmaReduce::inc: return g >= s ? T(0) : static_cast<T>(g + 1);
      case TmaReduce::dec: return (g == 0 || g > s) ? s : static_cast<T>(g - 1);
      case TmaReduce::and_: return static_cast<T>(g & s);
      case TmaReduce::or_: return static_cast<T>(g | s);
      case TmaReduce::xor_: return static_cast<T>(g ^ s);
      default: break;
    }
  }
  return g;
}

template <class T>
void combine_bytes(TmaReduce op, std::uint8_t* g, const std::uint8_t* s) {
  T a, b;
  std::memcpy(&a, g, sizeof a);
  std::memcpy(&b, s, sizeof b);
  a = combine(op, a, b);
  std::memcpy(g, &a, sizeof a);
}

// A 16-bit float: the sum exact in double, rounded to float and then to the type, which equals
// rounding it once (double rounding is innocuous with 24 >= 2p + 2 bits, p = 11 or 8).
void combine_half(ElementType t, TmaReduce op, std::uint8_t* g, const std::uint8_t* s) {
  std::uint16_t a, b;
  std::memcpy(&a, g, 2);
  std::memcpy(&b, s, 2);
  const double x = decode(t, a), y = decode(t, b);
  const double r = op == TmaReduce::add ? x + y : op == TmaReduce::min ? (y < x ? y : x) : (y > x ? y : x);
  a = static_cast<std::uint16_t>(encode(t, static_cast<float>(r)));
  std::memcpy(g, &a, 2);
}

void reduce_element(int type, TmaReduce op, std::uint8_t* g, const std::uint8_t* s) {
  switch (type) {
    case kU32: return combine_bytes<std::uint32_t>(op, g, s);
    case kS32: return combine_bytes<std::int32_t>(op, g, s);
    case kU64: return combine_bytes<std::uint64_t>(op, g, s);
    case kS64: return combine_bytes<std::int64_t>(op, g, s);
    case kF32:
    case kF32Ftz: return combine_bytes<float>(op, g, s);
    case kF16: return combine_half(ElementType::fp16, op, g, s);
    case kBF16: return combine_half(ElementType::bf16, op, g, s);
    default: return;  // check_reduction refused the rest
  }
}

// One unit of the box into shared memory at dst: its global bytes from offset, or zeros for a unit
// outside the tensor. A padded type's gap is not written (DRV calls it a gap; what lands there is
// UNCONFIRMED, and the MMA does not read it).
void copy_in(const TensorMapSpec& spec, std::span<const std::uint8_t> global, std::int64_t offset, std::uint8_t* dst) {
  const std::uint64_t n = spec.unit_global_bytes();
  if (offset >= 0)
    std::memcpy(dst, &global[static_cast<std::uint64_t>(offset)], n);
  else
    std::memset(dst, 0, n);
}

// An im2col TMA's first pixel names a position of the bounding box (PTX #tensor-im2col-mode): what
// the TMA does from elsewhere is not modelled.
void check_im2col_start(const TensorMapSpec& spec, const std::array<std::int32_t, 5>& coords) {
  spec.validate(0);
  for (std::uint32_t i = 1; i + 1 < spec.rank; ++i) {
    const std::int64_t k = std::int64_t{coords[i]} - spec.im2col.lower_corner[i - 1];
    if (k < 0 || k % spec.element_strides[i] != 0 || k / spec.element_strides[i] >= spec.im2col_positions(i))
      fail(("coords[" + std::to_string(i) + "]").c_str(), coords[i],
           ("a position of the bounding box: lower_corner + k·element_strides, up to global_dims - 1 + upper_corner (" +
            std::to_string(spec.im2col_positions(i)) + " positions from " +
            std::to_string(spec.im2col.lower_corner[i - 1]) + ")")
               .c_str());
  }
  if (coords[spec.rank - 1] < 0)
    fail(("coords[" + std::to_string(spec.rank - 1) + "]").c_str(), coords[spec.rank - 1], "a batch index, 0 or more");
}

}  // namespace

namespace {

// A unit that starts a 16-byte chunk of shared memory: where the chunk's bytes come from. A swizzle
// moves 16-byte chunks whole and a box row is at least 16 bytes, so the chunk is 16 bytes of one row.
void note_origin(TmaOrigins* origins, std::uint64_t address, std::int64_t offset) {
  if (origins && address % 16 == 0) origins->push_back({static_cast<std::uint32_t>(address), offset});
}

}  // namespace

std::uint32_t tma_load(const TensorMapSpec& spec, std::span<const std::uint8_t> global,
                       std::array<std::int32_t, 5> coords, std::span<std::uint8_t> smem_image,
                       std::uint32_t image_base, std::uint32_t dst_address, TmaOrigins* origins) {
  walk_box(spec, global, coords, image_base, smem_image.size(), dst_address, "dst_address",
           [&](std::uint64_t address, std::int64_t offset) {
             copy_in(spec, global, offset, &smem_image[address - image_base]);
             note_origin(origins, address, offset);
           });
  return static_cast<std::uint32_t>(spec.transaction_bytes());
}

std::uint32_t tma_load_im2col(const TensorMapSpec& spec, std::span<const std::uint8_t> global,
                              std::array<std::int32_t, 5> coords, std::array<std::int32_t, 3> offsets,
                              std::span<std::uint8_t> smem_image, std::uint32_t image_base, std::uint32_t dst_address,
                              TmaOrigins* origins) {
  if (!spec.im2col.on) fail("mode", "tiled", "an im2col map for a .im2col TMA (cuTensorMapEncodeIm2col)");
  check_im2col_start(spec, coords);
  walk_rows(spec, global, coords[0], image_base, smem_image.size(), dst_address, "dst_address",
            [&](std::uint64_t r) { return spec.im2col_row_offset(coords, offsets, static_cast<std::uint32_t>(r)); },
            [&](std::uint64_t address, std::int64_t offset) {
              copy_in(spec, global, offset, &smem_image[address - image_base]);
              note_origin(origins, address, offset);
            });
  return static_cast<std::uint32_t>(spec.transaction_bytes());
}

std::uint32_t tma_load_gather4(const TensorMapSpec& spec, std::span<const std::uint8_t> global, std::int32_t col,
                               std::array<std::int32_t, 4> rows, std::span<std::uint8_t> smem_image,
                               std::uint32_t image_base, std::uint32_t dst_address, TmaOrigins* origins) {
  if (spec.rank != 2) fail("rank", spec.rank, "2: tile::gather4 reads rows of a 2-D tensor");
  if (spec.box_dims[1] != 1)
    fail("box_dims[1]", spec.box_dims[1], "1: tile::gather4's map names one row, and the instruction four");
  for (std::uint64_t i = 0; i < rows.size(); ++i)
    walk_box(spec, global, {col, rows[i], 0, 0, 0}, image_base, smem_image.size(), dst_address, "dst_address",
             [&](std::uint64_t address, std::int64_t offset) {
               copy_in(spec, global, offset, &smem_image[address - image_base]);
               note_origin(origins, address, offset);
             },
             i);
  return static_cast<std::uint32_t>(4 * spec.transaction_bytes());
}

std::uint32_t tma_store(const TensorMapSpec& spec, std::span<std::uint8_t> global, std::array<std::int32_t, 5> coords,
                        std::span<const std::uint8_t> smem_image, std::uint32_t image_base, std::uint32_t src_address,
                        TmaReduce reduce) {
  const std::uint64_t e = spec.unit_global_bytes();
  if (reduce != TmaReduce::none) check_reduction(spec.data_type, reduce);
  std::uint32_t written = 0;
  const auto put = [&](std::uint64_t address, std::int64_t offset) {
    if (offset < 0) return;  // elements outside the tensor are not written
    std::uint8_t* g = &global[static_cast<std::uint64_t>(offset)];
    const std::uint8_t* s = &smem_image[address - image_base];
    if (reduce == TmaReduce::none)
      std::memcpy(g, s, e);
    else
      reduce_element(spec.data_type, reduce, g, s);
    written += static_cast<std::uint32_t>(e);
  };
  if (spec.im2col.on) {  // .im2col_no_offs: the pixels from the one at coords, without offsets
    check_im2col_start(spec, coords);
    walk_rows(spec, global, coords[0], image_base, smem_image.size(), src_address, "src_address",
              [&](std::uint64_t r) { return spec.im2col_row_offset(coords, {}, static_cast<std::uint32_t>(r)); }, put);
  } else {
    walk_box(spec, global, coords, image_base, smem_image.size(), src_address, "src_address", put);
  }
  return written;
}

}  // namespace tcgen::model
