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
#include <cstdint>
#include <map>
#include <string>

#include "tcgen/exec/launch_options.hpp"

namespace tcgen::exec {

struct HostModel {
  LaunchOptions launch;  // schedule, strictness, progress
};

struct Sm100 {};

// What one run measured.
struct RunStats {
  double seconds = 0;  // the kernel's: wall clock on the host (model or interpreter), CUDA events on a GPU
  // The PTX interpreter's counts (zero and empty on the other backends).
  std::uint64_t ptx_instructions = 0;               // executed by all threads
  std::map<std::string, std::uint64_t> ptx_warnings;  // PTX-letter rules broken: rule → times
  std::map<std::string, std::string> ptx_first_warning;  // rule → where it was first broken, and how
  std::uint64_t ptx_ctas = 0;                          // CTAs that ran (clusterlaunchcontrol cancels the others)

  // A follow-up launch's counts and seconds added to these.
  RunStats& operator+=(const RunStats& next) {
    seconds += next.seconds;
    ptx_instructions += next.ptx_instructions;
    ptx_ctas += next.ptx_ctas;
    for (const auto& [rule, n] : next.ptx_warnings) ptx_warnings[rule] += n;
    for (const auto& [rule, text] : next.ptx_first_warning) ptx_first_warning.try_emplace(rule, text);
    return *this;
  }
};

}  // namespace tcgen::exec
