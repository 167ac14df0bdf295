#pragma once
// A grid or CTA index with CUDA's three dimensions, for host and device code.
#include "tcgen/core/host_device.hpp"

namespace tcgen::exec {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr TCGEN_HD unsigned count() const { return x * y * z; }
};

}  // namespace tcgen::exec
