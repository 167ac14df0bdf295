#include "tcgen/exec/cta_runtime.hpp"

#include <bit>
#include <exception>
#include <sstream>

#include "tcgen/core/error.hpp"
#include "tcgen/exec/cluster_runtime.hpp"
#include "tcgen/model/model_error.hpp"
#include "tcgen/exec/errors.hpp"
#include "tcgen/exec/host_arch.hpp"

namespace tcgen::exec {

namespace {

model::CtaConfig config(int rank, int threads, std::uint32_t smem_bytes, const LaunchOptions& options) {
  if (threads < 32 || threads > 1024 || threads % 32 != 0)
    fail("block_threads", threads, "a multiple of 32 from 32 to 1024: the host runs whole warps");
  static_assert(CtaRuntime::kSmemBase == model::SharedMemory::kReservedBytes);
  constexpr std::uint32_t most = model::SharedMemory::kMaxBytes;
  if (smem_bytes > most)
    fail("smem_bytes", std::to_string(smem_bytes),
         "at most " + std::to_string(most) + " bytes: the 227 KB of shared memory a CTA may have on sm_100");
  return {.rank = rank,
          .warps = threads / 32,
          .smem_base = 0,
          .smem_bytes = CtaRuntime::kSmemBase + smem_bytes,
          .strict_mma_pipelining = options.strict_mma_pipelining,
          .letters_as_errors = options.letters_as_errors,
          .provenance = options.provenance};
}

}  // namespace

std::string cta_text(Dim3 b) {
  std::ostringstream s;  // not operator+: GCC 12 warns falsely (-Wrestrict) on this concatenation
  s << "(" << b.x << ", " << b.y << ", " << b.z << ")";
  return s.str();
}

std::string thread_text(int thread) {
  return "thread " + std::to_string(thread) + " (warp " + std::to_string(thread / 32) + ", lane " +
         std::to_string(thread % 32) + ")";
}

CtaRuntime::CtaRuntime(ClusterRuntime& cluster, int rank, Dim3 block, Dim3 grid, int threads, std::uint32_t smem_bytes,
                       const LaunchOptions& options)
    : cluster_(cluster),
      rank_(rank),
      scheduler_(cluster.scheduler()),
      block_(block),
      grid_(grid),
      threads_(threads),
      active_threads_(threads),
      cta_(config(rank, threads, smem_bytes, options)),
      waiting_(static_cast<std::size_t>(threads)),
      exited_(static_cast<std::size_t>(threads), false) {
  for (int w = 0; w < threads / 32; ++w) {
    warps_.emplace_back(w);
    warps_.back().allow_apart([this, w](const CollectiveOp& op, std::uint32_t arrived, std::uint32_t missing) {
      return collective_apart(w, op, arrived, missing);
    });
  }
}

// tcgen05.ld and tcgen05.wait::ld/st, .sync.aligned, by part of a warp while the rest is elsewhere: CUTLASS's
// and CuTe DSL's kernels whose producer lane loads Tensor Memory while its warp-mates wait on an mbarrier
// run on B200s, which execute the instruction for the lanes that come and the others when they come.
bool CtaRuntime::collective_apart(int warp, const CollectiveOp& op, std::uint32_t arrived, std::uint32_t missing) {
  if (!op.instruction.starts_with("tcgen05.ld.") && !op.instruction.starts_with("tcgen05.wait::")) return false;
  const auto lanes = [](std::uint32_t m) { return std::to_string(std::popcount(m)) + " lane" + (std::popcount(m) == 1 ? "" : "s"); };
  cta_.raise(model::ModelError({op.instruction, warp, -1}, model::Rule::aligned_lanes_apart, "lanes",
                               lanes(arrived) + " of warp " + std::to_string(warp) + " at " + site_text(op.site),
                               lanes(missing) + " of the warp did not come (exited, or waiting elsewhere)."));
  return true;
}

bool CtaRuntime::run_collectives_apart() {
  for (int w = 0; w < static_cast<int>(warps_.size()); ++w)
    if (const std::uint32_t lanes = warps_[static_cast<std::size_t>(w)].run_apart()) {
      wake_lanes(w, lanes);
      return true;
    }
  return false;
}

void CtaRuntime::run_thread(int thread, const std::function<void(HostArch&)>& kernel) {
  HostArch arch(*this, thread);
  kernel(arch);
  exit(thread);
}

void CtaRuntime::wake(int thread) { scheduler_.wake(cluster_.fiber(rank_, thread)); }

bool CtaRuntime::enter() {
  if (std::uncaught_exceptions() > 0) return false;
  if (scheduler_.cancelling()) throw Cancelled{};
  if (scheduler_.shuffled() && holds_ == 0) scheduler_.yield();
  return true;
}

void CtaRuntime::block(int thread, Waiting waiting) {
  waiting_[thread] = waiting;
  scheduler_.block();
  waiting_[thread] = {};
}

void CtaRuntime::wake_lanes(int warp, std::uint32_t lanes) {
  for (int lane = 0; lane < 32; ++lane)
    if (lanes >> lane & 1u) wake(32 * warp + lane);
}

// ---- barriers

void CtaRuntime::barrier(int thread, unsigned id, unsigned count, bool wait, std::uint32_t companions) {
  if (id >= kBarriers)
    fail("barrier id", id, "0 to 15 (PTX #parallel-synchronization-and-communication-instructions-bar)");
  if (count == 0 || count % 32 != 0 || count > static_cast<unsigned>(threads_))
    fail("barrier thread count", std::to_string(count),
         "a multiple of 32, at most the CTA's " + std::to_string(threads_) +
             " threads (PTX #parallel-synchronization-and-communication-instructions-bar)");
  Barrier& b = barriers_[id];
  if (b.arrived != 0 && b.count != count)
    fail("barrier thread count",
         std::to_string(count) + " at bar.sync " + std::to_string(id) + " by " + thread_text(thread),
         "the count the threads already waiting there gave, " + std::to_string(b.count) +
             ": every thread of one barrier instance names the same count");
  b.count = count;
  b.arrived += 1 + static_cast<unsigned>(std::popcount(companions));
  b.warps |= std::uint64_t{1} << (thread / 32);
  if (wait) b.waiting_warps |= std::uint64_t{1} << (thread / 32);
  b.last = thread;
  // bar counts whole warps (PTX: "as if all the threads in the warp have
  // participated"): the padding of a partial last warp arrives with it.
  const int last_warp = (threads_ - 1) / 32;
  const bool with_padding = active_threads_ < threads_ && (b.warps >> last_warp & 1) != 0;
  const unsigned present = b.arrived + (with_padding ? static_cast<unsigned>(threads_ - active_threads_) : 0);
  if (present < count) {
    if (wait) {
      b.sleepers.push_back(thread);
      block(thread, {Waiting::On::barrier, id, 0});
    }
    return;
  }
  const std::uint64_t warps = b.warps, waiting_warps = b.waiting_warps;
  std::vector<int> sleepers;
  sleepers.swap(b.sleepers);
  b = Barrier{};
  if (count == static_cast<unsigned>(threads_)) {
    cta_.bar_sync();
  } else {
    exchange_ordering(warps, waiting_warps, id);
    cta_.named_barrier(warps, waiting_warps);
  }
  for (int t : sleepers)
    if (t != thread && waiting_[t].on == Waiting::On::barrier && waiting_[t].target == id) wake(t);
}

void CtaRuntime::cluster_arrive(int thread) { cluster_.barrier_arrive(rank_, thread); }

void CtaRuntime::cluster_wait(int thread) {
  while (!cluster_.barrier_passed(rank_, thread)) block(thread, {Waiting::On::cluster, 0, 0});
}

std::uint32_t CtaRuntime::live_lanes(int warp) const {
  std::uint32_t lanes = 0;
  for (int lane = 0; lane < 32; ++lane)
    if (!exited_[static_cast<std::size_t>(32 * warp + lane)]) lanes |= 1u << lane;
  return lanes;
}

void CtaRuntime::exchange_ordering(std::uint64_t arrived, std::uint64_t waited, unsigned id) {
  // Every warp that arrived publishes (bar.arrive releases); only the warps that waited acquire.
  std::vector<int> warps;
  for (int w = 0; w < 64; ++w)
    if (arrived >> w & 1) warps.push_back(w);
  const std::uint32_t mbar = 8 * id;  // below kSmemBase: out of the kernel's reach
  cta_.mbarrier_init({warps[0], 0}, mbar, static_cast<std::uint32_t>(warps.size()));
  for (int w : warps) cta_.mbarrier_arrive({w, 0}, mbar);
  for (int w : warps)
    if (waited >> w & 1) cta_.mbarrier_try_wait(w, mbar, 0);
  cta_.mbarrier_inval({warps[0], 0}, mbar);
}

// ---- mbarriers

void CtaRuntime::mbarrier_changed(std::uint32_t mbar, int thread, MbarrierEvent event, const std::string& what) {
  MbarrierNotes& n = mbarriers_[mbar];
  ++n.version;
  const std::string note = thread_text(thread) + ": " + what + ", leaving it in phase " +
                           std::to_string(cta_.mbarrier(mbar).phase());
  switch (event) {
    case MbarrierEvent::init:
      n = {n.version, note, "", ""};
      break;
    case MbarrierEvent::arrival: n.arrival = note; break;
    case MbarrierEvent::transaction: n.transaction = note; break;
  }
  for (int t = 0; t < threads_; ++t)
    if (waiting_[t].on == Waiting::On::mbarrier && waiting_[t].target == mbar) wake(t);
}

std::uint64_t CtaRuntime::mbarrier_version(std::uint32_t mbar) const {
  const auto it = mbarriers_.find(mbar);
  return it == mbarriers_.end() ? 0 : it->second.version;
}

void CtaRuntime::wait_mbarrier(int thread, std::uint32_t mbar, std::uint32_t parity) {
  block(thread, {Waiting::On::mbarrier, mbar, parity});
}

// ---- warp collectives and exits

void CtaRuntime::arrive(int thread, const CollectiveOp& op, std::uint32_t mask, void* frame,
                        WarpCollectives::Run run) {
  const int warp = thread / 32;
  const std::optional<std::uint32_t> woken = warps_[warp].arrive(thread % 32, op, mask, frame, std::move(run));
  if (woken)
    wake_lanes(warp, *woken);
  else
    block(thread, {Waiting::On::collective, 0, 0});
}

void CtaRuntime::set_active_threads(int active) {
  if (active < threads_ - 31 || active > threads_)
    fail("active threads", active, "the CTA's threads less at most 31 of padding in its last warp");
  active_threads_ = active;
  for (int t = active; t < threads_; ++t) exited_[t] = true;
  if (active < threads_) warps_.back().remove_lanes(~0u << (active % 32));
}

void CtaRuntime::exit(int thread) {
  // Padding of a partial last warp counts as exited from the start (set_active_threads).
  if (!exited_[thread]) cluster_.exited(rank_, thread);
  exited_[thread] = true;
  wake_lanes(thread / 32, warps_[thread / 32].exit(thread % 32));
}

}  // namespace tcgen::exec
