#pragma once
// A TMA tensor map on the host: the one description both sides build from
// (tma::TensorMapSpec, the arguments of cuTensorMapEncodeTiled) and the
// tensor's bytes. DeviceArch's counterpart is a CUtensorMap encoded from the
// same spec (device_tensor_map.hpp).
#include <cstdint>
#include <span>

#include "tcgen/tma/tensor_map.hpp"

namespace tcgen::exec {

struct HostTensorMap {
  tma::TensorMapSpec spec;
  std::span<const std::uint8_t> global;  // the tensor; its address is the map's globalAddress
};

// Checks the spec against the driver's rules for this tensor, as
// cuTensorMapEncodeTiled does on the device path, and that `global` holds
// every element the map spans; throws tcgen::Error naming the field.
HostTensorMap host_tensor_map(const tma::TensorMapSpec& spec, std::span<const std::uint8_t> global);
// The map over the spec.spanned_bytes() at `tensor`: the encode step of a
// kernel's params() on the host, as device_tensor_map is on the device.
inline HostTensorMap host_tensor_map_of(const tma::TensorMapSpec& spec, const void* tensor) {
  return host_tensor_map(spec, std::span(static_cast<const std::uint8_t*>(tensor), spec.spanned_bytes()));
}

}  // namespace tcgen::exec
