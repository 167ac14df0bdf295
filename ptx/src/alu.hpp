#pragma once
// What the decoders of the arithmetic, special-function, logic, comparison,
// move, conversion and address-space rows share: the C++ types of PTX's types
// and the choice of a handler's instantiation by type, the rounding and
// clamping modifiers (PTX #floating-point-instructions) and how results are
// rounded and flushed, and the one-operation handler templates.
#include <algorithm>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "decode.hpp"
#include "tcgen/core/element_type.hpp"
#include "thread.hpp"
#include "warp_form.hpp"

namespace tcgen::ptx::alu {

// 128-bit integers (a GCC and Clang extension) hold 64-bit products and cvt's values exactly.
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

// 16-bit floats as their bits; arithmetic goes through f32 and rounds back (RNE).
template <ElementType E>
struct Half {
  std::uint16_t bits;
  static Half from(float x) { return {static_cast<std::uint16_t>(encode(E, x))}; }
  float value() const { return decode(E, bits); }
};
using F16 = Half<ElementType::fp16>;
using BF16 = Half<ElementType::bf16>;

}  // namespace tcgen::ptx::alu

namespace tcgen::ptx {

template <>
inline alu::F16 Thread::from_bits<alu::F16>(std::uint64_t b) {
  return {static_cast<std::uint16_t>(b)};
}
template <>
inline alu::BF16 Thread::from_bits<alu::BF16>(std::uint64_t b) {
  return {static_cast<std::uint16_t>(b)};
}
template <>
inline std::uint64_t Thread::to_bits<alu::F16>(alu::F16 v) {
  return v.bits;
}
template <>
inline std::uint64_t Thread::to_bits<alu::BF16>(alu::BF16 v) {
  return v.bits;
}

}  // namespace tcgen::ptx

namespace tcgen::ptx::alu {

// Calls f.template operator()<T>() with T the C++ type of an integer type.
template <class F>
Handler by_int(Type t, F f) {
  switch (t) {
    case Type::u8: case Type::b8: return f.template operator()<std::uint8_t>();
    case Type::s8: return f.template operator()<std::int8_t>();
    case Type::u16: case Type::b16: return f.template operator()<std::uint16_t>();
    case Type::s16: return f.template operator()<std::int16_t>();
    case Type::u32: case Type::b32: return f.template operator()<std::uint32_t>();
    case Type::s32: return f.template operator()<std::int32_t>();
    case Type::u64: case Type::b64: return f.template operator()<std::uint64_t>();
    case Type::s64: return f.template operator()<std::int64_t>();
    default: return nullptr;
  }
}
template <class F>
Handler by_float(Type t, F f) {
  switch (t) {
    case Type::f32: return f.template operator()<float>();
    case Type::f64: return f.template operator()<double>();
    default: return nullptr;
  }
}
template <class F>
Handler by_any(Type t, F f) {
  if (Handler h = by_int(t, f)) return h;
  if (Handler h = by_float(t, f)) return h;
  if (t == Type::pred) return f.template operator()<bool>();
  if (t == Type::f16) return f.template operator()<F16>();
  if (t == Type::bf16) return f.template operator()<BF16>();
  if (t == Type::f16x2 || t == Type::bf16x2) return f.template operator()<std::uint32_t>();
  if (t == Type::f32x2) return f.template operator()<std::uint64_t>();
  return nullptr;
}

template <class T>
using Wide = std::conditional_t<
    sizeof(T) == 1, std::conditional_t<std::is_signed_v<T>, std::int16_t, std::uint16_t>,
    std::conditional_t<sizeof(T) == 2, std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>,
                       std::conditional_t<sizeof(T) == 4, std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>,
                                          std::conditional_t<std::is_signed_v<T>, Int128, UInt128>>>>;

// The operations the f16/bf16 forms (half_op) and the f32x2 forms (f32x2) run.
enum HalfOp : std::uint8_t { kHalfAdd, kHalfSub, kHalfMul, kHalfFma, kHalfMin, kHalfMax, kHalfNeg, kHalfAbs, kHalfEx2, kHalfTanh };

// .rn (the default), .rz, .rm, .rp (PTX #floating-point-instructions rounding modifiers).
enum class RoundingMode : std::uint8_t { nearest_even, zero, down, up };

// The modifiers of the float rows (arithmetic, special functions, cvt).
struct FloatModifiers {
  RoundingMode mode = RoundingMode::nearest_even;
  bool to_integer = false;  // .rni/.rzi/.rmi/.rpi: rounded to an integral value in `mode`
  bool ties_away = false;   // .rna
  bool ftz = false, sat = false, relu = false, approx = false, nan = false, satfinite = false;
  HalfOp op = kHalfAdd;     // the operation of the packed forms (packed())
  bool abs = false;         // min/max .abs (and .xorsign.abs): the inputs' magnitudes
  bool xorsign = false;     // min/max .xorsign.abs: the result's sign is the xor of a's and b's
};

inline FloatModifiers float_modifiers(const Opcode& op, HalfOp code = kHalfAdd) {
  FloatModifiers m;
  m.mode = op.has("rz") || op.has("rzi")   ? RoundingMode::zero
           : op.has("rm") || op.has("rmi") ? RoundingMode::down
           : op.has("rp") || op.has("rpi") ? RoundingMode::up
                                           : RoundingMode::nearest_even;
  m.to_integer = op.has("rni") || op.has("rzi") || op.has("rmi") || op.has("rpi");
  m.ties_away = op.has("rna");
  m.ftz = op.has("ftz");
  m.sat = op.has("sat");
  m.relu = op.has("relu");
  m.approx = op.has("approx");
  m.nan = op.has("NaN");
  m.satfinite = op.has("satfinite");
  m.op = code;
  m.abs = op.has("abs");
  m.xorsign = op.has("xorsign");
  return m;
}

template <class T>
T flush(T x, bool ftz) {
  if constexpr (std::is_floating_point_v<T>)
    if (ftz && std::fpclassify(x) == FP_SUBNORMAL) return std::copysign(T(0), x);
  return x;
}
// An f32 NaN result is the canonical 0x7FFFFFFF, whatever the inputs (seen on an
// H200: device_ptx_semantics_sm90); f64 NaNs keep the hardware's propagation,
// which is not modelled bit for bit.
template <class T>
T finish(T x, bool ftz, bool sat) {
  x = flush(x, ftz);
  if constexpr (std::is_floating_point_v<T>)
    if (sat) x = std::isnan(x) ? T(0) : std::fmin(std::fmax(x, T(0)), T(1));
  if constexpr (std::is_same_v<T, float>)
    if (std::isnan(x)) return std::bit_cast<float>(0x7FFFFFFFu);
  return x;
}
template <class T>
T finish(T x, const FloatModifiers& m) {
  return finish(x, m.ftz, m.sat);
}

// A value passed through a volatile object: read back only once the program has reached this point.
template <class T>
T through_volatile(T x) {
  volatile T v = x;
  return v;
}

// f(operands...) under a rounding mode. The operands enter through volatile objects after the mode is set,
// and the result leaves through one before it is restored: the compiler assumes the default mode (GCC has no
// FENV_ACCESS, and -frounding-math does not stop it), so it would otherwise be free to compute an operation
// whose operands it already holds before fesetround, or after the restore (add.rm.f32x2 gave lane 0 rounded
// to nearest).
template <class F, class... A>
auto rounded(RoundingMode mode, F f, A... operands) {
  using R = decltype(f(operands...));
  if (mode == RoundingMode::nearest_even) return f(operands...);
  const int saved = std::fegetround();
  std::fesetround(mode == RoundingMode::zero ? FE_TOWARDZERO : mode == RoundingMode::down ? FE_DOWNWARD : FE_UPWARD);
  const volatile R r = f(through_volatile(operands)...);
  std::fesetround(saved);
  return R{r};
}

template <class T, class Op>
void binary(Thread& t, const Instruction& in) {
  const T a = t.get<T>(in.ops[1]), b = t.get<T>(in.ops[2]);
  if constexpr (std::is_floating_point_v<T>) {
    const FloatModifiers m = in.modifiers.get<FloatModifiers>();
    if (m.nan && (std::isnan(a) || std::isnan(b))) {  // min/max.NaN: a NaN operand gives NaN
      t.set<T>(in.ops[0], std::numeric_limits<T>::quiet_NaN());
      if constexpr (std::is_same_v<T, float>) t.set<std::uint32_t>(in.ops[0], 0x7FFFFFFFu);
      return;
    }
    t.set<T>(in.ops[0], finish(rounded(m.mode, Op{}, flush(a, m.ftz), flush(b, m.ftz)), m));
  } else {
    t.set<T>(in.ops[0], Op{}(a, b));
  }
}

template <class T, class Op>
void unary(Thread& t, const Instruction& in) {
  const T a = t.get<T>(in.ops[1]);
  if constexpr (std::is_floating_point_v<T>) {
    const FloatModifiers m = in.modifiers.get<FloatModifiers>();
    t.set<T>(in.ops[0], finish(rounded(m.mode, Op{}, flush(a, m.ftz)), m));
  } else {
    t.set<T>(in.ops[0], Op{}(a));
  }
}

// min/max of floats as the hardware does: a NaN operand (quiet or signaling)
// gives the other one, -0 is below +0 (PTX #floating-point-instructions-min).
template <class T>
T min_max(T a, T b, bool max) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  if (a == b && a == T(0)) return std::signbit(a) == max ? b : a;
  return (max ? a > b : a < b) ? a : b;
}

// f(operands...) under round-toward-zero, with the lowest bit set when inexact:
// rounding to odd, after which one more rounding to a format of at most T's
// precision less two bits is correctly rounded (Boldo and Melquiond). The
// operands and the result pass through volatiles, as in rounded(), so the
// computation stays inside the mode change.
template <class T, class F, class... A>
T round_to_odd(F f, A... operands) {
  const int saved = std::fegetround();
  std::fesetround(FE_TOWARDZERO);
  std::feclearexcept(FE_INEXACT);
  const volatile T r = f(through_volatile(operands)...);
  const bool inexact = std::fetestexcept(FE_INEXACT) != 0;
  std::fesetround(saved);
  T out = r;
  if (inexact && std::isfinite(out)) {
    using U = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;
    out = std::bit_cast<T>(static_cast<U>(std::bit_cast<U>(out) | 1u));
  }
  return out;
}

// ---- Registers: handlers for the common case, chosen at decode, that read and write the register file
// directly (Thread::reg) while no register is pending or undefined, and run the checked handler
// otherwise. The case: the destination and the first source plain registers, the last source a
// register or (kImmediate) a literal (not a variable's name, whose value shared memory's layout
// sets after decode), and for floats no modifier that changes the result
// (rounding, .ftz, .sat, .NaN). bench_ptx and the corpus's SIMT kernels spend most of their
// instructions there; get/set test each operand's kind and the thread's shadow state each time.

// Whether `in`'s operands are such, its sources ops[1 .. n - 1].
inline bool plain_registers(const Instruction& in, std::size_t n) {
  if (in.ops.size() != n) return false;
  for (std::size_t i = 0; i + 1 < n; ++i)
    if (in.ops[i].kind != Operand::Kind::reg) return false;
  const Operand& last = in.ops[n - 1];
  return last.kind == Operand::Kind::reg || (last.kind == Operand::Kind::imm && !last.symbol);
}
inline bool plain_float(const FloatModifiers& m) {
  return m.mode == RoundingMode::nearest_even && !m.ftz && !m.sat && !m.nan;
}
// The last source of a plain-register instruction.
template <class T, bool kImmediate, class Regs>
T last_source(const Regs& t, const Operand& o) {
  if constexpr (kImmediate) return Thread::immediate<T>(o);
  else return t.template reg<T>(o.slot);
}
// `checked` for an instruction whose operands are not plain, else `fast` instantiated for an
// immediate or a register last source.
template <template <class, bool> class Fast, class T>
Handler plain_or(const Instruction& in, std::size_t n, bool plain, Handler checked) {
  if (!plain || !plain_registers(in, n)) return checked;
  return in.ops[n - 1].kind == Operand::Kind::imm ? with_warp_form<Fast<T, true>>() : with_warp_form<Fast<T, false>>();
}

template <class Op>
struct BinaryRegisters {
  template <class T, bool kImmediate>
  struct Of : CheckedOrPlain<Of<T, kImmediate>, &binary<T, Op>> {
    template <class Regs>
    static void plain(Regs&& t, const Instruction& in) {
      const T r = Op{}(t.template reg<T>(in.ops[1].slot), last_source<T, kImmediate>(t, in.ops[2]));
      if constexpr (std::is_floating_point_v<T>) t.put_reg(in.ops[0].slot, finish(r, false, false));
      else t.put_reg(in.ops[0].slot, r);
    }
  };
};

template <class Op>
Handler arith_binary(const Instruction& in) {
  return by_any(in.type, [&]<class T>() -> Handler {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, F16> || std::is_same_v<T, BF16>) return nullptr;
    else
      return plain_or<BinaryRegisters<Op>::template Of, T>(
          in, 3, !std::is_floating_point_v<T> || plain_float(in.modifiers.get<FloatModifiers>()), &binary<T, Op>);
  });
}
template <class Op>
Handler int_binary(const Instruction& in) {
  return by_int(in.type, [&]<class T>() -> Handler {
    return plain_or<BinaryRegisters<Op>::template Of, T>(in, 3, true, &binary<T, Op>);
  });
}
template <class Op>
Handler float_unary(Type type) {
  return by_float(type, []<class T>() -> Handler { return &unary<T, Op>; });
}
template <class Op>
Handler any_unary(Type type) {
  return by_any(type, []<class T>() -> Handler {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, F16> || std::is_same_v<T, BF16>) return nullptr;
    else return &unary<T, Op>;
  });
}

inline bool is_half(Type t) { return t == Type::f16 || t == Type::f16x2 || t == Type::bf16 || t == Type::bf16x2; }

// The rows' common end: the handler, or `why` naming the type when none fits.
inline bool typed(const Opcode& op, Instruction& in, std::string& why, Handler h) {
  if (!h) {
    why = "type ." + std::string(name(in.type)) + " for " + std::string(op.base());
    return false;
  }
  in.run = h;
  return true;
}

// The packed forms (f32x2 and the 16-bit floats) of an arithmetic or special-function row, running
// FloatModifiers::op, or nullptr for the other types (decode_packed_float.cpp).
Handler packed(Type type, HalfOp code);

// The 16-bit integer pairs (.u16x2, .s16x2) of add, min and max (sub has none), and min/max .relu of .s32
// (decode_packed_int.cpp): the handler, nullptr for other types, or false with `why` naming a
// modifier the form does not take.
bool packed_int(const Opcode& op, Instruction& in, std::string& why, HalfOp code, Handler& h);

}  // namespace tcgen::ptx::alu
