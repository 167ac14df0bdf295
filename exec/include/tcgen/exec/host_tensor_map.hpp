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

}  // namespace tcgen::exec
