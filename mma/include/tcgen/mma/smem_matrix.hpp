#pragma once
// A typed shared-memory operand of tcgen05.mma: the 64-bit SM100 matrix
// descriptor of a canonical operand tile at a shared-memory address, with the
// tile's spec (element width, major-ness, swizzle, rows, K) in the type, so an
// MMA atom can check at compile time that the tile is the operand it reads.
//
// The descriptor of K step k is K step 0's with only the start address moved
// (descriptor_iterator.hpp; tcgen05-facts.md §1; PTX
// #tcgen05-shared-memory-descriptor). Everything but the address is known at
// compile time, so device code adds the address and the step's offset to a
// constant: no layout code runs on the GPU.
#include <cstdint>

#include "tcgen/core/host_device.hpp"
#include "tcgen/mma/descriptor_iterator.hpp"

namespace tcgen::mma {

namespace detail {
// Byte offset of K step k from K step 0 as two strides: `inner` between the
// steps inside one swizzle atom (per_atom of them), `outer` from atom to atom
// along K. SmemMatrix checks it against the layout for every step.
struct KStepStride {
  Int inner = 0, per_atom = 1, outer = 0;
  constexpr TCGEN_HD Int operator()(Int k) const { return inner * (k % per_atom) + outer * (k / per_atom); }
};

constexpr KStepStride kstep_stride(const layout::SmemOperand& op) {
  const auto off = [&](Int k) { return op.kstep_offset(k) - op.kstep_offset(0); };
  KStepStride s;
  s.inner = op.ksteps() > 1 ? off(1) : 0;
  s.per_atom = 1;
  while (s.per_atom < op.ksteps() && off(s.per_atom) == s.per_atom * s.inner) ++s.per_atom;
  s.outer = s.per_atom < op.ksteps() ? off(s.per_atom) : 0;
  return s;
}

constexpr bool kstep_stride_matches(const layout::SmemOperand& op) {
  const KStepStride s = kstep_stride(op);
  for (Int k = 0; k < op.ksteps(); ++k)
    if (s(k) != op.kstep_offset(k) - op.kstep_offset(0)) return false;
  return true;
}
}  // namespace detail

template <layout::SmemOperandSpec S>
class SmemMatrix {
 public:
  static constexpr layout::SmemOperandSpec spec = S;
  // Stops the compile with the layout rule's sentence for an illegal spec.
  static constexpr layout::SmemOperand operand = layout::smem_operand<S>();
  static constexpr int ksteps = static_cast<int>(operand.ksteps());

  // `smem_address`: where the tile starts in the shared window
  // (__cvta_generic_to_shared), a multiple of 16 bytes because the descriptor
  // stores address >> 4. In a cluster its bits 24 and up hold the CTA's rank
  // (hardware-checks.md), which the descriptor leaves out, as
  // matrix-descriptor-encode's & 0x3FFFF does. The data is swizzled on
  // absolute addresses, as TMA writes it, so the base offset is 0 wherever
  // the tile starts (checked on an H200, hardware-checks.md "base offset").
  constexpr TCGEN_HD explicit SmemMatrix(std::uint32_t smem_address)
      : desc_(kDescriptor0 + ((smem_address & kOffsetMask) >> 4)) {
#if !defined(__CUDA_ARCH__)
    // The device trusts its caller: shared memory (at most 228 KiB on sm_100) fits the window.
    const std::uint32_t offset = smem_address & kOffsetMask;
    if (offset % 16 != 0)
      fail("smem_address", smem_address, "expected a multiple of 16 bytes (the descriptor stores address >> 4)");
    if (offset + operand.size_bytes() > (Int{1} << 18))
      fail("smem_address", smem_address,
           "expected the tile inside the 18-bit shared-memory window [0, 262144) the start address encodes "
           "(bits 24 and up, a cluster rank, aside)");
#endif
  }

  // The descriptor of MMA K step k, 0 <= k < ksteps.
  constexpr TCGEN_HD std::uint64_t kstep(int k) const {
#if !defined(__CUDA_ARCH__)
    if (k < 0 || k >= ksteps) fail("kstep", k, "expected a K step inside the tile");
#endif
    return desc_ + static_cast<std::uint64_t>(detail::KStepStride{kInner, kPerAtom, kOuter}(k) >> 4);
  }

 private:
  static constexpr std::uint32_t kOffsetMask = 0xFFFFFF;  // below the rank bits
  // K step 0 of a tile at address 0: LBO, SBO, version, layout type.
  static constexpr std::uint64_t kDescriptor0 = encode(descriptor_fields(operand, 0));
  static_assert(sm100::start_address.lo == 0, "the address is added to the low bits of the descriptor");
  static_assert(detail::kstep_stride_matches(operand),
                "the K steps of this layout are not two strides (inside a swizzle atom, atom to atom)");
  // Scalars: device code may read a static constexpr member only if it is a scalar.
  static constexpr Int kInner = detail::kstep_stride(operand).inner;
  static constexpr Int kPerAtom = detail::kstep_stride(operand).per_atom;
  static constexpr Int kOuter = detail::kstep_stride(operand).outer;

  std::uint64_t desc_;
};

}  // namespace tcgen::mma
