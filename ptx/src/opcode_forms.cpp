// The forms column of opcodes.def, parsed and matched. A row's forms are
// separated by ';'; each is the row's name, then its modifiers in PTX order,
// then its operand count ("3" or "2-3"):
//   .x          the modifier x
//   {.a|.b.c}   at most one of the alternatives (an alternative may be several parts)
//   (.a|.b)     exactly one of them
//   *{.a|.b}    any of them, each at most once, in any order (rows whose
//               modifiers are orderings, scopes and hints the ISA lets a kernel combine)
#include "opcode_forms.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <unordered_map>

#include "opcode_table_lookup.hpp"

namespace tcgen::ptx {

namespace {

struct Element {
  enum class Kind : std::uint8_t { required, optional, one_of, any_of };
  Kind kind;
  std::vector<std::vector<std::string>> alternatives;  // each a run of parts without dots
};

struct Form {
  std::string text;  // as written
  std::vector<Element> elements;
  unsigned fewest = 0, most = 0;
};

[[noreturn]] void malformed(std::string_view form, const std::string& why) {
  throw std::logic_error("opcodes.def: the form '" + std::string(form) + "' " + why);
}

std::vector<std::string> split_parts(std::string_view text, std::string_view form) {
  if (text.empty() || text[0] != '.') malformed(form, "has a modifier without its leading dot: '" + std::string(text) + "'");
  std::vector<std::string> parts;
  std::size_t start = 1;
  for (std::size_t i = 1; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '.') {
      if (i == start) malformed(form, "has an empty modifier");
      parts.emplace_back(text.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

// One bracketed element starting at text[at] ('{', '(' or "*{"); `at` moves past its closing bracket.
Element bracketed(std::string_view text, std::size_t& at, std::string_view form) {
  Element e{Element::Kind::optional, {}};
  if (text[at] == '*') {
    e.kind = Element::Kind::any_of;
    ++at;
  } else if (text[at] == '(') {
    e.kind = Element::Kind::one_of;
  }
  const char close = text[at] == '(' ? ')' : '}';
  const std::size_t end = text.find(close, at);
  if (end == std::string_view::npos) malformed(form, std::string("has no closing ") + close);
  const std::string_view inside = text.substr(at + 1, end - at - 1);
  std::size_t start = 0;
  for (std::size_t i = 0; i <= inside.size(); ++i)
    if (i == inside.size() || inside[i] == '|') {
      e.alternatives.push_back(split_parts(inside.substr(start, i - start), form));
      start = i + 1;
    }
  if (e.kind == Element::Kind::any_of && e.alternatives.size() > 64) malformed(form, "has more than 64 alternatives in a set");
  at = end + 1;
  return e;
}

Form parse_form(std::string_view row_name, std::string_view text) {
  Form f{std::string(text), {}, 0, 0};
  const std::size_t space = text.rfind(' ');
  if (space == std::string_view::npos) malformed(text, "has no operand count");
  const std::string_view pattern = text.substr(0, space), count = text.substr(space + 1);
  const std::size_t dash = count.find('-');
  try {
    f.fewest = static_cast<unsigned>(std::stoul(std::string(count.substr(0, dash))));
    f.most = dash == std::string_view::npos ? f.fewest : static_cast<unsigned>(std::stoul(std::string(count.substr(dash + 1))));
  } catch (const std::exception&) {
    malformed(text, "has an operand count that is no number or range");
  }
  if (pattern.substr(0, row_name.size()) != row_name) malformed(text, "does not start with its row's name");
  for (std::size_t at = row_name.size(); at < pattern.size();) {
    if (pattern[at] == '.') {
      const std::size_t end = pattern.find_first_of("{(*", at);
      const std::size_t stop = end == std::string_view::npos ? pattern.size() : end;
      for (std::string& part : split_parts(pattern.substr(at, stop - at), text))
        f.elements.push_back({Element::Kind::required, {{std::move(part)}}});
      at = stop;
    } else {
      f.elements.push_back(bracketed(pattern, at, text));
    }
  }
  return f;
}

std::vector<Form> parse_row(const OpcodeRow& row) {
  std::vector<Form> forms;
  std::size_t start = 0;
  const std::string_view spec = row.forms;
  for (std::size_t i = 0; i <= spec.size(); ++i)
    if (i == spec.size() || spec[i] == ';') {
      std::string_view one = spec.substr(start, i - start);
      while (!one.empty() && one.front() == ' ') one.remove_prefix(1);
      while (!one.empty() && one.back() == ' ') one.remove_suffix(1);
      if (!one.empty()) forms.push_back(parse_form(row.name, one));
      start = i + 1;
    }
  if (forms.empty()) malformed(row.name, "row has no forms");
  return forms;
}

// The parsed forms of a row, parsed on first use (decode runs on several threads while modules load).
const std::vector<Form>& forms_of(const OpcodeRow& row) {
  static std::mutex lock;
  static std::map<const OpcodeRow*, std::vector<Form>> parsed;
  const std::lock_guard<std::mutex> hold(lock);
  auto it = parsed.find(&row);
  if (it == parsed.end()) it = parsed.emplace(&row, parse_row(row)).first;
  return it->second;
}

struct Matcher {
  const std::vector<Element>& elements;
  std::span<const std::string_view> parts;

  bool starts(std::size_t j, const std::vector<std::string>& alternative) const {
    if (j + alternative.size() > parts.size()) return false;
    for (std::size_t k = 0; k < alternative.size(); ++k)
      if (parts[j + k] != alternative[k]) return false;
    return true;
  }
  bool match(std::size_t i, std::size_t j) const {
    if (i == elements.size()) return j == parts.size();
    const Element& e = elements[i];
    if (e.kind == Element::Kind::any_of) return match_set(i, j, 0);
    for (const auto& alternative : e.alternatives)
      if (starts(j, alternative) && match(i + 1, j + alternative.size())) return true;
    return e.kind == Element::Kind::optional && match(i + 1, j);
  }
  // The set's alternatives not yet `used`, each at most once, then the elements after it.
  bool match_set(std::size_t i, std::size_t j, std::uint64_t used) const {
    const Element& e = elements[i];
    for (std::size_t a = 0; a < e.alternatives.size(); ++a)
      if (!(used >> a & 1u) && starts(j, e.alternatives[a]) &&
          match_set(i, j + e.alternatives[a].size(), used | std::uint64_t{1} << a))
        return true;
    return match(i + 1, j);
  }
};

std::span<const std::string_view> modifiers_of(const OpcodeRow& row, const Opcode& op) {
  const std::size_t name_parts = static_cast<std::size_t>(std::count(row.name.begin(), row.name.end(), '.')) + 1;
  return std::span<const std::string_view>(op.parts).subspan(std::min(name_parts, op.parts.size()));
}

std::string count_text(const Form& f) {
  return f.fewest == f.most ? std::to_string(f.fewest) : std::to_string(f.fewest) + "-" + std::to_string(f.most);
}

// Each concrete opcode of the form (its elements' choices multiplied out), or none when it has a set.
std::vector<std::string> expand(std::string_view name, const Form& f) {
  std::vector<std::string> out{std::string(name)};
  for (const Element& e : f.elements) {
    if (e.kind == Element::Kind::any_of) return {};
    std::vector<std::string> next;
    for (const std::string& prefix : out) {
      if (e.kind == Element::Kind::optional) next.push_back(prefix);
      for (const auto& alternative : e.alternatives) {
        std::string s = prefix;
        for (const std::string& part : alternative) s += "." + part;
        next.push_back(std::move(s));
      }
    }
    out = std::move(next);
  }
  return out;
}

// Parts in one and not the other, counted both ways.
std::size_t distance(std::span<const std::string_view> a, std::string_view candidate) {
  std::vector<std::string_view> b;
  const Opcode parsed(candidate);
  b.assign(parsed.parts.begin() + 1, parsed.parts.end());
  std::vector<std::string_view> x(a.begin(), a.end());
  std::sort(x.begin(), x.end());
  std::sort(b.begin(), b.end());
  std::vector<std::string_view> diff;
  std::set_symmetric_difference(x.begin(), x.end(), b.begin(), b.end(), std::back_inserter(diff));
  return diff.size();
}

}  // namespace

bool accepts(const OpcodeRow& row, const Opcode& op, std::size_t operands) {
  const std::span<const std::string_view> parts = modifiers_of(row, op);
  for (const Form& f : forms_of(row))
    if ((operands == kAnyCount || (operands >= f.fewest && operands <= f.most)) && Matcher{f.elements, parts}.match(0, 0))
      return true;
  return false;
}

bool runs_form(std::string_view opcode, std::size_t operands) {
  const Opcode op(opcode);
  const std::optional<OpcodeEntry> entry = find_opcode(op);
  return entry && accepts(entry->row, op, operands);
}

namespace {

std::string nearest_form_of(const OpcodeRow& row, const Opcode& op, std::size_t operands) {
  const Opcode whole_name(row.name);
  std::vector<std::string_view> parts(whole_name.parts.begin() + 1, whole_name.parts.end());
  for (std::string_view p : modifiers_of(row, op)) parts.push_back(p);
  std::string best;
  std::size_t best_score = ~std::size_t{0};
  for (const Form& f : forms_of(row)) {
    const bool counts = operands >= f.fewest && operands <= f.most;
    std::vector<std::string> candidates = expand(row.name, f);
    if (candidates.empty()) candidates.push_back(f.text.substr(0, f.text.rfind(' ')));
    for (const std::string& c : candidates) {
      const std::size_t score = 2 * distance(parts, c) + (counts ? 0 : 1);
      if (score < best_score) {
        best_score = score;
        best = c + " with " + count_text(f) + " operand" + (f.most == 1 ? "" : "s");
      }
    }
  }
  return best;
}

}  // namespace

std::string nearest_form(const OpcodeRow& row, const Opcode& op, std::size_t operands) {
  // Once per distinct form a thread meets: a row such as cvt expands to thousands of candidates, and
  // a file may repeat one malformed line (20,000 copies of one took 0.62 s, 0.09 s remembered).
  thread_local std::unordered_map<std::string, std::string> found;
  std::string key = std::string(row.name) + '\n' + std::to_string(operands);
  for (std::string_view p : op.parts) key.append("\n").append(p);
  if (const auto it = found.find(key); it != found.end()) return it->second;
  if (found.size() >= 4096) found.clear();  // a bound on a hostile file's distinct forms
  return found[key] = nearest_form_of(row, op, operands);
}

std::vector<std::string> form_patterns(const OpcodeRow& row) {
  std::vector<std::string> out;
  for (const Form& f : forms_of(row)) out.push_back(f.text);
  return out;
}

std::vector<std::string> expanded_forms(const OpcodeRow& row) {
  std::vector<std::string> out;
  for (const Form& f : forms_of(row)) {
    const std::vector<std::string> each = expand(row.name, f);
    if (each.empty()) out.push_back(f.text);
    for (const std::string& s : each) out.push_back(s + " " + count_text(f));
  }
  return out;
}

unsigned fewest_operands(const OpcodeRow& row) {
  unsigned fewest = ~0u;
  for (const Form& f : forms_of(row)) fewest = std::min(fewest, f.fewest);
  return fewest;
}

}  // namespace tcgen::ptx
