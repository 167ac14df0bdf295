// Every FMHA kernel visit_fmha can pick, compiled to PTX (tcgen_ptx in
// CMakeLists.txt) for the host model's PTX interpreter (run.hpp with tcgen/ptx/backend.hpp):
// `tcgen fmha --backend ptx` runs exactly what a B200 would.
#include "tcgen/fmha/device_fmha.hpp"

namespace tcgen::fmha {

template <ElementType E, int D>
using Params = typename Fmha<E, D>::template Params<exec::DeviceArch>;

template __global__ void fmha_kernel<Fmha<ElementType::bf16, 64>>(const __grid_constant__ Params<ElementType::bf16, 64>);
template __global__ void fmha_kernel<Fmha<ElementType::bf16, 128>>(const __grid_constant__ Params<ElementType::bf16, 128>);
template __global__ void fmha_kernel<Fmha<ElementType::bf16, 256>>(const __grid_constant__ Params<ElementType::bf16, 256>);
template __global__ void fmha_kernel<Fmha<ElementType::fp16, 64>>(const __grid_constant__ Params<ElementType::fp16, 64>);
template __global__ void fmha_kernel<Fmha<ElementType::fp16, 128>>(const __grid_constant__ Params<ElementType::fp16, 128>);
template __global__ void fmha_kernel<Fmha<ElementType::fp16, 256>>(const __grid_constant__ Params<ElementType::fp16, 256>);

}  // namespace tcgen::fmha
