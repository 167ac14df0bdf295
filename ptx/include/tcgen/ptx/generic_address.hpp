#pragma once
// The generic address space of the host model: global addresses are host
// addresses (a kernel's global memory is the host memory its arguments point
// to), and the shared and local windows lie above the 47-bit user space, so
// no host pointer falls in them. cvta moves between a window and its space
// (PTX #generic-addressing).
#include <cstdint>

namespace tcgen::ptx {

inline constexpr std::uint64_t kSharedWindow = 0x0001000000000000ull;  // + a 32-bit shared address
inline constexpr std::uint64_t kLocalWindow = 0x0002000000000000ull;   // + the thread's local address
inline constexpr std::uint64_t kWindowBytes = 1ull << 32;

constexpr bool in_shared_window(std::uint64_t a) { return a - kSharedWindow < kWindowBytes; }
constexpr bool in_local_window(std::uint64_t a) { return a - kLocalWindow < kWindowBytes; }

}  // namespace tcgen::ptx
