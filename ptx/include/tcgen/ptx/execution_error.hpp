#pragma once
// What stops a PTX kernel on the host model: the error of the model or the
// runtime (a ModelError with its rule and PTX anchor, a ConvergenceError, a
// DeadlockError, a fault of the interpreter) together with where it
// happened: the kernel, the CTA, warp and lane, the PTX instruction and line,
// and the CUDA source line with the chain of inlined calls it came through.
// Its message starts as a compiler's diagnostic does, which editors jump to:
//   /path/kernel.cu:31: error: <the cause>
// then the lines that say where.
#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::ptx {

// What a GPU reports for the fault (run/ gives each its CUDA error code): an
// access outside every allocation, a failed device-side assert, or any other.
enum class FaultKind { launch_failure, illegal_address, assertion };

class ExecutionError : public Error {
 public:
  // position: "file:line" (CUDA's, else the PTX's); where: the lines after the first; cause: the error.
  ExecutionError(const std::string& position, const std::string& where, const Error& cause, FaultKind kind);
  const std::string& cause() const { return cause_; }  // cause.what()
  FaultKind kind() const { return kind_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  std::string cause_, message_;
  FaultKind kind_;
};

}  // namespace tcgen::ptx
