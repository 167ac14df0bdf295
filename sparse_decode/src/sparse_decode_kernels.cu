// The sparse decode kernel and its combine step compiled to PTX (tcgen_ptx in
// CMakeLists.txt) for the host model's PTX interpreter (run.hpp with tcgen/ptx/backend.hpp):
// `tcgen sparse-decode --backend ptx` runs exactly what a B200 would.
#include "tcgen/sparse_decode/device_sparse_decode.hpp"

namespace tcgen::sparse_decode {

template __global__ void sparse_decode_kernel<SparseDecode>(
    const __grid_constant__ SparseDecode::Params<exec::DeviceArch>);
template __global__ void sparse_decode_combine_kernel<SparseDecodeCombine>(const __grid_constant__ SparseDecodeCombine::Params);

}  // namespace tcgen::sparse_decode
