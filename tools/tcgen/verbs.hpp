#pragma once
// The verbs of the tcgen program, each defined in its own file: its entry
// point and its option tables, which the registry (verb.hpp, verbs.cpp) lists.
#include <span>
#include <string>

#include "args.hpp"

namespace tcgen::cli {

int layout_smem(std::span<const std::string> args);  // tcgen layout smem
int layout_tmem(std::span<const std::string> args);  // tcgen layout tmem
int atom(std::span<const std::string> args);         // tcgen atom
int desc(std::span<const std::string> args);         // tcgen desc smem|decode
int idesc(std::span<const std::string> args);        // tcgen idesc [decode]
int gemm(std::span<const std::string> args);         // tcgen gemm
int fmha(std::span<const std::string> args);         // tcgen fmha
int sparse_decode(std::span<const std::string> args);  // tcgen sparse-decode
int moe(std::span<const std::string> args);            // tcgen moe
int ptx_module(std::span<const std::string> args);   // tcgen ptx
int run_program(std::span<const std::string> args);  // tcgen run (a build without nvcc: why it is missing)
int completion(std::span<const std::string> args);   // tcgen completion bash

// Each command's options: the tables its parser checks against (ptx and run
// parse by hand, naming the same tables in their errors).
extern const std::span<const Option> layout_smem_options, layout_tmem_options, atom_options, desc_smem_options,
    desc_decode_options, idesc_options, idesc_decode_options, gemm_options, fmha_options, sparse_decode_options, moe_options, ptx_options, run_options;

}  // namespace tcgen::cli
