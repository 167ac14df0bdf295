// Control flow (PTX #control-flow-instructions): branches, exit, trap, and
// the calls the interpreter refuses by name. Each thread has its own program
// counter, so divergence needs nothing; bra.uni, which promises the warp
// takes it together, is checked against the other lanes' choices.
#include <map>

#include <set>

#include "decode.hpp"
#include "device_printf.hpp"
#include "tcgen/ptx/module.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

// bra to a label, for a lane by itself (a warp in lockstep takes a plain branch for its lanes:
// LaneStep::branch, thread_lockstep.cpp).
void branch(Thread& t, const Instruction& in) { t.jump(in.ops[0].ival); }

// bra.uni with a guard: every lane of the warp that reaches it must take
// the same way. The lanes reach it one after another, so the k-th arrival
// of each lane is compared with the first lane's k-th (BraUniform).
// The guard bra.uni reads itself instead of the instruction's.
struct UniformBranchModifiers {
  std::uint32_t predicate;  // its slot
  bool negated;
};

void bra_uni(Thread& t, const Instruction& in) {
  const UniformBranchModifiers m = in.modifiers.get<UniformBranchModifiers>();
  t.require_defined(m.predicate, "a branch's guard predicate");
  const bool taken = ((t.read_slot(m.predicate) & 1u) != 0) != m.negated;
  t.check_uniform_branch(in, taken);
  if (taken) t.jump(in.ops[0].ival);
}

void exit_thread(Thread& t, const Instruction&) { t.exit(); }

void trap(Thread&, const Instruction& in) {
  fault("trap", in.opcode, "no trap: the kernel aborted (an assert, __trap(), or a check of its own)");
}

// A call's argument i: its .param variable's bits, as the call site stored them.
std::uint64_t call_argument(Thread& t, const Instruction& in, std::uint32_t i, std::uint32_t bytes) {
  const Operand& args = in.ops.back();
  if (args.kind != Operand::Kind::vector || i >= args.count) fault("call arguments", in.text, "more arguments");
  std::uint64_t v = 0;
  t.load(Space::param, static_cast<std::uint64_t>(in.elements[args.first + i].ival), &v, bytes, in);
  return v;
}

// The zero-terminated string at a generic address.
std::string c_string(Thread& t, const Instruction& in, std::uint64_t addr) {
  std::string s;
  for (char c; s.size() < 4096; ++addr) {
    t.load(Space::generic, addr, &c, 1, in);
    if (c == 0) break;
    s += c;
  }
  return s;
}

// call.uni (retval), vprintf, (format, args): the text goes to the launch's output.
void vprintf(Thread& t, const Instruction& in) {
  std::uint64_t at = call_argument(t, in, 1, 8);
  const std::string text = format_printf(
      c_string(t, in, call_argument(t, in, 0, 8)),
      [&](int bytes) {
        at = (at + static_cast<std::uint64_t>(bytes) - 1) / static_cast<std::uint64_t>(bytes) * static_cast<std::uint64_t>(bytes);
        std::uint64_t v = 0;
        t.load(Space::generic, at, &v, static_cast<std::uint32_t>(bytes), in);
        at += static_cast<std::uint64_t>(bytes);
        return v;
      },
      [&](std::uint64_t addr) { return c_string(t, in, addr); });
  t.print(text);
  if (in.ops.front().kind == Operand::Kind::vector && in.ops.front().count == 1) {
    const auto n = static_cast<std::uint32_t>(text.size());
    t.store(Space::param, static_cast<std::uint64_t>(in.elements[in.ops.front().first].ival), &n, 4, in);
  }
}

// call.uni __assertfail, (message, file, line, function, char size): the kernel stops.
void assertfail(Thread& t, const Instruction& in) {
  const std::string message = c_string(t, in, call_argument(t, in, 0, 8)),
                    file = c_string(t, in, call_argument(t, in, 1, 8)),
                    function = c_string(t, in, call_argument(t, in, 3, 8));
  fault("assert", message, "true, at " + file + ":" + std::to_string(call_argument(t, in, 2, 4) & 0xFFFFFFFFu) +
                               " in " + function + ": the kernel's device-side assert failed", FaultKind::assertion);
}

// The called function's name: the first word after the opcode outside the (return) list.
std::string callee(const std::string& text) {
  std::size_t i = text.find_first_of(" \t");
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n')) ++i;
  if (i < text.size() && text[i] == '(') i = text.find(')', i) + 1;
  while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == ',')) ++i;
  std::size_t j = i;
  while (j < text.size() && text[j] != ',' && text[j] != ' ' && text[j] != '\t' && text[j] != '\n' && text[j] != ';') ++j;
  return text.substr(i, j - i);
}

// A spinning thread lets the others run.
void nanosleep(Thread& t, const Instruction&) { t.runtime().yield(); }

}  // namespace

void relax_polling_branches(Function& f) {
  std::set<std::uint32_t> polled;
  for (const Instruction& in : f.code)
    if (in.opcode.rfind("mbarrier.try_wait", 0) == 0 || in.opcode.rfind("mbarrier.test_wait", 0) == 0)
      if (!in.ops.empty() && in.ops[0].kind == Operand::Kind::reg) polled.insert(in.ops[0].slot);
  for (Instruction& in : f.code) {
    if (in.run != &bra_uni) continue;
    const UniformBranchModifiers m = in.modifiers.get<UniformBranchModifiers>();
    if (polled.count(m.predicate)) {
      in.guard = m.predicate;
      in.guard_negated = m.negated;
      in.run = &branch;
      in.lane_step = LaneStep::branch;
    }
  }
}

bool decode_bra(const Opcode& op, Instruction& in, std::string&) {
  if (in.ops.empty() || in.ops[0].kind != Operand::Kind::label) return false;
  if (op.has("uni") && in.guard != Operand::kNoReg) {
    in.modifiers.set(UniformBranchModifiers{.predicate = in.guard, .negated = in.guard_negated});
    in.guard = Operand::kNoReg;  // the handler reads the predicate: a lane that does not branch is checked too
    in.run = &bra_uni;
  } else {
    in.run = &branch;
    in.lane_step = LaneStep::branch;
  }
  return true;
}

bool decode_exit(const Opcode&, Instruction& in, std::string&) {
  in.run = &exit_thread;  // ret from an entry ends the thread; the interpreter runs no .func
  return true;
}

bool decode_trap(const Opcode&, Instruction& in, std::string&) {
  in.run = &trap;
  return true;
}

bool decode_call(const Opcode&, Instruction& in, std::string& why) {
  const std::string name = callee(in.text);
  if (name != "vprintf" && name != "__assertfail") {
    why = "a call of " + name + " (the interpreter runs vprintf and __assertfail; other device functions must be inlined)";
    return false;
  }
  in.run = name == "vprintf" ? &vprintf : &assertfail;
  return true;
}

bool decode_nanosleep(const Opcode&, Instruction& in, std::string&) {
  in.run = &nanosleep;
  return true;
}

bool decode_pmevent(const Opcode&, Instruction& in, std::string&) {
  in.run = &run_nothing;
  return true;
}

}  // namespace tcgen::ptx
