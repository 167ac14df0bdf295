// The grouped GEMMs `tcgen moe` runs, compiled to PTX (tcgen_ptx in
// CMakeLists.txt) for the host model's PTX interpreter: `--backend ptx`
// runs exactly what a B200 would, DeviceArch's inline asm included.
#include "tcgen/moe/device_moe.hpp"

namespace tcgen::moe {

template <Config C>
using Params = typename GroupedGemm<C>::template Params<exec::DeviceArch>;

template __global__ void grouped_gemm_kernel<GroupedGemm<Config{}>>(const __grid_constant__ Params<Config{}>);
template __global__ void grouped_gemm_kernel<GroupedGemm<Config{.swiglu = true}>>(
    const __grid_constant__ Params<Config{.swiglu = true}>);

}  // namespace tcgen::moe
