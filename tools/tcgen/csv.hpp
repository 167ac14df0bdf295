#pragma once
// CSV output: a header line, then one line of comma-separated values per call.
#include <initializer_list>
#include <ostream>
#include <string_view>

namespace tcgen::cli {

class Csv {
 public:
  Csv(std::ostream& os, std::initializer_list<std::string_view> header) : os_(os) {
    const char* sep = "";
    for (std::string_view h : header) {
      os_ << sep << h;
      sep = ",";
    }
    os_ << '\n';
  }
  template <class First, class... Rest>
  void row(const First& first, const Rest&... rest) {
    os_ << first;
    ((os_ << ',' << rest), ...);
    os_ << '\n';
  }

 private:
  std::ostream& os_;
};

}  // namespace tcgen::cli
