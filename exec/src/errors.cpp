#include "tcgen/exec/errors.hpp"

namespace tcgen::exec {

ConvergenceError::ConvergenceError(const std::string& instruction, int warp, const std::string& detail,
                                   const std::string& rule)
    : Error("warp", std::to_string(warp), rule),
      message_(instruction + " (warp " + std::to_string(warp) + "): " + detail + ". Rule: " + rule + ".") {}

DeadlockError::DeadlockError(const std::string& cta, const std::string& report)
    : Error("cta", cta, "a thread that can run; every thread that has not exited waits"), report_(report) {}

}  // namespace tcgen::exec
