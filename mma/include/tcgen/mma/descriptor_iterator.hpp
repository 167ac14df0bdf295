#pragma once
// The descriptors of an operand tile's MMA K steps, in order: the idea of
// CUTLASS's DescriptorIterator (one descriptor built once, then only its start
// address moved), written as a checked range over a SmemOperand.
//
// K step k reads the 32 bytes of K at kstep_offset(k) from the tile base. The
// descriptor of step k is step 0's with the start address advanced by that
// many bytes, inside a swizzle atom too: the swizzle is computed on the
// absolute address, so LBO, SBO and base offset stay those of the tile
// (tcgen05-facts.md §1 "How CUTLASS advances K inside a swizzle atom";
// checked on an H200, hardware-checks.md). PTX #tcgen05-shared-memory-descriptor.
#include <cstdint>
#include <iterator>

#include "tcgen/mma/smem_descriptor.hpp"

namespace tcgen::mma {

// The start address field is the same 14 bits on SM100 and SM90.
static_assert(sm100::start_address.lo == sm90::start_address.lo && sm100::start_address.width == sm90::start_address.width);

// `desc` with its start address moved by `bytes` (negative moves back), every
// other bit unchanged. The address must stay 16-byte aligned and inside the
// 18-bit shared-memory window the field encodes: a move out of it is an error
// naming start_address, never a silent wrap into the neighbouring fields.
constexpr std::uint64_t advance(std::uint64_t desc, Int bytes) {
  if (bytes % 16 != 0)
    fail("advance", bytes, "expected a multiple of 16 bytes (the start address is stored as bytes >> 4)");
  const Int start = (static_cast<Int>(sm100::start_address.extract(desc)) << 4) + bytes;
  if (start < 0 || start >= (Int{1} << 18))
    fail("start_address", start,
         "expected an address in the 18-bit shared-memory window [0, 262144) after the advance "
         "(matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4)");
  return sm100::start_address.insert(desc, static_cast<std::uint64_t>(start >> 4));
}

// for (std::uint64_t desc : KStepDescriptors(op, 0x400)) issue one MMA per desc.
class KStepDescriptors {
 public:
  constexpr KStepDescriptors(const layout::SmemOperand& op, Int tile_address,
                             DescriptorArch arch = DescriptorArch::sm100,
                             layout::SwizzleAnchor anchor = layout::SwizzleAnchor::absolute)
      : op_(op), arch_(arch), first_(encode(descriptor_fields(op, tile_address, 0, anchor), arch)) {}

  constexpr Int size() const { return op_.ksteps(); }
  // The descriptor of K step k (0 <= k < size()).
  constexpr std::uint64_t operator[](Int k) const {
    if (k < 0 || k >= size()) fail("kstep", k, "expected a K step inside the tile");
    return advance(first_, op_.kstep_offset(k) - op_.kstep_offset(0));
  }
  // The same, as fields in bytes.
  constexpr SmemDescriptorFields fields(Int k) const { return decode((*this)[k], arch_); }
  constexpr DescriptorArch arch() const { return arch_; }

  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::uint64_t;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using reference = std::uint64_t;

    constexpr iterator() = default;
    constexpr iterator(const KStepDescriptors* range, Int k) : range_(range), k_(k) {}
    constexpr std::uint64_t operator*() const { return (*range_)[k_]; }
    constexpr Int kstep() const { return k_; }
    constexpr iterator& operator++() { ++k_; return *this; }
    constexpr iterator operator++(int) { iterator old = *this; ++k_; return old; }
    friend constexpr bool operator==(const iterator& a, const iterator& b) { return a.k_ == b.k_; }

   private:
    const KStepDescriptors* range_ = nullptr;
    Int k_ = 0;
  };
  constexpr iterator begin() const { return {this, 0}; }
  constexpr iterator end() const { return {this, size()}; }

 private:
  layout::SmemOperand op_;
  DescriptorArch arch_;
  std::uint64_t first_;
};

}  // namespace tcgen::mma
