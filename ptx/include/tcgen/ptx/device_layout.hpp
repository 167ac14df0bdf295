#pragma once
// The architecture whose types give a kernel's parameters (Params<Arch>) the
// byte layout they have on the device, for host code that fills them in and
// launches the kernel's PTX on the host model: a tensor map is the 128
// aligned bytes of a CUtensorMap, here holding tcgen's encoding.
#include "tcgen/ptx/tensor_map.hpp"

namespace tcgen::ptx {

struct DeviceLayout {
  using TensorMap = ptx::TensorMap;
};

}  // namespace tcgen::ptx
