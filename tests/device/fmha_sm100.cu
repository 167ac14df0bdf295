// The FMHA kernel (attention/fmha_kernel.hpp) through exec::DeviceArch on a
// B200, against the fp64 reference with the host tests' bounds (O within
// 1e-2, LSE within 1e-3; tests/host/test_fmha_kernel.cpp). Compiled for
// sm_100a everywhere, so ptxas checks both head dims in CI; run only where an
// sm_100 GPU is present (exit 77 elsewhere).
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

#include "device_check.hpp"
#include "tcgen/attention/device_fmha.hpp"
#include "tcgen/attention/fmha_reference.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/core/element_type.hpp"

using namespace tcgen;

namespace {

// Random bf16 bits and their values; V positive (see test_fmha.cpp: bf16 P
// and near-zero O entries make a per-element relative bound meaningless).
void fill(std::vector<float>& x, std::vector<std::uint16_t>& b, std::size_t n, float lo, float hi, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(lo, hi);
  x.resize(n);
  b.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    b[i] = static_cast<std::uint16_t>(encode(ElementType::bf16, u(rng)));
    x[i] = decode(ElementType::bf16, b[i]);
  }
}

template <int D>
bool run(int seq_q, int seq_k, std::mt19937& rng) {
  std::vector<float> q, k, v;
  std::vector<std::uint16_t> qb, kb, vb;
  fill(q, qb, std::size_t(seq_q) * D, -2.0f, 2.0f, rng);
  fill(k, kb, std::size_t(seq_k) * D, -2.0f, 2.0f, rng);
  fill(v, vb, std::size_t(seq_k) * D, 0.25f, 1.75f, rng);
  const attention::SoftmaxScale scale = attention::SoftmaxScale::for_head_dim(D);

  std::uint16_t *dq, *dk, *dv, *dout;
  float* dlse;
  CUDA_CHECK(cudaMalloc(&dq, qb.size() * 2));
  CUDA_CHECK(cudaMalloc(&dk, kb.size() * 2));
  CUDA_CHECK(cudaMalloc(&dv, vb.size() * 2));
  CUDA_CHECK(cudaMalloc(&dout, qb.size() * 2));
  CUDA_CHECK(cudaMalloc(&dlse, sizeof(float) * seq_q));
  CUDA_CHECK(cudaMemcpy(dq, qb.data(), qb.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dk, kb.data(), kb.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(dv, vb.data(), vb.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(attention::launch_fmha_device<D>(dq, dk, dv, dout, dlse, seq_q, seq_k, scale));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint16_t> ob(qb.size());
  std::vector<float> o(qb.size()), lse(seq_q);
  CUDA_CHECK(cudaMemcpy(ob.data(), dout, ob.size() * 2, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(lse.data(), dlse, sizeof(float) * seq_q, cudaMemcpyDeviceToHost));
  for (void* p : {static_cast<void*>(dq), static_cast<void*>(dk), static_cast<void*>(dv), static_cast<void*>(dout),
                  static_cast<void*>(dlse)})
    cudaFree(p);
  for (std::size_t i = 0; i < ob.size(); ++i) o[i] = decode(ElementType::bf16, ob[i]);

  const auto ref = attention::fmha_reference(q, k, v, {seq_q, seq_k, D}, scale);
  const CompareReport ro = compare(o, ref.o, seq_q, D, 1e-2);
  const CompareReport rl = compare(lse, ref.lse, seq_q, 1, 1e-3);
  const bool ok = ro.ok && rl.ok;
  std::printf("%s head_dim %d, seq_q %d, seq_k %d, scale %g: O max rel %.3g, LSE max rel %.3g\n", ok ? "PASS" : "FAIL", D,
              seq_q, seq_k, scale.value(), ro.max_rel_error, rl.max_rel_error);
  return ok;
}

}  // namespace

int main() {
  require_gpu(10, 0);
  std::random_device seed_source;
  const unsigned seed = seed_source();
  std::printf("seed %u\n", seed);
  std::mt19937 rng(seed);
  int failures = 0;
  failures += !run<64>(256, 333, rng);
  failures += !run<128>(128, 77, rng);
  failures += !run<128>(1024, 1000, rng);
  std::printf("%s: %d failed\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
