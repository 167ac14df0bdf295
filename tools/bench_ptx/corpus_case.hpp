#pragma once
// bench_ptx's corpus case: silicon-proven programs (a CUTLASS GEMM and CUTLASS's FMHA, as
// tools/corpus/programs.txt runs them) through `tcgen run --profile`, each timed from outside, with
// the PTX thread-instructions a host second its kernels ran at, from tcgen run's profile table.
#include <string>

namespace tcgen::bench {

// Runs the corpus programs that `build` holds (tools/corpus.py builds them under build/corpus/bin)
// and prints a line per program; a program not built yet is named with the command that builds it.
// Returns 0 when every one ran to its own pass verdict, 1 otherwise.
int run_corpus_case(const std::string& source_root, const std::string& build);

}  // namespace tcgen::bench
