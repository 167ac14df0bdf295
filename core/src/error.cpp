#include "tcgen/core/error.hpp"

namespace tcgen {

namespace {
std::string sentence(const std::string& field, const std::string& value, const std::string& expected) {
  std::string s;
  s.append(field).append(" = ").append(value).append(" is invalid: ").append(expected);
  return s;
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
