#include "shared_layout.hpp"

#include <algorithm>
#include <cstdint>

#include "tcgen/exec/cta_runtime.hpp"

namespace tcgen::ptx {

void lay_out_shared_memory(std::vector<Variable>& variables, std::vector<Function>& functions,
                           std::span<const SharedUse> uses) {
  const auto align_up = [](std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; };
  std::uint32_t at = exec::CtaRuntime::kSmemBase;
  std::uint32_t dyn_align = 16;
  const auto place = [&](Variable& v, std::uint32_t& next) {
    next = align_up(next, v.align);
    v.address = next;
    next += v.bytes;
  };
  for (Variable& v : variables) {
    if (v.space != Space::shared) continue;
    if (v.external) dyn_align = std::max(dyn_align, v.align);
    else if (v.owner < 0) place(v, at);
  }
  for (std::size_t fi = 0; fi < functions.size(); ++fi) {
    Function& f = functions[fi];
    std::uint32_t own = at;
    for (Variable& v : variables)
      if (v.space == Space::shared && !v.external && v.owner == static_cast<int>(fi)) place(v, own);
    f.static_shared_bytes = own - exec::CtaRuntime::kSmemBase;
    f.dynamic_shared_base = align_up(own, dyn_align);
  }
  for (const SharedUse& use : uses) {
    Function& f = functions[use.function];
    Instruction& in = f.code[use.instr];
    Operand& o = use.op >= 1000 ? in.elements[use.op - 1000] : in.ops[use.op];
    const Variable& v = variables[use.variable];
    o.ival += static_cast<std::int64_t>(v.external ? f.dynamic_shared_base : v.address);
    // The value is the CTA's shared window plus the offset: [window + ival].
    if (f.shared_window_slot == Operand::kNoReg) f.shared_window_slot = f.registers++;
    if (o.kind == Operand::Kind::imm) o.kind = Operand::Kind::address;
    o.slot = f.shared_window_slot;
  }
}

}  // namespace tcgen::ptx
