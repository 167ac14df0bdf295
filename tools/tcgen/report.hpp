#pragma once
// What a verb reports, as text lines for people or, with --json, as one JSON
// object on stdout with the same facts as named fields (keys in the order
// they were added; strings escaped, numbers as %.17g, non-finite ones null).
#include <cstdarg>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tcgen::cli {

class Report {
 public:
  explicit Report(bool json) : json_(json) {}
  bool json() const { return json_; }
  // A printf-style piece of the text report (stdout), dropped under --json.
  [[gnu::format(printf, 2, 3)]] void text(const char* format, ...) const;
  void field(std::string_view key, const std::string& value);
  void field(std::string_view key, const char* value) { field(key, std::string(value)); }
  void field(std::string_view key, double value);
  void field(std::string_view key, std::int64_t value);
  void field(std::string_view key, int value) { field(key, std::int64_t{value}); }
  void field(std::string_view key, bool value);
  // A list of strings, and a list of objects (each item's fields).
  void field(std::string_view key, const std::vector<std::string>& values);
  void field(std::string_view key, const std::vector<Report>& items);
  // A value that is already JSON text (another program's, checked by it).
  void raw(std::string_view key, std::string value);
  // The fields as one JSON object: {"key": value, ...}.
  std::string object() const;
  // The JSON object, under --json; nothing otherwise.
  void finish() const;

 private:
  bool json_;
  std::vector<std::pair<std::string, std::string>> fields_;
};

}  // namespace tcgen::cli
