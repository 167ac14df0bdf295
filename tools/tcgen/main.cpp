// tcgen: print and draw the tcgen05 layouts modelled by tcgen::layout.
// Exit codes: 0 success; 1 a numerical check failed; 2 a bad command line or
// an illegal request (one sentence on stderr); 3 a file that cannot be read
// or written; 4 an internal error.
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "args.hpp"
#include "output_file.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/core/log.hpp"
#include "verbs.hpp"

namespace {

constexpr const char* kUsage = R"(usage: tcgen <verb> [options]

Print or draw the Blackwell tcgen05 layouts that tcgen models.

verbs:
  layout smem   a shared-memory operand tile (canonical layout, swizzle, LBO/SBO):
                  tcgen layout smem --dtype bf16 --major K --swizzle 128B --rows 128 --cols 64 --csv
  layout tmem   the accumulator D in Tensor Memory (datapath Layouts A-G):
                  tcgen layout tmem --m 128 --n 256 --cta-group 1 --csv
  atom          one tcgen05.ld/st access: which thread register holds which TMEM cell:
                  tcgen atom --shape 16x256b --num 1 --csv
  desc          shared-memory matrix descriptors, one per MMA K step, or decode one:
                  tcgen desc smem --dtype bf16 --swizzle 128B --rows 128 --cols 64 --addr 0x400
  idesc         the 32-bit tcgen05.mma instruction descriptor, or decode one:
                  tcgen idesc --kind f16 --a-type bf16 --b-type bf16 --d-type f32 --m 128 --n 256 --json
  gemm          D = A·Bᵀ with the tcgen05 GEMM on the host model (its PTX too, or a B200), against fp64:
                  tcgen gemm --m 200 --n 300 --k 250 [--a a.npy --b b.npy] [--out d.npy] [--backend ptx]
  fmha          attention O = softmax(scale·Q·Kᵀ + mask)·V and LSE on the host model (its PTX too, or a B200), against fp64:
                  tcgen fmha [--batch 1 --heads 2 --heads-kv 1 --seq-q 256 --seq-k 333 --head-dim 128] [--causal]
  sparse-decode DeepSeek-V4 sparse decode attention over an FP8 MODEL1 cache (FlashMLA's semantics), against fp64:
                  tcgen sparse-decode [--heads 64 --topk 512] [--q q.npy --k-cache kv.npy --block-size 64 --indices idx.npy]
  ptx           what the host model's PTX interpreter makes of a PTX file or of a program's embedded PTX:
                kernels, parameters, what it cannot run:
                  tcgen ptx [--json] kernel.ptx|./app
  run           an unmodified CUDA program (nvcc -gencode arch=compute_100a,code=[sm_100a,compute_100a] -cudart shared)
                on the host model, every kernel's PTX with every rule checked:
                  tcgen run [--strict] [--json] -- ./app args
  completion    a bash completion script for all of the above:
                  source <(tcgen completion bash)

layout smem, layout tmem and atom print a summary, or --csv for the full
mapping, and --svg FILE draws it; desc, idesc, gemm, fmha, sparse-decode, ptx and run take
--json for their report. 'tcgen <verb> --help' lists the verb's options.

'tcgen help VERB' is 'tcgen VERB --help'; 'tcgen --version' prints the version.

Exit codes: 0 success; 1 a numerical check failed; 2 a bad command line or
request (one sentence on stderr); 3 a file that cannot be read or written;
4 an internal error.
)";

constexpr const char* kLayoutUsage = R"(usage: tcgen layout smem|tmem [options]

  layout smem   a shared-memory operand tile; see 'tcgen layout smem --help'
  layout tmem   the accumulator D in Tensor Memory; see 'tcgen layout tmem --help'
)";

int run(const std::vector<std::string>& args) {
  using namespace tcgen::cli;
  if (args.empty()) tcgen::fail("verb", "(none)", "expected layout smem, layout tmem, atom, desc, idesc, gemm, fmha, sparse-decode, ptx, run or completion; see tcgen --help");
  const std::string& verb = args[0];
  tcgen::log().debug("verb {} with {} arguments (TCGEN_LOG=debug shows this)", verb, args.size() - 1);
  const std::span<const std::string> rest(args.data() + 1, args.size() - 1);
  if (verb == "--version") {
    std::cout << "tcgen " TCGEN_VERSION "\n";
    return 0;
  }
  // tcgen help VERB [SUBVERB] is tcgen VERB [SUBVERB] --help.
  if (verb == "help" && !rest.empty()) {
    std::vector<std::string> asked(rest.begin(), rest.end());
    asked.push_back("--help");
    return run(asked);
  }
  if (verb == "--help" || verb == "-h" || verb == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (verb == "atom") return atom(rest);
  if (verb == "desc") return desc(rest);
  if (verb == "idesc") return idesc(rest);
  if (verb == "gemm") return gemm(rest);
  if (verb == "fmha") return fmha(rest);
  if (verb == "sparse-decode") return sparse_decode(rest);
  if (verb == "ptx") return ptx_module(rest);
  if (verb == "completion") return completion(rest);
#if defined(TCGEN_RUN)
  if (verb == "run") return run_program(rest);
#else
  if (verb == "run") tcgen::fail("verb", verb, "expected a build with nvcc: tcgen run needs the CUDA toolkit's headers");
#endif
  if (verb == "layout") {
    if (rest.empty()) tcgen::fail("layout", "(none)", "expected smem or tmem after layout; see tcgen layout --help");
    const std::span<const std::string> tail = rest.subspan(1);
    if (rest[0] == "smem") return layout_smem(tail);
    if (rest[0] == "tmem") return layout_tmem(tail);
    if (rest[0] == "--help" || rest[0] == "-h") {
      std::cout << kLayoutUsage;
      return 0;
    }
    tcgen::fail("layout", rest[0], "expected smem or tmem after layout");
  }
  constexpr std::string_view kVerbs[] = {"layout", "atom", "desc", "idesc", "gemm", "fmha", "sparse-decode", "ptx", "run", "completion"};
  tcgen::fail("verb", verb, "expected layout smem, layout tmem, atom, desc, idesc, gemm, fmha, sparse-decode, ptx, run or completion; see tcgen --help" +
                                did_you_mean(verb, kVerbs, ""));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const tcgen::cli::IoError& e) {
    std::cerr << "tcgen: " << e.what() << '\n';
    return 3;
  } catch (const tcgen::Error& e) {
    std::cerr << "tcgen: " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "tcgen: internal error: " << e.what() << '\n';
    return 4;
  }
}
