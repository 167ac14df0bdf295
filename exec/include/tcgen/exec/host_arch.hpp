#pragma once
// The architecture a kernel body sees on the host. A kernel is written once,
// as a template over its architecture,
//
//   template <class Arch> TCGEN_HD void body(Arch& a, const Params<Arch>& p);
//
// and runs on sm_100a with DeviceArch (device_arch.hpp: the inline PTX) and
// here with HostArch: one object per thread, on that thread's fiber, calling
// model::Cta with the thread's (warp, lane). Both have the same members.
//
// - Warp-collective instructions (tcgen05.ld/st/wait/alloc/dealloc/
//   relinquish, shfl.sync, vote.sync, elect.sync, bar.warp.sync) gather the
//   warp's lanes first (warp_collectives.hpp) and run once for the warp, with
//   every lane's operands; the .sync.aligned ones must be reached by all 32
//   lanes at the same source line (a default std::source_location argument
//   records it).
// - Single-thread instructions (mma, commit, mbarrier arrivals, TMA, the
//   fences, shared-memory stores and loads) go to the model with the calling
//   lane, at once.
// - Waits block the thread: bar.sync until its count has arrived,
//   mbarrier_wait until the phase completes. mbarrier_try_wait returns false
//   when the phase is incomplete; a thread that tries again before the
//   mbarrier has changed sleeps until it does, so that a spinning loop can
//   be found in a deadlock.
//
// Errors: a broken PTX rule is the model's ModelError; lanes that do not
// meet, a ConvergenceError; a CTA whose threads all wait, a DeadlockError
// (errors.hpp); a bad argument (a barrier id, a store below the dynamic
// shared memory), a tcgen::Error naming it.
//
// Each instruction also has a member whose operands are run-time values
// (shapes, counts, cta_group, a code site): the templates call them, and so
// does the PTX interpreter (tcgen/ptx), which meets the same rules.
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "tcgen/core/source_location.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/exec/cta_runtime.hpp"
#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/model/ld_st_access.hpp"
#include "tcgen/model/tma.hpp"
#include "tcgen/tmem/address.hpp"
#include "tcgen/tmem/copy.hpp"

namespace tcgen::exec {

// The model's names for what the layout and mma libraries describe.
model::LdStAccess model_access(const layout::TmemAccess& access);
model::MmaKind model_kind(mma::MmaKind kind);
model::CtaGroup model_group(int cta_group);

class HostArch {
 public:
  using TensorMap = HostTensorMap;
  using Site = SourceLocation;  // std::source_location where the library has it
  static constexpr std::uint32_t kFullMask = 0xFFFFFFFFu;

  HostArch(CtaRuntime& rt, int thread) : rt_(rt), thread_(thread) {}

  // ---- indices: threadIdx.x, its warp and lane, blockDim.x, blockIdx, gridDim (1-D CTAs)
  unsigned thread_index() const { return static_cast<unsigned>(thread_); }
  unsigned warp_index() const { return static_cast<unsigned>(thread_ / 32); }
  unsigned lane_index() const { return static_cast<unsigned>(thread_ % 32); }
  unsigned block_threads() const { return static_cast<unsigned>(rt_.threads()); }
  Dim3 block_index() const { return rt_.block(); }
  Dim3 grid_dim() const { return rt_.grid(); }
  // %cluster_ctarank, %cluster_nctarank (PTX #special-registers-cluster-ctarank).
  unsigned cluster_rank() const;
  unsigned cluster_size() const;

  // ---- barriers: bar.sync 0 (__syncthreads), bar.sync id, count; bar.warp.sync
  void sync_threads();
  void bar_sync(unsigned id, unsigned count);
  void sync_warp(std::uint32_t mask = kFullMask);

  // ---- warp shuffles and votes (shfl.sync.idx, vote.sync), elect.sync
  template <class T>
  T shfl_sync(std::uint32_t mask, T value, int src_lane);
  std::uint32_t ballot_sync(std::uint32_t mask, bool predicate);
  bool any_sync(std::uint32_t mask, bool predicate);
  bool all_sync(std::uint32_t mask, bool predicate);
  // elect.sync with the full mask: true in one lane of the warp. PTX fixes
  // only that the same mask elects the same lane; the host elects the lowest.
  // `leader`, when given, gets the elected lane (elect.sync's d).
  bool elect_one(std::uint32_t mask = kFullMask, unsigned* leader = nullptr);

  // ---- shared memory: the kernel's dynamic shared memory starts at
  // smem_base() (1024-byte aligned); values of 4, 8 or 16 bytes, at
  // addresses aligned to their size. In a cluster the addresses carry the
  // CTA's rank in bits 24 and up, as on hardware (ClusterRuntime::cluster_address).
  std::uint32_t smem_base() const;
  template <class T>
  void smem_store(std::uint32_t addr, const T& value);
  template <class T>
  void smem_load(std::uint32_t addr, T& value);
  // Any size: `instruction` names the access in errors; aligned to its size.
  void smem_store(std::uint32_t addr, std::span<const std::uint8_t> bytes, const char* instruction);
  void smem_load(std::uint32_t addr, std::span<std::uint8_t> out, const char* instruction);
  void fence_proxy_async();  // fence.proxy.async.shared::cta

  // ---- distributed shared memory (PTX #distributed-shared-memory)
  // mapa.shared::cluster (PTX #data-movement-and-conversion-instructions-mapa):
  // the shared::cluster address of this CTA's shared address `addr` in CTA
  // `rank` of the cluster. The dsmem_* members (st/ld/mbarrier.arrive
  // .shared::cluster) take such addresses, and this CTA's own shared::cta
  // addresses, which are valid shared::cluster ones too; the smem_* members
  // refuse a peer's (shared::cta instructions reach only the CTA's own).
  std::uint32_t map_shared(std::uint32_t addr, unsigned rank) const;
  void dsmem_store(std::uint32_t addr, std::uint32_t value);
  std::uint32_t dsmem_load(std::uint32_t addr);
  void mbarrier_arrive_cluster(std::uint32_t mbar);
  void mbarrier_arrive_cluster(std::uint32_t mbar, std::uint32_t count);
  // mbarrier.arrive.expect_tx.shared::cluster: expect `bytes`, then arrive, on this CTA's or a peer's mbarrier.
  void mbarrier_arrive_expect_tx_cluster(std::uint32_t mbar, std::uint32_t bytes);
  // Any size, as smem_store/load: for the PTX interpreter's .shared::cluster and generic accesses.
  void dsmem_store(std::uint32_t addr, std::span<const std::uint8_t> bytes, const char* instruction);
  void dsmem_load(std::uint32_t addr, std::span<std::uint8_t> out, const char* instruction);
  // st.async / red.async's landing (PTX #data-movement-and-conversion-instructions-st-async): the bytes at the
  // shared::cluster address addr (any CTA of the cluster, this one too), then complete_tx of their count on the
  // mbarrier at remote_bar, which must be in the same CTA as addr.
  void async_store(std::uint32_t addr, std::span<const std::uint8_t> bytes, std::uint32_t remote_bar,
                   const char* instruction);

  // ---- clusterlaunchcontrol (PTX #parallel-synchronization-and-communication-instructions-clusterlaunchcontrol-try-cancel)
  // try_cancel cancels the launch of a cluster that has not started (the
  // grid's next); its 16-byte response lands at `response` (16-byte aligned)
  // through the async proxy, completing 16 bytes of transactions on mbar;
  // multicast (.multicast::cluster::all): at the same offsets in every CTA of
  // the cluster. A try_cancel after the CTA has observed a failed one is
  // refused (PTX: undefined). query_cancel decodes a response, read back as
  // four words: the model's form is {canceled, first CTA's x, y, z}.
  void try_cancel(std::uint32_t response, std::uint32_t mbar, bool multicast = false);
  struct CancelResult {
    bool canceled = false;
    Dim3 first_cta;  // of the canceled cluster; unspecified unless canceled
  };
  CancelResult query_cancel(const std::array<std::uint32_t, 4>& response);

  // barrier.cluster, split (PTX #parallel-synchronization-and-communication-instructions-barrier-cluster):
  // wait returns once every thread of the cluster has arrived.
  void cluster_arrive();
  void cluster_wait();

  // ---- mbarriers at shared addresses (PTX #parallel-synchronization-and-communication-instructions-mbarrier)
  void mbarrier_init(std::uint32_t mbar, std::uint32_t count);
  void mbarrier_inval(std::uint32_t mbar);
  void fence_mbarrier_init();  // fence.mbarrier_init.release.cluster; the model has no rule for it
  void mbarrier_arrive(std::uint32_t mbar, std::uint32_t count = 1);
  void mbarrier_arrive_expect_tx(std::uint32_t mbar, std::uint32_t bytes);
  void mbarrier_expect_tx(std::uint32_t mbar, std::uint32_t bytes);  // without an arrival
  void mbarrier_complete_tx(std::uint32_t mbar, std::uint32_t bytes);
  bool mbarrier_try_wait(std::uint32_t mbar, std::uint32_t parity);
  void mbarrier_wait(std::uint32_t mbar, std::uint32_t parity);

  // ---- TMA: cp.async.bulk.tensor.Nd tile load of the box at coords (one
  // per dimension of the map, innermost first) to shared address dst,
  // completing its bytes on mbar.
  template <class... Coords>
  void tma_load(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar, Coords... coords) {
    static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "a tensor map has 1 to 5 dimensions");
    tma_load_box(map, dst, mbar, {static_cast<std::int32_t>(coords)...}, sizeof...(Coords));
  }
  // .multicast::cluster: the box lands at dst's offset in the shared memory
  // of every CTA of the cluster whose rank is a bit of cta_mask, each
  // completing its bytes on the mbarrier at mbar's offset in that CTA
  // (cta_group::1; PTX #data-movement-and-conversion-instructions-cp-async-bulk-tensor).
  template <class... Coords>
  void tma_load_multicast(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar, std::uint16_t cta_mask,
                          Coords... coords) {
    static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "a tensor map has 1 to 5 dimensions");
    tma_load_box(map, dst, mbar, {static_cast<std::int32_t>(coords)...}, sizeof...(Coords), cta_mask);
  }
  // .cta_group::2 (CTA pairs): the box lands in this CTA (cta_mask 0) or in
  // every CTA of cta_mask (.multicast::cluster), but each one's complete_tx
  // goes to the mbarrier at mbar's offset in the CTA of that one's pair whose
  // rank parity is mbar's: mbar is a shared::cluster address of this CTA's
  // pair (the even CTA's, for a pair MMA's operands: map_shared(bar, rank & ~1)).
  template <class... Coords>
  void tma_load_pair(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar, std::uint16_t cta_mask,
                     Coords... coords) {
    static_assert(sizeof...(Coords) >= 1 && sizeof...(Coords) <= 5, "a tensor map has 1 to 5 dimensions");
    tma_load_box(map, dst, mbar, {static_cast<std::int32_t>(coords)...}, sizeof...(Coords), cta_mask, 2);
  }
  // The box at coords[0 .. count-1], into this CTA (cta_mask 0) or the CTAs of
  // cta_mask; cta_group 2: each one's signal as tma_load_pair's. With
  // im2col_offsets, an .im2col load of an im2col map (model::tma_load_im2col).
  void tma_load_box(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar, std::array<std::int32_t, 5> coords,
                    int count, std::uint16_t cta_mask = 0, int cta_group = 1,
                    const std::array<std::int32_t, 3>* im2col_offsets = nullptr);
  // .tile::gather4 (2-D maps whose box is one row, sm_100a): rows row0-row3
  // from column col on, into four consecutive box rows at dst, completing
  // on mbar (model::tma_load_gather4).
  void tma_load_gather4(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar, std::int32_t col,
                        std::array<std::int32_t, 4> rows);
  // cp.async.bulk.tensor.Nd.global.shared::cta.tile.bulk_group: the box at
  // coords from shared address src into `global`, the map's tensor (written
  // at once: the bulk group's wait has nothing left to wait for).
  // With a reduction (cp.reduce.async.bulk.tensor), each element combined with the tensor's
  // (model::tma_store).
  void tma_store_box(const TensorMap& map, std::span<std::uint8_t> global, std::uint32_t src,
                     std::array<std::int32_t, 5> coords, int count, model::TmaReduce reduce = model::TmaReduce::none);
  // cp.async.bulk.global.shared::cta.bulk_group [dst], [src], size: `size`
  // bytes from shared address src to global memory at dst, through the async
  // proxy (the same proxy-fence rule as a TMA store); written at once. PTX
  // #data-movement-and-conversion-instructions-cp-async-bulk: src, dst and size multiples of 16.
  void bulk_store(std::span<std::uint8_t> dst, std::uint32_t src);

  // ---- Tensor Memory allocation for a tmem::Plan (its nCols and cta_group), by one whole warp
  template <class Plan>
  void alloc(Plan, std::uint32_t slot, Site site = Site::current());
  template <class Plan>
  void relinquish_alloc_permit(Plan, Site site = Site::current());
  template <class Plan>
  void dealloc(Plan, tmem::TmemAddress base, Site site = Site::current());
  void alloc(std::uint32_t slot, std::uint32_t ncols, int cta_group, CodeSite site);
  void relinquish_alloc_permit(int cta_group, CodeSite site);
  void dealloc(std::uint32_t taddr, std::uint32_t ncols, int cta_group, CodeSite site);

  // ---- tcgen05.mma of atom Atom (mma::Mma<Spec>): D (+)= A·B for K step kstep; one thread
  template <class Atom, class D, class A, class B>
  void mma(Atom, D d, A a, B b, int kstep, bool accumulate);
  // Block-scaled atoms: D (+)= (A·scale_A)(B·scale_B), the scale factors at scale_a and scale_b.
  template <class Atom, class D, class A, class B>
  void mma(Atom, D d, A a, B b, int kstep, bool accumulate, tmem::TmemAddress scale_a, tmem::TmemAddress scale_b);
  // tcgen05.commit of the atom's cta_group to mbar; one thread
  template <class Atom>
  void commit(Atom, std::uint32_t mbar);
  // A from shared memory (a_tmem empty: a_desc) or from Tensor Memory (a_tmem).
  void mma(model::MmaKind kind, int cta_group, std::uint32_t d_tmem, std::optional<std::uint32_t> a_tmem,
           std::uint64_t a_desc, std::uint64_t b_desc, std::uint32_t idesc, bool accumulate,
           const model::MmaVariant& variant = {});
  void commit(std::uint32_t mbar, int cta_group);
  // .multicast::cluster: the arrival lands on the mbarrier at mbar's offset in
  // every CTA of cta_mask (bit r = rank r; PTX #tcgen05-instructions-tcgen05-commit),
  // each carrying the completion of the thread's operations (cta_group::2:
  // of their halves in both CTAs of the pair). commit's mbar may be a peer's.
  void commit_multicast(std::uint32_t mbar, int cta_group, std::uint16_t cta_mask);
  // tcgen05.cp shared memory → Tensor Memory; one thread. The tmem::CopyShape
  // form is DeviceArch's (tmem/copy.hpp), for kernels; the model::CpShape one
  // is the PTX interpreter's.
  void cp(tmem::CopyShape shape, tmem::TmemAddress taddr, std::uint64_t s_desc, int cta_group);
  void cp(model::CpShape shape, std::uint32_t taddr, std::uint64_t s_desc, int cta_group);

  // ---- tcgen05.ld / st / wait, by one whole warp; the fences, by any thread
  template <layout::TmemAccess A>
  typename LdSt<A>::Registers ld(LdSt<A>, tmem::TmemAddress taddr, Site site = Site::current());
  template <layout::TmemAccess A>
  void st(LdSt<A>, tmem::TmemAddress taddr, const typename LdSt<A>::Registers& r, Site site = Site::current());
  // regs: model::registers(access) values, in PTX order.
  void ld(const model::LdStAccess& access, std::uint32_t taddr, std::uint32_t* regs, CodeSite site);
  // The same, the cells read while undefined given to each lane in `undefined` (its own reads, thread
  // and register as the model numbers them) instead of a fault (model::Cta::UndefinedRead).
  void ld(const model::LdStAccess& access, std::uint32_t taddr, std::uint32_t* regs, CodeSite site,
          std::vector<model::Cta::UndefinedRead>* undefined);
  // `sources`, with provenance: where each register's 4 bytes came from in global memory (0: unknown).
  void st(const model::LdStAccess& access, std::uint32_t taddr, const std::uint32_t* regs, CodeSite site,
          const std::uint64_t* sources = nullptr);
  void wait_ld(CodeSite site = Site::current());
  void wait_st(CodeSite site = Site::current());
  void fence_before_thread_sync();
  void fence_after_thread_sync();

 private:
  model::Thread me() const { return {thread_ / 32, thread_ % 32}; }
  int warp() const { return thread_ / 32; }
  // A .sync.aligned instruction without operands that differ by lane: `once` runs for the warp.
  void aligned(const std::string& instruction, CodeSite site, const std::function<void()>& once);
  struct Vote {
    std::uint32_t ballot, members;
  };
  Vote vote(const char* instruction, std::uint32_t mask, bool predicate);
  // Below smem_base() lies what the kernel did not ask for.
  void check_smem(std::uint32_t addr, std::uint32_t bytes, const char* instruction) const;
  // For a shared::cluster address of a peer CTA: that CTA, with `addr` made
  // the offset into its shared memory; null for this CTA's own (addr then
  // becomes the offset into this CTA's).
  CtaRuntime* peer(std::uint32_t& addr, const char* instruction) const;
  // A shared::cta instruction's address: this CTA's own, as the offset into
  // its shared memory (the model's address); a peer's is refused.
  std::uint32_t own(std::uint32_t addr, const char* instruction) const;
  // mbarrier.arrive on this CTA's mbarrier at offset mbar.
  void arrive_own(std::uint32_t mbar, std::uint32_t count);
  // Where a TMA load's chunks came from, in each target's shared memory (provenance).
  static void note_origins(const std::vector<CtaRuntime*>& targets, const model::TmaOrigins& origins,
                           const std::uint8_t* tensor);
  // A TMA load's `window` bytes from offset dst, written by load(window)
  // (which returns the transaction bytes), landing in each target and
  // completing on mbar in the signal CTA beside it.
  void land(const std::string& instruction, std::uint32_t dst, std::uint32_t mbar, std::size_t window,
            const std::vector<CtaRuntime*>& targets, const std::vector<CtaRuntime*>& signals,
            const std::function<std::uint32_t(std::span<std::uint8_t>)>& load);
  // The A operand of an atom's K step: a TMEM address (TS) or a descriptor (SS).
  template <class A>
  static std::optional<std::uint32_t> a_tmem_operand(A a, int kstep);
  template <class A>
  static std::uint64_t a_desc_operand(A a, int kstep);

  CtaRuntime& rt_;
  int thread_;
  struct Poll {  // the last mbarrier_try_wait that failed: the mbarrier's version then, and the
    std::uint32_t mbar, parity;  // phases it had completed at the first of the failures in a row
    std::uint64_t version, since;
  };
  std::optional<Poll> polled_;
};

// ---- templates

template <class T>
T HostArch::shfl_sync(std::uint32_t mask, T value, int src_lane) {
  static_assert(std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8),
                "shfl.sync moves 32-bit values (__shfl_sync: 4- and 8-byte types)");
  if (!rt_.enter()) return value;
  struct Frame {
    T in, out;
    int src;
  } frame{value, value, src_lane};
  rt_.collective(thread_, {"shfl.sync.idx.b32", false, {}}, mask, frame, [&](const std::array<Frame*, 32>& f) {
    for (int lane = 0; lane < 32; ++lane) {
      if (!f[lane]) continue;
      const int src = f[lane]->src;
      if (src < 0 || src > 31 || !f[src])
        fail("shfl.sync source lane", std::to_string(src) + " (read by lane " + std::to_string(lane) + ", warp " +
                                          std::to_string(warp()) + ")",
             "a lane of the member mask that has not exited: another lane's value is undefined "
             "(PTX #data-movement-and-conversion-instructions-shfl-sync)");
      f[lane]->out = f[src]->in;
    }
  });
  return frame.out;
}

template <class T>
void HostArch::smem_store(std::uint32_t addr, const T& value) {
  static_assert(std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16),
                "st.shared of 4, 8 or 16 bytes (.b32, .b64, .v4.b32)");
  std::array<std::uint8_t, sizeof(T)> bytes;
  std::memcpy(bytes.data(), &value, sizeof(T));
  smem_store(addr, bytes, "st.shared");
}

template <class T>
void HostArch::smem_load(std::uint32_t addr, T& value) {
  static_assert(std::is_trivially_copyable_v<T> && (sizeof(T) == 4 || sizeof(T) == 8 || sizeof(T) == 16),
                "ld.shared of 4, 8 or 16 bytes (.b32, .b64, .v4.b32)");
  std::array<std::uint8_t, sizeof(T)> bytes{};
  smem_load(addr, bytes, "ld.shared");
  std::memcpy(&value, bytes.data(), sizeof(T));
}

template <class Plan>
void HostArch::alloc(Plan, std::uint32_t slot, Site site) {
  alloc(slot, Plan::allocation, Plan::cta_group, site);
}

template <class Plan>
void HostArch::relinquish_alloc_permit(Plan, Site site) {
  relinquish_alloc_permit(Plan::cta_group, CodeSite(site));
}

template <class Plan>
void HostArch::dealloc(Plan, tmem::TmemAddress base, Site site) {
  dealloc(base.raw(), Plan::allocation, Plan::cta_group, site);
}

template <class Atom, class D, class A, class B>
void HostArch::mma(Atom, D d, A a, B b, int kstep, bool accumulate) {
  static_assert(!Atom::scaled, "a block-scaled atom takes its scale factors' Tensor Memory addresses");
  static_assert(Atom::template accepts<D, A, B>());
  mma(model_kind(Atom::spec.kind), Atom::spec.cta_group, d.address.raw(), a_tmem_operand(a, kstep),
      a_desc_operand(a, kstep), b.kstep(kstep), Atom::idesc, accumulate, model::MmaVariant{.ws = Atom::spec.ws});
}

template <class Atom, class D, class A, class B>
void HostArch::mma(Atom, D d, A a, B b, int kstep, bool accumulate, tmem::TmemAddress scale_a,
                   tmem::TmemAddress scale_b) {
  static_assert(Atom::scaled, "only a block-scaled atom takes scale factors");
  static_assert(Atom::template accepts<D, A, B>());
  mma(model_kind(Atom::spec.kind), Atom::spec.cta_group, d.address.raw(), a_tmem_operand(a, kstep),
      a_desc_operand(a, kstep), b.kstep(kstep), Atom::idesc, accumulate,
      model::MmaVariant{.scale_vec = Atom::scale_vec, .scale_a_tmem = scale_a.raw(), .scale_b_tmem = scale_b.raw()});
}

// A's K step through the operand's own kstep(), as Mma::issue takes it on the device.
template <class A>
std::optional<std::uint32_t> HostArch::a_tmem_operand(A a, int kstep) {
  if constexpr (tmem::is_tmem_operand<A>) return a.kstep(kstep).raw();
  else return std::nullopt;
}

template <class A>
std::uint64_t HostArch::a_desc_operand(A a, int kstep) {
  if constexpr (tmem::is_tmem_operand<A>) return 0;
  else return a.kstep(kstep);
}

template <class Atom>
void HostArch::commit(Atom, std::uint32_t mbar) {
  commit(mbar, Atom::spec.cta_group);
}

template <layout::TmemAccess A>
typename LdSt<A>::Registers HostArch::ld(LdSt<A>, tmem::TmemAddress taddr, Site site) {
  typename LdSt<A>::Registers out{};
  ld(model_access(A), taddr.raw(), out.r, site);
  return out;
}

template <layout::TmemAccess A>
void HostArch::st(LdSt<A>, tmem::TmemAddress taddr, const typename LdSt<A>::Registers& r, Site site) {
  st(model_access(A), taddr.raw(), r.r, site);
}

// A missing or mistyped member is named here, not deep inside a kernel.
static_assert(KernelArch<HostArch>, "HostArch provides every member of the kernel contract (kernel_arch.hpp)");

}  // namespace tcgen::exec
