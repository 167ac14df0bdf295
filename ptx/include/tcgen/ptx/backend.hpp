#pragma once
// The PTX interpreter as a backend of tcgen's kernels (tcgen/exec/backend.hpp):
// run(problem, …, options, ptx::Interpreter{module}) executes the kernel's
// sm_100a PTX on the host model. The module must hold the kernel's
// instantiation for the problem (nvcc -ptx of the kernel's *_kernels.cu).
#include <chrono>
#include <typeinfo>
#include <vector>

#include "tcgen/exec/backend.hpp"
#include "tcgen/exec/launch_options.hpp"
#include "tcgen/exec/launchable.hpp"
#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/ptx/device_layout.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::ptx {

struct Interpreter {
  const Module& module;
  exec::LaunchOptions launch = {};
  bool strict = false;  // PTX-letter rules as errors (LaunchConfig::strict)
  // Where each launch adds its counts (instructions, CTAs, PTX-letter
  // warnings), if anywhere: a kernel's run() returns exec::RunStats, what
  // every backend measures, and knows nothing of what only this one counts.
  LaunchStats* stats = nullptr;
  // The B200 timing model (LaunchConfig::timing): each launch's prediction joins `stats`.
  const timing::Machine* timing = nullptr;
  int timing_sms = 0;
  bool timeline = false;  // keep the spans of the first SM group (LaunchConfig::timeline)
};

// The PTX interpreter's launcher of a Launchable: the parameters in the
// device's byte layout, the entry instantiated for the kernel type, the
// kernel's buffers as the only global memory it may touch.
template <exec::Launchable L>
exec::RunStats launch(const Interpreter& backend, const L& l) {
  using K = typename L::Kernel;
  const auto params = l.template params<DeviceLayout>(encode_tensor_map);
  const Argument args[] = {argument(params)};
  std::vector<Allocation> memory;
  for (const exec::Buffer& b : l.buffers()) memory.push_back({b.data, b.bytes, b.name, b.writable});
  const auto start = std::chrono::steady_clock::now();
  // As exec::device::launch: 1 KiB beyond the kernel's bytes for smem_base() to align.
  const std::uint32_t smem = K::kSmemBytes + exec::kSmemAlignment;
  const LaunchStats s = ptx::launch(backend.module, backend.module.entry_instance(K::kEntry, typeid(K)),
                                    {.grid = l.grid(), .block = {K::kThreads, 1, 1}, .cluster = l.cluster(),
                                     .dynamic_smem = smem, .options = backend.launch, .strict = backend.strict,
                                     .timing = backend.timing, .timing_sms = backend.timing_sms,
                                     .timeline = backend.timeline},
                                    args, memory);
  exec::RunStats run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (backend.stats) *backend.stats += s;
  return run;
}

}  // namespace tcgen::ptx
