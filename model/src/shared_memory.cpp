#include "tcgen/model/shared_memory.hpp"

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
}

}  // namespace tcgen::model
