#include "tcgen/exec/host_tensor_map.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::exec {

HostTensorMap host_tensor_map(const model::TensorMapSpec& spec, std::span<const std::uint8_t> global) {
  spec.validate(reinterpret_cast<std::uintptr_t>(global.data()));
  std::uint64_t spanned = spec.global_dims[0] * spec.element_bytes;  // one past the last element's byte
  for (std::uint32_t i = 1; i < spec.rank; ++i) spanned += (spec.global_dims[i] - 1) * spec.global_strides[i - 1];
  if (global.size() < spanned)
    fail("global", std::to_string(global.size()) + " bytes",
         "at least " + std::to_string(spanned) + " bytes, the extent of global_dims and global_strides");
  return {spec, global};
}

}  // namespace tcgen::exec
