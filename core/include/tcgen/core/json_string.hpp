#pragma once
// A string as a JSON string literal (RFC 8259 §7): quoted, '"' and '\' escaped,
// control characters as \u00XX. Every JSON tcgen writes quotes its strings here.
#include <cstdio>
#include <string>
#include <string_view>

namespace tcgen {

inline std::string json_string(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace tcgen
