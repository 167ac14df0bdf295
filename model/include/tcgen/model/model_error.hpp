#pragma once
// The error of the host model: which instruction, issued by which warp (and
// lane, for single-thread instructions), touched which address or field, and
// which rule (with its PTX section) that breaks. It is a tcgen::Error, so
// field(), value() and expected() (the rule's sentence) work as everywhere.
#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/model/rule.hpp"

namespace tcgen::model {

// Who executed what: lane < 0 for warp-collective instructions, warp < 0 for
// what the whole CTA does (bar.sync, the end of the kernel).
struct Issue {
  std::string instruction;
  int warp = -1;
  int lane = -1;
};

class ModelError : public Error {
 public:
  // detail: what happened, as a sentence about this case; it may add a hint.
  ModelError(const Issue& issue, Rule rule, std::string field, std::string value, const std::string& detail);

  Rule rule() const { return rule_; }
  const Issue& issue() const { return issue_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  Issue issue_;
  Rule rule_;
  std::string message_;
};

}  // namespace tcgen::model
