#pragma once
// From an instruction's opcode text and parsed operands to its handler: the
// instruction table (opcodes.def) names the decoder of each opcode, which
// picks the variant by type and suffix.
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tcgen/ptx/instruction.hpp"

namespace tcgen::ptx {

// The opcode split at its dots: "ld.global.v4.f32" → {"ld", "global", "v4", "f32"}.
struct Opcode {
  std::vector<std::string_view> parts;
  explicit Opcode(std::string_view text);
  std::string_view base() const { return parts[0]; }
  bool has(std::string_view suffix) const;
  // The index in `suffixes` of the one this opcode has (the last listed when several), or -1.
  int which(std::initializer_list<std::string_view> suffixes) const;
  // The part that starts with prefix ("x" → "x32"), or "".
  std::string_view starting(std::string_view prefix) const;
  // The types among the suffixes, in order.
  std::vector<Type> types() const;
  // The last suffix that is a type, or none.
  Type type() const;
  // .global/.shared(::cta|::cluster)/.local/.param/.const, or generic.
  Space space() const;
};

// Sets in.run and the decoded modifiers. False: no row of the table has the
// opcode, or its decoder does not run this form of it; then `why` says what is missing.
bool decode(Instruction& in, std::string& why);

// A row's decoder (opcodes.def): sets in.run and the modifiers, or says in
// `why` what form of the opcode it runs and returns false.
using Decoder = bool (*)(const Opcode& op, Instruction& in, std::string& why);
#define PTX_OPCODE(name, family, decoder, forms) bool decoder(const Opcode& op, Instruction& in, std::string& why);
#include "opcodes.def"
#undef PTX_OPCODE

// bra.uni guarded by the result of an mbarrier try_wait/test_wait becomes a
// plain branch: a warp that spins converged polls once for all its lanes,
// but the host's lanes poll one after another and may see the phase
// complete at different polls, which is no divergence of the kernel's.
struct Function;
void relax_polling_branches(Function& f);

// Warp forms (Instruction::warp), for a warp in lockstep (warp_lockstep.hpp) to run a converged
// group's lanes in one call: add_warp_form records the warp form of a handler as the decoder picks
// it; attach_warp_forms gives each instruction of f, its handlers final, its handler's.
void add_warp_form(Handler run, WarpHandler warp);
void attach_warp_forms(Function& f);

// The handler that stops a run at an instruction the interpreter cannot run.
void run_unsupported(Thread& t, const Instruction& in);
// The handler of an instruction with no effect on what a kernel computes (hints, fences the fibers keep).
void run_nothing(Thread& t, const Instruction& in);

}  // namespace tcgen::ptx
