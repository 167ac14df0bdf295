// tcgen: print and draw the tcgen05 layouts modelled by tcgen::layout.
// Exit codes: 0 success; 1 a numerical check failed; 2 a bad command line or
// an illegal request (one sentence on stderr); 3 a file that cannot be read
// or written; 4 an internal error.
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "output_file.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/core/log.hpp"
#include "verb.hpp"

namespace {

using tcgen::cli::Option;
using tcgen::cli::Verb;

constexpr std::string_view kUsageHead = R"(usage: tcgen <verb> [options]

Print or draw the Blackwell tcgen05 layouts that tcgen models.

verbs:
)";

constexpr std::string_view kUsageTail = R"(
'tcgen help VERB' is 'tcgen VERB --help'; 'tcgen --version' prints the version.

Exit codes: 0 success; 1 a numerical check failed; 2 a bad command line or
request (one sentence on stderr); 3 a file that cannot be read or written;
4 an internal error.
)";

// "a, b and c" (`last` "or": "a, b or c").
std::string listed(const std::vector<std::string_view>& items, std::string_view last) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) {
    // append(), not operator+: GCC 12 warns falsely (-Wrestrict) on such concatenations.
    if (i > 0 && i + 1 == items.size()) s.append(" ").append(last).append(" ");
    else if (i > 0) s.append(", ");
    s.append(items[i]);
  }
  return s;
}

// `text` as lines of at most 80 characters, broken at spaces.
std::string wrapped(const std::string& text) {
  std::string out, line;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    if (!line.empty() && line.size() + 1 + word.size() > 80) out.append(line).append("\n"), line.clear();
    line.append(line.empty() ? "" : " ").append(word);
    at = end + 1;
  }
  return out + line + "\n";
}

// The first word of a verb's words ("layout" of "layout smem"), and the rest ("" for one word).
std::string_view first_word(std::string_view words) { return words.substr(0, words.find(' ')); }
std::string_view second_word(std::string_view words) {
  const auto space = words.find(' ');
  return space == std::string_view::npos ? std::string_view() : words.substr(space + 1);
}

bool takes(const Verb& v, std::string_view option) {
  const auto in = [&](std::span<const Option> options) {
    return std::any_of(options.begin(), options.end(), [&](const Option& o) { return o.name == option; });
  };
  return in(v.options) || std::any_of(v.subverbs.begin(), v.subverbs.end(), [&](const auto& s) { return in(s.options); });
}

// tcgen --help: each verb with its summary and example, then what the verbs share.
std::string usage() {
  std::string out(kUsageHead);
  std::vector<std::string_view> csv, json;
  for (const Verb& v : tcgen::cli::verbs()) {
    std::string name(v.words);
    name.resize(std::max<std::size_t>(name.size() + 1, 14), ' ');
    std::string summary(v.summary);
    for (std::size_t at = 0; (at = summary.find('\n', at)) != std::string::npos; at += 17) summary.insert(at + 1, 16, ' ');
    out.append("  ").append(name).append(summary).append(":\n                  ").append(v.example).append("\n");
    if (takes(v, "csv")) csv.push_back(v.words);
    if (takes(v, "json")) json.push_back(v.words);
  }
  // append(), not operator+: GCC 12 warns falsely (-Wrestrict) on such concatenations.
  const std::string shared = listed(csv, "and")
                                 .append(" print a summary, or --csv for the full mapping, and --svg FILE draws it; ")
                                 .append(listed(json, "and"))
                                 .append(" take --json for their report. 'tcgen <verb> --help' lists the verb's options.");
  return out.append("\n").append(wrapped(shared)).append(kUsageTail);
}

// The verbs' names as the errors list them: "layout smem, ..., run or completion".
std::string verb_list() {
  std::vector<std::string_view> words;
  for (const Verb& v : tcgen::cli::verbs()) words.push_back(v.words);
  return listed(words, "or");
}

// tcgen layout --help: the verbs whose first word is `group`.
std::string group_usage(std::string_view group) {
  std::vector<std::string_view> seconds;
  std::string lines;
  for (const Verb& v : tcgen::cli::verbs())
    if (first_word(v.words) == group && !second_word(v.words).empty()) {
      seconds.push_back(second_word(v.words));
      std::string name(v.words);
      name.resize(std::max<std::size_t>(name.size() + 1, 14), ' ');
      const std::string_view summary = v.summary.substr(0, v.summary.find('\n'));
      lines.append("  ").append(name).append(summary).append(";\n                see 'tcgen ").append(v.words).append(" --help'\n");
    }
  std::string names;
  for (const std::string_view s : seconds) names.append(names.empty() ? "" : "|").append(s);
  return "usage: tcgen " + std::string(group) + " " + names + " [options]\n\n" + lines;
}

int run(const std::vector<std::string>& args) {
  using namespace tcgen::cli;
  if (args.empty()) tcgen::fail("verb", "(none)", "expected " + verb_list() + "; see tcgen --help");
  const std::string& verb = args[0];
  tcgen::log().debug("verb {} with {} arguments (TCGEN_LOG=debug shows this)", verb, args.size() - 1);
  const std::span<const std::string> rest(args.data() + 1, args.size() - 1);
  if (verb == "--version") {
    std::cout << "tcgen " TCGEN_VERSION "\n";
    return 0;
  }
  // tcgen help VERB [SUBVERB] is tcgen VERB [SUBVERB] --help.
  if (verb == "help" && !rest.empty()) {
    std::vector<std::string> asked(rest.begin(), rest.end());
    asked.push_back("--help");
    return run(asked);
  }
  if (verb == "--help" || verb == "-h" || verb == "help") {
    std::cout << usage();
    return 0;
  }
  // A verb of two words ("layout smem") is run with the arguments after both.
  std::vector<std::string_view> seconds;  // the second words `verb` may take
  for (const Verb& v : verbs()) {
    if (first_word(v.words) != verb) continue;
    const std::string_view second = second_word(v.words);
    if (second.empty()) return v.run(rest);
    if (!rest.empty() && rest[0] == second) return v.run(rest.subspan(1));
    seconds.push_back(second);
  }
  if (!seconds.empty()) {
    const std::string expected = "expected " + listed(seconds, "or") + " after " + verb;
    if (rest.empty()) tcgen::fail(verb.c_str(), "(none)", expected + "; see tcgen " + verb + " --help");
    if (rest[0] == "--help" || rest[0] == "-h") {
      std::cout << group_usage(verb);
      return 0;
    }
    tcgen::fail(verb.c_str(), rest[0], expected);
  }
  std::vector<std::string_view> names;
  for (const Verb& v : verbs())
    if (names.empty() || names.back() != first_word(v.words)) names.push_back(first_word(v.words));
  tcgen::fail("verb", verb, "expected " + verb_list() + "; see tcgen --help" + did_you_mean(verb, names, ""));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const tcgen::cli::IoError& e) {
    std::cerr << "tcgen: " << e.what() << '\n';
    return 3;
  } catch (const tcgen::Error& e) {
    std::cerr << "tcgen: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tcgen: internal error: " << e.what() << '\n';
    return 4;
  }
}
