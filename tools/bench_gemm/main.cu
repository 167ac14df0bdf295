// bench_gemm: the tcgen05 GEMM (gemm/include/tcgen/gemm/kernel.hpp) beside
// cuBLAS on the same B200, in TFLOP/s: D = A·Bᵀ, A M × K and B N × K bf16
// with K contiguous, f32 accumulation, D M × N bf16 row-major. cuBLAS gets
// the same problem as cublasGemmEx (column-major: Dᵀ = B·Aᵀ, "TN"), compute
// type CUBLAS_COMPUTE_32F. Each is timed with CUDA events over --iters
// launches after a warm-up; the two D are compared as a sanity check.
//
//   bench_gemm                      the default shapes
//   bench_gemm --m M --n N --k K    one shape
//   bench_gemm --quick              one small shape (the ctest run)
//   bench_gemm --reference fp64     no cuBLAS: D checked against the fp64 reference
//                                   (gemm/reference.hpp) instead, for `tcgen run` on the
//                                   host model, where cuBLAS does not run
//   bench_gemm --info               the kernel's launch shape, shared and Tensor Memory; no GPU needed
//   bench_gemm --help               the options
// Exit 0: ran; 1: a CUDA / cuBLAS error or the two D disagree; 77: no sm_100 GPU.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "../../tests/device/device_check.hpp"
#include "tcgen/gemm/device_gemm.hpp"
#include "tcgen/gemm/matrix.hpp"
#include "tcgen/gemm/reference.hpp"

using namespace tcgen;

namespace {

constexpr gemm::Config kConfig{.ab = ElementType::bf16, .d = ElementType::bf16};
using Kernel = gemm::Gemm<kConfig>;  // at namespace scope: nvcc's host pass cannot spell it inside a function

#define CUBLAS_CHECK(call)                                                           \
  do {                                                                               \
    const cublasStatus_t s_ = (call);                                                \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                               \
      std::printf("FAILED: %s at %s:%d: cuBLAS status %d\n", #call, __FILE__, __LINE__, \
                  static_cast<int>(s_));                                             \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

struct Shape {
  int m, n, k;
};

template <class Launch>
double seconds_per_launch(Launch launch, int iters) {
  launch();  // warm-up
  CUDA_CHECK(cudaDeviceSynchronize());
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  for (int i = 0; i < iters; ++i) launch();
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaEventSynchronize(stop));
  float ms = 0;
  CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms * 1e-3 / iters;
}

// Largest |x − y| / max|y| over the M × N outputs (bf16 patterns).
double max_difference(const std::vector<std::uint16_t>& x, const std::vector<std::uint16_t>& y) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double a = decode(ElementType::bf16, x[i]), b = decode(ElementType::bf16, y[i]);
    diff = std::fmax(diff, std::fabs(a - b));
    scale = std::fmax(scale, std::fabs(b));
    if (std::isnan(a) || std::isnan(b)) return NAN;
  }
  return diff / scale;
}

// D of tcgen's GEMM against the fp64 reference and its bound, the check that needs no cuBLAS.
bool check_fp64(const Shape& s, const gemm::Matrix& a, const gemm::Matrix& b, const std::vector<std::uint16_t>& got,
                double seconds) {
  const gemm::Reference r = gemm::reference(a, layout::Major::K, b, layout::Major::K, nullptr, s.m, s.n, s.k);
  std::vector<float> d(got.size());
  for (std::size_t i = 0; i < got.size(); ++i) d[i] = decode(ElementType::bf16, got[i]);
  const gemm::Verdict v = gemm::verify(d, r, ElementType::bf16);
  std::printf("%6d %6d %6d   %8.1f   fp64 check %s: max |D - exact| / sum|a*b| %.3g (bound %.3g)\n%s", s.m, s.n, s.k,
              2.0 * s.m * s.n * s.k / seconds * 1e-12, v.ok ? "PASS" : "FAIL", v.max_relative, v.bound,
              v.ok ? "" : v.text.c_str());
  return v.ok;
}

// handle null: --reference fp64.
bool bench(const Shape& s, int iters, int sms, cublasHandle_t* handle) {
  // Rows of K elements: K a multiple of 8 needs no padding, which cuBLAS's lda = K also wants.
  const gemm::Matrix a = gemm::random_matrix(ElementType::bf16, s.m, s.k, 1);
  const gemm::Matrix b = gemm::random_matrix(ElementType::bf16, s.n, s.k, 2);
  if (a.ld != s.k) {
    std::printf("K = %d: the benchmark takes K a multiple of 8 (unpadded rows for cuBLAS)\n", s.k);
    return false;
  }
  void *da, *db, *dd, *dref;
  const std::size_t d_bytes = static_cast<std::size_t>(s.m) * s.n * 2;
  CUDA_CHECK(cudaMalloc(&da, a.bytes.size()));
  CUDA_CHECK(cudaMalloc(&db, b.bytes.size()));
  CUDA_CHECK(cudaMalloc(&dd, d_bytes));
  CUDA_CHECK(cudaMalloc(&dref, d_bytes));
  CUDA_CHECK(cudaMemcpy(da, a.bytes.data(), a.bytes.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(db, b.bytes.data(), b.bytes.size(), cudaMemcpyHostToDevice));

  const gemm::Problem p{s.m, s.n, s.k, da, db, nullptr, dd, a.ld, b.ld, 0, s.n};
  const gemm::DeviceParams<kConfig> params = gemm::device_params<kConfig>(p);
  const double ours = seconds_per_launch([&] { CUDA_CHECK(gemm::launch_device<kConfig>(params, sms)); }, iters);
  std::vector<std::uint16_t> got(static_cast<std::size_t>(s.m) * s.n), ref(got.size());
  CUDA_CHECK(cudaMemcpy(got.data(), dd, d_bytes, cudaMemcpyDeviceToHost));
  if (!handle) {
    for (void* ptr : {da, db, dd, dref}) cudaFree(ptr);
    return check_fp64(s, a, b, got, ours);
  }

  const float alpha = 1.0f, beta = 0.0f;
  const double theirs = seconds_per_launch(
      [&] {
        CUBLAS_CHECK(cublasGemmEx(*handle, CUBLAS_OP_T, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, db, CUDA_R_16BF, s.k, da,
                                  CUDA_R_16BF, s.k, &beta, dref, CUDA_R_16BF, s.n, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT));
      },
      iters);

  CUDA_CHECK(cudaMemcpy(ref.data(), dref, d_bytes, cudaMemcpyDeviceToHost));
  for (void* ptr : {da, db, dd, dref}) cudaFree(ptr);

  // Both round the same f32 sums (in different orders) to bf16: a few bf16 ulps of the largest |D|.
  const double diff = max_difference(got, ref);
  const bool agree = diff <= 1.0 / 64;
  const double flops = 2.0 * s.m * s.n * s.k;
  std::printf("%6d %6d %6d   %8.1f   %8.1f   %6.2f   %.2g%s\n", s.m, s.n, s.k, flops / ours * 1e-12,
              flops / theirs * 1e-12, ours / theirs, diff, agree ? "" : "  DISAGREE");
  return agree;
}

int arg(int argc, char** argv, const char* name, int fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
  return fallback;
}

}  // namespace

constexpr const char* kHelp = R"(usage: bench_gemm [options]

The tcgen05 GEMM beside cuBLAS on the same B200, in TFLOP/s (D = A·Bᵀ, bf16,
f32 accumulation). Exit 0: ran; 1: a CUDA or cuBLAS error, or the two D
disagree; 2: a bad option; 77: no sm_100 GPU.

  --m M --n N --k K    one shape (default: five large ones)
  --iters N            launches timed (default 20)
  --quick              one small shape, 3 launches
  --reference fp64     no cuBLAS: D checked against the fp64 reference (for tcgen run)
  --info               the kernel's launch shape, shared and Tensor Memory; no GPU needed
  --help               this text
)";

int main(int argc, char** argv) {
  bool quick = false, info = false, fp64 = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::printf("%s", kHelp);
      return 0;
    }
    quick |= std::strcmp(argv[i], "--quick") == 0;
    info |= std::strcmp(argv[i], "--info") == 0;
    if (std::strcmp(argv[i], "--reference") == 0) {
      if (i + 1 == argc || std::strcmp(argv[i + 1], "fp64") != 0) {
        std::printf("bench_gemm: --reference takes fp64 (the only reference besides cuBLAS)\n");
        return 2;
      }
      fp64 = true;
    }
  }
  if (info) {
    std::printf("kernel: %s\nthreads per CTA: %u (TMA warp, MMA warp, 4 epilogue warps)\n"
                "dynamic shared memory: %u bytes (%u per stage) + %u for 1024-byte alignment\n"
                "Tensor Memory: %u columns allocated (%d used: two 128 x %d f32 accumulators)\n",
                gemm::describe(kConfig).c_str(), Kernel::kThreads, Kernel::kSmemBytes, Kernel::kStageBytes,
                exec::kSmemAlignment, Kernel::Tmem::allocation, Kernel::Tmem::columns, Kernel::kTileN);
    return 0;
  }
  const cudaDeviceProp prop = require_gpu(10, 0);
  std::vector<Shape> shapes{{4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 8192, 1024}, {2048, 8192, 8192},
                            {16384, 16384, 4096}};
  if (quick) shapes = {{1024, 1024, 1024}};
  if (arg(argc, argv, "--m", 0) > 0)
    shapes = {{arg(argc, argv, "--m", 0), arg(argc, argv, "--n", 4096), arg(argc, argv, "--k", 4096)}};
  const int iters = arg(argc, argv, "--iters", quick ? 3 : 20);

  cublasHandle_t handle;
  if (!fp64) CUBLAS_CHECK(cublasCreate(&handle));
  std::printf("%s: %s, %d SMs; tcgen: %s, persistent grid\n", prop.name, "bf16 x bf16 -> bf16, f32 accumulate",
              prop.multiProcessorCount, gemm::describe(kConfig).c_str());
  std::printf(fp64 ? "     M      N      K   tcgen TFLOP/s   check\n"
                   : "     M      N      K   tcgen TFLOP/s   cuBLAS TFLOP/s   time ratio   max |D - D_cublas| / max|D|\n");
  bool ok = true;
  for (const Shape& s : shapes) ok &= bench(s, iters, prop.multiProcessorCount, fp64 ? nullptr : &handle);
  if (!fp64) cublasDestroy(handle);
  return ok ? 0 : 1;
}
