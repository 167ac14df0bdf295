// The CLI's argument parser (tools/tcgen/args.hpp): a verb's command line,
// NUL-separated in the input, checked against a table with every kind of
// option a verb declares (a switch, a value with and without a fallback, an
// alias); then each option read back as text and as an integer, and each
// argument through the number parsers and "did you mean", as the verbs do.
// The verbs' own tables live with the verbs (gemm.cpp, ...), which need the
// whole program; this table has their shapes.
#include <string>
#include <vector>

#include "../../tools/tcgen/args.hpp"
#include "fuzz.hpp"
#include "tcgen/core/error.hpp"

namespace {

using tcgen::cli::Option;

constexpr Option kOptions[] = {
    {.name = "m", .value = "N", .help = "rows", .fallback = "128"},
    {.name = "scale", .value = "X", .help = "softmax scale", .alias = "softmax-scale"},
    {.name = "out", .value = "FILE", .help = "output"},
    {.name = "causal", .help = "a switch"},
    {.name = "dtype", .value = "T", .help = "type", .fallback = "bf16"},
};
constexpr std::string_view kWords[] = {"gemm", "fmha", "layout", "desc", "idesc", "--causal", "--seq-q"};

template <class F>
void tolerate(F&& f) {
  try {
    f();
  } catch (const tcgen::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace tcgen::cli;
  std::vector<std::string> args(1);
  for (const char c : tcgen::fuzz::text(data, size)) {
    if (c == '\0') args.emplace_back();
    else args.back() += c;
  }
  (void)wants_help(args);
  for (const std::string& a : args) {
    tolerate([&] { (void)parse_integer("--n", a, -1000, 1000); });
    tolerate([&] { (void)parse_positive("--scale", a, "0.125"); });
    (void)did_you_mean(a, kWords, "--");
  }
  tolerate([&] {
    const Args parsed(args, kOptions);
    for (const Option& o : kOptions) {
      tolerate([&] { (void)parsed.text(o.name); });
      tolerate([&] { (void)parsed.text_or(o.name, "x"); });
      tolerate([&] { (void)parsed.integer(o.name, 0, 1 << 20); });
      tolerate([&] { (void)parsed.integer_or(o.name, 7, 0, 1 << 20); });
    }
  });
  return 0;
}
