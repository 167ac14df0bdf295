#pragma once
// Addresses and descriptors print in hex in the model's messages.
#include <cstdint>
#include <cstdio>
#include <string>

namespace tcgen::model {

inline std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace tcgen::model
