#pragma once
// A grid or CTA index with CUDA's three dimensions, for host and device code.
#include <cstdint>

#include "tcgen/core/host_device.hpp"

namespace tcgen::exec {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  constexpr TCGEN_HD unsigned count() const { return x * y * z; }
  // Block `i` of this grid in CUDA's linear order, x fastest.
  constexpr TCGEN_HD Dim3 at(std::uint64_t i) const {
    return {static_cast<unsigned>(i % x), static_cast<unsigned>(i / x % y), static_cast<unsigned>(i / x / y)};
  }
};

}  // namespace tcgen::exec
