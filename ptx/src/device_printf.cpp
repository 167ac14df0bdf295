#include "device_printf.hpp"

#include <bit>
#include <cstdio>

namespace tcgen::ptx {

std::string format_printf(const std::string& format, const std::function<std::uint64_t(int bytes)>& arg,
                          const std::function<std::string(std::uint64_t)>& text) {
  std::string out;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      out += format[i];
      continue;
    }
    // %[flags][width][.precision][length]conversion, as C's printf.
    std::size_t j = i + 1;
    while (j < format.size() && std::string_view("-+ #0").find(format[j]) != std::string_view::npos) ++j;
    while (j < format.size() && (std::isdigit(static_cast<unsigned char>(format[j])) || format[j] == '.')) ++j;
    std::string length;
    while (j < format.size() && std::string_view("hlLqjzt").find(format[j]) != std::string_view::npos) length += format[j++];
    if (j >= format.size()) break;
    const char conv = format[j];
    const std::string spec = format.substr(i, j - i - length.size());  // without the length modifier
    char buf[4200];  // %s strings are at most 4096 characters (c_string), numbers far fewer
    const bool wide = length == "l" || length == "ll" || length == "j" || length == "z" || length == "t";
    switch (conv) {
      case '%': out += '%'; break;
      case 'd': case 'i': {
        const std::uint64_t v = arg(wide ? 8 : 4);
        const long long x = wide ? static_cast<long long>(v) : static_cast<std::int32_t>(v);
        std::snprintf(buf, sizeof buf, (spec + "lld").c_str(), x);
        out += buf;
        break;
      }
      case 'u': case 'x': case 'X': case 'o': {
        const std::uint64_t v = arg(wide ? 8 : 4);
        const unsigned long long x = wide ? v : static_cast<std::uint32_t>(v);
        std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), x);
        out += buf;
        break;
      }
      case 'c': std::snprintf(buf, sizeof buf, (spec + "c").c_str(), static_cast<int>(arg(4))); out += buf; break;
      case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
        std::snprintf(buf, sizeof buf, (spec + conv).c_str(), std::bit_cast<double>(arg(8)));
        out += buf;
        break;
      case 'p': std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(arg(8))); out += buf; break;
      case 's': {
        const std::string s = text(arg(8));
        std::snprintf(buf, sizeof buf, (spec + "s").c_str(), s.c_str());
        out += buf;
        break;
      }
      default: out += format.substr(i, j - i + 1); break;  // printed as written, as CUDA does
    }
    i = j;
  }
  return out;
}

}  // namespace tcgen::ptx
