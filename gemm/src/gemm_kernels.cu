// The GEMM kernels `tcgen gemm` runs, compiled to PTX (tcgen_ptx in
// CMakeLists.txt) for the host model's PTX interpreter: `--backend ptx`
// runs exactly what a B200 would, DeviceArch's inline asm included.
#include "tcgen/gemm/device_gemm.hpp"

namespace tcgen::gemm {

template <Config C>
using Params = typename Gemm<C>::template Params<exec::DeviceArch>;

template __global__ void gemm_kernel<Gemm<Config{.ab = ElementType::bf16}>>(
    const __grid_constant__ Params<Config{.ab = ElementType::bf16}>);
template __global__ void gemm_kernel<Gemm<Config{.ab = ElementType::fp16}>>(
    const __grid_constant__ Params<Config{.ab = ElementType::fp16}>);
// A CTA pair per 256 × 256 tile (tcgen05 .cta_group::2).
template __global__ void gemm_kernel<Gemm<Config{.ab = ElementType::bf16, .cta_group = 2}>>(
    const __grid_constant__ Params<Config{.ab = ElementType::bf16, .cta_group = 2}>);

}  // namespace tcgen::gemm
