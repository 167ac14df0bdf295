#include "tcgen/exec/host_tensor_map.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::exec {

HostTensorMap host_tensor_map(const tma::TensorMapSpec& spec, std::span<const std::uint8_t> global) {
  spec.validate(reinterpret_cast<std::uintptr_t>(global.data()));
  const std::uint64_t spanned = spec.spanned_bytes();
  if (global.size() < spanned)
    fail("global", std::to_string(global.size()) + " bytes",
         "at least " + std::to_string(spanned) + " bytes, the extent of global_dims and global_strides");
  return {spec, global};
}

}  // namespace tcgen::exec
