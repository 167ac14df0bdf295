#pragma once
// A Tensor Memory address: lane in bits 31-16, column in bits 15-0
// (PTX #tcgen05-tensor-memory-addressing). Lanes and columns move only through
// lane_offset() and col_offset(), never a raw "+ 16": the user's second
// tcgen05.st.16x256b faulted because taddr + 16 moved 16 *columns* where the
// second half of the warp's lanes is at lane + 16 (../shared/seed/README.md).
#include <cstdint>
#include <string>

#include "tcgen/core/host_device.hpp"

namespace tcgen::tmem {

class TmemAddress {
 public:
  constexpr TmemAddress() = default;
  constexpr TCGEN_HD TmemAddress(std::uint32_t lane, std::uint32_t column) : raw_((lane << 16) | (column & 0xFFFFu)) {}
  // The 32-bit value tcgen05.alloc writes to shared memory.
  static constexpr TCGEN_HD TmemAddress from_raw(std::uint32_t raw) {
    TmemAddress a;
    a.raw_ = raw;
    return a;
  }

  constexpr TCGEN_HD std::uint32_t raw() const { return raw_; }
  constexpr TCGEN_HD std::uint32_t lane() const { return raw_ >> 16; }
  constexpr TCGEN_HD std::uint32_t column() const { return raw_ & 0xFFFFu; }

  constexpr TCGEN_HD TmemAddress lane_offset(std::uint32_t lanes) const { return {lane() + lanes, column()}; }
  constexpr TCGEN_HD TmemAddress col_offset(std::uint32_t columns) const { return {lane(), column() + columns}; }

  friend constexpr bool operator==(TmemAddress, TmemAddress) = default;

 private:
  std::uint32_t raw_ = 0;
};

// "lane 16, column 8 (0x00100008)" (host only).
std::string to_string(TmemAddress a);

}  // namespace tcgen::tmem
