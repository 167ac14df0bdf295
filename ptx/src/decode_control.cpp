// Control flow (PTX #control-flow-instructions): branches, exit, trap, and
// the calls the interpreter refuses by name. Each thread has its own program
// counter, so divergence needs nothing; bra.uni, which promises the warp
// takes it together, is checked against the other lanes' choices.
#include <map>

#include "decode.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

void bra(Thread& t, const Instruction& in) { t.jump(in.ops[0].ival); }

// bra.uni with a guard: every lane of the warp that reaches it must take
// the same way. The lanes reach it one after another, so the k-th arrival
// of each lane is compared with the first lane's k-th (BraUniform).
void bra_uni(Thread& t, const Instruction& in) {
  const bool taken = ((t.slot(static_cast<std::uint32_t>(in.aux)) & 1u) != 0) != (in.aux2 != 0);
  t.check_uniform_branch(in, taken);
  if (taken) t.jump(in.ops[0].ival);
}

void exit_thread(Thread& t, const Instruction&) { t.exit(); }

void trap(Thread&, const Instruction& in) {
  fault("trap", in.opcode, "no trap: the kernel aborted (an assert, __trap(), or a check of its own)");
}

void call(Thread&, const Instruction& in) {
  fault("call", in.text,
        "no calls: the host model runs kernels whose device functions are inlined (vprintf, assert and "
        "__noinline__ functions are not run yet)");
}

// A spinning thread lets the others run.
void nanosleep(Thread& t, const Instruction&) { t.runtime().yield(); }
void nothing(Thread&, const Instruction&) {}

}  // namespace

bool decode_control(const Opcode& op, Instruction& in, std::string&) {
  const std::string_view b = op.base();
  if (b == "bra" || b == "brx") {
    if (b == "brx" || in.ops.empty() || in.ops[0].kind != Operand::Kind::label) return false;
    if (op.has("uni") && in.guard != Operand::kNoReg) {
      in.aux = static_cast<std::int32_t>(in.guard);
      in.aux2 = in.guard_negated;
      in.guard = Operand::kNoReg;  // the handler reads the predicate: a lane that does not branch is checked too
      in.run = &bra_uni;
    } else {
      in.run = &bra;
    }
    return true;
  }
  if (b == "ret" || b == "exit") {
    in.run = &exit_thread;  // ret from an entry ends the thread; the interpreter runs no .func
    return true;
  }
  if (b == "trap" || b == "brkpt") {
    in.run = &trap;
    return true;
  }
  if (b == "call") {
    in.run = &call;
    return true;
  }
  if (b == "nanosleep" || b == "pmevent") {
    in.run = b == "nanosleep" ? &nanosleep : &nothing;
    return true;
  }
  return false;
}

}  // namespace tcgen::ptx
