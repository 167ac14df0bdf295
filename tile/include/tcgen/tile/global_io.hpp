#pragma once
// 16-byte moves between registers and global memory, for the epilogue's
// rows of D and C. On the device one st.global.v4 / ld.global.v4 each (the
// address must be 16-byte aligned: the caller checks); on the host, memcpy.
#include <cstdint>
#include <cstring>

#include "tcgen/core/host_device.hpp"

namespace tcgen::tile {

struct Vec16 {
  std::uint32_t w[4];
};

TCGEN_HD inline void store16(void* dst, const Vec16& v) {
#if defined(__CUDA_ARCH__)
  *static_cast<uint4*>(dst) = make_uint4(v.w[0], v.w[1], v.w[2], v.w[3]);
#else
  std::memcpy(dst, v.w, 16);
#endif
}

TCGEN_HD inline Vec16 load16(const void* src) {
#if defined(__CUDA_ARCH__)
  const uint4 u = *static_cast<const uint4*>(src);
  return {{u.x, u.y, u.z, u.w}};
#else
  Vec16 v;
  std::memcpy(v.w, src, 16);
  return v;
#endif
}

}  // namespace tcgen::tile
