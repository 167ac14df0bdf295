#include "tcgen/core/error.hpp"

#include <sstream>

namespace tcgen {

namespace {
std::string sentence(const std::string& field, const std::string& value, const std::string& expected) {
  std::ostringstream s;  // not operator+: GCC 12 warns falsely (-Wrestrict) on string concatenation
  s << field << " = " << value << " is invalid: " << expected;
  return s.str();
}
}  // namespace

Error::Error(std::string field, std::string value, std::string expected)
    : std::runtime_error(sentence(field, value, expected)),
      field_(std::move(field)), value_(std::move(value)), expected_(std::move(expected)) {}

void fail(const char* field, std::int64_t value, const char* expected) {
  throw Error(field, std::to_string(value), expected);
}

void fail(const char* field, const std::string& value, const std::string& expected) {
  throw Error(field, value, expected);
}

}  // namespace tcgen
