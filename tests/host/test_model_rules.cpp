// The rule table (model/rule.hpp) against docs/model.md, written from the
// evidence: each rule's class there is its severity column here, and each rule
// is listed with its PTX anchor.
#include <doctest/doctest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

#include "tcgen/model/rule.hpp"

using namespace tcgen::model;

namespace {

std::string docs() {
  std::ifstream in(TCGEN_SOURCE_DIR "/docs/model.md");
  REQUIRE_MESSAGE(in, "cannot read " TCGEN_SOURCE_DIR "/docs/model.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char* class_name(Severity s) {
  return s == Severity::letter ? "letter" : s == Severity::convention ? "convention" : "fault";
}

template <class F>
void for_each_rule(F&& f) {
  for (int i = static_cast<int>(Rule::ok) + 1; i <= static_cast<int>(Rule::unsupported); ++i) f(static_cast<Rule>(i));
}

}  // namespace

TEST_CASE("each rule's class in docs/model.md is its severity in the rule table") {
  const std::string text = docs();
  // | `rule` | letter | evidence |   or   | `rule` (PTX interpreter) | letter | evidence |
  const std::regex row(R"(\n\| `(\w+)`(?: \(PTX interpreter\))? \| (letter|convention|fault) \|)");
  std::map<std::string, std::string> documented;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), row); it != std::sregex_iterator(); ++it)
    documented[(*it)[1]] = (*it)[2];
  REQUIRE(documented.size() >= 5);
  std::map<std::string, Severity> table;
  for_each_rule([&](Rule r) { table[name(r)] = severity(r); });
  for (const auto& [rule, cls] : documented) {
    CAPTURE(rule);
    REQUIRE_MESSAGE(table.count(rule), "docs/model.md classes a rule the table does not have");
    CHECK(cls == class_name(table.at(rule)));
  }
  // Every rule that is not a fault has its evidence row.
  for (const auto& [rule, s] : table) {
    CAPTURE(rule);
    if (s != Severity::fault) CHECK_MESSAGE(documented.count(rule), "no evidence row in docs/model.md");
  }
}

TEST_CASE("each rule is listed in docs/model.md with its PTX anchor") {
  const std::string text = docs();
  for_each_rule([&](Rule r) {
    if (r == Rule::unsupported) return;  // a limit of the model, not a PTX rule
    CAPTURE(std::string(name(r)));
    const std::string cells = "\n| `" + std::string(name(r)) + "` | `" + anchor(r) + "` |";
    CHECK_MESSAGE(text.find(cells) != std::string::npos, "expected a row starting " << cells.substr(1));
  });
}
