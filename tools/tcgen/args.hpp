#pragma once
// The command line of one verb: --key value (or --key=value) options and
// --flag switches, checked against the verb's table (an option's alias
// included). Every mistake throws
// tcgen::Error naming the option and what is allowed; main() turns that into
// exit code 2.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tcgen::cli {

struct Option {
  std::string_view name;  // without the leading "--"
  bool takes_value;
  // Another verb's spelling of the same quantity, taken too (one vocabulary across the verbs:
  // fmha's --scale is sparse-decode's --softmax-scale, FlashMLA's name); "" for none.
  std::string_view alias = {};
};

// "; did you mean PREFIX+CANDIDATE?" for the candidate a mistyped `word` is
// nearest to (at most two letters off); "" when none is that near.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates, std::string_view prefix);

// True when --help or -h is among the arguments.
bool wants_help(std::span<const std::string> args);

// A decimal integer in [lo, hi], all of the text (no sign, no suffix).
std::int64_t parse_integer(std::string_view option, std::string_view text, std::int64_t lo, std::int64_t hi);

class Args {
 public:
  Args(std::span<const std::string> args, std::span<const Option> allowed);

  bool flag(std::string_view name) const { return values_.count(std::string(name)) != 0; }
  bool has(std::string_view name) const { return flag(name); }
  // The value of a required option.
  const std::string& text(std::string_view name) const;
  // The value, or fallback when the option is absent.
  std::string text_or(std::string_view name, std::string_view fallback) const;
  std::int64_t integer(std::string_view name, std::int64_t lo, std::int64_t hi) const;
  std::int64_t integer_or(std::string_view name, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const;

 private:
  std::map<std::string, std::string> values_;  // flags map to ""
  std::map<std::string, std::string> typed_;   // option → the spelling given (its name or its alias)
};

}  // namespace tcgen::cli
