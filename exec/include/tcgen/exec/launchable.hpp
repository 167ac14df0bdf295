#pragma once
// A kernel launch as a value that any backend runs: which kernel (its
// threads, shared memory and entry name are constants of the kernel type),
// its parameters for a face, the grid and cluster, and the global memory it
// may touch, by name. One launcher per backend takes it:
//   exec::launch(exec::HostModel, l)    the kernel's C++ on the host model (host_launcher.hpp)
//   ptx::launch(ptx::Interpreter, l)    its sm_100a PTX on the PTX interpreter (tcgen/ptx/backend.hpp)
// so a kernel's runner is written once, over the backend, and knows none of them:
//   template <class Backend> RunStats run(const Problem& p, const Backend& b) { return launch(b, GemmLaunch{p}); }
#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tcgen/exec/dim3.hpp"

namespace tcgen::exec {

// Global memory a kernel may access: named in reports of a stray access.
struct Buffer {
  const void* data = nullptr;
  std::uint64_t bytes = 0;
  std::string name;
  bool writable = false;
};

// What a launch needs of its kernel type: the block's threads, the dynamic
// shared memory its plan takes, and the name of its __global__ (templated on
// the kernel type), by which a module finds the instantiation.
template <class K>
concept LaunchedKernel = requires {
  { K::kThreads } -> std::convertible_to<unsigned>;
  { K::kSmemBytes } -> std::convertible_to<std::uint32_t>;
  { K::kEntry } -> std::convertible_to<std::string_view>;
};

// L names its kernel (L::Kernel), gives its parameters for a face
// (l.params<Face>(encode), encode turning a tma::TensorMapSpec and a tensor
// into the face's tensor map), and its grid, cluster and buffers.
template <class L>
concept Launchable = LaunchedKernel<typename L::Kernel> && requires(const L& l) {
  { l.grid() } -> std::convertible_to<Dim3>;
  { l.cluster() } -> std::convertible_to<Dim3>;
  { l.buffers() } -> std::convertible_to<std::vector<Buffer>>;
};

}  // namespace tcgen::exec
