// st.async and red.async between the two CTAs of a cluster (PTX
// #data-movement-and-conversion-instructions-st-async, -red-async; Hopper's as
// much as Blackwell's): thread 0 of each CTA expects 24 bytes on its own
// mbarrier, sends its peer a .u32, a .v2.b32, a .b64 and a red.async.add.u32 on
// a counter that starts at 100, each completing on the peer's mbarrier, waits
// for its own phase 0 and reports what arrived. On an H200 the silicon judges
// the values and that the 24 bytes complete the phase; built for sm_100a, the
// same program runs under `tcgen run` through the PTX interpreter.
// Exit 0: every report as PTX defines it; 1: a mismatch or a CUDA error; 77: no GPU of TCGEN_REQUIRE_SM.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>

#include "device_check.hpp"

namespace {

constexpr int kWords = 6;

__global__ void __cluster_dims__(2, 1, 1) st_async_kernel(std::uint32_t* out) {
  __shared__ alignas(16) std::uint32_t buf[8];
  __shared__ alignas(8) std::uint64_t bar;
  __shared__ std::uint32_t cnt;
  std::uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const std::uint32_t peer = rank ^ 1;
  const auto smem = [](const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); };
  const auto remote = [&](const void* p) {
    std::uint32_t r;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(r) : "r"(smem(p)), "r"(peer));
    return r;
  };
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&bar)));
    cnt = 100;
    asm volatile("fence.mbarrier_init.release.cluster;");
  }
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], 24;" ::"r"(smem(&bar)) : "memory");
    const std::uint32_t to = remote(buf), to_bar = remote(&bar), to_cnt = remote(&cnt);
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%0], %1, [%2];"
                 ::"r"(to), "r"(1000 + rank), "r"(to_bar) : "memory");
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 [%0], {%1, %2}, [%3];"
                 ::"r"(to + 8), "r"(10 * rank + 1), "r"(10 * rank + 2), "r"(to_bar) : "memory");
    asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 [%0], %1, [%2];"
                 ::"r"(to + 16), "l"((1ull << 32) + rank), "r"(to_bar) : "memory");
    asm volatile("red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%0], %1, [%2];"
                 ::"r"(to_cnt), "r"(5 + rank), "r"(to_bar) : "memory");
    std::uint32_t done = 0;
    while (!done)
      asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                   : "=r"(done) : "r"(smem(&bar)) : "memory");
    const std::uint32_t got[kWords] = {buf[0], buf[2], buf[3], buf[4], buf[5], cnt};
    for (int i = 0; i < kWords; ++i) out[rank * kWords + i] = got[i];
  }
  // Neither CTA exits while its peer may still send to it.
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

}  // namespace

int main() {
  require_gpu(TCGEN_REQUIRE_SM / 10, TCGEN_REQUIRE_SM % 10);
  std::uint32_t* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, 2 * kWords * sizeof(std::uint32_t)));
  CUDA_CHECK(cudaMemset(out, 0xFF, 2 * kWords * sizeof(std::uint32_t)));
  st_async_kernel<<<2, 32>>>(out);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  std::uint32_t got[2 * kWords];
  CUDA_CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(out));
  int bad = 0;
  for (std::uint32_t rank = 0; rank < 2; ++rank) {
    const std::uint32_t peer = rank ^ 1;
    // What the peer sent: its .u32, its .v2.b32, its .b64 (low word, high word), and 100 + its red.async.add.
    const std::uint32_t want[kWords] = {1000 + peer, 10 * peer + 1, 10 * peer + 2, peer, 1, 100 + 5 + peer};
    for (int i = 0; i < kWords; ++i)
      if (got[rank * kWords + i] != want[i]) {
        std::printf("rank %u word %d: got %u, expected %u\n", rank, i, got[rank * kWords + i], want[i]);
        ++bad;
      }
  }
  std::printf("st.async / red.async across a cluster of 2: %s\n", bad ? "FAILED" : "as PTX defines");
  return bad ? 1 : 0;
}
