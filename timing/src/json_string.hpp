#pragma once
// A string as a JSON string literal: quoted, with '"' and '\' escaped (the
// names the timing model writes hold no control characters).
#include <string>

namespace tcgen::timing {

inline std::string json_string(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

}  // namespace tcgen::timing
