// Comparison and selection: setp and selp (PTX #comparison-and-selection-instructions).
#include <optional>

#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

enum class Cmp : std::uint8_t { eq, ne, lt, le, gt, ge, equ, neu, ltu, leu, gtu, geu, num, nan };

template <class T>
bool compare(Cmp c, T a, T b) {
  if constexpr (std::is_floating_point_v<T>) {
    const bool unordered = std::isnan(a) || std::isnan(b);
    switch (c) {
      case Cmp::eq: return !unordered && a == b;
      case Cmp::ne: return !unordered && a != b;
      case Cmp::lt: return !unordered && a < b;
      case Cmp::le: return !unordered && a <= b;
      case Cmp::gt: return !unordered && a > b;
      case Cmp::ge: return !unordered && a >= b;
      case Cmp::equ: return unordered || a == b;
      case Cmp::neu: return unordered || a != b;
      case Cmp::ltu: return unordered || a < b;
      case Cmp::leu: return unordered || a <= b;
      case Cmp::gtu: return unordered || a > b;
      case Cmp::geu: return unordered || a >= b;
      case Cmp::num: return !unordered;
      case Cmp::nan: return unordered;
    }
    return false;
  } else {
    switch (c) {
      case Cmp::eq: return a == b;
      case Cmp::ne: return a != b;
      case Cmp::lt: return a < b;
      case Cmp::le: return a <= b;
      case Cmp::gt: return a > b;
      case Cmp::ge: return a >= b;
      default: return false;
    }
  }
}

// setp.cmp[.bool][.ftz].type p[|q], a, b[, {!}c]
enum class Combine : std::uint8_t { none, and_c, or_c, xor_c };  // .bool: the result's combination with c
struct SetpModifiers {
  Cmp cmp;
  Combine combine;
  bool ftz;
  bool second_destination;  // p|q: q gets the complement, the sources move by one
};

template <class T>
void setp(Thread& t, const Instruction& in) {
  const SetpModifiers m = in.modifiers.get<SetpModifiers>();
  const std::uint32_t second = m.second_destination ? 1u : 0u;
  const bool r = compare(m.cmp, flush(t.get<T>(in.ops[1 + second]), m.ftz), flush(t.get<T>(in.ops[2 + second]), m.ftz));
  auto combine = [&](bool x) {
    if (m.combine == Combine::none) return x;
    const bool c = t.pred(in.ops.back());
    return m.combine == Combine::and_c ? (x && c) : m.combine == Combine::or_c ? (x || c) : (x != c);
  };
  t.set<bool>(in.ops[0], combine(r));
  if (second) t.set<bool>(in.ops[1], combine(!r));  // p|q: q gets the complement
}
// setp.cmp.type p, a, b of plain registers (alu.hpp, Registers): no .ftz, combination or second destination.
template <class T, bool kImmediate>
struct SetpRegisters : CheckedOrPlain<SetpRegisters<T, kImmediate>, &setp<T>> {
  template <class Regs>
  static void plain(Regs&& t, const Instruction& in) {
    t.put_reg(in.ops[0].slot, compare(in.modifiers.get<SetpModifiers>().cmp, t.template reg<T>(in.ops[1].slot),
                                      last_source<T, kImmediate>(t, in.ops[2])));
  }
};
template <class T>
void setp_half(Thread& t, const Instruction& in) {
  const float a = T{t.get<std::uint16_t>(in.ops[1])}.value(), b = T{t.get<std::uint16_t>(in.ops[2])}.value();
  t.set<bool>(in.ops[0], compare(in.modifiers.get<SetpModifiers>().cmp, a, b));
}

template <class T>
void selp(Thread& t, const Instruction& in) {
  if (in.ops[3].kind == Operand::Kind::reg) t.require_defined(in.ops[3].slot, "selp's predicate");
  t.set<T>(in.ops[0], t.pred(in.ops[3]) ? t.get<T>(in.ops[1]) : t.get<T>(in.ops[2]));
}

std::optional<Cmp> parse_cmp(std::string_view s) {
  if (s == "eq") return Cmp::eq;
  if (s == "ne") return Cmp::ne;
  if (s == "lt" || s == "lo") return Cmp::lt;
  if (s == "le" || s == "ls") return Cmp::le;
  if (s == "gt" || s == "hi") return Cmp::gt;
  if (s == "ge" || s == "hs") return Cmp::ge;
  if (s == "equ") return Cmp::equ;
  if (s == "neu") return Cmp::neu;
  if (s == "ltu") return Cmp::ltu;
  if (s == "leu") return Cmp::leu;
  if (s == "gtu") return Cmp::gtu;
  if (s == "geu") return Cmp::geu;
  if (s == "num") return Cmp::num;
  if (s == "nan") return Cmp::nan;
  return std::nullopt;
}

}  // namespace

bool decode_setp(const Opcode& op, Instruction& in, std::string& why) {
  const Type ty = in.type;
  const std::optional<Cmp> c = parse_cmp(op.parts.size() > 1 ? op.parts[1] : "");
  if (!c) {
    why = op.parts.size() > 1 ? "comparison " + std::string(op.parts[1]) : "setp without a comparison (setp.CmpOp.type)";
    return false;
  }
  SetpModifiers m{.cmp = *c,
                  .combine = op.has("and") ? Combine::and_c
                             : op.has("or") ? Combine::or_c
                             : op.has("xor") ? Combine::xor_c
                                             : Combine::none,
                  .ftz = op.has("ftz"),
                  .second_destination = false};
  const std::size_t sources = 2 + (m.combine != Combine::none ? 1 : 0);
  m.second_destination = in.ops.size() > 1 + sources;
  in.modifiers.set(m);
  if (ty == Type::f16x2 || ty == Type::bf16x2 ||
      ((ty == Type::f16 || ty == Type::bf16) && (m.combine != Combine::none || in.ops.size() > 3))) {
    why = "setp on .f16x2/.bf16x2, or on .f16/.bf16 with a second destination or .and/.or/.xor";
    return false;
  }
  if (ty == Type::f16 || ty == Type::bf16) return typed(op, in, why, ty == Type::f16 ? &setp_half<F16> : &setp_half<BF16>);
  const bool plain = m.combine == Combine::none && !m.ftz && !m.second_destination;
  return typed(op, in, why, by_any(ty, [&]<class T>() -> Handler {
                 if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, F16> || std::is_same_v<T, BF16>) return nullptr;
                 else return plain_or<SetpRegisters, T>(in, 3, plain, &setp<T>);
               }));
}
// PTX #floating-point-instructions-testp: testp.op.{f32,f64} p, a, a property of a as a predicate;
// "positive and negative zero are considered normal numbers". Why: testp was refused.
enum class FloatTest : std::uint8_t { finite, infinite, number, notanumber, normal, subnormal };

template <class T>
void testp(Thread& t, const Instruction& in) {
  const T a = t.get<T>(in.ops[1]);
  bool r = false;
  switch (in.modifiers.get<FloatTest>()) {
    case FloatTest::finite: r = std::isfinite(a); break;
    case FloatTest::infinite: r = std::isinf(a); break;
    case FloatTest::number: r = !std::isnan(a); break;
    case FloatTest::notanumber: r = std::isnan(a); break;
    case FloatTest::normal: r = std::isnormal(a) || a == T(0); break;
    case FloatTest::subnormal: r = std::fpclassify(a) == FP_SUBNORMAL; break;
  }
  t.set<bool>(in.ops[0], r);
}

bool decode_testp(const Opcode& op, Instruction& in, std::string& why) {
  const int test = op.which({"finite", "infinite", "number", "notanumber", "normal", "subnormal"});
  if (test < 0 || in.ops.size() != 2) {
    why = "testp.{finite,infinite,number,notanumber,normal,subnormal}.{f32,f64} p, a";
    return false;
  }
  in.modifiers.set(static_cast<FloatTest>(test));
  return typed(op, in, why, by_float(in.type, []<class T>() -> Handler { return &testp<T>; }));
}

bool decode_selp(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_any(in.type, []<class T>() -> Handler { return &selp<T>; }));
}

}  // namespace tcgen::ptx
