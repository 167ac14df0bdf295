// Comparison and selection: setp and selp (PTX #comparison-and-selection-instructions).
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

enum class Cmp : std::int32_t { eq, ne, lt, le, gt, ge, equ, neu, ltu, leu, gtu, geu, num, nan };

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

// setp.cmp[.bool].type p[|q], a, b[, {!}c]; aux: Cmp, aux2: 0 none, 1 and, 2 or, 3 xor
template <class T>
void setp(Thread& t, const Instruction& in) {
  const std::uint32_t second = (in.flags & kSecondDestination) ? 1u : 0u;  // p|q: the sources move by one
  const bool r = compare(static_cast<Cmp>(in.aux), flush(t.get<T>(in.ops[1 + second]), in.flags),
                         flush(t.get<T>(in.ops[2 + second]), in.flags));
  auto combine = [&](bool x) {
    if (in.aux2 == 0) return x;
    const bool c = t.pred(in.ops.back());
    return in.aux2 == 1 ? (x && c) : in.aux2 == 2 ? (x || c) : (x != c);
  };
  t.set<bool>(in.ops[0], combine(r));
  if (second) t.set<bool>(in.ops[1], combine(!r));  // p|q: q gets the complement
}
template <class T>
void setp_half(Thread& t, const Instruction& in) {
  const float a = T{t.get<std::uint16_t>(in.ops[1])}.value(), b = T{t.get<std::uint16_t>(in.ops[2])}.value();
  t.set<bool>(in.ops[0], compare(static_cast<Cmp>(in.aux), a, b));
}

template <class T>
void selp(Thread& t, const Instruction& in) {
  t.set<T>(in.ops[0], t.pred(in.ops[3]) ? t.get<T>(in.ops[1]) : t.get<T>(in.ops[2]));
}

Cmp parse_cmp(std::string_view s) {
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
  return static_cast<Cmp>(-1);
}

}  // namespace

bool decode_setp(const Opcode& op, Instruction& in, std::string& why) {
  const Type ty = in.type;
  const Cmp c = parse_cmp(op.parts.size() > 1 ? op.parts[1] : "");
  if (static_cast<int>(c) < 0) {
    why = "comparison " + std::string(op.parts[1]);
    return false;
  }
  in.aux = static_cast<std::int32_t>(c);
  in.aux2 = op.has("and") ? 1 : op.has("or") ? 2 : op.has("xor") ? 3 : 0;
  // p|q: two destinations.
  const std::size_t sources = 2 + (in.aux2 ? 1 : 0);
  if (in.ops.size() > 1 + sources) in.flags |= kSecondDestination;
  if (ty == Type::f16x2 || ty == Type::bf16x2 || ((ty == Type::f16 || ty == Type::bf16) && (in.aux2 || in.ops.size() > 3))) {
    why = "setp on .f16x2/.bf16x2, or on .f16/.bf16 with a second destination or .and/.or/.xor";
    return false;
  }
  if (ty == Type::f16 || ty == Type::bf16) return typed(op, in, why, ty == Type::f16 ? &setp_half<F16> : &setp_half<BF16>);
  return typed(op, in, why, by_any(ty, []<class T>() -> Handler {
                 if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, F16> || std::is_same_v<T, BF16>) return nullptr;
                 else return &setp<T>;
               }));
}
bool decode_selp(const Opcode& op, Instruction& in, std::string& why) {
  return typed(op, in, why, by_any(in.type, []<class T>() -> Handler { return &selp<T>; }));
}

}  // namespace tcgen::ptx
