#pragma once
// The architecture a kernel body sees on sm_100a: the same members as
// HostArch (host_arch.hpp), each one inline PTX, a CUDA intrinsic or the
// tmem / mma atoms, so that a kernel written against it compiles to what it
// would be written by hand (docs/kernels.md records the SASS). A kernel's
// entry point is a thin __global__ function:
//
//   __global__ void gemm(const __grid_constant__ Params<exec::DeviceArch> p) {
//     exec::DeviceArch a;
//     body(a, p);
//   }
//
// launched with exec::device::launch (device_launch.hpp). 1-D CTAs.
#if !defined(__CUDACC__)
#error "tcgen/exec/device_arch.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/exec/device_tensor_map.hpp"
#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/tmem/address.hpp"
#include "tcgen/tmem/alloc.hpp"
#include "tcgen/tmem/atom.hpp"
#include "tcgen/tmem/copy.hpp"
#include "tcgen/tmem/sync.hpp"

#if defined(TCGEN_DEVICE_CHECKS) && !defined(TCGEN_HANG_TIMEOUT_NS)
#define TCGEN_HANG_TIMEOUT_NS 10000000000ull  // 10 s
#endif

namespace tcgen::exec {

struct DeviceArch {
  using TensorMap = DeviceTensorMap;
  static constexpr std::uint32_t kFullMask = 0xFFFFFFFFu;

  // ---- indices
  __device__ __forceinline__ unsigned thread_index() const { return threadIdx.x; }
  __device__ __forceinline__ unsigned warp_index() const { return threadIdx.x / 32; }
  __device__ __forceinline__ unsigned lane_index() const { return threadIdx.x % 32; }
  __device__ __forceinline__ unsigned block_threads() const { return blockDim.x; }
  __device__ __forceinline__ Dim3 block_index() const { return {blockIdx.x, blockIdx.y, blockIdx.z}; }
  __device__ __forceinline__ Dim3 grid_dim() const { return {gridDim.x, gridDim.y, gridDim.z}; }
  __device__ __forceinline__ unsigned cluster_rank() const {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
  }
  __device__ __forceinline__ unsigned cluster_size() const {
    unsigned n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    return n;
  }

  // ---- barriers
  __device__ __forceinline__ void sync_threads() { __syncthreads(); }
  __device__ __forceinline__ void bar_sync(unsigned id, unsigned count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
  }
  __device__ __forceinline__ void sync_warp(std::uint32_t mask = kFullMask) { __syncwarp(mask); }
  // clusterlaunchcontrol (PTX #parallel-synchronization-and-communication-instructions-clusterlaunchcontrol-try-cancel).
  __device__ __forceinline__ void try_cancel(std::uint32_t response, std::uint32_t mbar, bool multicast = false) {
    if (multicast)
      asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes"
                   ".multicast::cluster::all.b128 [%0], [%1];" ::"r"(response), "r"(mbar) : "memory");
    else
      asm volatile("clusterlaunchcontrol.try_cancel.async.shared::cta.mbarrier::complete_tx::bytes.b128 [%0], [%1];"
                   ::"r"(response), "r"(mbar) : "memory");
  }
  struct CancelResult {
    bool canceled = false;
    Dim3 first_cta;
  };
  __device__ __forceinline__ CancelResult query_cancel(const std::array<std::uint32_t, 4>& response) {
    const std::uint64_t lo = response[0] | std::uint64_t{response[1]} << 32, hi = response[2] | std::uint64_t{response[3]} << 32;
    unsigned canceled, x, y, z;
    asm volatile(
        "{\n\t.reg .b128 r;\n\t.reg .pred p;\n\tmov.b128 r, {%4, %5};\n\t"
        "clusterlaunchcontrol.query_cancel.is_canceled.pred.b128 p, r;\n\tselp.u32 %0, 1, 0, p;\n\t"
        // PTX leaves the first CTA of a failed response undefined: read it only for a canceled one.
        "mov.u32 %1, 0;\n\tmov.u32 %2, 0;\n\tmov.u32 %3, 0;\n\t"
        "@p clusterlaunchcontrol.query_cancel.get_first_ctaid.v4.b32.b128 {%1, %2, %3, _}, r;\n\t}"
        : "=r"(canceled), "=r"(x), "=r"(y), "=r"(z)
        : "l"(lo), "l"(hi));
    return {canceled != 0, {x, y, z}};
  }

  // barrier.cluster, split (PTX #parallel-synchronization-and-communication-instructions-barrier-cluster).
  __device__ __forceinline__ void cluster_arrive() { asm volatile("barrier.cluster.arrive.release;" ::: "memory"); }
  __device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.acquire;" ::: "memory"); }

  // ---- warp shuffles and votes, elect.sync
  template <class T>
  __device__ __forceinline__ T shfl_sync(std::uint32_t mask, T value, int src_lane) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shfl.sync moves 32-bit values (__shfl_sync: 4- and 8-byte types)");
    if constexpr (sizeof(T) == 4) {
      unsigned bits;
      std::memcpy(&bits, &value, 4);
      bits = __shfl_sync(mask, bits, src_lane);
      std::memcpy(&value, &bits, 4);
    } else {
      unsigned long long bits;
      std::memcpy(&bits, &value, 8);
      bits = __shfl_sync(mask, bits, src_lane);
      std::memcpy(&value, &bits, 8);
    }
    return value;
  }
  __device__ __forceinline__ std::uint32_t ballot_sync(std::uint32_t mask, bool p) { return __ballot_sync(mask, p); }
  __device__ __forceinline__ bool any_sync(std::uint32_t mask, bool p) { return __any_sync(mask, p); }
  __device__ __forceinline__ bool all_sync(std::uint32_t mask, bool p) { return __all_sync(mask, p); }
  __device__ __forceinline__ bool elect_one() {
    std::uint32_t elected;
    asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, 0xffffffff;\n\tselp.u32 %0, 1, 0, p;\n\t}" : "=r"(elected));
    return elected != 0;
  }

  // ---- shared memory: the dynamic shared memory, its start rounded up to
  // 1024 bytes (launch with 1024 bytes to spare: device_launch.hpp)
  __device__ __forceinline__ std::uint32_t smem_base() const {
    extern __shared__ std::uint8_t tcgen_exec_dynamic_smem[];
    return (static_cast<std::uint32_t>(__cvta_generic_to_shared(tcgen_exec_dynamic_smem)) + 1023u) & ~1023u;
  }
  template <class T>
  __device__ __forceinline__ void smem_store(std::uint32_t addr, const T& value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "st.shared of 4, 8 or 16 bytes");
    if constexpr (sizeof(T) == 4) {
      std::uint32_t v;
      std::memcpy(&v, &value, 4);
      asm volatile("st.shared.b32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
    } else if constexpr (sizeof(T) == 8) {
      std::uint64_t v;
      std::memcpy(&v, &value, 8);
      asm volatile("st.shared.b64 [%0], %1;" ::"r"(addr), "l"(v) : "memory");
    } else {
      std::uint32_t v[4];
      std::memcpy(v, &value, 16);
      asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3])
                   : "memory");
    }
  }
  template <class T>
  __device__ __forceinline__ void smem_load(std::uint32_t addr, T& value) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16, "ld.shared of 4, 8 or 16 bytes");
    if constexpr (sizeof(T) == 4) {
      std::uint32_t v;
      asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
      std::memcpy(&value, &v, 4);
    } else if constexpr (sizeof(T) == 8) {
      std::uint64_t v;
      asm volatile("ld.shared.b64 %0, [%1];" : "=l"(v) : "r"(addr) : "memory");
      std::memcpy(&value, &v, 8);
    } else {
      std::uint32_t v[4];
      asm volatile("ld.shared.v4.b32 {%0, %1, %2, %3}, [%4];"
                   : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3])
                   : "r"(addr)
                   : "memory");
      std::memcpy(&value, v, 16);
    }
  }
  __device__ __forceinline__ void fence_proxy_async() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }

  // ---- distributed shared memory (PTX #distributed-shared-memory)
  __device__ __forceinline__ std::uint32_t map_shared(std::uint32_t addr, unsigned rank) const {
    std::uint32_t mapped;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mapped) : "r"(addr), "r"(rank));
    return mapped;
  }
  __device__ __forceinline__ void dsmem_store(std::uint32_t addr, std::uint32_t value) {
    asm volatile("st.shared::cluster.b32 [%0], %1;" ::"r"(addr), "r"(value) : "memory");
  }
  __device__ __forceinline__ std::uint32_t dsmem_load(std::uint32_t addr) {
    std::uint32_t v;
    asm volatile("ld.shared::cluster.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
  }
  __device__ __forceinline__ void mbarrier_arrive_cluster(std::uint32_t mbar) {
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(mbar) : "memory");
  }
  __device__ __forceinline__ void mbarrier_arrive_expect_tx_cluster(std::uint32_t mbar, std::uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.release.cluster.shared::cluster.b64 _, [%0], %1;" ::"r"(mbar), "r"(bytes)
                 : "memory");
  }

  // ---- mbarriers (PTX #parallel-synchronization-and-communication-instructions-mbarrier)
  __device__ __forceinline__ void mbarrier_init(std::uint32_t mbar, std::uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(mbar), "r"(count) : "memory");
  }
  __device__ __forceinline__ void fence_mbarrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __device__ __forceinline__ void mbarrier_arrive(std::uint32_t mbar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(mbar) : "memory");
  }
  __device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint32_t mbar, std::uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(mbar), "r"(bytes) : "memory");
  }
  __device__ __forceinline__ bool mbarrier_try_wait(std::uint32_t mbar, std::uint32_t parity) {
    std::uint32_t done;
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(mbar), "r"(parity)
        : "memory");
    return done != 0;
  }
  // Built with TCGEN_DEVICE_CHECKS, a wait that lasts TCGEN_HANG_TIMEOUT_NS
  // (default 10 s, by %globaltimer) prints who waits on which mbarrier and
  // parity, and traps: on a B200 a missing arrive, commit or expect_tx, or a
  // wrong parity, is otherwise a hang with no message (the host model's
  // DeadlockError says the same before any GPU runs; docs/kernels.md).
  __device__ __forceinline__ void mbarrier_wait(std::uint32_t mbar, std::uint32_t parity) {
#if defined(TCGEN_DEVICE_CHECKS)
    const std::uint64_t start = global_ns();
#endif
    while (!mbarrier_try_wait(mbar, parity)) {
#if defined(TCGEN_DEVICE_CHECKS)
      if (global_ns() - start > TCGEN_HANG_TIMEOUT_NS) report_hang(mbar, parity, global_ns() - start);
#endif
    }
  }

  // ---- TMA: cp.async.bulk.tensor.Nd tile loads, completing on mbar
  // (PTX #data-movement-and-conversion-instructions-cp-async-bulk-tensor).
  // One spelling for every form: %0 dst, %1 the map, %2 mbar, %3 the ctaMask
  // (an operand only with .multicast::cluster), the coordinates from %4 on;
  // QUALIFIERS follow ".Nd", TAIL the mbar operand.
#define TCGEN_TMA_ONE(N, QUALIFIERS, TAIL, LIST, ...)                                              \
  asm volatile("cp.async.bulk.tensor." #N "d" QUALIFIERS " [%0], [%1, {" LIST "}], [%2]" TAIL ";" \
               ::"r"(dst), "l"(reinterpret_cast<std::uint64_t>(&map.map)), "r"(mbar), "h"(cta_mask), __VA_ARGS__ \
               : "memory")
#define TCGEN_TMA(QUALIFIERS, TAIL)                                                                                  \
  if constexpr (sizeof...(Coords) == 1) TCGEN_TMA_ONE(1, QUALIFIERS, TAIL, "%4", "r"(c[0]));                         \
  if constexpr (sizeof...(Coords) == 2) TCGEN_TMA_ONE(2, QUALIFIERS, TAIL, "%4, %5", "r"(c[0]), "r"(c[1]));          \
  if constexpr (sizeof...(Coords) == 3) TCGEN_TMA_ONE(3, QUALIFIERS, TAIL, "%4, %5, %6", "r"(c[0]), "r"(c[1]), "r"(c[2])); \
  if constexpr (sizeof...(Coords) == 4)                                                                              \
    TCGEN_TMA_ONE(4, QUALIFIERS, TAIL, "%4, %5, %6, %7", "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));               \
  if constexpr (sizeof...(Coords) == 5)                                                                              \
    TCGEN_TMA_ONE(5, QUALIFIERS, TAIL, "%4, %5, %6, %7, %8", "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]), "r"(c[4]))
  template <class... Coords>
  __device__ __forceinline__ void tma_load(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar,
                                           Coords... coords) {
    static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "a tensor map has 1 to 5 dimensions");
    const int c[] = {static_cast<int>(coords)...};
    const std::uint16_t cta_mask = 0;
    TCGEN_TMA(".shared::cluster.global.tile.mbarrier::complete_tx::bytes", "");
  }
  // .multicast::cluster: into every CTA of cta_mask (bit r = %cluster_ctarank r), at dst's and mbar's offsets.
  template <class... Coords>
  __device__ __forceinline__ void tma_load_multicast(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar,
                                                     std::uint16_t cta_mask, Coords... coords) {
    static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "a tensor map has 1 to 5 dimensions");
    const int c[] = {static_cast<int>(coords)...};
    TCGEN_TMA(".shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster", ", %3");
  }
  // .cta_group::2: into this CTA (cta_mask 0) or every CTA of cta_mask, each
  // completing on the mbarrier of its pair's CTA whose rank parity is that
  // of mbar's (a shared::cluster address).
  template <class... Coords>
  __device__ __forceinline__ void tma_load_pair(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar,
                                                std::uint16_t cta_mask, Coords... coords) {
    static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "a tensor map has 1 to 5 dimensions");
    const int c[] = {static_cast<int>(coords)...};
    if (cta_mask == 0) {
      TCGEN_TMA(".cta_group::2.shared::cluster.global.tile.mbarrier::complete_tx::bytes", "");
    } else {
      TCGEN_TMA(".cta_group::2.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster", ", %3");
    }
  }
#undef TCGEN_TMA
#undef TCGEN_TMA_ONE
  // .tile::gather4 (sm_100a): rows row0-row3 of a 2-D map whose box is one
  // row, from column col on, into four box rows at dst (HostArch::tma_load_gather4).
  __device__ __forceinline__ void tma_load_gather4(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar,
                                                   std::int32_t col, std::array<std::int32_t, 4> rows) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4, "
        "%5, %6, %7}], [%2];" ::"r"(dst),
        "l"(reinterpret_cast<std::uint64_t>(&map.map)), "r"(mbar), "r"(col), "r"(rows[0]), "r"(rows[1]), "r"(rows[2]),
        "r"(rows[3])
        : "memory");
  }
  // ---- Tensor Memory allocation for a tmem::Plan, by one whole warp (tmem/alloc.hpp)
  template <class Plan>
  __device__ __forceinline__ void alloc(Plan, std::uint32_t slot) {
    tmem::Allocator<Plan::cta_group>::template alloc<Plan::allocation>(
        static_cast<std::uint32_t*>(__cvta_shared_to_generic(slot)));
  }
  template <class Plan>
  __device__ __forceinline__ void relinquish_alloc_permit(Plan) {
    tmem::Allocator<Plan::cta_group>::relinquish();
  }
  template <class Plan>
  __device__ __forceinline__ void dealloc(Plan, tmem::TmemAddress base) {
    tmem::Allocator<Plan::cta_group>::template dealloc<Plan::allocation>(base);
  }

  // ---- tcgen05.mma and commit (mma/mma_atom.hpp), one thread
  template <class Atom, class D, class A, class B>
  __device__ __forceinline__ void mma(Atom, D d, A a, B b, int kstep, bool accumulate) {
    Atom::issue(d, a, b, kstep, accumulate);
  }
  template <class Atom, class D, class A, class B>
  __device__ __forceinline__ void mma(Atom, D d, A a, B b, int kstep, bool accumulate, tmem::TmemAddress scale_a,
                                      tmem::TmemAddress scale_b) {
    Atom::issue(d, a, b, kstep, accumulate, scale_a, scale_b);
  }
  template <class Atom>
  __device__ __forceinline__ void commit(Atom, std::uint32_t mbar) {
    Atom::commit(mbar);
  }
  // .multicast::cluster: the arrival on the mbarrier at mbar's offset in every CTA of cta_mask.
  __device__ __forceinline__ void commit_multicast(std::uint32_t mbar, int cta_group, std::uint16_t cta_mask) {
    if (cta_group == 2)
      asm volatile("tcgen05.commit.cta_group::2.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;"
                   ::"r"(mbar), "h"(cta_mask) : "memory");
    else
      asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [%0], %1;"
                   ::"r"(mbar), "h"(cta_mask) : "memory");
  }
  // ---- tcgen05.cp shared memory → Tensor Memory (tmem/copy.hpp), one thread.
  // Shape and cta_group are run-time values, as in HostArch::cp; a kernel
  // passes constants, which fold the switch away.
  __device__ __forceinline__ void cp(tmem::CopyShape shape, tmem::TmemAddress taddr, std::uint64_t s_desc,
                                     int cta_group) {
    switch (shape) {
#define TCGEN_X(code, suffix, rows, columns)                                                        \
  case tmem::CopyShape::code:                                                                      \
    return cta_group == 2 ? tmem::copy<tmem::CopyShape::code, 2>(taddr, s_desc)                    \
                          : tmem::copy<tmem::CopyShape::code, 1>(taddr, s_desc);
      TCGEN_COPY_SHAPES(TCGEN_X)
#undef TCGEN_X
    }
  }

  // ---- tcgen05.ld / st / wait (tmem/atom.hpp, tmem/sync.hpp), the fences
  template <layout::TmemAccess A>
  __device__ __forceinline__ typename LdSt<A>::Registers ld(LdSt<A>, tmem::TmemAddress taddr) {
    typename LdSt<A>::Registers r;
    tmem::Atom<A>::load(taddr, r.r);
    return r;
  }
  template <layout::TmemAccess A>
  __device__ __forceinline__ void st(LdSt<A>, tmem::TmemAddress taddr, const typename LdSt<A>::Registers& r) {
    tmem::Atom<A>::store(taddr, r.r);
  }
  __device__ __forceinline__ void wait_ld() { tmem::wait_ld(); }
  __device__ __forceinline__ void wait_st() { tmem::wait_st(); }
  __device__ __forceinline__ void fence_before_thread_sync() { tmem::fence_before_thread_sync(); }
  __device__ __forceinline__ void fence_after_thread_sync() { tmem::fence_after_thread_sync(); }

#if defined(TCGEN_DEVICE_CHECKS)
 private:
  __device__ __forceinline__ static std::uint64_t global_ns() {
    std::uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));  // PTX #special-registers-globaltimer
    return t;
  }
  __device__ __noinline__ static void report_hang(std::uint32_t mbar, std::uint32_t parity, std::uint64_t ns) {
    // One line per warp: the lowest lane among those waiting here reports.
    if ((__activemask() & ((1u << (threadIdx.x % 32)) - 1u)) == 0)
      std::printf("tcgen: block (%u, %u, %u) thread %u has waited %.1f s on the mbarrier at shared 0x%x for the phase "
                  "of parity %u: a hang (an arrive, tcgen05.commit or expect_tx that never comes, or the wrong parity)\n",
                  blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, static_cast<double>(ns) * 1e-9, mbar, parity);
    __trap();
  }
#endif
};

// A missing or mistyped member is named here, not deep inside a kernel.
static_assert(KernelArch<DeviceArch>, "DeviceArch provides every member of the kernel contract (kernel_arch.hpp)");

}  // namespace tcgen::exec
