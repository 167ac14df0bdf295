#pragma once
// Named bit fields of a 32- or 64-bit word. A descriptor format is a table of
// these, so packing, extraction and decoding share one definition of each
// field's position, and every error can name the field.
#include <cstdint>

#include "tcgen/core/host_device.hpp"

namespace tcgen {

struct BitField {
  const char* name;
  int lo;     // lowest bit
  int width;  // number of bits

  constexpr TCGEN_HD std::uint64_t mask() const {
    return (width >= 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << width) - 1)) << lo;
  }
  constexpr TCGEN_HD std::uint64_t max_value() const { return mask() >> lo; }
  constexpr TCGEN_HD bool fits(std::uint64_t value) const { return value <= max_value(); }
  constexpr TCGEN_HD std::uint64_t extract(std::uint64_t word) const { return (word & mask()) >> lo; }
  // Precondition: fits(value). Callers validate first so they can name the field.
  constexpr TCGEN_HD std::uint64_t insert(std::uint64_t word, std::uint64_t value) const {
    return (word & ~mask()) | ((value << lo) & mask());
  }
};

// Bits of `word` that no field of `fields` covers.
template <class Fields>
constexpr std::uint64_t uncovered_bits(const Fields& fields, std::uint64_t word_mask) {
  std::uint64_t covered = 0;
  for (const BitField& f : fields) covered |= f.mask();
  return word_mask & ~covered;
}

}  // namespace tcgen
