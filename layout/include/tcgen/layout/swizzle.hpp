#pragma once
// CuTe's Swizzle<B,M,S> as a value: XOR the B bits at [M+S, M+S+B) into the
// B bits at [M, M+B). tcgen applies it to *absolute* shared-memory byte
// addresses, as CuTe's swizzle_ptr does and as the hardware does (checked on
// an H200 with wgmma: ../shared/reference/hardware-checks.md, "base offset").
#include "tcgen/layout/layout.hpp"

namespace tcgen::layout {

struct Swizzle {
  int bits = 0;   // B: how many bits are permuted
  int base = 4;   // M: lowest permuted bit (4 = 16-byte chunks)
  int shift = 3;  // S: distance from the source bits to the permuted bits

  constexpr TCGEN_HD Int operator()(Int addr) const {
    const Int mask = ((Int{1} << bits) - 1) << (base + shift);
    return addr ^ ((addr & mask) >> shift);
  }
  // Bytes after which the pattern repeats (the alignment of a pattern start).
  constexpr Int period() const { return Int{1} << (base + shift + bits); }
  friend constexpr bool operator==(const Swizzle&, const Swizzle&) = default;
};

}  // namespace tcgen::layout
