#pragma once
// The PTX module `--backend ptx` runs: --ptx FILE, else the kernels' PTX this
// build compiled (nvcc -ptx -lineinfo for sm_100a).
#include <string>

#include "args.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::cli {

// built: the build's PTX path, or "" where nvcc was not found. Throws
// tcgen::Error naming --ptx when there is no module to load.
ptx::Module load_kernels(const Args& a, const std::string& built, const char* verb);

}  // namespace tcgen::cli
