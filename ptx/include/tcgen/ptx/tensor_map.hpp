#pragma once
// The CUtensorMap: the 128 opaque bytes a kernel receives for a TMA tensor
// map (by value in its parameters, or anywhere in memory), in NVIDIA's own
// layout, as the driver's cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col
// write it and tensormap.replace edits it. The layout is undocumented; it
// was read from an H200 (driver 580.159.04) that encoded 1,569 maps over a
// sweep of every argument and ran every tensormap.replace field:
// docs/tensor_map.md has the field table, tools/tensormap_sweep the probes,
// tests/data/tensormap_*_h200.csv* the recordings. cp.async.bulk.tensor
// decodes it from whatever address its operand names, so programs that
// encode their maps themselves (CuTe DSL) run as well.
#include <cstdint>
#include <optional>
#include <string>

#include "tcgen/tma/tensor_map.hpp"

namespace tcgen::ptx {

struct TensorMap {
  alignas(128) std::uint8_t bytes[128];  // CUDA 13 aligns CUtensorMap to 128 (12.x: 64)
};

struct DecodedTensorMap {
  tma::TensorMapSpec spec;
  std::uint64_t global = 0;  // the tensor's host address
};

// Validates spec for the tensor at `global` as the driver would
// (TensorMapSpec::validate; throws tcgen::Error naming the field).
TensorMap encode_tensor_map(const tma::TensorMapSpec& spec, const void* global);
// The same bytes without the driver's checks. A spec without a data type
// (data_type -1) is encoded as the unsigned type of its element size, as
// exec::device_tensor_map encodes it for the GPU.
TensorMap encode_unchecked(const tma::TensorMapSpec& spec, std::uint64_t global);
// nullopt where the bytes hold anything this layout does not explain, or a
// map the model does not move (interleaved, an unknown element type or
// swizzle); `why`, where given, then says which bits and what they hold.
std::optional<DecodedTensorMap> decode_tensor_map(const std::uint8_t* bytes, std::string* why = nullptr);

// The fields tensormap.replace writes (PTX #data-movement-and-conversion-instructions-tensormap-replace).
enum class TensorMapField {
  global_address, rank, box_dim, global_dim, global_stride, element_stride, elemtype, interleave_layout,
  swizzle_mode, swizzle_atomicity, fill_mode,
};
// Writes one field as tensormap.replace writes it on an H200 (replace_probe.csv): new_val in PTX's
// encoding (rank zero-based; box_dim, global_dim and element_stride as the driver takes them; strides in
// bytes; elemtype in PTX's numbering), ord the dimension where the field has one. Only that field's bits
// change: the driver's derived words (box bytes, swizzle alignment) stay as they were, as on the GPU. The
// caller checks new_val against PTX's ranges; values that do not fit the field are cut to its bits.
void replace_field(std::uint8_t* bytes, TensorMapField field, std::uint32_t ord, std::uint64_t new_val);

}  // namespace tcgen::ptx
