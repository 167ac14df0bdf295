#include "report.hpp"

#include <cmath>
#include <cstdio>

#include "tcgen/core/json_string.hpp"

namespace tcgen::cli {


void Report::text(const char* format, ...) const {
  if (json_) return;
  va_list args;
  va_start(args, format);
  std::vprintf(format, args);
  va_end(args);
}

void Report::raw(std::string_view key, std::string value) { fields_.emplace_back(std::string(key), std::move(value)); }
void Report::field(std::string_view key, const std::string& value) { raw(key, json_string(value)); }
void Report::field(std::string_view key, std::int64_t value) { raw(key, std::to_string(value)); }
void Report::field(std::string_view key, bool value) { raw(key, value ? "true" : "false"); }
void Report::field(std::string_view key, double value) {
  if (!std::isfinite(value)) return raw(key, "null");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", value);
  raw(key, buf);
}

void Report::field(std::string_view key, const std::vector<std::string>& values) {
  std::string list = "[";
  for (std::size_t i = 0; i < values.size(); ++i) list += (i ? ", " : "") + json_string(values[i]);
  raw(key, list + "]");
}

void Report::field(std::string_view key, const std::vector<Report>& items) {
  std::string list = "[";
  for (std::size_t i = 0; i < items.size(); ++i) list += (i ? ", " : "") + items[i].object();
  raw(key, list + "]");
}

std::string Report::object() const {
  std::string out = "{";
  for (std::size_t i = 0; i < fields_.size(); ++i)
    out += (i ? ", " : "") + json_string(fields_[i].first) + ": " + fields_[i].second;
  return out + "}";
}

void Report::finish() const {
  if (json_) std::printf("%s\n", object().c_str());
}

}  // namespace tcgen::cli
