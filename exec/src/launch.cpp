#include "tcgen/exec/launch.hpp"

#include "tcgen/core/error.hpp"
#include "tcgen/exec/cta_runtime.hpp"
#include "tcgen/exec/unit_pool.hpp"

namespace tcgen::exec::host {

void launch(Dim3 grid, unsigned block_threads, std::uint32_t smem_bytes,
            const std::function<void(HostArch&)>& kernel, const LaunchOptions& options) {
  if (grid.count() == 0) fail("grid", 0, "at least one CTA in each dimension");
  const std::uint64_t ctas = std::uint64_t{grid.x} * grid.y * grid.z;
  run_units(
      ctas, options.threads,
      [&](std::uint64_t index) {
        LaunchOptions cta_options = options;
        if (options.shuffle_seed) cta_options.shuffle_seed = *options.shuffle_seed + index;
        CtaRuntime cta(grid.at(index), grid, static_cast<int>(block_threads), smem_bytes, cta_options);
        cta.run(kernel);
      },
      [&](std::uint64_t index) {
        if (options.progress) options.progress(index + 1, ctas);
      });
}

}  // namespace tcgen::exec::host
