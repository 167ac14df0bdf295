#include "tcgen/attention/ptx_runner.hpp"

#include <chrono>

#include "tcgen/attention/fmha_kernel.hpp"
#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/ptx/device_layout.hpp"

namespace tcgen::attention {

FmhaRun run(const CheckedFmhaProblem& problem, const FmhaOperands& in, const FmhaOptions& options,
            const ptx::Interpreter& backend) {
  const FmhaProblem& pr = problem;
  pr.check_sizes(in.q.size(), in.k.size(), in.v.size());
  FmhaRun r{{std::vector<std::uint16_t>(pr.q_elements()), std::vector<float>(pr.lse_elements())}, {}};
  const auto encode = [](const tma::TensorMapSpec& spec, const void* tensor) {
    return ptx::encode_tensor_map(spec, tensor);
  };
  const ptx::Module& module = backend.module;
  const auto start = std::chrono::steady_clock::now();
  visit_fmha(problem, [&]<class F>() {
    const auto p = F::template params<ptx::DeviceLayout>(problem, options, encode, in.q.data(), in.k.data(), in.v.data(),
                                                         r.out.o.data(), r.out.lse.data());
    const ptx::Argument args[] = {ptx::argument(p)};
    const ptx::Allocation memory[] = {{in.q.data(), in.q.size_bytes(), "Q"},
                                      {in.k.data(), in.k.size_bytes(), "K"},
                                      {in.v.data(), in.v.size_bytes(), "V"},
                                      {r.out.o.data(), r.out.o.size() * sizeof(std::uint16_t), "O", true},
                                      {r.out.lse.data(), r.out.lse.size() * sizeof(float), "LSE", true}};
    // As exec::device::launch: 1 KiB beyond the kernel's bytes for smem_base() to align.
    const ptx::LaunchStats s = ptx::launch(
        module, module.entry_instance("tcgen::attention::fmha_kernel", typeid(F)),
        {.grid = F::grid(pr), .block = {F::kThreads, 1, 1}, .dynamic_smem = F::kSmemBytes + exec::kSmemAlignment,
         .options = backend.launch, .strict = backend.strict},
        args, memory);
    r.stats = ptx::run_stats(s, 0);
  });
  r.stats.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace tcgen::attention
