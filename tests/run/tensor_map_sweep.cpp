// Replays an H200's sweep of cuTensorMapEncodeTiled and cuTensorMapEncodeIm2col (the CSV named by
// argv[1], tools/tensormap_sweep/encode_sweep.cpp) through the driver this program finds: under
// `tcgen run`, tcgen's. A host program (g++, -lcuda). Every call must end as it ended on the H200, the
// same bytes where both accept, except where tcgen is not that driver on purpose:
//  - it refuses what the model's TMA does not move (interleaved layouts, the OOB-NaN fill), which the
//    H200 took: each such row is counted as "not modelled";
//  - it is a B200, and takes what needs compute capability 10, which the H200 refused (the atom
//    swizzles and the packed 4- and 6-bit types, DRV): counted as "B200 only".
// One refusal the sweep does not explain either, which tcgen does not copy: counted as "unexplained".
// cuTensorMapEncodeIm2colWide, which tcgen does not offer, is skipped. Prints the counts, each row that
// ends otherwise, and PASSED or FAILED. On an H200 every row ends as recorded.
#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <exception>

#include "../shared/tensor_map_sweep.hpp"

namespace {

using tcgen::test_sweep::EncodeRow;

CUresult encode(const EncodeRow& r, CUtensorMap* map) {
  void* global = reinterpret_cast<void*>(static_cast<std::uintptr_t>(r.address));
  const auto type = static_cast<CUtensorMapDataType>(r.data_type);
  const auto* dims = reinterpret_cast<const cuuint64_t*>(r.dims.data());
  const auto* strides = reinterpret_cast<const cuuint64_t*>(r.strides.data());
  const auto interleave = static_cast<CUtensorMapInterleave>(r.interleave);
  const auto swizzle = static_cast<CUtensorMapSwizzle>(r.swizzle);
  const auto l2 = static_cast<CUtensorMapL2promotion>(r.l2);
  const auto oob = static_cast<CUtensorMapFloatOOBfill>(r.oob);
  if (r.function == "tiled")
    return cuTensorMapEncodeTiled(map, type, r.rank, global, dims, strides, r.box.data(), r.element_strides.data(),
                                  interleave, swizzle, l2, oob);
  return cuTensorMapEncodeIm2col(map, type, r.rank, global, dims, strides, r.lower.data(), r.upper.data(), r.channels,
                                 r.pixels, r.element_strides.data(), interleave, swizzle, l2, oob);
}

bool not_modelled(const EncodeRow& r) { return r.interleave != 0 || r.oob != 0; }
// A random rank-5 im2col map (u32, 4 channels, 894 pixels, a 3,004,017,788-pixel D dim at element stride
// 6): its corners, box and strides pass every rule the rest of the sweep shows. docs/tensor_map.md.
bool unexplained(const EncodeRow& r) { return r.line.rfind("im2col,random,2,5,0x37263a0,", 0) == 0; }
bool b200_only(const EncodeRow& r) { return (r.swizzle >= 4 && r.swizzle <= 6) || (r.data_type >= 13 && r.data_type <= 15); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s tensormap_sweep_h200.csv.zst\n", argv[0]);
    return 2;
  }
  std::vector<EncodeRow> rows;
  try {
    rows = tcgen::test_sweep::encode_rows(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  if (cuInit(0) != CUDA_SUCCESS) return 2;
  int same = 0, both_refused = 0, not_modelled_rows = 0, b200_rows = 0, unexplained_rows = 0, skipped = 0, wrong = 0;
  for (const EncodeRow& r : rows) {
    if (r.function == "im2col_wide") {
      ++skipped;
      continue;
    }
    alignas(128) CUtensorMap map;
    std::memset(&map, 0, sizeof map);
    const CUresult got = encode(r, &map);
    const char* verdict = nullptr;
    if (r.result == CUDA_SUCCESS && got == CUDA_SUCCESS) {
      if (std::memcmp(&map, r.bytes.data(), 128) == 0)
        ++same;
      else
        verdict = "other bytes than the H200's";
    } else if (r.result == CUDA_SUCCESS) {
      if (not_modelled(r))
        ++not_modelled_rows;
      else
        verdict = "refused, where the H200 encoded it";
    } else if (got == CUDA_SUCCESS) {
      if (b200_only(r))
        ++b200_rows;
      else if (unexplained(r))
        ++unexplained_rows;
      else
        verdict = "encoded, where the H200 refused it";
    } else {
      ++both_refused;
    }
    if (verdict) {
      ++wrong;
      std::printf("%s: %s\n", verdict, r.line.substr(0, r.line.rfind(',')).c_str());
    }
  }
  std::printf("%d rows: %d the same bytes, %d refused by both, %d not modelled, %d B200 only, %d unexplained, %d "
              "im2col_wide skipped, %d otherwise\n%s\n",
              static_cast<int>(rows.size()), same, both_refused, not_modelled_rows, b200_rows, unexplained_rows, skipped,
              wrong,
              wrong == 0 ? "PASSED" : "FAILED");
  return wrong == 0 ? 0 : 1;
}
