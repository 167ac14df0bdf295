#pragma once
// The verbs of the tcgen program. Each takes the arguments after its name,
// prints its --help when asked, and throws tcgen::Error on a bad request.
#include <span>
#include <string>

namespace tcgen::cli {

int layout_smem(std::span<const std::string> args);  // tcgen layout smem
int layout_tmem(std::span<const std::string> args);  // tcgen layout tmem
int atom(std::span<const std::string> args);         // tcgen atom
int desc(std::span<const std::string> args);         // tcgen desc smem|decode
int idesc(std::span<const std::string> args);        // tcgen idesc [decode]
int gemm(std::span<const std::string> args);         // tcgen gemm
int fmha(std::span<const std::string> args);         // tcgen fmha
int ptx_module(std::span<const std::string> args);   // tcgen ptx
int run_program(std::span<const std::string> args);  // tcgen run

}  // namespace tcgen::cli
