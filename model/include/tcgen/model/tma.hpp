#pragma once
// TMA tiled loads and stores (cp.async.bulk.tensor.Nd ... .tile) on the host:
// the bytes one load writes into shared memory and one store into global
// memory, for a tensor map of tma/tensor_map.hpp.
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
#include <utility>
#include <vector>

#include "tcgen/tma/tensor_map.hpp"

namespace tcgen::model {

using tma::TensorMapSpec;
using tma::TmaSwizzle;

// Where a load's 16-byte chunks came from: (shared address of the chunk, byte offset in the tensor of
// its first byte, -1 outside the tensor), for the shared memory's provenance (Cta::set_smem_origin).
using TmaOrigins = std::vector<std::pair<std::uint32_t, std::int64_t>>;

// One tiled load of the box at coords (element coordinates of the box's
// first element, dims 0..rank-1; negative and out-of-range are allowed) from
// `global` (the tensor's bytes; its address is the map's global address)
// into a shared-memory image whose first byte has shared address image_base,
// the box starting at shared address dst_address. Element (x0..x4) of the box
// goes to byte element_bytes·x0 + smem_row_bytes()·(x1 + B1·(x2 + B2·(...)))
// after dst_address (Bi = box_extent(i)), then through the swizzle XOR of that
// absolute address; elements outside [0, global_dims) are written as zeros. A
// packed 4- or 6-bit type moves dim 0 in units (TensorMapSpec::unit_elements):
// unit u of a row at unit_smem_bytes()·u, its unit_global_bytes() copied, a
// padded type's gap left alone. Returns the transaction bytes,
// transaction_bytes() (it fits 32 bits: the box fits the image). Throws
// tcgen::Error naming the field for an invalid map, a
// `global` span shorter than the map spans ("global"), a dst_address not
// 128-byte aligned or a byte that would land outside the image ("dst_address"),
// a packed type's box starting inside a unit ("coords[0]").
std::uint32_t tma_load(const TensorMapSpec& spec, std::span<const std::uint8_t> global,
                       std::array<std::int32_t, 5> coords, std::span<std::uint8_t> smem_image,
                       std::uint32_t image_base, std::uint32_t dst_address, TmaOrigins* origins = nullptr);

// cp.async.bulk.tensor.{3,4,5}d ... .im2col (PTX #tensor-im2col-mode): an im2col map's
// pixels_per_column pixels from the one at coords (c, then the spatial dims W first, then the
// batch), each moved by `offsets` (the instruction's im2col offsets, W first), as rows of
// channels_per_pixel channels from c, laid out and swizzled as tma_load lays out rows; pixels and
// channels outside the tensor are zeros (TensorMapSpec::im2col_row_offset). Returns the
// transaction bytes. Throws as tma_load, and naming "mode" for a tiled map or "coords[i]" for a
// first pixel that is not a position of the bounding box.
std::uint32_t tma_load_im2col(const TensorMapSpec& spec, std::span<const std::uint8_t> global,
                              std::array<std::int32_t, 5> coords, std::array<std::int32_t, 3> offsets,
                              std::span<std::uint8_t> smem_image, std::uint32_t image_base, std::uint32_t dst_address,
                              TmaOrigins* origins = nullptr);

// cp.async.bulk.tensor.2d ... .tile::gather4 (sm_100a; sparse attention's
// indexed rows): the rows `rows` (dim 1; any may lie outside the tensor and
// come as zeros) from column `col` (dim 0) on, of a 2-D map whose box is one
// row (box_dims[1] = 1), land as the four rows of a box four rows high:
// row i at dst_address + i·smem_row_bytes(), swizzled as tma_load swizzles.
// The operand order {col, row0, row1, row2, row3} is CUTLASS's
// SM100_TMA_LOAD_2D_GATHER4 (PTX's wording of it is disputed: NVIDIA forum
// "Clarify dimension ordering for SM100 TMA .tile::gather4"). Returns the
// transaction bytes, four boxes'. Throws as tma_load, and naming "rank" or
// "box_dims[1]" for a map gather4 cannot use.
std::uint32_t tma_load_gather4(const TensorMapSpec& spec, std::span<const std::uint8_t> global, std::int32_t col,
                               std::array<std::int32_t, 4> rows, std::span<std::uint8_t> smem_image,
                               std::uint32_t image_base, std::uint32_t dst_address, TmaOrigins* origins = nullptr);

// One tiled store (cp.async.bulk.tensor.Nd.global.shared::cta.tile): the box
// at coords read from shared memory at src_address, laid out and swizzled
// as tma_load writes it, into `global`; elements outside [0, global_dims)
// are not written (PTX #tensor-tiled-mode-oob-access). Returns the bytes
// written. Throws as tma_load, naming "src_address".
//
// With a reduction (cp.reduce.async.bulk.tensor, PTX #data-movement-and-conversion-instructions-
// cp-reduce-async-bulk-tensor), each element written becomes op(global, shared) by the map's data
// type: add of u32/s32/u64 and of f32, f16, bf16 (rounded to nearest even); min and max of the
// integer types and f16, bf16; inc and dec of u32; and, or, xor of the integer types. Throws naming "data_type" for a
// combination PTX does not define or a map without a type.
enum class TmaReduce { none, add, min, max, inc, dec, and_, or_, xor_ };
std::uint32_t tma_store(const TensorMapSpec& spec, std::span<std::uint8_t> global, std::array<std::int32_t, 5> coords,
                        std::span<const std::uint8_t> smem_image, std::uint32_t image_base, std::uint32_t src_address,
                        TmaReduce reduce = TmaReduce::none);

}  // namespace tcgen::model
