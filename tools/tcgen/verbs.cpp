// The registry of tcgen's verbs (verb.hpp), in tcgen --help order.
#include "tcgen/core/error.hpp"
#include "verb.hpp"
#include "verbs.hpp"

namespace tcgen::cli {

#if !defined(TCGEN_RUN)
// tcgen run needs the CUDA toolkit's headers: without them it stays listed and says so.
const std::span<const Option> run_options{};
int run_program(std::span<const std::string>) {
  fail("verb", "run", "expected a build with nvcc: tcgen run needs the CUDA toolkit's headers");
}
constexpr bool kRunBuilt = false;
#else
constexpr bool kRunBuilt = true;
#endif

std::span<const Verb> verbs() {
  // Filled on first use, not at start-up: the option tables live in the verbs' files.
  static const SubVerb kDescForms[] = {{"smem", desc_smem_options}, {"decode", desc_decode_options}};
  static const SubVerb kIdescForms[] = {{"decode", idesc_decode_options}};
  static const SubVerb kShells[] = {{"bash", {}}};
  static const Verb kVerbs[] = {
    {"layout smem", "a shared-memory operand tile (canonical layout, swizzle, LBO/SBO)",
     "tcgen layout smem --dtype bf16 --major K --swizzle 128B --rows 128 --cols 64 --csv", layout_smem_options, {},
     layout_smem},
    {"layout tmem", "the accumulator D in Tensor Memory (datapath Layouts A-G)",
     "tcgen layout tmem --m 128 --n 256 --cta-group 1 --csv", layout_tmem_options, {}, layout_tmem},
    {"atom", "one tcgen05.ld/st access: which thread register holds which TMEM cell",
     "tcgen atom --shape 16x256b --num 1 --csv", atom_options, {}, atom},
    {"desc", "shared-memory matrix descriptors, one per MMA K step, or decode one",
     "tcgen desc smem --dtype bf16 --swizzle 128B --rows 128 --cols 64 --addr 0x400", {}, kDescForms, desc},
    {"idesc", "the 32-bit tcgen05.mma instruction descriptor, or decode one",
     "tcgen idesc --kind f16 --a-type bf16 --b-type bf16 --d-type f32 --m 128 --n 256 --json", idesc_options, kIdescForms,
     idesc},
    {"gemm", "D = A·Bᵀ with the tcgen05 GEMM on the host model (its PTX too, or a B200), against fp64",
     "tcgen gemm --m 200 --n 300 --k 250 [--a a.npy --b b.npy] [--out d.npy] [--backend ptx]", gemm_options, {}, gemm},
    {"fmha",
     "attention O = softmax(scale·Q·Kᵀ + mask)·V and LSE on the host model (its PTX too, or a B200), against fp64",
     "tcgen fmha [--batch 1 --heads 2 --heads-kv 1 --seq-q 256 --seq-k 333 --head-dim 128] [--causal]", fmha_options, {},
     fmha},
    {"sparse-decode", "DeepSeek-V4 sparse decode attention over an FP8 MODEL1 cache (FlashMLA's semantics), against fp64",
     "tcgen sparse-decode [--heads 64 --topk 512] [--q q.npy --k-cache kv.npy --block-size 64 --indices idx.npy]",
     sparse_decode_options, {}, sparse_decode},
    {"moe", "a mixture-of-experts layer's grouped MXFP8 x MXFP4 GEMM (DeepSeek-V4's experts), against fp64",
     "tcgen moe [--experts 8 --topk 2 --batch 128] [--preset v4-flash] [--projection down]", moe_options, {}, moe},
    {"ptx",
     "what the host model's PTX interpreter makes of a PTX file or of a program's embedded PTX:\n"
     "kernels, parameters, what it cannot run",
     "tcgen ptx [--json] kernel.ptx|./app", ptx_options, {}, ptx_module},
    {"run",
     "an unmodified CUDA program (nvcc -gencode arch=compute_100a,code=[sm_100a,compute_100a] -cudart shared)\n"
     "on the host model, every kernel's PTX with every rule checked",
     "tcgen run [--strict] [--json] -- ./app args", run_options, {}, run_program, kRunBuilt},
    {"completion", "a bash completion script for all of the above", "source <(tcgen completion bash)", {}, kShells,
     completion},
  };
  return kVerbs;
}

}  // namespace tcgen::cli
