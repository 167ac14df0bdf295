// cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col: the map validated as
// the driver validates it (tma::TensorMapSpec::validate: DRV's rules, the
// field named) and written in NVIDIA's CUtensorMap layout bit for bit as an
// H200's driver writes it (ptx/tensor_map.hpp; the maps it refuses instead
// are listed in docs/tensor_map.md), which the interpreter's TMA and
// tensormap.replace read back.
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "tcgen/core/error.hpp"
#include "tcgen/ptx/tensor_map.hpp"

namespace {

void report(const std::string& text) { std::fprintf(stderr, "tcgen run: %s\n", text.c_str()); }

// Bytes per element of a CUtensorMapDataType the model's TMA moves (1, 2, 4 or 8: FlashMLA's
// sparse decode moves 8 e4m3 bytes as one INT64 so that a 448-byte row fits one box; 1 for the
// packed types, which the map's data type describes); 0 otherwise.
std::uint32_t element_bytes(CUtensorMapDataType t) {
  switch (t) {
    case CU_TENSOR_MAP_DATA_TYPE_UINT8: return 1;
    case CU_TENSOR_MAP_DATA_TYPE_UINT16:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT16:
    case CU_TENSOR_MAP_DATA_TYPE_BFLOAT16: return 2;
    case CU_TENSOR_MAP_DATA_TYPE_UINT32:
    case CU_TENSOR_MAP_DATA_TYPE_INT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT32_FTZ:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32:
    case CU_TENSOR_MAP_DATA_TYPE_TFLOAT32_FTZ: return 4;
    case CU_TENSOR_MAP_DATA_TYPE_UINT64:
    case CU_TENSOR_MAP_DATA_TYPE_INT64:
    case CU_TENSOR_MAP_DATA_TYPE_FLOAT64: return 8;
    // The packed 4- and 6-bit types move in units of their own (TensorMapSpec::packing), not elements.
    case CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN8B:
    case CU_TENSOR_MAP_DATA_TYPE_16U4_ALIGN16B:
    case CU_TENSOR_MAP_DATA_TYPE_16U6_ALIGN16B: return 1;
    default: return 0;
  }
}

// The arguments cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col share, checked and put into s:
// "" when they are valid, else why not.
std::string shared_arguments(tcgen::tma::TensorMapSpec& s, CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank,
                             const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* element_strides,
                             CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                             CUtensorMapFloatOOBfill oob) {
  // A null globalAddress is accepted, as the driver does: CUTLASS's grouped GEMMs encode placeholder maps
  // that their kernels point at each group's tensors with tensormap.replace.
  if (!map || !dims || !element_strides || (rank > 1 && !strides))
    return "a null pointer among tensorMap, globalDim, globalStrides, elementStrides";
  if (reinterpret_cast<std::uintptr_t>(map) % 64 != 0)
    return "tensorMap is not 64-byte aligned (DRV: the CUtensorMap's address must be aligned to 64 bytes)";
  s.element_bytes = element_bytes(type);
  s.data_type = static_cast<int>(type);
  if (s.element_bytes == 0)
    return "tensorDataType = " + std::to_string(static_cast<int>(type)) +
           " is not modelled: the host model's TMA moves 1-, 2-, 4- and 8-byte elements and the packed 4- and "
           "6-bit types (13-15)";
  if (rank < 1 || rank > 5) return "tensorRank = " + std::to_string(rank) + " is invalid: expected 1 to 5";
  if (interleave != CU_TENSOR_MAP_INTERLEAVE_NONE) return "interleave is not modelled: expected INTERLEAVE_NONE";
  switch (swizzle) {
    case CU_TENSOR_MAP_SWIZZLE_NONE: s.swizzle = tcgen::tma::TmaSwizzle::none; break;
    case CU_TENSOR_MAP_SWIZZLE_32B: s.swizzle = tcgen::tma::TmaSwizzle::b32; break;
    case CU_TENSOR_MAP_SWIZZLE_64B: s.swizzle = tcgen::tma::TmaSwizzle::b64; break;
    case CU_TENSOR_MAP_SWIZZLE_128B: s.swizzle = tcgen::tma::TmaSwizzle::b128; break;
    case CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B: s.swizzle = tcgen::tma::TmaSwizzle::b128_atom32b; break;
    default: return "swizzle = " + std::to_string(static_cast<int>(swizzle)) + " is not modelled";
  }
  if (oob != CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE && oob != CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
    return "oobFill = " + std::to_string(static_cast<int>(oob)) + " is invalid: NONE or NAN_REQUEST_ZERO_FMA";
  s.oob_fill = oob == CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE ? tcgen::tma::TmaOobFill::zero
                                                       : tcgen::tma::TmaOobFill::nan_request_zero_fma;
  if (l2 < CU_TENSOR_MAP_L2_PROMOTION_NONE || l2 > CU_TENSOR_MAP_L2_PROMOTION_L2_256B)
    return "l2Promotion = " + std::to_string(static_cast<int>(l2)) + " is invalid: NONE, L2_64B, L2_128B or L2_256B";
  s.l2_promotion = static_cast<tcgen::tma::TmaL2Promotion>(l2);
  s.rank = rank;
  for (cuuint32_t i = 0; i < rank; ++i) {
    s.global_dims[i] = dims[i];
    s.element_strides[i] = element_strides[i];
    if (i + 1 < rank) s.global_strides[i] = strides[i];
  }
  return "";
}

// The map validated and written, or refused naming why.
CUresult encode(const char* function, const tcgen::tma::TensorMapSpec& s, CUtensorMap* map, void* global,
                const std::string& why) {
  const auto refuse = [&](const std::string& text) {
    report(std::string(function) + ": " + text + " (CUDA_ERROR_INVALID_VALUE)");
    return CUDA_ERROR_INVALID_VALUE;
  };
  if (!why.empty()) return refuse(why);
  try {
    const tcgen::ptx::TensorMap m = tcgen::ptx::encode_tensor_map(s, global);
    static_assert(sizeof(CUtensorMap) == sizeof m.bytes);
    std::memcpy(map, m.bytes, sizeof m.bytes);
  } catch (const tcgen::Error& e) {
    return refuse(e.what());
  }
  return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

CUresult cuTensorMapEncodeTiled(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* global,
                                const cuuint64_t* dims, const cuuint64_t* strides, const cuuint32_t* box,
                                const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                                CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  tcgen::tma::TensorMapSpec s;
  std::string why = shared_arguments(s, map, type, rank, dims, strides, element_strides, interleave, swizzle, l2, oob);
  if (why.empty() && !box) why = "a null boxDim";
  for (cuuint32_t i = 0; why.empty() && i < rank; ++i) s.box_dims[i] = box[i];
  return encode("cuTensorMapEncodeTiled", s, map, global, why);
}

// An im2col map (PTX #tensor-im2col-mode; tma::TmaIm2col): the corners, one per spatial dim (rank - 2,
// W first), the channels and pixels a load moves.
CUresult cuTensorMapEncodeIm2col(CUtensorMap* map, CUtensorMapDataType type, cuuint32_t rank, void* global,
                                 const cuuint64_t* dims, const cuuint64_t* strides, const int* lower_corner,
                                 const int* upper_corner, cuuint32_t channels_per_pixel, cuuint32_t pixels_per_column,
                                 const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                                 CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob) {
  tcgen::tma::TensorMapSpec s;
  std::string why = shared_arguments(s, map, type, rank, dims, strides, element_strides, interleave, swizzle, l2, oob);
  if (why.empty() && (!lower_corner || !upper_corner)) why = "a null pixelBoxLowerCorner or pixelBoxUpperCorner";
  if (why.empty() && rank < 3) why = "tensorRank = " + std::to_string(rank) + " is invalid: expected 3 to 5 for im2col";
  s.im2col.on = true;
  s.im2col.channels_per_pixel = channels_per_pixel;
  s.im2col.pixels_per_column = pixels_per_column;
  for (cuuint32_t i = 0; why.empty() && i + 2 < rank; ++i) {
    s.im2col.lower_corner[i] = lower_corner[i];
    s.im2col.upper_corner[i] = upper_corner[i];
  }
  return encode("cuTensorMapEncodeIm2col", s, map, global, why);
}

}  // extern "C"
