// The CUtensorMap decoder (ptx/tensor_map.hpp): the 128 bytes a kernel gets,
// which programs that encode their own maps (CuTe DSL) may fill with
// anything. Bytes 128.. choose one tensormap.replace edit, applied and
// decoded again, as a kernel's tensormap.replace then cp.async.bulk.tensor.
#include <cstring>
#include <string>

#include "fuzz.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/ptx/tensor_map.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tcgen::ptx;
  if (size < 128) return 0;
  TensorMap map;
  std::memcpy(map.bytes, data, 128);
  try {
    std::string why;
    (void)decode_tensor_map(map.bytes, &why);
    if (size >= 128 + 10) {
      const auto field = static_cast<TensorMapField>(data[128] % 11);
      const std::uint32_t ord = data[129] % 5;  // PTX's ord: a dimension 0..4
      std::uint64_t value;
      std::memcpy(&value, data + 130, 8);
      replace_field(map.bytes, field, ord, value);
      (void)decode_tensor_map(map.bytes, &why);
    }
  } catch (const tcgen::Error&) {
  }
  return 0;
}
