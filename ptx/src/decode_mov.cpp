// mov: between registers, and packing or unpacking a vector of registers
// into one (PTX #data-movement-and-conversion-instructions-mov).
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

template <class T>
void mov(Thread& t, const Instruction& in) {
  t.set<T>(in.ops[0], t.get<T>(in.ops[1]));
}
// mov.type d, a of plain registers (alu.hpp, Registers), a an immediate or a register.
template <class T, bool kImmediate>
struct MovRegisters : CheckedOrPlain<MovRegisters<T, kImmediate>, &mov<T>> {
  template <class Regs>
  static void plain(Regs&& t, const Instruction& in) {
    t.put_reg(in.ops[0].slot, last_source<T, kImmediate>(t, in.ops[1]));
  }
};
// mov.bN d, {a, b, ...}: the elements packed low first; mov.bN {a, b, ...}, d: unpacked.
struct PackModifiers {
  int bytes;  // N / 8
};

void mov_pack(Thread& t, const Instruction& in) {
  const Operand& v = in.ops[1];
  const int bytes = in.modifiers.get<PackModifiers>().bytes, width = 8 * bytes / static_cast<int>(v.count);
  std::uint64_t d = 0;
  for (std::uint32_t i = 0; i < v.count; ++i) {
    const std::uint64_t e = t.get<std::uint64_t>(in.elements[v.first + i]);
    d |= (width == 64 ? e : e & ((1ull << width) - 1)) << (width * i);
  }
  t.set<std::uint64_t>(in.ops[0], bytes == 8 ? d : d & ((1ull << (8 * bytes)) - 1));
}
// mov.b128: two slots, low 64 bits first; packed from or unpacked to two .b64.
void mov128(Thread& t, const Instruction& in) {
  const Operand &d = in.ops[0], &a = in.ops[1];
  std::uint64_t lo, hi;
  if (a.kind == Operand::Kind::vector) {
    lo = t.get<std::uint64_t>(in.elements[a.first]);
    hi = t.get<std::uint64_t>(in.elements[a.first + 1]);
  } else {
    lo = t.read_slot(a.slot);
    hi = t.read_slot(a.slot + 1);
  }
  if (d.kind == Operand::Kind::vector) {
    t.set<std::uint64_t>(in.elements[d.first], lo);
    t.set<std::uint64_t>(in.elements[d.first + 1], hi);
  } else {
    t.write_slot(d.slot, lo);
    t.write_slot(d.slot + 1, hi);
  }
}

void mov_unpack(Thread& t, const Instruction& in) {
  const Operand& v = in.ops[0];
  const int width = 8 * in.modifiers.get<PackModifiers>().bytes / static_cast<int>(v.count);
  const std::uint64_t s = t.get<std::uint64_t>(in.ops[1]);
  for (std::uint32_t i = 0; i < v.count; ++i)
    t.set<std::uint64_t>(in.elements[v.first + i], width == 64 ? s : (s >> (width * i)) & ((1ull << width) - 1));
}

}  // namespace

bool decode_mov(const Opcode& op, Instruction& in, std::string& why) {
  const Type ty = in.type;
  const bool regs128 = in.ops.size() == 2 && (in.ops[0].kind == Operand::Kind::reg || in.ops[0].count == 2) &&
                       (in.ops[1].kind == Operand::Kind::reg || in.ops[1].count == 2);
  const Operand& vec = in.ops[in.ops[1].kind == Operand::Kind::vector ? 1 : 0];
  const bool packs = vec.kind == Operand::Kind::vector && (vec.count == 0 || (8 * size_of(ty)) % vec.count != 0 ||
                                                            8 * size_of(ty) / static_cast<int>(std::max(vec.count, 1u)) > 64);
  if (ty == Type::b128 && regs128) return typed(op, in, why, &mov128);
  if (packs) {
    why = "a mov vector whose elements split the type evenly into parts of at most 64 bits";
    return false;
  }
  if (in.ops.size() == 2 && in.ops[1].kind == Operand::Kind::vector) {
    in.modifiers.set(PackModifiers{.bytes = size_of(ty)});
    return typed(op, in, why, &mov_pack);
  }
  if (in.ops.size() == 2 && in.ops[0].kind == Operand::Kind::vector) {
    in.modifiers.set(PackModifiers{.bytes = size_of(ty)});
    return typed(op, in, why, &mov_unpack);
  }
  return typed(op, in, why, by_any(ty, [&]<class T>() -> Handler { return plain_or<MovRegisters, T>(in, 2, true, &mov<T>); }));
}

}  // namespace tcgen::ptx
