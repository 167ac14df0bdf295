// cvta and isspacep: between a space's address and its window in the generic
// space (PTX #data-movement-and-conversion-instructions-cvta, -isspacep).
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

// cvta's direction: .to, from a generic address to the space's (else the space's to generic).
struct CvtaModifiers {
  bool to_space;
};

void cvta(Thread& t, const Instruction& in) {
  const std::uint64_t a = t.get<std::uint64_t>(in.ops[1]);
  const bool to = in.modifiers.get<CvtaModifiers>().to_space;
  std::uint64_t r = a;
  switch (in.space) {
    case Space::shared: r = to ? a - kSharedWindow : kSharedWindow + (a & 0xFFFFFFFFu); break;
    case Space::local: r = to ? a - kLocalWindow : kLocalWindow + (a & 0xFFFFFFFFu); break;
    case Space::param: {
      const auto base = reinterpret_cast<std::uint64_t>(t.grid().params.data());
      r = to ? a - base : base + a;
      break;
    }
    default: break;  // global addresses are generic addresses
  }
  if (in.type == Type::u32 || in.type == Type::b32) r &= 0xFFFFFFFFu;
  t.set<std::uint64_t>(in.ops[0], r);
}

// isspacep.space p, a
void isspacep(Thread& t, const Instruction& in) {
  const std::uint64_t a = t.get<std::uint64_t>(in.ops[1]);
  bool r = false;
  switch (in.space) {
    case Space::shared: r = in_shared_window(a); break;
    case Space::local: r = in_local_window(a); break;
    case Space::global: r = !in_shared_window(a) && !in_local_window(a); break;
    default: break;
  }
  t.set<bool>(in.ops[0], r);
}

}  // namespace

bool decode_cvta(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(CvtaModifiers{.to_space = op.has("to")});
  return typed(op, in, why, &cvta);
}
bool decode_isspacep(const Opcode& op, Instruction& in, std::string& why) { return typed(op, in, why, &isspacep); }

}  // namespace tcgen::ptx
