// A thread's undefined values (docs/model.md, Definedness): the step taken while some register is
// undefined or pending, where each undefined value came from, registers a tcgen05.ld has not yet
// filled, and the report of an undefined value's use.
#include <string>

#include "slot_pool.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/exec/cluster_runtime.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

// Instructions whose register operands are addresses, descriptors, counts or masks of the
// asynchronous machinery, barriers and the like: an undefined one is a use (Rule::undefined_value_used).
// tcgen05.st's data registers are not among them (see docs/model.md, Definedness).
bool operands_must_be_defined(const std::string& op) {
  if (op.starts_with("tcgen05.")) return !op.starts_with("tcgen05.st");
  static constexpr std::string_view prefixes[] = {
      "mbarrier.", "cp.async", "cp.reduce.async.bulk", "tensormap.", "bar.", "bar ", "barrier", "setmaxnreg",
      "clusterlaunchcontrol", "griddepcontrol", "mapa", "prefetch", "applypriority", "discard", "createpolicy",
      "elect", "ldmatrix", "stmatrix", "nanosleep", "trap", "call"};
  for (std::string_view p : prefixes)
    if (op.starts_with(p)) return true;
  return op == "bar";
}

}  // namespace

void Thread::run_shadowed(const Instruction& in) {
  taint_ = 0;
  if (in.guard != Operand::kNoReg) {
    require_defined(in.guard, in.opcode.starts_with("bra") ? "a branch's guard predicate" : "a guard predicate");
    if (((slot(in.guard) & 1u) != 0) == in.guard_negated) return;
  }
  in.run(*this, in);
  if (taint_ && operands_must_be_defined(in.opcode))
    undefined_use(taint_, taint_slot_, "an operand of " + in.opcode.substr(0, in.opcode.find('.', in.opcode.find('.') + 1)));
  if (recorder_) [[unlikely]] recorder_->after(*this, in);
}

void Thread::write_shadow(std::uint32_t slot, std::uint32_t origin) {
  if (pending_) pending_[slot] = 0;
  if (origin != 0 || undefined_ != 0) {
    if (origin_.empty()) origin_.assign(grid_.function.registers, 0);
    std::uint32_t& o = origin_[slot];
    undefined_ = undefined_ + (origin != 0) - (o != 0);
    o = origin;
  }
  set_shadowed(pending_ != nullptr || undefined_ != 0 || taint_ != 0);
}

std::uint32_t Thread::tmem_origin(const model::Cta::UndefinedRead& r, const Instruction& ld) {
  const std::uint64_t key = std::uint64_t{r.lane} | std::uint64_t{r.column} << 8 | std::uint64_t{r.by_mma} << 32;
  auto [it, added] = cta_.origin_ids.try_emplace({CtaState::Origin::Kind::tmem, key, &ld}, 0);
  if (added) {
    cta_.origins.push_back({r, &ld});
    it->second = static_cast<std::uint32_t>(cta_.origins.size());
  }
  return it->second;
}

std::uint32_t Thread::unwritten_origin(CtaState::Origin::Kind kind, std::uint32_t address, int rank,
                                       const Instruction& in) {
  const bool local = kind == CtaState::Origin::Kind::local;
  const std::uint32_t whose = local ? static_cast<std::uint32_t>(linear_) : static_cast<std::uint32_t>(rank) + 1u;
  const std::uint64_t key = std::uint64_t{address} | std::uint64_t{whose} << 32;
  auto [it, added] = cta_.origin_ids.try_emplace({kind, key, &in}, 0);
  if (added) {
    CtaState::Origin o{};
    o.ld = &in;
    o.kind = kind;
    o.address = address;
    o.rank = local ? -1 : rank;
    o.thread = local ? linear_ : -1;
    cta_.origins.push_back(o);
    it->second = static_cast<std::uint32_t>(cta_.origins.size());
  }
  return it->second;
}

void Thread::strict_read_fault(std::uint32_t origin) const {
  undefined_use(origin, Operand::kNoReg, "a register under strict (LaunchConfig::strict: the load of memory never "
                                         "written is the fault, as a tcgen05.ld of cells holding none is)");
}

namespace {

// A register's name, from the function's .reg declarations: "%r12", "%rd3", "%p1".
std::string register_name(const Function& f, std::uint32_t slot) {
  for (const Function::RegisterNames& n : f.register_names)
    if (slot >= n.first && slot < n.first + n.count * n.slots)
      return n.ranged ? n.name + std::to_string((slot - n.first) / n.slots) : n.name;
  return "a register";
}

}  // namespace

void Thread::undefined_use(std::uint32_t origin, std::uint32_t slot, const std::string& use) const {
  const CtaState::Origin& o = cta_.origins.at(origin - 1);
  const std::string reg = slot == Operand::kNoReg ? "the value" : register_name(grid_.function, slot);
  const std::string ld_at = grid_.module.source_position(grid_.function, o.ld->loc);
  const std::string read = ", as " + o.ld->opcode + " at " + (ld_at.empty() ? "" : ld_at + ", ") + "PTX line " +
                           std::to_string(o.ld->line) + " read it";
  std::string held;
  switch (o.kind) {
    case CtaState::Origin::Kind::tmem:
      held = reg + " holds Tensor Memory lane " + std::to_string(o.cell.lane) + ", column " +
             std::to_string(o.cell.column) + read + ": " +
             rt_.cta().undefined_detail(o.cell.lane, o.cell.column, o.cell.by_mma);
      break;
    case CtaState::Origin::Kind::shared:
      held = reg + " holds shared memory never written since the CTA started: byte " + hex(o.address) +
             (o.rank >= 0 ? " of rank " + std::to_string(o.rank) + "'s shared memory" : "") + read +
             ". Shared memory holds no defined value until a store, atom, TMA load, cp.async or the like writes it "
             "(the model's image holds 0 there, silicon's whatever was left).";
      break;
    case CtaState::Origin::Kind::mapa:
      held = reg + " holds the address " + o.ld->opcode + " at " + (ld_at.empty() ? "" : ld_at + ", ") + "PTX line " +
             std::to_string(o.ld->line) + " made of shared::cta " + hex(o.address) + " for rank " +
             std::to_string(static_cast<std::uint32_t>(o.rank)) + ", outside the cluster's " +
             std::to_string(rt_.cluster().size()) +
             " CTAs: it names no CTA's shared memory (PTX #data-movement-and-conversion-instructions-mapa).";
      break;
    case CtaState::Origin::Kind::local:
      held = reg + " holds local memory never written since the thread started: byte " + hex(o.address) +
             " of thread " + std::to_string(o.thread) + "'s local memory" + read +
             ". Local memory holds no defined value until the thread stores to it.";
      break;
  }
  cta_.raise(grid_.config, model::Rule::undefined_value_used, where(*current_), "undefined value",
             reg + " (" + current_->opcode + ")",
             "an undefined value reaches " + use + ": " + held + " Rule (PTX #" +
                 model::anchor(model::Rule::undefined_value_used) + "): " +
                 model::sentence(model::Rule::undefined_value_used) + ".");
  std::abort();  // raise stops the thread: the rule is a fault
}

void Thread::load_pending(const Operand* registers, std::uint32_t n, const std::uint32_t* values,
                          const std::uint32_t* origins) {
  // The storage stays between waits and only the slots marked are cleared: the FMHA's kernel has
  // thousands of slots and issues a tcgen05.ld every few hundred instructions (bench_ptx: 6% in memset).
  if (pending_storage_.empty()) pending_storage_ = slot_pool::take(grid_.function.registers);
  pending_ = pending_storage_.data();
  const std::uint64_t id = rt_.cta().last_ld(warp());
  for (std::uint32_t i = 0; i < n; ++i) {
    const Operand& r = registers[i];
    set<std::uint32_t>(r, values[i], origins ? origins[i] : 0u);  // first: a write clears the slot's mark
    if (r.kind != Operand::Kind::reg) continue;
    if (pending_[r.slot] == 0) pending_slots_.push_back(r.slot);
    pending_[r.slot] = id;
  }
  set_shadowed(true);
}

void Thread::clear_pending() {
  for (const std::uint32_t s : pending_slots_) pending_storage_[s] = 0;
  pending_slots_.clear();
  pending_ = nullptr;
  set_shadowed(undefined_ != 0 || taint_ != 0);
}

// A letter, not a fault: CuTe's Blackwell tutorials, which run on B200s,
// issue no tcgen05.wait::ld (ptxas orders the registers' uses itself).
// Counted once per thread and load used: the first use of its registers stands for the rest.
// The use waits for that load (and older ones) as the hardware's register scoreboard does: from then
// on they are complete for the model too, as after tcgen05.wait::ld (CUTLASS's FMHA then lets its MMA
// warp overwrite the S its softmax warps loaded, with no wait::ld anywhere). Newer loads stay pending.
void Thread::check_pending(std::uint32_t slot) const {
  const std::uint64_t id = pending_[slot];
  if (!id) return;
  std::erase_if(pending_slots_, [&](std::uint32_t s) { return pending_[s] <= id ? (pending_[s] = 0, true) : false; });
  rt_.cta().ld_used(warp(), id);
  cta_.raise(grid_.config, model::Rule::ld_register_before_wait, where(*current_), "register",
             "a destination of tcgen05.ld read by " + current_->opcode + " at " + grid_.module.name() + ":" +
                 std::to_string(current_->line),
             "tcgen05.wait::ld between a tcgen05.ld and any use of its destination registers "
             "(PTX #tcgen05-instructions-tcgen05-wait)");
}

void CtaState::raise(const LaunchConfig& config, model::Rule rule, const std::string& where, const std::string& field,
                     const std::string& value, const std::string& expected) {
  const std::string name = model::name(rule);
  if (model::severity(rule) == model::Severity::fault) fault(field, value, expected + " [" + name + "]");
  if (config.strict) fault(field, value, expected + " [" + name + ", a PTX-letter rule: an error in strict mode]");
  if (warnings[name]++ == 0) first_warning[name] = where + ": " + Error(field, value, expected).what();
}

}  // namespace tcgen::ptx
