#pragma once
// The options part of a verb's --help, written from its option declarations
// (args.hpp) so that the help names exactly what the parser takes, with the
// defaults the parser uses:
//   --name VALUE    help, "{--name}" replaced by that option's declared
//                   fallback (continuation lines indented to the same column)
// Options with no help of their own share the next one's, on one line:
// "--m M, --n N, --k K", or "--q, --k, --v FILE" when they take the same value.
#include <algorithm>
#include <array>
#include <iterator>
#include <span>
#include <string>
#include <string_view>

#include "args.hpp"

namespace tcgen::cli {

// One table of the parts of a verb's options that its --help shows under
// headings of their own (options_help of each part, help_column of the whole).
template <std::size_t... N>
constexpr std::array<Option, (N + ...)> joined(const Option (&... parts)[N]) {
  std::array<Option, (N + ...)> all{};
  std::size_t i = 0;
  ((std::copy(std::begin(parts), std::end(parts), all.begin() + i), i += N), ...);
  return all;
}

// The column the help lines of `options` start at: past the widest heading,
// two spaces after it; headings wider than kHelpHeadingWidth get a line of their own.
inline constexpr std::size_t kHelpHeadingWidth = 20;
std::size_t help_column(std::span<const Option> options);

// The lines of `options`, their help starting at `column` (0: help_column(options)).
std::string options_help(std::span<const Option> options, std::size_t column = 0);

// True when every option with a fallback has it stated in the help ("{--name}")
// and every "{--name}" names an option with a fallback: the help states the
// defaults the parser uses, and no other.
constexpr bool defaults_documented(std::span<const Option> options) {
  // Calls f(name) for each "{--name}" in the helps; false as soon as f is.
  const auto each_mark = [&](auto f) {
    for (const Option& o : options)
      for (std::size_t at = o.help.find("{--"); at != std::string_view::npos; at = o.help.find("{--", at + 1)) {
        const std::size_t end = o.help.find('}', at);
        if (end == std::string_view::npos || !f(o.help.substr(at + 3, end - at - 3))) return false;
      }
    return true;
  };
  for (const Option& o : options)
    if (!o.fallback.empty() && each_mark([&](std::string_view name) { return name != o.name; })) return false;
  return each_mark([&](std::string_view name) {
    for (const Option& o : options)
      if (o.name == name) return !o.fallback.empty();
    return false;
  });
}

}  // namespace tcgen::cli
