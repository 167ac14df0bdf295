// A cluster of CTAs written once against the kernel contract and run three
// ways: on the GPU (sm_90 or sm_100: clusters, distributed shared memory and
// barrier.cluster are Hopper's as much as Blackwell's), on the host model
// through HostArch, and, under `tcgen run`, as its PTX through the
// interpreter. Each CTA of a cluster of four writes 16·block + rank into the
// next rank's shared memory (mapa, st.shared::cluster), arrives on rank 0's
// mbarrier (mbarrier.arrive.shared::cluster), and reports what its own slot
// holds once barrier.cluster has passed. Then rank 0 of each cluster multicasts
// one TMA box to ranks 0, 1 and 3 (.multicast::cluster, mask 0b1011): each of
// them completes its own mbarrier and holds the box; rank 2 keeps its
// sentinel. On sm_100 (a B200, or the host model under tcgen run), every rank
// also commits (tcgen05.commit .multicast::cluster) to all ranks' mbarriers,
// and a persistent grid takes its tiles through clusterlaunchcontrol.try_cancel.
// PTX #cluster-of-cooperative-thread-
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
#include "tcgen/exec/host_tensor_map.hpp"
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

// The tensor: 64 x 16 16-bit values, row-major; the box: 64 x 8 at row 8 (1 KiB).
constexpr std::uint16_t kMask = 0b1011;
constexpr std::uint32_t kBoxBytes = 64 * 8 * 2;
std::uint16_t tensor_value(int i) { return static_cast<std::uint16_t>(0x3C00 + 7 * i); }
tma::TensorMapSpec box_spec() {
  tma::TensorMapSpec spec;
  spec.element_bytes = 2;
  spec.rank = 2;
  spec.global_dims = {64, 16};
  spec.global_strides = {128};
  spec.box_dims = {64, 8};
  return spec;
}

// Each CTA reports the box's 256 words it holds (or 0xFFFFFFFF where the
// sentinel stayed: the CTA is outside the mask) and whether its mbarrier completed.
#pragma nv_exec_check_disable
template <class Arch>
TCGEN_HD void multicast_body(Arch& a, const typename Arch::TensorMap& map, std::uint32_t* out) {
  const std::uint32_t bar = a.smem_base(), box = a.smem_base() + 1024;
  const unsigned rank = a.cluster_rank();
  const bool receives = (kMask >> rank & 1u) != 0;
  if (a.thread_index() == 0) {
    for (std::uint32_t i = 0; i < kBoxBytes; i += 4) a.smem_store(box + i, 0xFFFFFFFFu);
    a.mbarrier_init(bar, 1);
    a.fence_mbarrier_init();
    if (receives) a.mbarrier_arrive_expect_tx(bar, kBoxBytes);
  }
  a.cluster_arrive();  // every receiver expects its bytes before they land
  a.cluster_wait();
  if (a.thread_index() == 0 && rank == 0) a.tma_load_multicast(map, box, bar, kMask, 0, 8);
  if (a.thread_index() == 0 && receives) a.mbarrier_wait(bar, 0);
  a.cluster_arrive();
  a.cluster_wait();
  std::uint32_t* mine = out + a.block_index().x * (kBoxBytes / 4 + 1);
  for (std::uint32_t i = a.thread_index(); i < kBoxBytes / 4; i += a.block_threads()) {
    std::uint32_t w = 0;
    a.smem_load(box + 4 * i, w);
    mine[i] = w;
  }
  if (a.thread_index() == 0) mine[kBoxBytes / 4] = receives ? a.mbarrier_try_wait(bar, 0) : 0;
  a.cluster_arrive();  // no CTA leaves while the multicast may still reach it
  a.cluster_wait();
}

__global__ void multicast_kernel(const __grid_constant__ exec::DeviceTensorMap map, std::uint32_t* out) {
  exec::DeviceArch a;
  multicast_body(a, map, out);
}

#if TCGEN_REQUIRE_SM == 100
// sm_100 only: every rank's tcgen05.commit .multicast::cluster to all ranks
// (no MMA before it: the arrival comes at once); each rank's mbarrier of
// count 4 completes. out[b] = 1 once it has.
#pragma nv_exec_check_disable
template <class Arch>
TCGEN_HD void commit_body(Arch& a, std::uint32_t* out) {
  const std::uint32_t bar = a.smem_base();
  if (a.thread_index() == 0) {
    a.mbarrier_init(bar, a.cluster_size());
    a.fence_mbarrier_init();
  }
  a.cluster_arrive();
  a.cluster_wait();
  if (a.thread_index() == 0) {
    a.commit_multicast(bar, 1, static_cast<std::uint16_t>((1u << a.cluster_size()) - 1));
    a.mbarrier_wait(bar, 0);
    out[a.block_index().x] = 1;
  }
  a.cluster_arrive();  // no CTA leaves while a peer's commit may still reach it
  a.cluster_wait();
}

__global__ void commit_kernel(std::uint32_t* out) {
  exec::DeviceArch a;
  commit_body(a, out);
}

// sm_100 only: a persistent grid of 12 single-CTA clusters
// (clusterlaunchcontrol): each CTA takes its own tile, then every tile whose
// cluster it cancels before it starts. out[tile] = 1 + the CTA that did it;
// out[kTiles + b] = how many tiles CTA b did (their sum: each tile once).
constexpr unsigned kTiles = 12;
#pragma nv_exec_check_disable
template <class Arch>
TCGEN_HD void persistent_body(Arch& a, unsigned* out) {
  if (a.thread_index() != 0) return;
  const std::uint32_t bar = a.smem_base(), response = a.smem_base() + 16;
  a.mbarrier_init(bar, 1);
  a.fence_mbarrier_init();  // the init is visible to the async proxy's complete_tx
  unsigned tile = a.block_index().x, done = 0;
  for (std::uint32_t phase = 0;; phase ^= 1u) {
    out[tile] = a.block_index().x + 1;
    out[kTiles + a.block_index().x] = ++done;
    a.mbarrier_arrive_expect_tx(bar, 16);
    a.try_cancel(response, bar);
    a.mbarrier_wait(bar, phase);
    std::array<std::uint32_t, 4> words{};
    for (std::uint32_t i = 0; i < 4; ++i) a.smem_load(response + 4 * i, words[i]);
    const auto r = a.query_cancel(words);
    if (!r.canceled) return;
    tile = r.first_cta.x;
  }
}
__global__ void persistent_kernel(unsigned* out) {
  exec::DeviceArch a;
  persistent_body(a, out);
}
#endif

bool check_multicast(const char* where, const std::vector<std::uint32_t>& got) {
  bool ok = true;
  for (unsigned b = 0; b < kCtas; ++b) {
    const unsigned rank = b % kClusterCtas;
    const bool receives = (kMask >> rank & 1u) != 0;
    const std::uint32_t* mine = got.data() + b * (kBoxBytes / 4 + 1);
    int wrong = 0;
    for (int i = 0; i < static_cast<int>(kBoxBytes / 4); ++i) {
      const std::uint32_t want = receives ? tensor_value(8 * 64 + 2 * i) | std::uint32_t{tensor_value(8 * 64 + 2 * i + 1)} << 16
                                          : 0xFFFFFFFFu;
      wrong += mine[i] != want;
    }
    const bool good = wrong == 0 && mine[kBoxBytes / 4] == (receives ? 1u : 0u);
    if (!good)
      std::printf("FAIL %s multicast: CTA %u (rank %u, %s the mask): %d of %u words wrong, mbarrier %s\n", where, b, rank,
                  receives ? "in" : "outside", wrong, kBoxBytes / 4, mine[kBoxBytes / 4] ? "complete" : "not complete");
    ok = ok && good;
  }
  std::printf("%s %s multicast: mask 0x%x in clusters of %u\n", ok ? "PASS" : "FAIL", where, unsigned{kMask}, kClusterCtas);
  return ok;
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
  bool ok = check("GPU", gpu) & check("HostArch", host);

  // Multicast: the same tensor on the GPU and on the host.
  std::vector<std::uint16_t> tensor(64 * 16);
  for (int i = 0; i < 64 * 16; ++i) tensor[static_cast<std::size_t>(i)] = tensor_value(i);
  const std::size_t words = kCtas * (kBoxBytes / 4 + 1);
  std::uint16_t* dtensor = nullptr;
  std::uint32_t* dout = nullptr;
  CUDA_CHECK(cudaMalloc(&dtensor, tensor.size() * 2));
  CUDA_CHECK(cudaMalloc(&dout, words * 4));
  CUDA_CHECK(cudaMemcpy(dtensor, tensor.data(), tensor.size() * 2, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dout, 0, words * 4));
  const exec::DeviceTensorMap map = exec::device_tensor_map(box_spec(), dtensor);
  config.dynamicSmemBytes = 2048 + exec::kSmemAlignment;
  CUDA_CHECK(cudaFuncSetAttribute(multicast_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                  static_cast<int>(config.dynamicSmemBytes)));
  CUDA_CHECK(cudaLaunchKernelEx(&config, multicast_kernel, map, dout));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> gpu_box(words), host_box(words);
  CUDA_CHECK(cudaMemcpy(gpu_box.data(), dout, words * 4, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(dtensor));
  CUDA_CHECK(cudaFree(dout));
  const exec::HostTensorMap host_map = exec::host_tensor_map_of(box_spec(), tensor.data());
  exec::host::launch({kCtas, 1, 1}, kThreads, 2048, [&](exec::HostArch& a) { multicast_body(a, host_map, host_box.data()); },
                     {}, {kClusterCtas, 1, 1});
  ok = check_multicast("GPU", gpu_box) & check_multicast("HostArch", host_box) && ok;
#if TCGEN_REQUIRE_SM == 100
  std::uint32_t* dcommitted = nullptr;
  CUDA_CHECK(cudaMalloc(&dcommitted, kCtas * 4));
  CUDA_CHECK(cudaMemset(dcommitted, 0, kCtas * 4));
  config.dynamicSmemBytes = 64 + exec::kSmemAlignment;
  CUDA_CHECK(cudaLaunchKernelEx(&config, commit_kernel, dcommitted));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<std::uint32_t> committed(kCtas), host_committed(kCtas, 0);
  CUDA_CHECK(cudaMemcpy(committed.data(), dcommitted, kCtas * 4, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(dcommitted));
  exec::host::launch({kCtas, 1, 1}, kThreads, 64, [&](exec::HostArch& a) { commit_body(a, host_committed.data()); }, {},
                     {kClusterCtas, 1, 1});
  const bool commits = committed == std::vector<std::uint32_t>(kCtas, 1) && host_committed == committed;
  std::printf("%s commit multicast: every CTA's mbarrier completed on the GPU and on HostArch\n", commits ? "PASS" : "FAIL");
  ok = ok && commits;

  unsigned* dtiles = nullptr;
  CUDA_CHECK(cudaMalloc(&dtiles, 2 * kTiles * 4));
  CUDA_CHECK(cudaMemset(dtiles, 0, 2 * kTiles * 4));
  config.gridDim = dim3(kTiles);
  config.numAttrs = 0;  // clusters of one CTA
  CUDA_CHECK(cudaLaunchKernelEx(&config, persistent_kernel, dtiles));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<unsigned> tiles(2 * kTiles), host_tiles(2 * kTiles, 0);
  CUDA_CHECK(cudaMemcpy(tiles.data(), dtiles, 2 * kTiles * 4, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaFree(dtiles));
  exec::LaunchOptions one_thread;  // on one OS thread, CTA 0 cancels every other cluster before it starts
  one_thread.threads = 1;
  exec::host::launch({kTiles, 1, 1}, kThreads, 64, [&](exec::HostArch& a) { persistent_body(a, host_tiles.data()); },
                     one_thread);
  const auto every_tile_once = [](const char* where, const std::vector<unsigned>& t) {
    unsigned sum = 0;
    bool owned = true;
    for (unsigned i = 0; i < kTiles; ++i) {
      sum += t[kTiles + i];
      owned = owned && t[i] >= 1 && t[i] <= kTiles;
    }
    const bool good = owned && sum == kTiles;
    std::printf("%s %s clusterlaunchcontrol: %u tiles, %u done (each once: %s)\n", good ? "PASS" : "FAIL", where, kTiles,
                sum, good ? "yes" : "no");
    return good;
  };
  ok = every_tile_once("GPU", tiles) & every_tile_once("HostArch", host_tiles) && ok;
  ok = ok && host_tiles == std::vector<unsigned>{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, kTiles, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
#endif
  return ok ? 0 : 1;
}
