#include "tcgen/exec/launch.hpp"

#include "tcgen/core/error.hpp"
#include "tcgen/exec/cta_runtime.hpp"

namespace tcgen::exec::host {

void launch(Dim3 grid, unsigned block_threads, std::uint32_t smem_bytes,
            const std::function<void(HostArch&)>& kernel, const LaunchOptions& options) {
  if (grid.count() == 0) fail("grid", 0, "at least one CTA in each dimension");
  std::uint64_t index = 0;
  for (unsigned z = 0; z < grid.z; ++z)
    for (unsigned y = 0; y < grid.y; ++y)
      for (unsigned x = 0; x < grid.x; ++x, ++index) {
        LaunchOptions cta_options = options;
        if (options.shuffle_seed) cta_options.shuffle_seed = *options.shuffle_seed + index;
        CtaRuntime cta({x, y, z}, grid, static_cast<int>(block_threads), smem_bytes, cta_options);
        cta.run(kernel);
        if (options.progress) options.progress(index + 1, std::uint64_t{grid.x} * grid.y * grid.z);
      }
}

}  // namespace tcgen::exec::host
