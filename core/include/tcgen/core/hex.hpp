#pragma once
// Numbers in hex for messages and reports, one spelling everywhere:
// hex(0x1f) is "0x1f"; hex(0x1f, 8) is "0x0000001f"; hex_upper as PTX
// listings and the tcgen CLI print descriptors, "0x08400490".
#include <cstdint>
#include <string>

namespace tcgen {

std::string hex(std::uint64_t v, int digits = 0);
std::string hex_upper(std::uint64_t v, int digits = 0);

}  // namespace tcgen
