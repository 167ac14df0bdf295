#pragma once
// The PTX interpreter as a backend of tcgen's kernels (tcgen/exec/backend.hpp):
// run(problem, …, options, ptx::Interpreter{module}) executes the kernel's
// sm_100a PTX on the host model. The module must hold the kernel's
// instantiation for the problem (nvcc -ptx of the kernel's *_kernels.cu).
#include "tcgen/exec/backend.hpp"
#include "tcgen/exec/launch_options.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::ptx {

struct Interpreter {
  const Module& module;
  exec::LaunchOptions launch = {};
  bool strict = false;  // PTX-letter rules as errors (LaunchConfig::strict)
};

// The launch's counts as a run's statistics, beside the run's seconds.
inline exec::RunStats run_stats(const LaunchStats& s, double seconds) {
  return {seconds, s.instructions, s.warnings, s.first_warning, s.ctas};
}

}  // namespace tcgen::ptx
