#pragma once
// The compute_100a PTX a program, shared library or object carries: nvcc's
// fatbinaries found in the file by their magic (each checked to lie within
// it), their PTX entries for compute_100a read (decompressed where nvcc
// compressed them) and parsed, one module per distinct text. What
// `tcgen ptx ./app` reports on, before anything runs.
#include <string>
#include <vector>

#include "tcgen/ptx/module.hpp"

namespace tcgen::cli {

// Throws tcgen::Error when the file holds no fatbinary, or fatbinaries
// without compute_100a PTX (naming the targets they have and how to build).
std::vector<ptx::Module> embedded_ptx(const std::string& path);

}  // namespace tcgen::cli
