#include "tcgen/model/model_error.hpp"


namespace tcgen::model {

namespace {

// "tcgen05.ld... (warp 1): cell = lane 16, column 0: <detail> Rule (PTX #anchor): <sentence>."
std::string message(const Issue& issue, Rule rule, const std::string& field, const std::string& value,
                    const std::string& detail) {
  std::string s = issue.instruction;
  if (issue.warp >= 0) {
    s += " (warp " + std::to_string(issue.warp);
    if (issue.lane >= 0) s += ", lane " + std::to_string(issue.lane);
    s += ")";
  }
  s += ": " + field + " = " + value + ": " + detail;
  if (rule == Rule::unsupported) return s + " (" + sentence(rule) + "; not a PTX rule).";
  return s + " Rule (PTX #" + anchor(rule) + "): " + sentence(rule) + ".";
}

}  // namespace

ModelError::ModelError(const Issue& issue, Rule rule, std::string field, std::string value, const std::string& detail)
    : Error(field, value, sentence(rule)),
      issue_(issue),
      rule_(rule),
      message_(message(issue, rule, field, value, detail)) {}

}  // namespace tcgen::model
