#pragma once
// What a kernel run will take, estimated before it allocates anything, so
// that a run that cannot fit is refused at once (exit 2, naming the sizes,
// the estimate and this machine's limit) instead of dying of bad_alloc, and a
// run of hours says so in one line before it starts, not after.
#include <initializer_list>
#include <string>

#include "args.hpp"

namespace tcgen::cli {

// The memory this process may use: physical memory, or its cgroup's limit
// where that is lower (a container).
double memory_limit_bytes();

// Throws tcgen::Error naming `options` and `sizes` when `bytes` exceed
// memory_limit_bytes().
void check_memory(const std::string& options, const std::string& sizes, double bytes);

// check_memory for reading the .npy files given to `options`, before they
// are read: the reader holds a file's bytes and its values, at most 3 times
// the file (float16 values become floats).
void check_input_files_fit(const Args& a, std::initializer_list<const char*> options);

// One run's time on the host model: the kernel's FLOPs at a backend's
// measured rate per OS thread, and the fp64 reference's at its own.
struct TimeEstimate {
  double kernel_flops = 0, kernel_rate = 1;  // FLOP and FLOP/s per thread
  unsigned threads = 1;
  double reference_flops = 0, reference_rate = 1;  // 0 FLOP: no reference
  double seconds() const;
};

// "tcgen: estimated ..." on stderr when the estimate passes two minutes and
// `quiet` is not set; nothing otherwise.
void announce_long_run(const TimeEstimate& t, bool quiet);

}  // namespace tcgen::cli
