#include <algorithm>
#include <cstdlib>

#include "tcgen/core/error.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::ptx {

void Module::FreeBytes::operator()(std::uint8_t* p) const { std::free(p); }

namespace {

std::string kernel_list(const std::vector<Function>& fs) {
  std::string s;
  for (const Function& f : fs)
    if (f.entry) s += (s.empty() ? "" : ", ") + f.demangled;
  return s.empty() ? "(none)" : s;
}

// "void ns::f<int>(int)" → "ns::f<int>": the name without its return type and
// parameters ("(anonymous namespace)" and template arguments kept whole).
std::string short_name(const std::string& demangled) {
  std::string s = demangled;
  int angle = 0, paren = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '<') ++angle;
    if (c == '>') --angle;
    if (c == '(' && angle == 0 && paren == 0 && i > 0 && s.compare(i, 20, "(anonymous namespace") != 0) {
      s.resize(i);  // the parameter list
      break;
    }
    if (c == '(') ++paren;
    if (c == ')') --paren;
    if (c == ' ' && angle == 0 && paren == 0) start = i + 1;  // past the return type
  }
  return s.substr(start);
}

// The demangler writes "> >" for nested templates: compared without that space.
std::string without_template_spaces(std::string s) {
  for (std::size_t i; (i = s.find("> >")) != std::string::npos;) s.erase(i + 1, 1);
  return s;
}

// Template argument lists of more than 40 characters as <…>: a source chain stays readable.
std::string abbreviated(const std::string& name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    out += name[i];
    if (name[i] != '<') continue;
    std::size_t j = i + 1;
    for (int depth = 1; j < name.size() && depth > 0; ++j) depth += name[j] == '<' ? 1 : name[j] == '>' ? -1 : 0;
    if (j - i > 42) {
      out += "…>";
      i = j - 1;
    }
  }
  return out;
}

}  // namespace

std::string brief_name(const std::string& demangled) { return abbreviated(short_name(demangled)); }

const Function& Module::entry(std::string_view name) const {
  for (const Function& f : functions_)
    if (f.entry && (f.name == name || short_name(f.demangled) == name)) return f;
  fail("kernel", std::string(name), "a kernel of " + name_ + ": " + kernel_list(functions_));
}

const Function& Module::entry_instance(std::string_view function_template, const std::type_info& argument) const {
  const std::string wanted =
      without_template_spaces(std::string(function_template) + "<" + demangle_type(argument) + ">");
  for (const Function& f : functions_)
    if (f.entry && without_template_spaces(short_name(f.demangled)) == wanted) return f;
  fail("kernel", wanted, "a kernel of " + name_ + " (built from the same sources?): " + kernel_list(functions_));
}

std::string Module::source_text(const Function& f, std::uint32_t loc) const {
  std::string s;
  for (int depth = 0; loc != 0 && loc < f.locations.size() && depth < 64; ++depth) {
    const Location& l = f.locations[loc];
    std::string file = l.file < files_.size() ? files_[l.file] : "file " + std::to_string(l.file);
    if (const std::size_t slash = file.find_last_of('/'); slash != std::string::npos) file = file.substr(slash + 1);
    if (!s.empty()) s += "\n       inlined at ";
    s += file + ":" + std::to_string(l.line);
    if (!l.function.empty()) s += " in " + abbreviated(short_name(l.function));
    loc = l.inlined_at;
  }
  return s;
}

std::string Module::source_position(const Function& f, std::uint32_t loc) const {
  if (loc == 0 || loc >= f.locations.size()) return {};
  const Location& l = f.locations[loc];
  return (l.file < files_.size() ? files_[l.file] : "file " + std::to_string(l.file)) + ":" + std::to_string(l.line);
}

std::vector<Module::Storage> Module::storage() const {
  std::vector<Storage> out;
  for (const Variable& v : variables_)
    if (v.space == Space::global || v.space == Space::const_)
      out.push_back({v.address, v.address + v.bytes, &v.name, v.space == Space::global});
  return out;
}

}  // namespace tcgen::ptx
