#pragma once
// The host model's launcher of a Launchable (launchable.hpp): the kernel's
// C++ through HostArch, every thread a fiber, every rule checked.
#include <chrono>

#include "tcgen/exec/backend.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/exec/launchable.hpp"

namespace tcgen::exec {

template <Launchable L>
RunStats launch(const HostModel& backend, const L& l) {
  using K = typename L::Kernel;
  const auto params = l.template params<HostArch>(host_tensor_map_of);
  const auto start = std::chrono::steady_clock::now();
  host::launch(l.grid(), K::kThreads, K::kSmemBytes, [&](HostArch& a) { K::run(a, params); }, backend.launch,
               l.cluster());
  RunStats stats;
  stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return stats;
}

}  // namespace tcgen::exec
