// A cluster of CTAs written once against the kernel contract and run three
// ways: on the GPU (sm_90 or sm_100: clusters, distributed shared memory and
// barrier.cluster are Hopper's as much as Blackwell's), on the host model
// through HostArch, and, under `tcgen run`, as its PTX through the
// interpreter. Each CTA of a cluster of four writes 16·block + rank into the
// next rank's shared memory (mapa, st.shared::cluster), arrives on rank 0's
// mbarrier (mbarrier.arrive.shared::cluster), and reports what its own slot
// holds once barrier.cluster has passed. PTX #cluster-of-cooperative-thread-
// arrays, #distributed-shared-memory, #data-movement-and-conversion-
// instructions-mapa, #parallel-synchronization-and-communication-
// instructions-barrier-cluster.
// Exit 0: every report is the expected one on the GPU and on HostArch; 1: a
// mismatch or a CUDA error; 77: no GPU of TCGEN_REQUIRE_SM.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "device_check.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/exec/smem_budget.hpp"

using namespace tcgen;

namespace {

constexpr unsigned kCtas = 8, kClusterCtas = 4, kThreads = 64;

struct Report {
  std::uint32_t slot = 0xFFFFFFFFu, rank = 0, size = 0, arrived = 0;
};

// Instantiated for DeviceArch (device) and HostArch (host): nvcc's check of
// host calls from a __host__ __device__ template is off for it, as CUTLASS does.
#pragma nv_exec_check_disable
template <class Arch>
TCGEN_HD void cluster_body(Arch& a, Report* out) {
  const std::uint32_t slot = a.smem_base(), bar = a.smem_base() + 8;
  const unsigned rank = a.cluster_rank(), size = a.cluster_size();
  if (a.thread_index() == 0 && rank == 0) {
    a.mbarrier_init(bar, size);  // one arrival from every rank of the cluster
    a.fence_mbarrier_init();
  }
  a.cluster_arrive();  // the mbarrier is initialised before any rank arrives on it
  a.cluster_wait();
  if (a.thread_index() == 0) {
    a.dsmem_store(a.map_shared(slot, (rank + 1) % size), a.block_index().x * 16 + rank);
    a.mbarrier_arrive_cluster(a.map_shared(bar, 0));
  }
  a.cluster_arrive();  // every rank's store has landed
  a.cluster_wait();
  if (a.thread_index() == 0) {
    Report r;
    a.smem_load(slot, r.slot);
    r.rank = rank;
    r.size = size;
    if (rank == 0) {
      a.mbarrier_wait(bar, 0);
      r.arrived = 1;
    }
    out[a.block_index().x] = r;
  }
  a.cluster_arrive();  // no CTA leaves while a peer may still reach its shared memory
  a.cluster_wait();
}

__global__ void cluster_kernel(Report* out) {
  exec::DeviceArch a;
  cluster_body(a, out);
}

bool check(const char* where, const std::vector<Report>& got) {
  bool ok = true;
  for (unsigned b = 0; b < kCtas; ++b) {
    const unsigned rank = b % kClusterCtas, from_rank = (rank + kClusterCtas - 1) % kClusterCtas;
    const unsigned from = b / kClusterCtas * kClusterCtas + from_rank;
    const Report& r = got[b];
    const bool good = r.slot == from * 16 + from_rank && r.rank == rank && r.size == kClusterCtas &&
                      r.arrived == (rank == 0 ? 1u : 0u);
    if (!good)
      std::printf("FAIL %s: CTA %u reports slot %u, rank %u of %u, arrived %u; expected slot %u, rank %u of %u, arrived %u\n",
                  where, b, r.slot, r.rank, r.size, r.arrived, from * 16 + from_rank, rank, kClusterCtas,
                  rank == 0 ? 1u : 0u);
    ok = ok && good;
  }
  std::printf("%s %s: %u CTAs in clusters of %u\n", ok ? "PASS" : "FAIL", where, kCtas, kClusterCtas);
  return ok;
}

}  // namespace

int main() {
  require_gpu(TCGEN_REQUIRE_SM / 10, TCGEN_REQUIRE_SM % 10);
  const std::uint32_t smem = 64 + exec::kSmemAlignment;
  Report* out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, kCtas * sizeof(Report)));
  CUDA_CHECK(cudaMemset(out, 0, kCtas * sizeof(Report)));
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(kCtas);
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = smem;
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = kClusterCtas;
  cluster.val.clusterDim.y = 1;
  cluster.val.clusterDim.z = 1;
  config.attrs = &cluster;
  config.numAttrs = 1;
  CUDA_CHECK(cudaLaunchKernelEx(&config, cluster_kernel, out));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<Report> gpu(kCtas);
  CUDA_CHECK(cudaMemcpy(gpu.data(), out, kCtas * sizeof(Report), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(out));

  std::vector<Report> host(kCtas);
  exec::host::launch({kCtas, 1, 1}, kThreads, 64, [&](exec::HostArch& a) { cluster_body(a, host.data()); }, {},
                     {kClusterCtas, 1, 1});
  const bool ok = check("GPU", gpu) & check("HostArch", host);
  return ok ? 0 : 1;
}
