// TMA the way CUTLASS and DeepGEMM set it up, run under `tcgen run`:
// cuTensorMapEncodeTiled obtained through cudaGetDriverEntryPoint (no
// -lcuda), a map passed as a __grid_constant__ kernel parameter, one
// cp.async.bulk.tensor.2d load per CTA onto an mbarrier, the box copied back
// out. Two maps over a 256 × 64 tensor of u32: no swizzle (box 32 × 16) and
// 128-byte swizzle (box 32 × 8), whose bytes land per Swizzle<3,4,3>. Then a
// map the driver refuses (a box dimension of 512). Exit 0 and PASSED when
// every byte is where the TMA puts it and the bad map was refused.
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

using Encode = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*, const cuuint64_t*,
                            const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                            CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

constexpr int kRows = 256, kCols = 64;

__global__ void load_box(const __grid_constant__ CUtensorMap map, int box_rows, int box_cols, std::uint32_t* out) {
  extern __shared__ __align__(1024) std::uint32_t box[];
  __shared__ __align__(8) std::uint64_t mbar;
  const std::uint32_t smem = static_cast<std::uint32_t>(__cvta_generic_to_shared(box));
  const std::uint32_t bar = static_cast<std::uint32_t>(__cvta_generic_to_shared(&mbar));
  const int bytes = box_rows * box_cols * 4;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar));
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes));
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(smem),
        "l"(&map), "r"(0), "r"(int(blockIdx.x) * box_rows), "r"(bar)
        : "memory");
  }
  asm volatile(
      "{\n\t.reg .pred done;\n\tWAIT:\n\tmbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n\t@!done bra WAIT;\n\t}" ::"r"(bar));
  for (int i = threadIdx.x; i < bytes / 4; i += blockDim.x) out[blockIdx.x * (bytes / 4) + i] = box[i];
}

int main() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult status;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &status) != cudaSuccess ||
      !fn) {
    std::printf("FAILED: no cuTensorMapEncodeTiled\n");
    return 1;
  }
  const auto encode = reinterpret_cast<Encode>(fn);
  std::vector<std::uint32_t> host(kRows * kCols);
  for (int i = 0; i < kRows * kCols; ++i) host[i] = 0x10000u * (i / kCols) + i % kCols;  // row << 16 | column
  std::uint32_t *tensor, *out;
  cudaMalloc(&tensor, host.size() * 4);
  cudaMalloc(&out, host.size() * 4);
  cudaMemcpy(tensor, host.data(), host.size() * 4, cudaMemcpyHostToDevice);
  const cuuint64_t dims[] = {kCols, kRows}, strides[] = {kCols * 4};
  const cuuint32_t element_strides[] = {1, 1};
  int wrong = 0;
  for (const bool swizzled : {false, true}) {
    const int box_cols = 32, box_rows = swizzled ? 8 : 16;  // 128 bytes per box row
    const cuuint32_t box[] = {cuuint32_t(box_cols), cuuint32_t(box_rows)};
    CUtensorMap map;
    if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, tensor, dims, strides, box, element_strides,
               CU_TENSOR_MAP_INTERLEAVE_NONE, swizzled ? CU_TENSOR_MAP_SWIZZLE_128B : CU_TENSOR_MAP_SWIZZLE_NONE,
               CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
      std::printf("FAILED: encode\n");
      return 1;
    }
    const int ctas = kRows / box_rows, per = box_rows * box_cols;
    load_box<<<ctas, 128, per * 4>>>(map, box_rows, box_cols, out);
    if (cudaDeviceSynchronize() != cudaSuccess) {
      std::printf("FAILED: launch\n");
      return 1;
    }
    std::vector<std::uint32_t> got(ctas * per);
    cudaMemcpy(got.data(), out, got.size() * 4, cudaMemcpyDeviceToHost);
    for (int c = 0; c < ctas; ++c)
      for (int r = 0; r < box_rows; ++r)
        for (int k = 0; k < box_cols; ++k) {
          // 16-byte chunk k/4 of box row r goes to chunk (k/4) ^ (r % 8) under 128B swizzle.
          const int chunk = swizzled ? (k / 4) ^ (r % 8) : k / 4;
          const std::uint32_t want = 0x10000u * (c * box_rows + r) + k;
          wrong += got[c * per + r * box_cols + chunk * 4 + k % 4] != want;
        }
    std::printf("%s: %d of %d words misplaced\n", swizzled ? "128B swizzle" : "no swizzle", wrong, ctas * per);
  }
  // The driver refuses a box dimension above 256.
  const cuuint32_t bad_box[] = {512, 8};
  CUtensorMap bad;
  const CUresult refused = encode(&bad, CU_TENSOR_MAP_DATA_TYPE_UINT32, 2, tensor, dims, strides, bad_box,
                                  element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                  CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  std::printf("box of 512: %s\n", refused == CUDA_ERROR_INVALID_VALUE ? "refused" : "accepted");
  const bool ok = wrong == 0 && refused == CUDA_ERROR_INVALID_VALUE;
  std::printf("%s\n", ok ? "PASSED" : "FAILED");
  return ok ? 0 : 1;
}
