#pragma once
// The one error type of tcgen: it always names the field, the value and what
// was expected, so a bad descriptor or layout request reads as a sentence.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tcgen {

class Error : public std::runtime_error {
 public:
  Error(std::string field, std::string value, std::string expected);

  const std::string& field() const { return field_; }
  const std::string& value() const { return value_; }
  const std::string& expected() const { return expected_; }

 private:
  std::string field_, value_, expected_;
};

// Throws Error. Inside constant evaluation the throw makes the expression
// non-constant, so a constexpr misuse stops the compile at this call.
[[noreturn]] void fail(const char* field, std::int64_t value, const char* expected);
[[noreturn]] void fail(const char* field, const std::string& value, const std::string& expected);

}  // namespace tcgen
