#pragma once
// Where a kernel of tcgen's runs. Each kernel has one runner name,
//   run(problem, [operands,] options, backend),
// over the backend, so a GEMM and an FMHA are run the same way: the runner
// makes the kernel's launch value (launchable.hpp) and hands it to the
// backend's launcher, launch(backend, l), found by the backend's type:
//   exec::HostModel   the kernel's C++ through HostArch, every thread a fiber on
//                     the model, every rule checked (host_launcher.hpp)
//   ptx::Interpreter  the kernel's sm_100a PTX (what a B200 runs) executed on the
//                     model by the PTX interpreter (tcgen/ptx/backend.hpp)
//   exec::Sm100       DeviceArch on device 0, an sm_100 GPU: declared by each
//                     kernel's sm100_runner.hpp, defined where nvcc is found
// The problem and the kernel's options say what is computed; the backend only
// where, so one problem runs unchanged on all three.
#include "tcgen/exec/launch_options.hpp"

namespace tcgen::exec {

struct HostModel {
  LaunchOptions launch;  // schedule, strictness, progress
};

struct Sm100 {};

// What one run measured, on every backend. What only one backend measures
// stays with it (the PTX interpreter's counts: ptx::Interpreter::stats).
struct RunStats {
  double seconds = 0;  // the kernel's: wall clock on the host (model or interpreter), CUDA events on a GPU

  // A follow-up launch's seconds added to these.
  RunStats& operator+=(const RunStats& next) {
    seconds += next.seconds;
    return *this;
  }
};

}  // namespace tcgen::exec
