// test_gemm's configurations (gemm_test_configs.hpp) compiled to sm_100a
// PTX for the host model's PTX interpreter.
#include "gemm_test_configs.hpp"
#include "tcgen/gemm/device_gemm.hpp"

namespace tcgen::gemm {

template <Config C>
using Params = typename Gemm<C>::template Params<exec::DeviceArch>;

template __global__ void gemm_kernel<Gemm<gemm_tests::kBf16>>(const __grid_constant__ Params<gemm_tests::kBf16>);
template __global__ void gemm_kernel<Gemm<gemm_tests::kFp16ToBf16Tile128>>(
    const __grid_constant__ Params<gemm_tests::kFp16ToBf16Tile128>);
template __global__ void gemm_kernel<Gemm<gemm_tests::kBf16MnMn>>(const __grid_constant__ Params<gemm_tests::kBf16MnMn>);
template __global__ void gemm_kernel<Gemm<gemm_tests::kFp16MnKToFp16Tile64>>(
    const __grid_constant__ Params<gemm_tests::kFp16MnKToFp16Tile64>);
template __global__ void gemm_kernel<Gemm<gemm_tests::kBf16KMnToBf16Tile128>>(
    const __grid_constant__ Params<gemm_tests::kBf16KMnToBf16Tile128>);
template __global__ void gemm_kernel<Gemm<gemm_tests::kFp16Tile48>>(const __grid_constant__ Params<gemm_tests::kFp16Tile48>);
template __global__ void gemm_kernel<Gemm<gemm_tests::kTile64TwoStages>>(
    const __grid_constant__ Params<gemm_tests::kTile64TwoStages>);
template __global__ void gemm_kernel<Gemm<gemm_tests::kPair>>(const __grid_constant__ Params<gemm_tests::kPair>);
template __global__ void gemm_kernel<Gemm<gemm_tests::kPairFp16MnMnToBf16Tile128>>(
    const __grid_constant__ Params<gemm_tests::kPairFp16MnMnToBf16Tile128>);

}  // namespace tcgen::gemm
