// Clusters of CTAs on the host model (exec/cluster_runtime.hpp): ranks,
// barrier.cluster across CTAs, distributed shared memory through mapa
// addresses, arrivals on a peer's mbarrier, and the reports of a cluster's
// deadlock and of a bad rank. Facts from PTX #cluster-of-cooperative-thread-
// arrays, #distributed-shared-memory, #data-movement-and-conversion-
// instructions-mapa and #parallel-synchronization-and-communication-
// instructions-barrier-cluster.
#include <doctest/doctest.h>

#include <cstdint>
#include <array>
#include <mutex>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/cluster_runtime.hpp"
#include "tcgen/exec/errors.hpp"
#include "tcgen/exec/host_arch.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/exec/launch.hpp"

using namespace tcgen;
using exec::HostArch;
using exec::LaunchOptions;
using exec::host::launch;

TEST_CASE("a cluster's CTAs write each other's shared memory and meet at barrier.cluster") {
  // Grid of 8 CTAs in clusters of 4: rank r's thread 0 writes (block, rank)
  // into the next rank's slot; after the barrier, each reads what its
  // predecessor wrote. On one OS thread and on several, in order and shuffled.
  for (unsigned threads : {1u, 3u})
    for (const bool shuffled : {false, true}) {
      CAPTURE(threads);
      CAPTURE(shuffled);
      std::mutex m;
      std::vector<std::uint32_t> got(8, 0xFFFFFFFFu), ranks(8, 99), sizes(8, 0);
      LaunchOptions options;
      options.threads = threads;
      if (shuffled) options.shuffle_seed = 5;
      launch(
          {8, 1, 1}, 64, 64,
          [&](HostArch& a) {
            const std::uint32_t slot = a.smem_base();
            const unsigned rank = a.cluster_rank(), size = a.cluster_size();
            if (a.thread_index() == 0)
              a.dsmem_store(a.map_shared(slot, (rank + 1) % size), std::uint32_t{a.block_index().x * 16 + rank});
            a.cluster_arrive();
            a.cluster_wait();
            if (a.thread_index() == 0) {
              std::uint32_t v = 0;
              a.smem_load(slot, v);
              const std::lock_guard lock(m);
              got[a.block_index().x] = v;
              ranks[a.block_index().x] = rank;
              sizes[a.block_index().x] = size;
            }
          },
          options, {4, 1, 1});
      for (unsigned b = 0; b < 8; ++b) {
        CAPTURE(b);
        const unsigned rank = b % 4, from = b / 4 * 4 + (rank + 3) % 4;  // the predecessor's block
        CHECK(ranks[b] == rank);  // x fastest within the cluster
        CHECK(sizes[b] == 4);
        CHECK(got[b] == from * 16 + (rank + 3) % 4);
      }
    }
}

TEST_CASE("arrivals on a peer's mbarrier complete its phase and wake its waiter") {
  std::vector<int> order;
  launch(
      {3, 1, 1}, 32, 64,
      [&](HostArch& a) {
        const std::uint32_t bar = a.smem_base();
        if (a.cluster_rank() == 0 && a.thread_index() == 0) a.mbarrier_init(bar, 2);
        a.cluster_arrive();  // the init is visible to the cluster before anyone arrives
        a.cluster_wait();
        if (a.thread_index() != 0) return;
        if (a.cluster_rank() == 0) {
          a.mbarrier_wait(bar, 0);
          order.push_back(0);
        } else {
          order.push_back(static_cast<int>(a.cluster_rank()));
          a.mbarrier_arrive_cluster(a.map_shared(bar, 0));
        }
      },
      {}, {3, 1, 1});
  REQUIRE(order.size() == 3);
  CHECK(order.back() == 0);  // rank 0 passes only after both peers arrived
}

TEST_CASE("a CTA that never reaches barrier.cluster: the deadlock report names the cluster and every rank") {
  const std::string report = message_of<exec::DeadlockError>([] {
    launch(
        {2, 1, 1}, 32, 64,
        [](HostArch& a) {
          if (a.cluster_rank() == 1) {
            if (a.thread_index() == 0) a.mbarrier_init(a.smem_base() + 8, 1);
            a.sync_threads();
            a.mbarrier_wait(a.smem_base() + 8, 0);  // nobody arrives
            return;
          }
          a.cluster_arrive();
          a.cluster_wait();
        },
        {}, {2, 1, 1});
  });
  CHECK(report.find("deadlock in cluster (0, 0, 0) of 2 CTAs") != std::string::npos);
  CHECK(report.find("rank 0, deadlock in CTA (0, 0, 0)") != std::string::npos);
  CHECK(report.find("wait at barrier.cluster.wait: 32 of 64 threads of the cluster have arrived in phase 0") !=
        std::string::npos);
  CHECK(report.find("rank 1, deadlock in CTA (1, 0, 0)") != std::string::npos);
  CHECK(report.find("wait on the mbarrier at 0x408") != std::string::npos);
}

TEST_CASE("cluster shapes and ranks are checked, naming the field") {
  const auto noop = [](HostArch&) {};
  CHECK(message_of<Error>([&] { launch({6, 1, 1}, 32, 0, noop, {}, {4, 1, 1}); })
            .find("cluster = 4x1x1 for a grid of 6x1x1 is invalid: a cluster shape that divides the grid") != std::string::npos);
  CHECK(message_of<Error>([&] { launch({32, 1, 1}, 32, 0, noop, {}, {32, 1, 1}); })
            .find("cluster = 32x1x1 is invalid: 1 to 16 CTAs per cluster") != std::string::npos);
  CHECK(message_of<Error>([&] { launch({2, 1, 1}, 32, 64, [](HostArch& a) { a.map_shared(a.smem_base(), 2); }, {}, {2, 1, 1}); })
            .find("mapa target CTA rank = 2 (by thread 0 (warp 0, lane 0)) is invalid: a rank of the cluster's 2 CTAs") !=
        std::string::npos);
  // A remote arrive at a shared::cluster address of no CTA of the cluster (rank 5 of 2).
  const std::string unmapped = message_of<Error>([&] {
    launch({2, 1, 1}, 32, 64,
           [](HostArch& a) { a.mbarrier_arrive_cluster(exec::ClusterRuntime::cluster_address(a.smem_base(), 5)); }, {},
           {2, 1, 1});
  });
  CHECK(unmapped.find("shared::cluster address = 0x5000400 (mbarrier.arrive.shared::cluster by thread 0") != std::string::npos);
  CHECK(unmapped.find("an address of one of the cluster's 2 CTAs, rank · 2^24 + offset") != std::string::npos);
}

// The H200's shared addresses in a cluster of 4 (hardware-checks.md,
// 2026-12-01): rank r's own address of offset 0x400 is 0x0r000400, mapa of
// it to rank q gives 0x0q000400 from every rank, and a shared::cta store at
// another rank's address faults.
TEST_CASE("shared addresses carry the CTA's rank in bits 24 and up, as on the H200") {
  std::array<std::uint32_t, 4> base{}, mapped_to_2{}, mapped_back{};
  launch({4, 1, 1}, 32, 64,
         [&](HostArch& a) {
           if (a.thread_index() != 0) return;
           const unsigned r = a.cluster_rank();
           base[r] = a.smem_base();
           mapped_to_2[r] = a.map_shared(a.smem_base() + 0x10, 2);
           mapped_back[r] = a.map_shared(mapped_to_2[r], r);
         },
         {}, {4, 1, 1});
  for (std::uint32_t r = 0; r < 4; ++r) {
    CHECK(base[r] == (r << 24 | 0x400));
    CHECK(mapped_to_2[r] == 0x02000410u);
    CHECK(mapped_back[r] == (r << 24 | 0x410));
  }
  const std::string refused = message_of<Error>([&] {
    launch({2, 1, 1}, 32, 64,
           [](HostArch& a) {
             if (a.cluster_rank() == 1) a.smem_store(a.smem_base() & 0xFFFFFFu, std::uint32_t{1});
           },
           {}, {2, 1, 1});
  });
  CHECK(refused.find("shared address = 0x400 (st.shared by thread 0 (warp 0, lane 0) of rank 1)") != std::string::npos);
  CHECK(refused.find("a shared::cta access to another CTA's faults on hardware") != std::string::npos);
}

namespace {

// A 64-column 16-bit tensor of `rows` rows, value 0x3C00 + step·i at element i,
// and its map with a 64 × 8 box (1 KiB); `matching` counts the box's 256 words
// at shared address `box` equal to rows [row0, row0 + 8) of the tensor.
struct BoxTensor {
  std::vector<std::uint16_t> values;
  exec::HostTensorMap map;
  BoxTensor(int rows, int step) : values(static_cast<std::size_t>(64 * rows)) {
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<std::uint16_t>(0x3C00 + step * i);
    tma::TensorMapSpec spec;
    spec.element_bytes = 2;
    spec.rank = 2;
    spec.global_dims = {64, static_cast<std::uint64_t>(rows)};
    spec.global_strides = {128};
    spec.box_dims = {64, 8};
    map = exec::host_tensor_map_of(spec, values.data());
  }
  int matching(HostArch& a, std::uint32_t box, int row0) const {
    int same = 0;
    for (int i = 0; i < 512; i += 2) {
      std::uint32_t w = 0;
      a.smem_load(box + 2 * i, w);
      same += static_cast<std::uint16_t>(w) == values[static_cast<std::size_t>(64 * row0 + i)] &&
              static_cast<std::uint16_t>(w >> 16) == values[static_cast<std::size_t>(64 * row0 + i + 1)];
    }
    return same;
  }
};

}  // namespace

TEST_CASE("a multicast TMA load lands in every CTA of its mask, each completing its own mbarrier") {
  // A 64 x 16 bf16 tensor, box 64 x 8 (1 KiB) at row 8. Rank 0 multicasts to
  // ranks 0, 1 and 3 (mask 0b1011); each of them expected the bytes on its
  // own mbarrier, waits for it and compares its copy with the tensor; rank 2,
  // outside the mask, keeps its sentinel.
  const BoxTensor tensor(16, 7);
  const exec::HostTensorMap& map = tensor.map;
  constexpr std::uint16_t kMask = 0b1011;
  std::mutex m;
  std::vector<int> matched(4, -1);
  launch(
      {4, 1, 1}, 32, 2048,
      [&](HostArch& a) {
        const std::uint32_t bar = a.smem_base(), box = a.smem_base() + 1024;
        const unsigned rank = a.cluster_rank();
        const bool receives = (kMask >> rank & 1u) != 0;
        if (a.thread_index() == 0) {
          a.smem_store(box, std::uint32_t{0xDEADBEEFu});
          a.mbarrier_init(bar, 1);
          if (receives) a.mbarrier_arrive_expect_tx(bar, 1024);
        }
        a.cluster_arrive();  // every receiver expects its bytes before they land
        a.cluster_wait();
        if (a.thread_index() == 0 && rank == 0) a.tma_load_multicast(map, box, bar, kMask, 0, 8);
        if (a.thread_index() != 0) return;
        if (receives) a.mbarrier_wait(bar, 0);
        a.cluster_arrive();
        a.cluster_wait();
        const int same = tensor.matching(a, box, 8);
        std::uint32_t first = 0;
        a.smem_load(box, first);
        const std::lock_guard lock(m);
        matched[rank] = receives ? same : (first == 0xDEADBEEFu ? -2 : same);
      },
      {}, {4, 1, 1});
  CHECK(matched[0] == 256);
  CHECK(matched[1] == 256);
  CHECK(matched[2] == -2);  // untouched
  CHECK(matched[3] == 256);
  // A mask bit beyond the cluster's ranks is refused, naming the mask.
  const std::string e = message_of<Error>([&] {
    launch({2, 1, 1}, 32, 2048, [&](HostArch& a) { a.tma_load_multicast(map, a.smem_base() + 1024, a.smem_base(), 0b100, 0, 0); },
           {}, {2, 1, 1});
  });
  CHECK(e.find("ctaMask = 0x4") != std::string::npos);
  CHECK(e.find("bits only for the cluster's 2 ranks") != std::string::npos);
}

TEST_CASE("a .cta_group::2 TMA load lands in its CTA and completes on the mbarrier of its pair's CTA of mbar's parity") {
  // Clusters of 4 (pairs 0-1 and 2-3). Every CTA loads the box at row 8r into
  // its own SMEM, naming its pair's even CTA's mbarrier (map_shared(bar, rank & ~1),
  // CUTLASS's mbar & 0xFEFFFFFF): only the even CTAs expect bytes, twice a box's
  // (PTX #data-movement-and-conversion-instructions-cp-async-bulk-tensor).
  const BoxTensor tensor(32, 5);
  const exec::HostTensorMap& map = tensor.map;
  std::mutex m;
  std::vector<int> matched(4, -1);
  launch(
      {4, 1, 1}, 32, 2048,
      [&](HostArch& a) {
        const std::uint32_t bar = a.smem_base(), box = a.smem_base() + 1024;
        const unsigned rank = a.cluster_rank();
        if (a.thread_index() == 0) {
          a.mbarrier_init(bar, 1);
          if (rank % 2 == 0) a.mbarrier_arrive_expect_tx(bar, 2048);
        }
        a.cluster_arrive();
        a.cluster_wait();
        if (a.thread_index() != 0) return;
        a.tma_load_pair(map, box, a.map_shared(bar, rank & ~1u), 0, 0, static_cast<int>(8 * rank));
        if (rank % 2 == 0) a.mbarrier_wait(bar, 0);  // both boxes of the pair have landed
        a.cluster_arrive();
        a.cluster_wait();
        const int same = tensor.matching(a, box, static_cast<int>(8 * rank));
        const std::lock_guard lock(m);
        matched[rank] = same;
      },
      {}, {4, 1, 1});
  for (int r = 0; r < 4; ++r) CHECK(matched[r] == 256);
  // An mbarrier outside the CTA's pair is refused, naming the pair.
  const std::string e = message_of<Error>([&] {
    launch({4, 1, 1}, 32, 2048,
           [&](HostArch& a) {
             if (a.cluster_rank() == 0 && a.thread_index() == 0)
               a.tma_load_pair(map, a.smem_base() + 1024, a.map_shared(a.smem_base(), 2), 0, 0, 0);
           },
           {}, {4, 1, 1});
  });
  CHECK(e.find("mbar = 0x2000400 (cp.async.bulk.tensor.2d.shared::cluster.global.tile.cta_group::2") != std::string::npos);
  CHECK(e.find("an mbarrier of this CTA's pair, ranks 0 and 1 of the cluster's 4") != std::string::npos);
}

TEST_CASE("tcgen05.commit .multicast::cluster arrives on the mbarrier at the same offset in every CTA of its mask") {
  // Two CTAs, each committing to both (mask 0b11): each CTA's mbarrier of
  // count 2 completes once both have committed (PTX #tcgen05-instructions-tcgen05-commit).
  std::vector<int> done(2, 0);
  launch(
      {2, 1, 1}, 32, 64,
      [&](HostArch& a) {
        const std::uint32_t bar = a.smem_base();
        if (a.thread_index() == 0) a.mbarrier_init(bar, 2);
        a.cluster_arrive();
        a.cluster_wait();
        if (a.thread_index() != 0) return;
        a.commit_multicast(bar, 1, 0b11);
        a.mbarrier_wait(bar, 0);
        done[a.cluster_rank()] = 1;
      },
      {}, {2, 1, 1});
  CHECK(done == std::vector<int>{1, 1});
  // A partial mask: rank 0 commits to rank 1 only (0b10); rank 1's mbarrier of count 1 completes, rank 0's does not.
  std::vector<int> completed(2, -1);
  launch(
      {2, 1, 1}, 32, 64,
      [&](HostArch& a) {
        const std::uint32_t bar = a.smem_base();
        if (a.thread_index() == 0) a.mbarrier_init(bar, 1);
        a.cluster_arrive();
        a.cluster_wait();
        if (a.thread_index() == 0 && a.cluster_rank() == 0) a.commit_multicast(bar, 1, 0b10);
        a.cluster_arrive();
        a.cluster_wait();
        if (a.thread_index() == 0) completed[a.cluster_rank()] = a.mbarrier_try_wait(bar, 0) ? 1 : 0;
      },
      {}, {2, 1, 1});
  CHECK(completed == std::vector<int>{0, 1});
  const std::string e = message_of<Error>([] {
    launch({2, 1, 1}, 32, 64, [](HostArch& a) { a.commit_multicast(a.smem_base(), 1, 0b100); }, {}, {2, 1, 1});
  });
  CHECK(e.find("ctaMask = 0x4") != std::string::npos);
}

namespace {

// A persistent CTA's loop (PTX #parallel-synchronization-and-communication-
// instructions-clusterlaunchcontrol-try-cancel): its own tile, then every
// tile whose cluster it cancels, until a try_cancel fails. `again` asks once
// more after the failure, which PTX leaves undefined.
void persistent(HostArch& a, std::vector<int>& owner, std::mutex& m, bool again = false) {
  if (a.thread_index() != 0) return;
  const std::uint32_t bar = a.smem_base(), response = a.smem_base() + 16;
  a.mbarrier_init(bar, 1);
  unsigned tile = a.block_index().x;
  for (std::uint32_t phase = 0;; phase ^= 1u) {
    {
      const std::lock_guard lock(m);
      owner[tile] = owner[tile] < 0 ? static_cast<int>(a.block_index().x) : -2;  // -2: done twice
    }
    a.mbarrier_arrive_expect_tx(bar, 16);
    a.try_cancel(response, bar);
    a.mbarrier_wait(bar, phase);
    std::array<std::uint32_t, 4> words{};
    for (int i = 0; i < 4; ++i) a.smem_load(response + 4 * static_cast<std::uint32_t>(i), words[static_cast<std::size_t>(i)]);
    const HostArch::CancelResult r = a.query_cancel(words);
    if (!r.canceled) {
      if (again) a.try_cancel(response, bar);
      return;
    }
    tile = r.first_cta.x;
  }
}

}  // namespace

TEST_CASE("clusterlaunchcontrol: a persistent grid sees every tile exactly once; a try_cancel after a failed one is refused") {
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    std::mutex m;
    std::vector<int> owner(12, -1);
    LaunchOptions options;
    options.threads = threads;
    launch({12, 1, 1}, 32, 64, [&](HostArch& a) { persistent(a, owner, m); }, options);
    for (int t = 0; t < 12; ++t) {
      CAPTURE(t);
      CHECK(owner[static_cast<std::size_t>(t)] >= 0);  // done once, by some CTA
    }
    if (threads == 1) CHECK(owner == std::vector<int>(12, 0));  // CTA 0 cancels every other cluster before it starts
  }
  std::mutex m;
  std::vector<int> owner(4, -1);
  const std::string e = message_of<Error>([&] {
    launch({4, 1, 1}, 32, 64, [&](HostArch& a) { persistent(a, owner, m, true); }, [] {
      LaunchOptions o;
      o.threads = 1;
      return o;
    }());
  });
  CHECK(e.find("clusterlaunchcontrol.try_cancel = thread 0 (warp 0, lane 0) of CTA (0, 0, 0) is invalid: no request once the "
               "CTA has observed one fail") != std::string::npos);
}
