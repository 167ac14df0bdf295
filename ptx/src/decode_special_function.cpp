// The special functions: rcp, sqrt, rsqrt, ex2, lg2, sin, cos, tanh (PTX
// #floating-point-instructions), each the C library's, rounded as the
// instruction's modifiers say.
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

struct Rcp {
  template <class T>
  T operator()(T a) const { return T(1) / a; }
};
struct Sqrt {
  template <class T>
  T operator()(T a) const { return std::sqrt(a); }
};
struct Rsqrt {
  template <class T>
  T operator()(T a) const { return T(1) / std::sqrt(a); }
};
struct Ex2 {
  template <class T>
  T operator()(T a) const { return std::exp2(a); }  // MUFU.EX2 is within 2 ulp of this
};
struct Lg2 {
  template <class T>
  T operator()(T a) const { return std::log2(a); }
};
struct Sin {
  template <class T>
  T operator()(T a) const { return std::sin(a); }
};
struct Cos {
  template <class T>
  T operator()(T a) const { return std::cos(a); }
};
struct Tanh {
  template <class T>
  T operator()(T a) const { return std::tanh(a); }
};

template <class Op>
bool decode_float_unary(const Opcode& op, Instruction& in, std::string& why) {
  in.modifiers.set(float_modifiers(op));
  return typed(op, in, why, float_unary<Op>(in.type));
}

}  // namespace

bool decode_rcp(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Rcp>(op, in, why); }
bool decode_sqrt(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Sqrt>(op, in, why); }
bool decode_rsqrt(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Rsqrt>(op, in, why); }
bool decode_lg2(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Lg2>(op, in, why); }
bool decode_sin(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Sin>(op, in, why); }
bool decode_cos(const Opcode& op, Instruction& in, std::string& why) { return decode_float_unary<Cos>(op, in, why); }
bool decode_ex2(const Opcode& op, Instruction& in, std::string& why) {
  if (Handler h = packed(in.type, kHalfEx2)) {
    in.modifiers.set(float_modifiers(op, kHalfEx2));
    return typed(op, in, why, h);
  }
  return decode_float_unary<Ex2>(op, in, why);
}
bool decode_tanh(const Opcode& op, Instruction& in, std::string& why) {
  if (Handler h = packed(in.type, kHalfTanh)) {
    in.modifiers.set(float_modifiers(op, kHalfTanh));
    return typed(op, in, why, h);
  }
  return decode_float_unary<Tanh>(op, in, why);
}

}  // namespace tcgen::ptx
