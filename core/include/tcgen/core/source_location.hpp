#pragma once
// std::source_location where the standard library has it. clang 14 over
// libstdc++ 12 has none (libstdc++ needs __builtin_source_location, clang
// 15 on), and clang 14 builds the sanitized fuzz build (docs/reliability.md);
// there a stand-in with the same members, from the builtins clang 14 has.
#include <version>

#if defined(__cpp_lib_source_location)
#include <source_location>
namespace tcgen {
using SourceLocation = std::source_location;
}  // namespace tcgen
#else
#include <cstdint>
namespace tcgen {
class SourceLocation {
 public:
  // The builtins in the default arguments take the caller's place, as std::source_location::current does.
  static constexpr SourceLocation current(const char* file = __builtin_FILE(), const char* function = __builtin_FUNCTION(),
                                          std::uint_least32_t line = __builtin_LINE(),
                                          std::uint_least32_t column = __builtin_COLUMN()) noexcept {
    SourceLocation s;
    s.file_ = file;
    s.function_ = function;
    s.line_ = line;
    s.column_ = column;
    return s;
  }
  constexpr SourceLocation() noexcept = default;
  constexpr const char* file_name() const noexcept { return file_; }
  constexpr const char* function_name() const noexcept { return function_; }
  constexpr std::uint_least32_t line() const noexcept { return line_; }
  constexpr std::uint_least32_t column() const noexcept { return column_; }

 private:
  const char* file_ = "";
  const char* function_ = "";
  std::uint_least32_t line_ = 0, column_ = 0;
};
}  // namespace tcgen
#endif
