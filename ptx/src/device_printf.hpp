#pragma once
// CUDA's device printf as it reaches PTX: vprintf(format, args), where args
// points to the arguments packed at their natural alignment (int and char
// as 4 bytes, long, pointers and double as 8; float promoted to double).
#include <cstdint>
#include <functional>
#include <string>

namespace tcgen::ptx {

// The text printf would print. arg(bytes) gives the next argument's bits
// (4 or 8 bytes, aligned as packed); text(address) the string at a %s.
std::string format_printf(const std::string& format, const std::function<std::uint64_t(int bytes)>& arg,
                          const std::function<std::string(std::uint64_t)>& text);

}  // namespace tcgen::ptx
