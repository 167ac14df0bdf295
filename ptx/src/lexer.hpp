#pragma once
// The PTX lexer: PTX is line-oriented and regular, so words, strings and punctuation, each with
// its line; and the special registers by name (PTX #special-registers).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tcgen/ptx/instruction.hpp"

namespace tcgen::ptx {

struct Token {
  enum class Kind { word, string, punct, end } kind = Kind::end;
  std::string_view text;
  std::uint32_t line = 0;
  const char* begin = nullptr;  // in the source, for statement text
};

// The tokens of `s`, the last of kind end; `file` names it in errors.
std::vector<Token> lex(std::string_view s, const std::string& file);

// The special register a %name reads, if it is one.
std::optional<Special> special_register(std::string_view n);

}  // namespace tcgen::ptx
