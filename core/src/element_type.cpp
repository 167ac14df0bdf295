#include "tcgen/core/element_type.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen {

ElementType parse_element_type(std::string_view text) {
  std::string valid;  // "one of bf16, fp16, ...", listed from the enum so it cannot drift
  for (ElementType t : all_element_types) {
    if (text == name(t)) return t;
    valid += valid.empty() ? "one of " : ", ";
    valid += name(t);
  }
  fail("dtype", std::string(text), valid);
}

}  // namespace tcgen
