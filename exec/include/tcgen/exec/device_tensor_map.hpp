#pragma once
// A TMA tensor map on the device: the CUtensorMap that cuTensorMapEncodeTiled
// builds from the same tma::TensorMapSpec the host path reads
// (host_tensor_map.hpp). A kernel's parameters hold it by value and are
// passed as __grid_constant__, so the map stays in parameter space, where
// cp.async.bulk.tensor may read it (CUDA Programming Guide, TMA).
#if !defined(__CUDACC__)
#error "tcgen/exec/device_tensor_map.hpp needs the CUDA toolkit: include it from a .cu file compiled by nvcc"
#endif

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/tma/tensor_map.hpp"

namespace tcgen::exec {

struct DeviceTensorMap {
  CUtensorMap map;  // 64-byte aligned, as the driver requires
};

// Encodes spec for the tensor at device address `global`: spec.validate()
// first (the driver's rules, as the host path checks them), then
// cuTensorMapEncodeTiled, taken from the driver by
// cudaGetDriverEntryPointByVersion so that nothing links libcuda. The spec
// gives element sizes only: 1-, 2-, 4- and 8-byte elements are encoded as
// UINT8/16/32/64, which a tiled load moves byte for byte (only a NaN
// out-of-bounds fill would read the type, and the spec allows zero fill
// only). Throws tcgen::Error naming the field, or the CUresult.
inline DeviceTensorMap device_tensor_map(const tma::TensorMapSpec& spec, const void* global) {
  spec.validate(reinterpret_cast<std::uintptr_t>(global));
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
          cudaSuccess ||
      found != cudaDriverEntryPointSuccess || fn == nullptr)
    fail("cuTensorMapEncodeTiled", "not found", "a CUDA 12.0 or later driver that provides it");
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);

  const CUtensorMapDataType type = spec.element_bytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : spec.element_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : spec.element_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                             : CU_TENSOR_MAP_DATA_TYPE_UINT64;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  switch (spec.swizzle) {
    case tma::TmaSwizzle::none: swizzle = CU_TENSOR_MAP_SWIZZLE_NONE; break;
    case tma::TmaSwizzle::b32: swizzle = CU_TENSOR_MAP_SWIZZLE_32B; break;
    case tma::TmaSwizzle::b64: swizzle = CU_TENSOR_MAP_SWIZZLE_64B; break;
    case tma::TmaSwizzle::b128: swizzle = CU_TENSOR_MAP_SWIZZLE_128B; break;
    case tma::TmaSwizzle::b128_atom32b: swizzle = CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B; break;
  }
  cuuint64_t dims[5]{}, strides[4]{};
  cuuint32_t box[5]{}, element_strides[5]{};
  for (std::uint32_t i = 0; i < spec.rank; ++i) {
    dims[i] = spec.global_dims[i];
    box[i] = spec.box_dims[i];
    element_strides[i] = spec.element_strides[i];
    if (i > 0) strides[i - 1] = spec.global_strides[i - 1];
  }
  DeviceTensorMap m{};
  const CUresult r = encode(&m.map, type, spec.rank, const_cast<void*>(global), dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
                            static_cast<CUtensorMapL2promotion>(spec.l2_promotion),  // the same numbering
                            CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    fail("cuTensorMapEncodeTiled", "CUresult " + std::to_string(static_cast<int>(r)),
         "CUDA_SUCCESS for a spec that passed TensorMapSpec::validate (a rule the model does not know?)");
  return m;
}

}  // namespace tcgen::exec
