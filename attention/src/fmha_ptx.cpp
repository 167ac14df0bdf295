#include "tcgen/attention/fmha_ptx.hpp"

#include "tcgen/attention/fmha_kernel.hpp"
#include "tcgen/exec/smem_budget.hpp"
#include "tcgen/ptx/device_layout.hpp"

namespace tcgen::attention {

FmhaOutput run_fmha_ptx(const ptx::Module& module, const CheckedFmhaProblem& problem, std::span<const std::uint16_t> q,
                        std::span<const std::uint16_t> k, std::span<const std::uint16_t> v,
                        const exec::LaunchOptions& launch, bool strict, ptx::LaunchStats* stats,
                        const FmhaOptions& options) {
  const FmhaProblem& pr = problem;
  pr.check_sizes(q.size(), k.size(), v.size());
  FmhaOutput out{std::vector<std::uint16_t>(pr.q_elements()), std::vector<float>(pr.lse_elements())};
  const auto encode = [](const tma::TensorMapSpec& spec, const void* tensor) {
    return ptx::encode_tensor_map(spec, tensor);
  };
  visit_fmha(problem, [&]<class F>() {
    const auto p = F::template params<ptx::DeviceLayout>(problem, options, encode, q.data(), k.data(), v.data(),
                                                         out.o.data(), out.lse.data());
    const ptx::Argument args[] = {ptx::argument(p)};
    const ptx::Allocation memory[] = {{q.data(), q.size_bytes(), "Q"},
                                      {k.data(), k.size_bytes(), "K"},
                                      {v.data(), v.size_bytes(), "V"},
                                      {out.o.data(), out.o.size() * sizeof(std::uint16_t), "O", true},
                                      {out.lse.data(), out.lse.size() * sizeof(float), "LSE", true}};
    // As exec::device::launch: 1 KiB beyond the kernel's bytes for smem_base() to align.
    const ptx::LaunchStats s = ptx::launch(
        module, module.entry_instance("tcgen::attention::fmha_kernel", typeid(F)),
        {.grid = F::grid(pr), .block = {F::kThreads, 1, 1}, .dynamic_smem = F::kSmemBytes + exec::kSmemAlignment,
         .options = launch, .strict = strict},
        args, memory);
    if (stats) *stats = s;
  });
  return out;
}

}  // namespace tcgen::attention
