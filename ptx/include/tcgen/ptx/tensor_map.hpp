#pragma once
// The host model's CUtensorMap: the 128 opaque bytes a kernel receives for a
// TMA tensor map (by value in its parameters, or anywhere in memory), here
// holding the tma::TensorMapSpec that cuTensorMapEncodeTiled takes and
// the tensor's address. NVIDIA's encoding is undocumented; this one is
// tcgen's own, and cp.async.bulk.tensor decodes it from whatever address
// its operand names.
#include <cstdint>
#include <optional>

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
// The same bytes without the driver's checks: a map as tensormap.replace
// leaves it, which only its use by a TMA checks.
TensorMap encode_unchecked(const tma::TensorMapSpec& spec, std::uint64_t global);
// nullopt: the bytes are no tensor map of this encoding.
std::optional<DecodedTensorMap> decode_tensor_map(const std::uint8_t* bytes);

}  // namespace tcgen::ptx
