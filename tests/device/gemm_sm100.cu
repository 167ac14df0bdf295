// The GEMM kernel of gemm/include/tcgen/gemm/kernel.hpp — the source the
// host tests run on the host model (tests/host/test_gemm.cpp) — compiled for
// sm_100a through exec::DeviceArch and, on a B200, run at the host tests'
// shapes and larger ones, checked against fp64 with the same bound
// (gemm/reference.hpp): |error| ≤ (γ_{K+1} + u_D)·Σ|a·b| per element.
// Exit 0: all match; 1: a mismatch or a CUDA error; 77: no sm_100 GPU (the
// kernels compiled; ctest reports the test as skipped). Inputs are fresh per
// run; TCGEN_SEED=<seed> repeats one.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>

#include "device_check.hpp"
#include "tcgen/gemm/device_gemm.hpp"
#include "tcgen/gemm/matrix.hpp"
#include "tcgen/gemm/reference.hpp"

using namespace tcgen;
using layout::Major;

namespace {

struct Shape {
  int m, n, k;
  bool with_c = false;
};

void* to_device(const gemm::Matrix& m) {
  void* d = nullptr;
  CUDA_CHECK(cudaMalloc(&d, m.bytes.size()));
  CUDA_CHECK(cudaMemcpy(d, m.bytes.data(), m.bytes.size(), cudaMemcpyHostToDevice));
  return d;
}

template <gemm::Config C>
bool check(const Shape& s, std::uint64_t seed, int sms) {
  const gemm::Matrix a = gemm::random_operand(C.ab, C.a_major, s.m, s.k, seed);
  const gemm::Matrix b = gemm::random_operand(C.ab, C.b_major, s.n, s.k, seed + 1);
  std::optional<gemm::Matrix> c;
  if (s.with_c) c = gemm::random_matrix(C.d, s.m, s.n, seed + 2);
  gemm::Matrix d = gemm::nan_matrix(C.d, s.m, s.n);
  void *da = to_device(a), *db = to_device(b), *dc = c ? to_device(*c) : nullptr, *dd = to_device(d);
  const gemm::Problem p{s.m, s.n, s.k, da, db, dc, dd, a.ld, b.ld, c ? c->ld : 0, d.ld};
  CUDA_CHECK(gemm::run_device<C>(p, sms));
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemcpy(d.bytes.data(), dd, d.bytes.size(), cudaMemcpyDeviceToHost));
  for (void* ptr : {da, db, dc, dd}) cudaFree(ptr);

  const gemm::Reference ref = gemm::reference(a, C.a_major, b, C.b_major, c ? &*c : nullptr, s.m, s.n, s.k);
  const gemm::Verdict v = gemm::verify(gemm::to_floats(d), ref, C.d);
  std::printf("%s: %s, %dx%dx%d%s: max error %.3g of sum|a*b| (bound %.3g)\n%s", v.ok ? "PASSED" : "FAILED",
              gemm::describe(C).c_str(), s.m, s.n, s.k, s.with_c ? " + C" : "", v.max_relative, v.bound,
              v.text.c_str());
  return v.ok;
}

constexpr auto bf16 = ElementType::bf16, fp16 = ElementType::fp16;

}  // namespace

int main() {
  const cudaDeviceProp prop = require_gpu(10, 0);  // the sm_100a kernels compiled either way
  const char* env = std::getenv("TCGEN_SEED");
  const std::uint64_t seed = env ? std::strtoull(env, nullptr, 10) : std::random_device{}();
  std::printf("seed %llu (TCGEN_SEED=%llu repeats this run)\n", static_cast<unsigned long long>(seed),
              static_cast<unsigned long long>(seed));
  bool ok = true;
  // The host tests' shapes: partial tiles in M, N and K, both majors and input types, every output type.
  ok &= check<gemm::Config{}>({200, 300, 250}, seed, prop.multiProcessorCount);
  ok &= check<gemm::Config{.ab = fp16, .d = bf16, .tile_n = 128, .stages = 5}>({190, 270, 200, true}, seed + 10,
                                                                               prop.multiProcessorCount);
  ok &= check<gemm::Config{.a_major = Major::MN, .b_major = Major::MN}>({200, 300, 250, true}, seed + 20,
                                                                        prop.multiProcessorCount);
  ok &= check<gemm::Config{.ab = fp16, .a_major = Major::MN, .d = fp16, .tile_n = 64, .stages = 3}>(
      {136, 200, 170}, seed + 30, prop.multiProcessorCount);
  ok &= check<gemm::Config{.b_major = Major::MN, .d = bf16, .tile_n = 128}>({129, 131, 5, true}, seed + 40,
                                                                            prop.multiProcessorCount);
  // Larger: more tiles than SMs (each CTA takes several, both accumulators
  // in turn), many K blocks through the stages; and on 3 CTAs only.
  ok &= check<gemm::Config{}>({1000, 2900, 1100}, seed + 50, prop.multiProcessorCount);
  ok &= check<gemm::Config{.a_major = Major::MN, .b_major = Major::MN}>({520, 1030, 700, true}, seed + 60, 3);
  std::printf("%s on %s\n", ok ? "PASSED" : "FAILED", prop.name);
  return ok ? 0 : 1;
}
