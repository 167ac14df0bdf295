#pragma once
// The errors of the host runtime itself, beside the model's ModelError: a
// warp whose lanes do not meet at a warp-collective instruction, and a CTA
// whose every live thread waits. Both are tcgen::Error, with what() the
// whole report.
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::exec {

// The lanes of a warp disagree at a warp-collective instruction: they
// arrive at different ones, name different member masks, or one lane exits
// while the others wait at a .sync.aligned instruction. field() is "warp",
// value() its index, expected() the rule.
class ConvergenceError : public Error {
 public:
  // detail: what happened, e.g. "lanes 0-15 wait at ... while lane 16 arrives at ...".
  ConvergenceError(const std::string& instruction, int warp, const std::string& detail, const std::string& rule);
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string message_;
};

// Every thread of a CTA that has not exited is blocked. field() is "cta",
// value() its index; report() (and what()) say who waits where, the state
// of each barrier and mbarrier waited on, and who arrived there last.
class DeadlockError : public Error {
 public:
  DeadlockError(const std::string& cta, const std::string& report);
  const std::string& report() const { return report_; }
  const char* what() const noexcept override { return report_.c_str(); }

 private:
  std::string report_;
};

}  // namespace tcgen::exec
