#include "thread.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "tcgen/core/hex.hpp"
#include "tcgen/exec/cluster_runtime.hpp"
#include "tcgen/exec/errors.hpp"
#include "tcgen/model/model_error.hpp"
#include "slot_pool.hpp"
#include "warp_lockstep.hpp"
#include "tcgen/ptx/execution_error.hpp"

namespace tcgen::ptx {

void fault(const std::string& field, const std::string& value, const std::string& expected, FaultKind kind) {
  throw ThreadFault(kind, field, value, expected);
}

ExecutionError::ExecutionError(const std::string& position, const std::string& where, const Error& cause,
                               FaultKind kind)
    : Error(cause.field(), cause.value(), cause.expected()),
      cause_(cause.what()),
      message_(position + ": error: " + cause_ + "\n" + where),
      kind_(kind) {
  if (message_.ends_with('\n')) message_.pop_back();
}

Thread::Thread(Grid& grid, CtaState& cta, exec::CtaRuntime& rt, int linear, WarpRegisters& warps, std::size_t warp)
    : grid_(grid), cta_(cta), rt_(rt), arch_(rt, linear), linear_(linear), code_(grid.function.code.data()),
      r_(warps.lane(warp, static_cast<std::size_t>(lane()))), shadowed_lanes_(warps.shadowed(warp)),
      local_(grid.function.local_bytes, 0), call_params_(grid.function.call_param_bytes, 0),
      local_written_((grid.function.local_bytes + 63) / 64, 0), recent_(warps.loads(warp, static_cast<std::size_t>(lane()))) {
  if (grid.function.shared_window_slot != Operand::kNoReg)
    slot(grid.function.shared_window_slot) = exec::ClusterRuntime::cluster_address(0, rt.rank());
}

Thread::~Thread() {
  for (const std::uint32_t s : pending_slots_) pending_storage_[s] = 0;  // every mark is listed there
  slot_pool::give(std::move(pending_storage_), true);
}

void Thread::print(const std::string& text) { cta_.printed += text; }

inline void Thread::step_at(const Instruction& in, std::uint64_t& count) {
  ++pc_;
  current_ = &in;
  if ((++count & (kBeat - 1)) == 0) [[unlikely]] beat();  // the clock too: %clock reads it
  if (--watchdog_left_ == 0) [[unlikely]] this->watchdog(in);
  if (undefined_ | taint_) [[unlikely]]
    return run_shadowed(in);
  if (in.guard != Operand::kNoReg && ((slot(in.guard) & 1u) != 0) == in.guard_negated) return;
  in.run(*this, in);
  if (recorder_) [[unlikely]] recorder_->after(*this, in);
}

template <bool kCount>
inline void Thread::step(const Instruction* code, std::uint64_t& count) {
  if constexpr (kCount) ++cta_.executed[pc_];
  step_at(code[pc_], count);
}

template <bool kCount>
void Thread::execute() {
  // The code and the CTA's count in locals: through `this` they were two more loads an instruction.
  const Instruction* code = code_;
  std::uint64_t& count = cta_.instructions;
  while (!exited_) step<kCount>(code, count);
}

void Thread::step_in_warp() {
  reporting([this] {
    cta_.executed.empty() ? step<false>(code_, cta_.instructions) : step<true>(code_, cta_.instructions);
  });
}

void Thread::run() {
  rt_.set_fiber_tag(this);  // the model's locator finds the running thread by it (launch.cpp)
  // Until it returns: the runtime's exit of the thread may raise a rule after this object is gone.
  struct Untag {
    exec::CtaRuntime& rt;
    ~Untag() { rt.set_fiber_tag(nullptr); }
  } untag{rt_};
  const std::uint64_t watchdog = grid_.config.options.watchdog;
  watchdog_left_ = watchdog ? watchdog : ~std::uint64_t{0};
  progressed();
  if (lockstep_) lockstep_->join(*this);  // back once the warp has split or this thread has exited
  reporting([this] {
    if (cta_.executed.empty()) execute<false>();
    else execute<true>();
    if (recorder_) recorder_->finish();
  });
}

void Thread::report(const Error& e, const Instruction& in) const {
  const exec::Dim3 b = rt_.block();
  std::ostringstream s;
  const std::string position = grid_.module.source_position(grid_.function, in.loc);
  s << "PTX kernel " << grid_.function.demangled << ", block (" << b.x << ", " << b.y << ", " << b.z << "), warp "
    << warp() << ", lane " << lane() << " (thread " << linear_ << "):\n"
    << "  at " << grid_.module.name() << ":" << in.line << ": " << in.text << "\n";
  const std::string source = grid_.module.source_text(grid_.function, in.loc);
  if (!source.empty()) s << "  from " << source << "\n";
  const auto* own = dynamic_cast<const ThreadFault*>(&e);
  throw ExecutionError(position.empty() ? grid_.module.name() + ":" + std::to_string(in.line) : position, s.str(), e,
                       own ? own->kind : FaultKind::launch_failure);
}

std::uint64_t Thread::special(Special s) const {
  const exec::Dim3 block = grid_.config.block, grid = grid_.config.grid, cta = rt_.block();
  const unsigned x = static_cast<unsigned>(linear_) % block.x, y = static_cast<unsigned>(linear_) / block.x % block.y,
                 z = static_cast<unsigned>(linear_) / (block.x * block.y);
  const std::uint32_t lane_bit = 1u << lane();
  switch (s) {
    case Special::tid_x: return x;
    case Special::tid_y: return y;
    case Special::tid_z: return z;
    case Special::ntid_x: return block.x;
    case Special::ntid_y: return block.y;
    case Special::ntid_z: return block.z;
    case Special::ctaid_x: return cta.x;
    case Special::ctaid_y: return cta.y;
    case Special::ctaid_z: return cta.z;
    case Special::nctaid_x: return grid.x;
    case Special::nctaid_y: return grid.y;
    case Special::nctaid_z: return grid.z;
    case Special::laneid: return static_cast<std::uint64_t>(lane());
    case Special::warpid: return static_cast<std::uint64_t>(warp());
    case Special::nwarpid: return (block.count() + 31) / 32;
    case Special::smid: return 0;
    case Special::nsmid: return static_cast<std::uint64_t>(grid_.config.sms);
    case Special::gridid: return 0;
    case Special::clock:
    case Special::clock64:
    case Special::globaltimer: return cta_.instructions;  // a clock that moves: instructions executed by the CTA
    case Special::lanemask_eq: return lane_bit;
    case Special::lanemask_lt: return lane_bit - 1;
    case Special::lanemask_le: return (lane_bit - 1) | lane_bit;
    case Special::lanemask_gt: return ~((lane_bit - 1) | lane_bit);
    case Special::lanemask_ge: return ~(lane_bit - 1);
    // PTX #special-registers-cluster-ctarank and its neighbours: ranks x fastest.
    case Special::cluster_ctarank: return static_cast<std::uint64_t>(rt_.rank());
    case Special::cluster_nctarank: return static_cast<std::uint64_t>(rt_.cluster().size());
    case Special::clusterid_x: return rt_.cluster().index().x;
    case Special::clusterid_y: return rt_.cluster().index().y;
    case Special::clusterid_z: return rt_.cluster().index().z;
    case Special::nclusterid_x: return grid.x / rt_.cluster().dims().x;
    case Special::nclusterid_y: return grid.y / rt_.cluster().dims().y;
    case Special::nclusterid_z: return grid.z / rt_.cluster().dims().z;
    case Special::cluster_ctaid_x: return rt_.cluster().position(rt_.rank()).x;
    case Special::cluster_ctaid_y: return rt_.cluster().position(rt_.rank()).y;
    case Special::cluster_ctaid_z: return rt_.cluster().position(rt_.rank()).z;
    case Special::cluster_nctaid_x: return rt_.cluster().dims().x;
    case Special::cluster_nctaid_y: return rt_.cluster().dims().y;
    case Special::cluster_nctaid_z: return rt_.cluster().dims().z;
    case Special::is_explicit_cluster: return rt_.cluster().size() > 1 ? 1 : 0;
    case Special::dynamic_smem_size: return grid_.config.dynamic_smem;
    case Special::total_smem_size: return grid_.function.static_shared_bytes + grid_.config.dynamic_smem;
  }
  return 0;
}

// ---- memory

std::uint32_t Thread::shared_address(std::uint64_t addr, const Instruction& in) const {
  if (in.space == Space::generic && !in_shared_window(addr)) {
    const std::string expected =
        "an address in the shared window [" + hex(kSharedWindow) + ", +4 GiB) for shared memory (cvta.shared)";
    if (addr >> 32) fault("generic address", hex(addr) + " (" + in.opcode + ")", expected);
    // A 32-bit shared::cta address passed as generic to an instruction that only takes shared memory:
    // the hardware's generic-to-shared conversion keeps the low 32 bits, the window being 4 GiB-aligned.
    // A public B200 GEMM tutorial (published results) commits to __cvta_generic_to_shared's value so.
    cta_.raise(grid_.config, model::Rule::shared_offset_as_generic, where(in), "generic address", hex(addr) + " (" + in.opcode + ")",
              expected + "; a shared::cta address needs the instruction's .shared::cta or .shared::cluster form");
  }
  return static_cast<std::uint32_t>(addr);
}

void Thread::bulk_read(std::uint32_t begin, std::uint32_t end, const Instruction& in) {
  cta_.bulk_reads.push_back({linear_, bulk_groups_, begin, end, in.line});
}

void Thread::wait_bulk_groups(std::uint64_t pending) {
  std::erase_if(cta_.bulk_reads, [&](const CtaState::BulkRead& r) {
    return r.thread == linear_ && r.group + pending < bulk_groups_;
  });
}

void Thread::check_bulk_reads(std::uint32_t addr, std::uint32_t n, const Instruction& in) const {
  for (const CtaState::BulkRead& r : cta_.bulk_reads)
    if (addr < r.end && addr + n > r.begin)
      fault("shared address", hex(addr) + " (" + in.opcode + ", " + std::to_string(n) + " bytes)",
            "no write while a TMA store reads it: thread " + std::to_string(r.thread) + "'s store at " +
                grid_.module.name() + ":" + std::to_string(r.line) + " reads [" + hex(r.begin) + ", " + hex(r.end) +
                ") until its cp.async.bulk.wait_group.read (PTX #data-movement-and-conversion-instructions-cp-async-"
                "bulk-wait-group)");
}

namespace {

// An access's bytes: the sizes loads and stores have as fixed-size copies the compiler inlines, where
// a copy of a run-time size is a call into libc (6% of a CUTLASS initialisation kernel's time).
void copy_access(void* to, const void* from, std::uint32_t n) {
  switch (n) {
    case 1: std::memcpy(to, from, 1); break;
    case 2: std::memcpy(to, from, 2); break;
    case 4: std::memcpy(to, from, 4); break;
    case 8: std::memcpy(to, from, 8); break;
    case 16: std::memcpy(to, from, 16); break;
    default: std::memcpy(to, from, n);
  }
}

// A bitmap's bits [i, i + n): set them; the first clear one (~0: none).
void set_bits(std::vector<std::uint64_t>& bits, std::uint64_t i, std::uint64_t n) {
  for (const std::uint64_t end = i + n; i < end;) {
    const std::uint64_t bit = i & 63, take = std::min<std::uint64_t>(64 - bit, end - i);
    bits[i >> 6] |= (take == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << take) - 1)) << bit;
    i += take;
  }
}
std::uint64_t first_clear(const std::vector<std::uint64_t>& bits, std::uint64_t i, std::uint64_t n) {
  for (const std::uint64_t end = i + n; i < end;) {
    const std::uint64_t bit = i & 63, take = std::min<std::uint64_t>(64 - bit, end - i);
    const std::uint64_t missing =
        ((take == 64 ? ~std::uint64_t{0} : ((std::uint64_t{1} << take) - 1)) << bit) & ~bits[i >> 6];
    if (missing) return (i & ~std::uint64_t{63}) + static_cast<std::uint64_t>(std::countr_zero(missing));
    i += take;
  }
  return ~std::uint64_t{0};
}

}  // namespace

// A shared access of a peer CTA's memory (a mapa address) goes through
// distributed shared memory: generic addresses and .shared::cluster reach it,
// .shared::cta does not (HostArch::smem_load refuses it, naming the address).
bool Thread::cluster_access(Space named, std::uint64_t addr, const Instruction& in) const {
  return exec::ClusterRuntime::rank_of(static_cast<std::uint32_t>(addr)) != rt_.rank() &&
         (named == Space::generic || in.opcode.find("shared::cluster") != std::string::npos);
}

bool Thread::load(Space space, std::uint64_t addr, void* out, std::uint32_t n, const Instruction& in,
                  std::uint32_t* element_origins, std::uint32_t element_bytes) {
  const Space named = space;
  addr = resolve(space, addr, n, in);
  const bool remote = space == Space::shared && cluster_access(named, addr, in);
  if (remote)
    arch_.dsmem_load(static_cast<std::uint32_t>(addr), {static_cast<std::uint8_t*>(out), n}, in.opcode.c_str());
  else if (space == Space::shared)
    arch_.smem_load(static_cast<std::uint32_t>(addr), {static_cast<std::uint8_t*>(out), n}, in.opcode.c_str());
  else if (space == Space::global)  // inline (host_bytes), not through bytes()'s frame
    copy_access(out, host_bytes(addr, n, false, in), n);
  else
    copy_access(out, bytes(space, addr, n, false, in), n);
  // Definedness: bytes never written, or that an undefined value was stored to, make the loaded value undefined.
  bool undefined = false;
  if (space == Space::shared || space == Space::local)
    if (const std::uint32_t origin = loaded_origin(space, remote, addr, n, in)) [[unlikely]] {
      strict_read(origin);
      if (element_origins) {
        for (std::uint32_t e = 0; e * element_bytes < n; ++e)
          element_origins[e] = loaded_origin(space, remote, addr + e * element_bytes, element_bytes, in);
        undefined = true;
      } else {
        memory_origin(origin);
      }
    }
  if (touched_ && space == Space::global) touch(addr, n, false);
  if (recorder_ && in.timing == TimingOp::plain) recorder_->memory(space, addr, n, false);
  if (space == Space::global) note_global_load(addr, out, n);
  return undefined;
}

std::uint32_t Thread::loaded_origin(Space space, bool remote, std::uint64_t addr, std::uint32_t n,
                                    const Instruction& in) {
  if (space == Space::shared) {
    const std::uint32_t a = static_cast<std::uint32_t>(addr) & exec::ClusterRuntime::kOffsetMask;
    if (!remote) return shared_origin(a, n, in);
    // A peer's: its bytes never written (what was stored to it undefined is not followed, docs/model.md).
    const int rank = exec::ClusterRuntime::rank_of(static_cast<std::uint32_t>(addr));
    const std::uint32_t at = rt_.cluster().cta(rank).cta().smem_unwritten(a, n);
    return at == model::SharedMemory::kAllWritten ? 0 : unwritten_origin(CtaState::Origin::Kind::shared, at, rank, in);
  }
  if (local_undefined_) [[unlikely]]
    for (std::uint64_t i = addr; i < addr + n; ++i)
      if (local_origin_[i]) return local_origin_[i];
  const std::uint64_t at = first_clear(local_written_, addr, n);
  return at == ~std::uint64_t{0} ? 0
                                 : unwritten_origin(CtaState::Origin::Kind::local, static_cast<std::uint32_t>(at), -1, in);
}

std::uint32_t Thread::shared_origin(std::uint32_t addr, std::uint32_t n, const Instruction& ld) {
  model::Cta& cta = rt_.cta();
  if (cta.smem_any_undefined()) [[unlikely]]
    if (const std::uint32_t o = cta.smem_undefined(addr, n)) return o;
  const std::uint32_t at = cta.smem_unwritten(addr, n);
  return at == model::SharedMemory::kAllWritten ? 0 : unwritten_origin(CtaState::Origin::Kind::shared, at, -1, ld);
}

void Thread::memory_origin(std::uint32_t origin) {
  if (origin == 0 || taint_) return;
  taint_ = origin;
  taint_slot_ = Operand::kNoReg;
  set_shadowed(true);
}

std::uint64_t Thread::origin_of(const void* data, std::uint32_t n) const {
  std::uint64_t found = 0;
  for (const RecentLoads::Load& r : recent_->ring)
    if (r.n == n && r.addr && std::memcmp(r.bytes, data, n) == 0) {
      if (found && found != r.addr) return 0;  // two loads brought these bytes: which one is not known
      found = r.addr;
    }
  return found;
}

bool Thread::word_origins(const std::uint32_t* words, std::uint32_t n, std::uint64_t* out) const {
  if (!grid_.provenance) return false;
  for (std::uint32_t i = 0; i < n; ++i) {
    std::uint64_t found = 0;
    bool twice = false;
    for (const RecentLoads::Load& r : recent_->ring)
      for (std::uint32_t at = 0; r.addr && at + 4 <= r.n; at += 4)
        if (std::memcmp(r.bytes + at, &words[i], 4) == 0) {
          twice = twice || (found && found != r.addr + at);
          found = r.addr + at;
        }
    out[i] = twice ? 0 : found;
  }
  return true;
}

void Thread::touch(std::uint64_t addr, std::uint32_t n, bool write) {
  if (addr >> 12 == last_touched_[write] && (addr + n - 1) >> 12 == last_touched_[write]) return;
  touched_->add(addr, n, write);
  last_touched_[write] = addr >> 12;
}

void Thread::store(Space space, std::uint64_t addr, const void* data, std::uint32_t n, const Instruction& in) {
  const Space named = space;
  addr = resolve(space, addr, n, in);
  // Definedness: taint_ is the first undefined source the instruction read, its data (addresses are
  // checked where they are read). Global memory is where it is a use; shared and local memory keep it.
  if (taint_ && space == Space::global) [[unlikely]] undefined_use(taint_, taint_slot_, "global memory");
  if (space == Space::shared && cluster_access(named, addr, in)) {
    arch_.dsmem_store(static_cast<std::uint32_t>(addr), {static_cast<const std::uint8_t*>(data), n}, in.opcode.c_str());
    return;
  }
  if (space == Space::shared && !cta_.bulk_reads.empty()) check_bulk_reads(static_cast<std::uint32_t>(addr), n, in);
  if (space == Space::shared) {
    arch_.smem_store(static_cast<std::uint32_t>(addr), {static_cast<const std::uint8_t*>(data), n}, in.opcode.c_str());
    if (grid_.provenance)
      rt_.cta().set_smem_origin(static_cast<std::uint32_t>(addr) & exec::ClusterRuntime::kOffsetMask, n,
                                origin_of(data, n));
    if (taint_) [[unlikely]]  // the model's write defined the bytes; these are not
      rt_.cta().set_smem_undefined(static_cast<std::uint32_t>(addr) & exec::ClusterRuntime::kOffsetMask, n, taint_);
  } else {
    if (space == Space::global) {  // inline (host_bytes), not through bytes()'s frame
      ++cta_.writes;                // progress, for the watchdog, as bytes() counts it
      std::memcpy(const_cast<std::uint8_t*>(host_bytes(addr, n, true, in)), data, n);
    } else {
      std::memcpy(bytes(space, addr, n, true, in), data, n);
    }
    if (space == Space::local) set_bits(local_written_, addr, n);
    if (space == Space::local && (taint_ || local_undefined_)) [[unlikely]] {
      if (local_origin_.empty()) local_origin_.assign(local_.size(), 0);
      for (std::uint64_t i = addr; i < addr + n; ++i) {
        local_undefined_ = local_undefined_ + (taint_ != 0) - (local_origin_[i] != 0);
        local_origin_[i] = taint_;
      }
    }
  }
  if (touched_ && space == Space::global) touch(addr, n, true);
  if (recorder_ && in.timing == TimingOp::plain) recorder_->memory(space, addr, n, true);
}

// ---- bra.uni

void Thread::check_uniform_branch(const Instruction& in, bool taken) {
  const std::uint32_t pc = static_cast<std::uint32_t>(&in - grid_.function.code.data());
  const std::uint32_t k = uniform_visits_[pc]++;
  auto& records = cta_.uniform[static_cast<std::size_t>(warp())];
  const auto key = std::make_pair(pc, k);
  const auto it = records.find(key);
  if (it == records.end()) {
    records[key] = {taken, 1u << lane()};
    return;
  }
  if (it->second.taken != taken)
    fault("bra.uni", std::string(taken ? "taken" : "not taken") + " by lane " + std::to_string(lane()) + " but " +
                         (it->second.taken ? "taken" : "not taken") + " by lane " +
                         std::to_string(std::countr_zero(it->second.lanes)) + " of warp " + std::to_string(warp()),
          "the same direction in every lane: bra.uni is non-divergent, its guard must be uniform across the warp "
          "(PTX #control-flow-instructions-bra)");
  it->second.lanes |= 1u << lane();
  if (it->second.lanes == 0xFFFFFFFFu) records.erase(it);
}

// ---- tcgen05.ld's registers before tcgen05.wait::ld

std::string Thread::where(const Instruction& in) const {
  const exec::Dim3 b = rt_.block();
  const std::string position = grid_.module.source_position(grid_.function, in.loc);
  std::ostringstream s;
  if (!position.empty()) s << position << ", ";
  s << "PTX line " << in.line << " (" << in.opcode << ") of kernel " << brief_name(grid_.function.demangled) << ", block (" << b.x
    << ", " << b.y << ", " << b.z << "), warp " << warp() << ", lane " << lane();
  return s.str();
}

std::string Thread::where_now() const {
  // On a converged warp's fiber, the lane whose instruction runs.
  if (const Thread* lane = lockstep_ ? lockstep_->running() : nullptr; lane && lane != this) return lane->where_now();
  return current_ ? where(*current_) : std::string();
}

}  // namespace tcgen::ptx
