#include "help.hpp"

#include <algorithm>
#include <vector>

namespace tcgen::cli {

namespace {

// One entry of the help: the options described together and their text.
struct Entry {
  std::string heading;
  std::string_view help;
};

// `help` with each "{--name}" replaced by that option's fallback.
std::string with_defaults(std::string_view help, std::span<const Option> options) {
  std::string text(help);
  for (const Option& o : options) {
    const std::string mark = "{--" + std::string(o.name) + "}";
    for (std::size_t at; (at = text.find(mark)) != std::string::npos;) text.replace(at, mark.size(), o.fallback);
  }
  return text;
}

std::vector<Entry> entries(std::span<const Option> options) {
  std::vector<Entry> out;
  std::vector<const Option*> group;
  for (const Option& o : options) {
    group.push_back(&o);
    if (o.help.empty()) continue;
    const bool one_value = std::all_of(group.begin(), group.end(), [&](const Option* g) { return g->value == o.value; });
    Entry e{"", o.help};
    for (const Option* g : group) {
      e.heading.append(e.heading.empty() ? "--" : ", --").append(g->name);
      if (!g->value.empty() && (!one_value || g == group.back())) e.heading.append(" ").append(g->value);
    }
    out.push_back(std::move(e));
    group.clear();
  }
  return out;
}

}  // namespace

std::size_t help_column(std::span<const Option> options) {
  std::size_t widest = 0;
  for (const Entry& e : entries(options))
    if (e.heading.size() <= kHelpHeadingWidth) widest = std::max(widest, e.heading.size());
  return 2 + widest + 2;
}

std::string options_help(std::span<const Option> options, std::size_t column) {
  if (column == 0) column = help_column(options);
  std::string out;
  for (const Entry& e : entries(options)) {
    const std::string text = with_defaults(e.help, options);
    out.append("  ").append(e.heading);
    if (2 + e.heading.size() + 2 > column) out.append("\n").append(column, ' ');
    else out.append(column - 2 - e.heading.size(), ' ');
    for (const char c : text) {
      out += c;
      if (c == '\n') out.append(column, ' ');
    }
    out += '\n';
  }
  return out;
}

}  // namespace tcgen::cli
