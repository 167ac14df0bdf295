// C++ names from the mangled ones PTX carries: a kernel's full name for reports, its leading name
// for tables, and a type's name (module.hpp).
#include <cxxabi.h>

#include <cstdlib>
#include <string>
#include <typeinfo>

#include "tcgen/ptx/module.hpp"

namespace tcgen::ptx {

namespace {

std::string demangled_or(const char* mangled, const std::string& fallback) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || !out) return fallback;
  std::string s(out);
  std::free(out);
  return s;
}

}  // namespace

std::string demangle_type(const std::type_info& type) { return demangled_or(type.name(), type.name()); }

std::string leading_name(const std::string& mangled) {
  if (!mangled.starts_with("_Z")) return {};
  const auto digit = [&](std::size_t at) { return at < mangled.size() && mangled[at] >= '0' && mangled[at] <= '9'; };
  const bool nested = mangled.size() > 2 && mangled[2] == 'N';  // <nested-name>, else <unscoped-name>
  std::string out;
  std::size_t at = nested ? 3 : 2;
  while (digit(at) && (nested || out.empty())) {  // <source-name> ::= <length> <identifier>
    std::size_t length = 0;
    for (; digit(at) && length <= mangled.size(); ++at) length = length * 10 + static_cast<std::size_t>(mangled[at] - '0');
    if (length == 0 || length > mangled.size() - at) return {};
    out += (out.empty() ? "" : "::") + mangled.substr(at, length);
    at += length;
  }
  return out.empty() ? out : out + (at < mangled.size() && mangled[at] == 'I' ? "<…>" : "");
}

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;  // extern "C" names: "b" would demangle to "bool"
  return demangled_or(name.c_str(), name);
}

}  // namespace tcgen::ptx
