// Non-bulk cp.async (PTX #data-movement-and-conversion-instructions-cp-async):
// 4, 8 or 16 bytes from global to shared memory per thread, the rest of the
// cp-size zero-filled past src-size (or all of it with ignore-src), and its
// completion mechanisms: commit_group / wait_group / wait_all, and
// cp.async.mbarrier.arrive(.noinc). On the host model a copy is done when it
// is issued, in the thread's own program order, so the waits find every group
// complete; the bytes reach shared memory as the thread's ordinary stores
// (cp.async writes through the generic proxy), with their proxy-fence rule.
#include <cstring>

#include "decode.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/exec/cluster_runtime.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

// cp.async.ca|cg.shared{::cta}.global{.level::...} [dst], [src], cp-size{, src-size | ignore-src}{, policy}
enum class SourceBytes : std::uint8_t { cp_size, src_size, ignore_src };  // what ops[3] is, if anything
struct CpAsyncModifiers {
  std::uint32_t cp_size;
  SourceBytes source;
};

void cp_async(Thread& t, const Instruction& in) {
  const CpAsyncModifiers m = in.modifiers.get<CpAsyncModifiers>();
  const std::uint32_t size = m.cp_size;
  std::uint32_t from_src = size;
  if (m.source == SourceBytes::src_size) from_src = t.get<std::uint32_t>(in.ops[3]);
  if (m.source == SourceBytes::ignore_src && t.get<bool>(in.ops[3]) != in.ops[3].negate) from_src = 0;
  if (from_src > size)
    fault("src-size", std::to_string(from_src) + " (" + in.opcode + ")",
          "at most cp-size, " + std::to_string(size) + " (PTX #data-movement-and-conversion-instructions-cp-async)");
  std::uint8_t buf[16] = {};
  if (from_src) t.load(Space::global, t.address(in.ops[1]), buf, from_src, in);
  t.store(Space::shared, t.address(in.ops[0]), buf, size, in);
}

// cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [mbar]: an arrive-on once the thread's prior
// cp.async are complete (here, at once). Without .noinc the pending count is raised by one first,
// so the arrival does not count against the phase's expected arrivals: only the mbarrier's
// validity is checked. With .noinc it is one of them.
struct ArriveModifiers {
  bool noinc;
};

void cp_async_mbarrier_arrive(Thread& t, const Instruction& in) {
  const std::uint32_t mbar = t.shared_address(t.address(in.ops[0]), in);
  if (in.modifiers.get<ArriveModifiers>().noinc) {
    t.arch().mbarrier_arrive(mbar, 1);
  } else if (!t.runtime().cta().mbarrier(mbar & exec::ClusterRuntime::kOffsetMask).valid()) {
    fault("mbar", hex(mbar) + " (" + in.opcode + ")",
          "an mbarrier initialized by mbarrier.init (PTX #parallel-synchronization-and-communication-instructions-mbarrier-init)");
  }
}

}  // namespace

bool decode_cp_async_group(const Opcode&, Instruction& in, std::string&) {
  in.run = &run_nothing;  // every copy is complete when issued
  return true;
}

bool decode_cp_async_mbarrier_arrive(const Opcode& op, Instruction& in, std::string& why) {
  if (in.ops.size() != 1 || in.ops[0].kind != Operand::Kind::address) {
    why = "cp.async.mbarrier.arrive{.noinc}.shared{::cta}.b64 [mbar]";
    return false;
  }
  in.modifiers.set(ArriveModifiers{.noinc = op.has("noinc")});
  in.run = &cp_async_mbarrier_arrive;
  return true;
}

bool decode_cp_async(const Opcode& op, Instruction& in, std::string& why) {
  const std::string_view kind = op.parts.size() > 2 ? op.parts[2] : "";
  if (kind != "ca" && kind != "cg") return false;
  if (in.ops.size() < 3 || in.ops[0].kind != Operand::Kind::address || in.ops[1].kind != Operand::Kind::address ||
      in.ops[2].kind != Operand::Kind::imm) {
    why = "cp.async.ca|cg.shared.global [dst], [src], cp-size{, src-size | ignore-src}{, cache-policy}";
    return false;
  }
  CpAsyncModifiers m{.cp_size = static_cast<std::uint32_t>(in.ops[2].ival), .source = SourceBytes::cp_size};
  // PTX: .ca copies 4, 8 or 16 bytes; .cg only 16.
  if ((kind == "cg" && m.cp_size != 16) || (m.cp_size != 4 && m.cp_size != 8 && m.cp_size != 16)) {
    why = "invalid PTX (ptxas refuses it): cp-size " + std::to_string(in.ops[2].ival) + " with ." + std::string(kind) +
          " (.ca: 4, 8 or 16; .cg: 16)";
    return false;
  }
  // After cp-size: src-size or the ignore-src predicate (a .pred register), then, with
  // .L2::cache_hint, the cache policy.
  const std::size_t before_policy = in.ops.size() - (op.has("L2::cache_hint") ? 1 : 0);
  if (before_policy == 4) m.source = in.ops[3].predicate ? SourceBytes::ignore_src : SourceBytes::src_size;
  in.modifiers.set(m);
  in.run = &cp_async;
  return true;
}

}  // namespace tcgen::ptx
