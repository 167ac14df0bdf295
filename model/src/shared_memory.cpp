#include "tcgen/model/shared_memory.hpp"

#include <algorithm>
#include <bit>
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::model {

SharedMemory::SharedMemory(std::uint32_t base, std::uint32_t bytes) : base_(base) {
  if (base % 1024 != 0) fail("smem_base", base, "a 1024-byte-aligned shared address");
  if (bytes == 0 || bytes > kMaxImageBytes)
    fail("smem_bytes", std::to_string(bytes),
         "1 to " + std::to_string(kMaxImageBytes) + " (227 KB, the most one CTA may have on sm_100, and the reserved KiB)");
  if (std::uint64_t{base} + bytes > kWindow)
    fail("smem_base", base, "an image that ends below 256 KiB, the window a descriptor's 14-bit address reaches");
  bytes_.assign(bytes, 0);
  chunks_.assign((bytes + 15) / 16, GenericWrite{});
  origins_.assign((bytes + 15) / 16, 0);
  known_.assign((bytes + 15) / 16, 0);
  known_chunks_ = 0;
  written_.assign((bytes + 63) / 64, 0);
}

void SharedMemory::mark_written(std::uint32_t addr, std::uint32_t n) {
  std::uint32_t i = addr - base_;
  const std::uint32_t end = i + n;
  while (i < end) {
    const std::uint32_t bit = i & 63, take = std::min<std::uint32_t>(64 - bit, end - i);
    written_[i >> 6] |= (take == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << take) - 1)) << bit;
    i += take;
  }
}

std::uint32_t SharedMemory::first_unwritten_slow(std::uint32_t addr, std::uint32_t n) const {
  std::uint32_t i = addr - base_;
  const std::uint32_t end = i + n;
  while (i < end) {
    const std::uint32_t bit = i & 63, take = std::min<std::uint32_t>(64 - bit, end - i);
    const std::uint64_t missing =
        ((take == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << take) - 1)) << bit) & ~written_[i >> 6];
    if (missing) return base_ + (i & ~63u) + static_cast<std::uint32_t>(std::countr_zero(missing));
    i += take;
  }
  return kAllWritten;
}

void SharedMemory::set_origin(std::uint32_t addr, std::uint32_t n, std::uint64_t global) {
  for (std::uint32_t at = addr; at < addr + n;) {
    const std::uint32_t chunk = (at - base_) / 16, start = base_ + chunk * 16, end = std::min(start + 16, addr + n);
    const std::uint64_t from = global ? global + (at - addr) - (at - start) : 0;  // the chunk's first byte's source
    const std::uint16_t piece = static_cast<std::uint16_t>(((1u << (end - at)) - 1) << (at - start));
    std::uint16_t& known = known_[chunk];
    known_chunks_ -= known == 0xFFFF;
    if (from == 0) {
      known &= static_cast<std::uint16_t>(~piece);  // these bytes' source is unknown now
    } else {
      if (origins_[chunk] != from) known = 0;  // another run of global memory: the old bytes disagree
      origins_[chunk] = from;
      known |= piece;
    }
    known_chunks_ += known == 0xFFFF;
    at = end;
  }
}

void SharedMemory::set_undefined(std::uint32_t addr, std::uint32_t n, std::uint32_t origin) {
  if (origin == 0 && undefined_count_ == 0) return;
  if (undefined_.empty()) undefined_.assign(bytes_.size(), 0);
  for (std::uint32_t i = addr - base_; i < addr - base_ + n; ++i) {
    undefined_count_ += (origin != 0) - (undefined_[i] != 0);
    undefined_[i] = origin;
  }
}

}  // namespace tcgen::model
