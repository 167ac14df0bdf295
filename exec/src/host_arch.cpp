#include "tcgen/core/hex.hpp"
#include "tcgen/exec/host_arch.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "tcgen/exec/cluster_runtime.hpp"
#include "tcgen/model/tma.hpp"

namespace tcgen::exec {

unsigned HostArch::cluster_rank() const { return static_cast<unsigned>(rt_.rank()); }
unsigned HostArch::cluster_size() const { return static_cast<unsigned>(rt_.cluster().size()); }

// ---- barriers and warp collectives

void HostArch::sync_threads() {
  if (!rt_.enter()) return;
  rt_.barrier(thread_, 0, static_cast<unsigned>(rt_.threads()));
}

void HostArch::bar_sync(unsigned id, unsigned count) {
  if (!rt_.enter()) return;
  rt_.barrier(thread_, id, count);
}

void HostArch::aligned(const std::string& instruction, CodeSite site, const std::function<void()>& once) {
  char frame = 0;  // nothing differs by lane
  rt_.collective(thread_, {instruction, true, site}, kFullMask, frame, [&](const std::array<char*, 32>&) { once(); });
}

void HostArch::sync_warp(std::uint32_t mask) {
  if (!rt_.enter()) return;
  char frame = 0;
  rt_.collective(thread_, {"bar.warp.sync", false, {}}, mask, frame, [](const std::array<char*, 32>&) {});
}

HostArch::Vote HostArch::vote(const char* instruction, std::uint32_t mask, bool predicate) {
  struct Frame {
    bool predicate;
    Vote out;
  } frame{predicate, {}};
  rt_.collective(thread_, {instruction, false, {}}, mask, frame, [](const std::array<Frame*, 32>& f) {
    Vote v{0, 0};
    for (int lane = 0; lane < 32; ++lane)
      if (f[lane]) {
        v.members |= 1u << lane;
        if (f[lane]->predicate) v.ballot |= 1u << lane;
      }
    for (Frame* lane : f)
      if (lane) lane->out = v;
  });
  return frame.out;
}

std::uint32_t HostArch::ballot_sync(std::uint32_t mask, bool predicate) {
  if (!rt_.enter()) return 0;
  return vote("vote.sync.ballot.b32", mask, predicate).ballot;
}

bool HostArch::any_sync(std::uint32_t mask, bool predicate) {
  if (!rt_.enter()) return false;
  return vote("vote.sync.any.pred", mask, predicate).ballot != 0;
}

bool HostArch::all_sync(std::uint32_t mask, bool predicate) {
  if (!rt_.enter()) return false;
  const Vote v = vote("vote.sync.all.pred", mask, predicate);
  return v.ballot == v.members;
}

bool HostArch::elect_one(std::uint32_t mask, unsigned* leader) {
  if (!rt_.enter()) return false;
  struct Frame {
    bool elected = false;
    unsigned leader = 0;
  } frame;
  rt_.collective(thread_, {"elect.sync", false, {}}, mask, frame, [](const std::array<Frame*, 32>& f) {
    int first = -1;
    for (int lane = 0; lane < 32; ++lane)
      if (f[lane] && first < 0) first = lane;
    f[first]->elected = true;
    for (Frame* lane : f)
      if (lane) lane->leader = static_cast<unsigned>(first);
  });
  if (leader) *leader = frame.leader;
  return frame.elected;
}

// ---- shared memory, mbarriers, TMA

void HostArch::check_smem(std::uint32_t addr, std::uint32_t bytes, const char* instruction) const {
  if (addr < CtaRuntime::kSmemBase)
    fail("shared address", hex(addr) + " (" + instruction + " by " + thread_text(thread_) + ")",
         "an address in the kernel's dynamic shared memory, from smem_base() = " + hex(CtaRuntime::kSmemBase) +
             ": below it lies what the kernel did not allocate");
  if (addr % bytes != 0)
    fail("shared address", hex(addr) + " (" + instruction + " of " + std::to_string(bytes) + " bytes by " +
                               thread_text(thread_) + ")",
         "a multiple of " + std::to_string(bytes) + ": an access is aligned to its size");
}

std::uint32_t HostArch::smem_base() const {
  return ClusterRuntime::cluster_address(CtaRuntime::kSmemBase, rt_.rank());
}

std::uint32_t HostArch::map_shared(std::uint32_t addr, unsigned rank) const {
  if (rank >= static_cast<unsigned>(rt_.cluster().size()))
    fail("mapa target CTA rank", std::to_string(rank) + " (by " + thread_text(thread_) + ")",
         "a rank of the cluster's " + std::to_string(rt_.cluster().size()) +
             " CTAs (PTX #data-movement-and-conversion-instructions-mapa)");
  return ClusterRuntime::cluster_address(addr, static_cast<int>(rank));
}

CtaRuntime* HostArch::peer(std::uint32_t& addr, const char* instruction) const {
  const int rank = ClusterRuntime::rank_of(addr);
  if (rank >= rt_.cluster().size())
    fail("shared::cluster address", hex(addr) + " (" + instruction + " by " + thread_text(thread_) + ")",
         "an address of one of the cluster's " + std::to_string(rt_.cluster().size()) +
             " CTAs, rank · 2^24 + offset (PTX #distributed-shared-memory)");
  addr &= ClusterRuntime::kOffsetMask;
  CtaRuntime& cta = rt_.cluster().cta(rank);
  return &cta == &rt_ ? nullptr : &cta;
}

std::uint32_t HostArch::own(std::uint32_t addr, const char* instruction) const {
  if (ClusterRuntime::rank_of(addr) != rt_.rank())
    fail("shared address", hex(addr) + " (" + instruction + " by " + thread_text(thread_) + " of rank " +
                               std::to_string(rt_.rank()) + ")",
         "an address of this CTA's own shared memory, " + hex(smem_base() & ~ClusterRuntime::kOffsetMask) +
             " + offset: a shared::cta access to another CTA's faults on hardware (hardware-checks.md); "
             "its shared::cluster form reaches it (dsmem_store/dsmem_load; PTX #distributed-shared-memory)");
  return addr & ClusterRuntime::kOffsetMask;
}

void HostArch::smem_store(std::uint32_t addr, std::span<const std::uint8_t> bytes, const char* instruction) {
  if (!rt_.enter()) return;
  addr = own(addr, instruction);
  check_smem(addr, static_cast<std::uint32_t>(bytes.size()), instruction);
  rt_.cta().st_shared(warp(), addr, bytes);
}

void HostArch::smem_load(std::uint32_t addr, std::span<std::uint8_t> out, const char* instruction) {
  if (!rt_.enter()) return;
  addr = own(addr, instruction);
  check_smem(addr, static_cast<std::uint32_t>(out.size()), instruction);
  rt_.cta().ld_shared(warp(), addr, out);
}

void HostArch::dsmem_store(std::uint32_t addr, std::span<const std::uint8_t> bytes, const char* instruction) {
  if (!rt_.enter()) return;
  CtaRuntime* other = peer(addr, instruction);
  check_smem(addr, static_cast<std::uint32_t>(bytes.size()), instruction);
  if (other)
    other->cta().st_shared_remote(addr, bytes);
  else
    rt_.cta().st_shared(warp(), addr, bytes);
}

void HostArch::dsmem_load(std::uint32_t addr, std::span<std::uint8_t> out, const char* instruction) {
  if (!rt_.enter()) return;
  CtaRuntime* other = peer(addr, instruction);
  check_smem(addr, static_cast<std::uint32_t>(out.size()), instruction);
  if (other)
    other->cta().ld_shared_remote(addr, out);
  else
    rt_.cta().ld_shared(warp(), addr, out);
}

void HostArch::async_store(std::uint32_t addr, std::span<const std::uint8_t> bytes, std::uint32_t remote_bar,
                           const char* instruction) {
  if (!rt_.enter()) return;
  const int rank = ClusterRuntime::rank_of(addr);
  if (ClusterRuntime::rank_of(remote_bar) != rank)
    fail("remote_bar", hex(remote_bar) + " (" + instruction + " by " + thread_text(thread_) + ")",
         "an mbarrier in the CTA the data goes to, rank " + std::to_string(rank) + " (addr " + hex(addr) +
             "; PTX #data-movement-and-conversion-instructions-st-async)");
  CtaRuntime* other = peer(addr, instruction);
  remote_bar &= ClusterRuntime::kOffsetMask;
  check_smem(addr, static_cast<std::uint32_t>(bytes.size()), instruction);
  check_smem(remote_bar, 8, instruction);
  CtaRuntime& target = other ? *other : rt_;
  target.cta().async_store_landed(addr, bytes, remote_bar, instruction);
  target.mbarrier_changed(remote_bar, thread_, CtaRuntime::MbarrierEvent::transaction,
                          std::string(instruction) + " of " + std::to_string(bytes.size()) + " bytes" +
                              (other ? " from rank " + std::to_string(rt_.rank()) : ""));
}

void HostArch::dsmem_store(std::uint32_t addr, std::uint32_t value) {
  std::uint8_t b[4];
  std::memcpy(b, &value, 4);
  dsmem_store(addr, b, "st.shared::cluster.b32");
}

std::uint32_t HostArch::dsmem_load(std::uint32_t addr) {
  std::uint8_t b[4] = {};
  dsmem_load(addr, b, "ld.shared::cluster.b32");
  std::uint32_t v;
  std::memcpy(&v, b, 4);
  return v;
}

void HostArch::try_cancel(std::uint32_t response, std::uint32_t mbar, bool multicast) {
  if (!rt_.enter()) return;
  const char* instruction = multicast ? "clusterlaunchcontrol.try_cancel.multicast::cluster::all" : "clusterlaunchcontrol.try_cancel";
  response = own(response, instruction);
  mbar = own(mbar, instruction);
  check_smem(response, 16, instruction);
  check_smem(mbar, 8, instruction);
  if (rt_.cancel_failed)
    fail(instruction, thread_text(thread_) + " of CTA " + cta_text(rt_.block()),
         "no request once the CTA has observed one fail: PTX leaves a later try_cancel undefined "
         "(#parallel-synchronization-and-communication-instructions-clusterlaunchcontrol-try-cancel)");
  UnitPool* pool = rt_.cluster().grid_units();
  if (!pool)
    fail(instruction, thread_text(thread_), "a launch's kernel (exec::host::launch, ptx::launch): a lone cluster has no grid");
  std::array<std::uint32_t, 4> words{0, 0, 0, 0};
  if (const std::optional<std::uint64_t> unit = pool->cancel()) {
    const Dim3 dims = rt_.cluster().dims(), grid = rt_.grid();
    const Dim3 cluster = Dim3{grid.x / dims.x, grid.y / dims.y, grid.z / dims.z}.at(*unit);
    words = {1, cluster.x * dims.x, cluster.y * dims.y, cluster.z * dims.z};
  }
  std::uint8_t bytes[16];
  std::memcpy(bytes, words.data(), 16);
  for (int rank = 0; rank < rt_.cluster().size(); ++rank) {
    CtaRuntime& cta = rt_.cluster().cta(rank);
    if (!multicast && &cta != &rt_) continue;
    cta.cta().tma_load_landed(response, bytes, mbar);  // the async proxy's write, then complete_tx of 16
    cta.mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::transaction,
                         std::string(instruction) + (words[0] ? " canceled a cluster" : " found none to cancel") +
                             " (complete_tx of 16 bytes)");
  }
}

HostArch::CancelResult HostArch::query_cancel(const std::array<std::uint32_t, 4>& response) {
  const bool canceled = response[0] != 0;
  if (!canceled) rt_.cancel_failed = true;
  return {canceled, {response[1], response[2], response[3]}};
}

void HostArch::cluster_arrive() {
  if (!rt_.enter()) return;
  rt_.cluster_arrive(thread_);
}

void HostArch::cluster_wait() {
  if (!rt_.enter()) return;
  rt_.cluster_wait(thread_);
}

void HostArch::fence_proxy_async() {
  if (!rt_.enter()) return;
  rt_.cta().fence_proxy_async(warp());
}

void HostArch::mbarrier_init(std::uint32_t mbar, std::uint32_t count) {
  if (!rt_.enter()) return;
  mbar = own(mbar, "mbarrier.init");
  check_smem(mbar, 8, "mbarrier.init");
  rt_.cta().mbarrier_init(me(), mbar, count);
  rt_.mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::init,
                       "mbarrier.init with count " + std::to_string(count));
}

void HostArch::mbarrier_inval(std::uint32_t mbar) {
  if (!rt_.enter()) return;
  mbar = own(mbar, "mbarrier.inval");
  check_smem(mbar, 8, "mbarrier.inval");
  rt_.cta().mbarrier_inval(me(), mbar);
}

void HostArch::fence_mbarrier_init() { rt_.enter(); }

void HostArch::mbarrier_arrive_cluster(std::uint32_t mbar) { mbarrier_arrive_cluster(mbar, 1); }

void HostArch::mbarrier_arrive_cluster(std::uint32_t mbar, std::uint32_t count) {
  if (!rt_.enter()) return;
  CtaRuntime* other = peer(mbar, "mbarrier.arrive.shared::cluster");
  check_smem(mbar, 8, "mbarrier.arrive.shared::cluster");
  if (!other) return arrive_own(mbar, count);
  other->cta().mbarrier_arrive_remote(rt_.cta(), warp(), mbar, count);  // a peer's mbarrier: it wakes the peer's waiters
  other->mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::arrival,
                          "mbarrier.arrive.shared::cluster from rank " + std::to_string(rt_.rank()) +
                              (count == 1 ? std::string() : " of count " + std::to_string(count)));
}

void HostArch::mbarrier_arrive_expect_tx_cluster(std::uint32_t mbar, std::uint32_t bytes) {
  if (!rt_.enter()) return;
  const char* instruction = "mbarrier.arrive.expect_tx.shared::cluster";
  CtaRuntime* other = peer(mbar, instruction);
  check_smem(mbar, 8, instruction);
  CtaRuntime& target = other ? *other : rt_;
  if (other)
    other->cta().mbarrier_arrive_remote(rt_.cta(), warp(), mbar, 1, bytes);
  else
    rt_.cta().mbarrier_arrive_expect_tx(me(), mbar, bytes);
  target.mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::arrival,
                          std::string(instruction) + " of " + std::to_string(bytes) + " bytes" +
                              (other ? " from rank " + std::to_string(rt_.rank()) : ""));
}

void HostArch::mbarrier_arrive(std::uint32_t mbar, std::uint32_t count) {
  if (!rt_.enter()) return;
  mbar = own(mbar, "mbarrier.arrive");
  check_smem(mbar, 8, "mbarrier.arrive");
  arrive_own(mbar, count);
}

void HostArch::arrive_own(std::uint32_t mbar, std::uint32_t count) {
  rt_.cta().mbarrier_arrive(me(), mbar, count);
  rt_.mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::arrival,
                       count == 1 ? std::string("mbarrier.arrive") : "mbarrier.arrive of count " + std::to_string(count));
}

void HostArch::mbarrier_expect_tx(std::uint32_t mbar, std::uint32_t bytes) {
  if (!rt_.enter()) return;
  mbar = own(mbar, "mbarrier.expect_tx");
  check_smem(mbar, 8, "mbarrier.expect_tx");
  rt_.cta().mbarrier_expect_tx(me(), mbar, bytes);
  rt_.mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::transaction,
                       "mbarrier.expect_tx of " + std::to_string(bytes) + " bytes");
}

void HostArch::mbarrier_arrive_expect_tx(std::uint32_t mbar, std::uint32_t bytes) {
  if (!rt_.enter()) return;
  mbar = own(mbar, "mbarrier.arrive.expect_tx");
  check_smem(mbar, 8, "mbarrier.arrive.expect_tx");
  rt_.cta().mbarrier_arrive_expect_tx(me(), mbar, bytes);
  rt_.mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::arrival,
                       "mbarrier.arrive.expect_tx of " + std::to_string(bytes) + " bytes");
}

void HostArch::mbarrier_complete_tx(std::uint32_t mbar, std::uint32_t bytes) {
  if (!rt_.enter()) return;
  mbar = own(mbar, "mbarrier.complete_tx");
  check_smem(mbar, 8, "mbarrier.complete_tx");
  rt_.cta().mbarrier_complete_tx(me(), mbar, bytes);
  rt_.mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::transaction,
                       "mbarrier.complete_tx of " + std::to_string(bytes) + " bytes");
}

bool HostArch::mbarrier_try_wait(std::uint32_t mbar, std::uint32_t parity) {
  if (!rt_.enter()) return true;
  mbar = own(mbar, "mbarrier.try_wait");
  check_smem(mbar, 8, "mbarrier.try_wait");
  // Polling the same mbarrier and parity again after a failure, the thread waits for the phase that was
  // incomplete then: the model's schedule may let the mbarrier complete it and the next before the thread
  // runs again, where a B200's waiter, polling, would have seen it (Rule::mbarrier_phase_overtaken).
  const bool again = polled_ && polled_->mbar == mbar && polled_->parity == parity;
  if (rt_.cta().mbarrier_try_wait(warp(), mbar, parity, again ? std::optional(polled_->since) : std::nullopt)) {
    polled_.reset();
    return true;
  }
  // Nothing has changed since this thread last found the phase incomplete:
  // it sleeps until something does, where a GPU would spin.
  const std::uint64_t since = again ? polled_->since : rt_.cta().mbarrier(mbar).phase();  // before others run
  if (again && polled_->version == rt_.mbarrier_version(mbar))
    rt_.wait_mbarrier(thread_, mbar, parity);
  else
    rt_.yield();
  polled_ = Poll{mbar, parity, rt_.mbarrier_version(mbar), since};
  return false;
}

void HostArch::mbarrier_wait(std::uint32_t mbar, std::uint32_t parity) {
  if (!rt_.enter()) return;
  mbar = own(mbar, "mbarrier.try_wait");
  check_smem(mbar, 8, "mbarrier.try_wait");
  std::optional<std::uint64_t> since;
  while (!rt_.cta().mbarrier_try_wait(warp(), mbar, parity, since)) {
    if (!since) since = rt_.cta().mbarrier(mbar).phase();
    rt_.wait_mbarrier(thread_, mbar, parity);
  }
}

void HostArch::tma_load_box(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar,
                            std::array<std::int32_t, 5> coords, int count, std::uint16_t cta_mask, int cta_group,
                            const std::array<std::int32_t, 3>* im2col_offsets) {
  if (!rt_.enter()) return;
  const tma::TensorMapSpec& spec = map.spec;
  const std::string instruction = "cp.async.bulk.tensor." + std::to_string(count) + "d.shared::cluster.global" +
                                  (im2col_offsets ? ".im2col" : ".tile") +
                                  (cta_mask ? ".multicast::cluster" : "") + (cta_group == 2 ? ".cta_group::2" : "");
  if (static_cast<std::uint32_t>(count) != spec.rank)
    fail("coordinates", std::to_string(count) + " (" + instruction + " by " + thread_text(thread_) + ")",
         "one per dimension of the tensor map, " + std::to_string(spec.rank));
  const int size = rt_.cluster().size();
  if (cta_mask >> size != 0)
    fail("ctaMask", hex(cta_mask) + " (" + instruction + " by " + thread_text(thread_) + ")",
         "bits only for the cluster's " + std::to_string(size) +
             " ranks: a multicast reaches CTAs of the cluster (PTX #data-movement-and-conversion-instructions-cp-async-bulk-tensor)");
  dst = own(dst, instruction.c_str());
  // .cta_group::2: each destination's signal goes to the CTA of its pair
  // whose rank parity is that of the CTA where mbar lies (PTX
  // #data-movement-and-conversion-instructions-cp-async-bulk-tensor); with
  // ::1, to the destination's own mbarrier at mbar's offset.
  const int mbar_rank = ClusterRuntime::rank_of(mbar);
  if (cta_group == 2) {
    if ((mbar_rank >> 1) != (rt_.rank() >> 1) || (rt_.rank() ^ 1) >= size)
      fail("mbar", hex(mbar) + " (" + instruction + " by " + thread_text(thread_) + " of rank " +
                       std::to_string(rt_.rank()) + ")",
           "an mbarrier of this CTA's pair, ranks " + std::to_string(rt_.rank() & ~1) + " and " +
               std::to_string(rt_.rank() | 1) + " of the cluster's " + std::to_string(size));
    mbar &= ClusterRuntime::kOffsetMask;
  } else {
    mbar = own(mbar, instruction.c_str());
  }
  check_smem(dst, 1, instruction.c_str());  // its 128-byte alignment: model::tma_load
  check_smem(mbar, 8, instruction.c_str());
  std::vector<CtaRuntime*> targets, signals;
  for (int rank = 0; rank < size; ++rank)
    if (cta_mask >> rank & 1u) targets.push_back(&rt_.cluster().cta(rank));
  if (cta_mask == 0) targets.push_back(&rt_);
  for (CtaRuntime* t : targets) {
    const int signal = cta_group == 2 ? (t->rank() & ~1) | (mbar_rank & 1) : t->rank();
    if (signal >= size)
      fail("ctaMask", hex(cta_mask) + " (" + instruction + " by " + thread_text(thread_) + ")",
           "destinations whose pair is whole: rank " + std::to_string(t->rank()) + " has no peer in the cluster");
    signals.push_back(&rt_.cluster().cta(signal));
  }
  std::uint64_t rows = 1;
  for (std::uint32_t i = 1; i < spec.rank; ++i) rows *= spec.box_extent(i);
  model::TmaOrigins origins;  // the first of land's two loads says where each chunk came from
  land(instruction, dst, mbar, spec.smem_row_bytes() * rows, targets, signals, [&](std::span<std::uint8_t> window) {
    model::TmaOrigins* o = origins.empty() ? &origins : nullptr;
    return im2col_offsets ? model::tma_load_im2col(spec, map.global, coords, *im2col_offsets, window, dst, dst, o)
                          : model::tma_load(spec, map.global, coords, window, dst, dst, o);
  });
  note_origins(targets, origins, map.global.data());
}

void HostArch::note_origins(const std::vector<CtaRuntime*>& targets, const model::TmaOrigins& origins,
                            const std::uint8_t* tensor) {
  for (CtaRuntime* t : targets)
    for (const auto& [chunk, offset] : origins)
      t->cta().set_smem_origin(chunk, 16, offset < 0 ? 0 : reinterpret_cast<std::uint64_t>(tensor + offset));
}

void HostArch::tma_load_gather4(const TensorMap& map, std::uint32_t dst, std::uint32_t mbar, std::int32_t col,
                                std::array<std::int32_t, 4> rows) {
  if (!rt_.enter()) return;
  const std::string instruction = "cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4";
  dst = own(dst, instruction.c_str());
  mbar = own(mbar, instruction.c_str());
  check_smem(dst, 1, instruction.c_str());  // its 128-byte alignment: model::tma_load_gather4
  check_smem(mbar, 8, instruction.c_str());
  model::TmaOrigins origins;
  land(instruction, dst, mbar, 4 * map.spec.smem_row_bytes(), {&rt_}, {&rt_}, [&](std::span<std::uint8_t> window) {
    return model::tma_load_gather4(map.spec, map.global, col, rows, window, dst, dst, origins.empty() ? &origins : nullptr);
  });
  note_origins({&rt_}, origins, map.global.data());
}

// The model writes the box into a window of its own; filled once with 0x00
// and once with 0xFF, the bytes equal in both are the ones the load wrote
// (a narrow box under a swizzle leaves the rest of each swizzle row alone),
// and they land through the async proxy in each target, completing on its signal CTA's mbar.
void HostArch::land(const std::string& instruction, std::uint32_t dst, std::uint32_t mbar, std::size_t window,
                    const std::vector<CtaRuntime*>& targets, const std::vector<CtaRuntime*>& signals,
                    const std::function<std::uint32_t(std::span<std::uint8_t>)>& load) {
  std::vector<std::uint8_t> low(window, 0x00), high(window, 0xFF);
  load(low);
  const std::uint32_t bytes = load(high);
  for (std::size_t i = 0; i < window;) {
    std::size_t j = i;
    while (j < window && low[j] == high[j]) ++j;
    if (j > i)
      for (std::size_t t = 0; t < targets.size(); ++t)
        targets[t]->cta().tma_load_landed(dst + static_cast<std::uint32_t>(i), {low.data() + i, j - i}, mbar,
                                          &signals[t]->cta());
    i = j + 1;
  }
  for (std::size_t t = 0; t < targets.size(); ++t)
    signals[t]->mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::transaction,
                                 instruction + (signals[t] == &rt_ ? "" : " from rank " + std::to_string(rt_.rank())) +
                                     " landed " + std::to_string(bytes) + " bytes in rank " +
                                     std::to_string(targets[t]->rank()) + " (complete_tx)");
}

void HostArch::tma_store_box(const TensorMap& map, std::span<std::uint8_t> global, std::uint32_t src,
                             std::array<std::int32_t, 5> coords, int count, model::TmaReduce reduce) {
  if (!rt_.enter()) return;
  const tma::TensorMapSpec& spec = map.spec;
  const std::string instruction = std::string(reduce == model::TmaReduce::none ? "cp.async" : "cp.reduce.async") +
                                  ".bulk.tensor." + std::to_string(count) + "d.global.shared::cta.tile";
  if (static_cast<std::uint32_t>(count) != spec.rank)
    fail("coordinates", std::to_string(count) + " (" + instruction + " by " + thread_text(thread_) + ")",
         "one per dimension of the tensor map, " + std::to_string(spec.rank));
  src = own(src, instruction.c_str());
  check_smem(src, 1, instruction.c_str());  // its 128-byte alignment: model::tma_store
  std::uint64_t rows = 1;
  for (std::uint32_t i = 1; i < spec.rank; ++i) rows *= spec.box_extent(i);
  const auto window = static_cast<std::uint32_t>(spec.smem_row_bytes() * rows);
  const std::span<const std::uint8_t> source = rt_.cta().tma_store_source(me(), src, window);
  model::tma_store(spec, global, coords, source, src, src, reduce);
}

void HostArch::bulk_store(std::span<std::uint8_t> dst, std::uint32_t src) {
  if (!rt_.enter()) return;
  const char* instruction = "cp.async.bulk.global.shared::cta.bulk_group";
  src = own(src, instruction);
  if (src % 16 != 0 || dst.size() % 16 != 0 || reinterpret_cast<std::uintptr_t>(dst.data()) % 16 != 0)
    fail("size", std::to_string(dst.size()) + " bytes from shared " + std::to_string(src) + " (" + instruction + " by " +
                     thread_text(thread_) + ")",
         "the source, destination and size each a multiple of 16 bytes "
         "(PTX #data-movement-and-conversion-instructions-cp-async-bulk)");
  if (!dst.empty()) {  // 16-byte aligned, in bounds at both ends
    check_smem(src, 16, instruction);
    check_smem(src + static_cast<std::uint32_t>(dst.size()) - 16, 16, instruction);
  }
  const std::span<const std::uint8_t> source =
      rt_.cta().tma_store_source(me(), src, static_cast<std::uint32_t>(dst.size()));
  std::copy(source.begin(), source.end(), dst.begin());
}

}  // namespace tcgen::exec
