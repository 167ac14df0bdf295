// The B200 runner for host code (gemm/sm100_runner.hpp) exists only for the
// configs its .cu compiles: another config is refused at compile time with
// the constraint named, not left to a link error. tests/compile_fail/
// CMakeLists.txt compiles this file once per CASE_*; CASE_runner_legal must compile.
#include "tcgen/gemm/sm100_runner.hpp"

using namespace tcgen;

#if defined(CASE_runner_legal)
exec::RunStats on_gpu(const gemm::Problem& p) { return gemm::run<gemm::Config{.ab = ElementType::fp16}>(p, {}, exec::Sm100{}); }
#elif defined(CASE_runner_sm100_config)
exec::RunStats on_gpu(const gemm::Problem& p) { return gemm::run<gemm::Config{.d = ElementType::bf16}>(p, {}, exec::Sm100{}); }
#endif

int main() { return 0; }
