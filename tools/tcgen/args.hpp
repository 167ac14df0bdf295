#pragma once
// The command line of one verb: --key value (or --key=value) options and
// --flag switches, checked against the verb's table (an option's alias
// included), each option's value or, when not given, its declared default.
// Every mistake throws
// tcgen::Error naming the option and what is allowed; main() turns that into
// exit code 2.
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tcgen::cli {

// One option, declared once: its parsing, its --help lines (help.hpp), the
// completion script and the errors that name it all read this.
struct Option {
  std::string_view name;   // without the leading "--"
  std::string_view value = {};  // the value's name in --help ("N", "FILE"); "" for a switch
  // Its --help text, lines split by '\n', "{--name}" standing for option name's `fallback`
  // (help.hpp); "" for an option described together with the next one ("--q, --k, --v FILE").
  std::string_view help = {};
  std::string_view fallback = {};  // the value when not given; "" when there is none or it is computed
  // Another verb's spelling of the same quantity, taken too (one vocabulary across the verbs:
  // fmha's --scale is sparse-decode's --softmax-scale, FlashMLA's name); "" for none.
  std::string_view alias = {};
  // The fields of the verb's problem (the library's names, space-separated) that it sets:
  // a library's error naming a field is told as this option's (kernel_run.hpp).
  std::string_view fields = {};
  constexpr bool takes_value() const { return !value.empty(); }
};

// "; did you mean PREFIX+CANDIDATE?" for the candidate a mistyped `word` is
// nearest to (at most two letters off); "" when none is that near.
std::string did_you_mean(std::string_view word, std::span<const std::string_view> candidates, std::string_view prefix);

// True when --help or -h is among the arguments.
bool wants_help(std::span<const std::string> args);

// A decimal integer in [lo, hi], all of the text (no sign, no suffix).
std::int64_t parse_integer(std::string_view option, std::string_view text, std::int64_t lo, std::int64_t hi);
// A positive finite number up to `most`, all of the text; `example` is shown in the error ("0.125").
double parse_positive(std::string_view option, const std::string& text, std::string_view example, double most = 1e6);

class Args {
 public:
  Args(std::span<const std::string> args, std::span<const Option> allowed);

  // Whether the option was given (a switch: whether it is on).
  bool flag(std::string_view name) const { return values_.count(std::string(name)) != 0; }
  bool has(std::string_view name) const { return flag(name); }
  // The value given, else the option's declared fallback; an option with
  // neither is required.
  std::string text(std::string_view name) const;
  // The value, or fallback (computed by the verb) when the option is absent.
  std::string text_or(std::string_view name, std::string_view fallback) const;
  std::int64_t integer(std::string_view name, std::int64_t lo, std::int64_t hi) const;  // as text()
  std::int64_t integer_or(std::string_view name, std::int64_t fallback, std::int64_t lo, std::int64_t hi) const;

  // The options this command line was checked against.
  std::span<const Option> options() const { return allowed_; }

 private:
  std::span<const Option> allowed_;
  std::map<std::string, std::string> values_;  // flags map to ""
  std::map<std::string, std::string> typed_;   // option → the spelling given (its name or its alias)
};

}  // namespace tcgen::cli
