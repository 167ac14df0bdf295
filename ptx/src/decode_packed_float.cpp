// The packed float forms of the arithmetic rows: two f32 lanes in a 64-bit
// register (.f32x2), and .f16/.bf16 with their x2 pairs, each lane's exact
// result rounded once (PTX #half-precision-floating-point-instructions).
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

// add/sub/mul/fma .f32x2: two f32 lanes in a 64-bit register, low first. .ftz flushes each lane's
// subnormal inputs and result to sign-preserving zero (PTX #floating-point-instructions-add:
// "{.ftz}.f32x2", subnormal numbers as for .f32). Why: .ftz was ignored on these forms.
template <int N>
void f32x2(Thread& t, const Instruction& in) {
  float a[2], b[2], c[2] = {0, 0}, d[2];
  const std::uint64_t ra = t.get<std::uint64_t>(in.ops[1]), rb = t.get<std::uint64_t>(in.ops[2]);
  std::memcpy(a, &ra, 8);
  std::memcpy(b, &rb, 8);
  if constexpr (N == 3) {
    const std::uint64_t rc = t.get<std::uint64_t>(in.ops[3]);
    std::memcpy(c, &rc, 8);
  }
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  for (int i = 0; i < 2; ++i)
    d[i] = rounded(
        m.mode,
        [op = m.op](float x, float y, float z) {
          switch (op) {
            case kHalfAdd: return x + y;
            case kHalfSub: return x - y;
            case kHalfMul: return x * y;
            default: return std::fma(x, y, z);
          }
        },
        flush(a[i], m.ftz), flush(b[i], m.ftz), flush(c[i], m.ftz));
  for (float& x : d) x = flush(x, m.ftz);
  std::uint64_t rd;
  std::memcpy(&rd, d, 8);
  t.set<std::uint64_t>(in.ops[0], rd);
}

// min/max of one 16-bit lane; .xorsign.abs (PTX #half-precision-floating-point-instructions-min):
// the min/max of |a| and |b| with the sign of a's sign xor b's, unless it is NaN. Why: .xorsign.abs
// was run as plain min/max.
float half_min_max(float a, float b, const FloatModifiers& m) {
  const bool max = m.op == kHalfMax;
  if (!m.xorsign) return min_max(a, b, max);
  const float r = min_max(std::fabs(a), std::fabs(b), max);
  return std::isnan(r) ? r : std::copysign(r, std::signbit(a) != std::signbit(b) ? -1.0f : 1.0f);
}

// 16-bit float arithmetic (.f16, .bf16 and their x2 pairs): the exact result
// rounded once (through double and float, each rounded to odd, then to
// nearest even); a NaN result is the canonical 0x7FFF (as an H200 gives).
template <class H, int Lanes>
void half_op(Thread& t, const Instruction& in) {
  using Bits = std::conditional_t<Lanes == 2, std::uint32_t, std::uint16_t>;
  constexpr ElementType kType = std::is_same_v<H, F16> ? ElementType::fp16 : ElementType::bf16;
  constexpr float kMinNormal = std::is_same_v<H, F16> ? 0x1p-14f : 0x1p-126f;
  const FloatModifiers m = in.modifiers.get<FloatModifiers>();
  const int n = static_cast<int>(in.ops.size()) - 1;
  Bits src[3] = {};
  for (int i = 0; i < n; ++i) src[i] = t.get<Bits>(in.ops[1 + i]);
  Bits out = 0;
  for (int l = 0; l < Lanes; ++l) {
    volatile float v[3] = {};
    for (int i = 0; i < n; ++i) {
      v[i] = H{static_cast<std::uint16_t>(src[i] >> (16 * l))}.value();
      // .ftz flushes subnormal sources as well as results (PTX #half-precision-floating-point-instructions):
      // 2^-15 + 2^-15 is 0, not the normal 2^-14.
      if (m.ftz && std::fabs(v[i]) < kMinNormal) v[i] = std::copysign(0.0f, v[i]);
    }
    const auto exact = [](double x) { return round_to_odd<float>([](double y) { return static_cast<float>(y); }, x); };
    float r = 0;
    switch (m.op) {
      case kHalfAdd: r = exact(round_to_odd<double>([](double x, double y) { return x + y; }, double(v[0]), double(v[1]))); break;
      case kHalfSub: r = exact(round_to_odd<double>([](double x, double y) { return x - y; }, double(v[0]), double(v[1]))); break;
      case kHalfMul: r = exact(double(v[0]) * double(v[1])); break;  // 11- or 8-bit significands: exact in double
      case kHalfFma: r = exact(round_to_odd<double>([](double x, double y, double z) { return std::fma(x, y, z); }, double(v[0]), double(v[1]), double(v[2]))); break;
      case kHalfMin: case kHalfMax: r = half_min_max(v[0], v[1], m); break;
      case kHalfNeg: r = -v[0]; break;
      case kHalfAbs: r = std::fabs(v[0]); break;
      case kHalfEx2: r = std::exp2(v[0]); break;
      case kHalfTanh: r = std::tanh(v[0]); break;
    }
    if (m.nan && (std::isnan(v[0]) || std::isnan(v[1]))) r = std::numeric_limits<float>::quiet_NaN();
    if (m.ftz && std::fabs(r) < kMinNormal) r = std::copysign(0.0f, r);
    if (m.relu && !(r > 0) && !std::isnan(r)) r = 0;  // negative results and -0 to +0
    if (m.sat) r = std::isnan(r) ? 0 : std::fmin(std::fmax(r, 0.0f), 1.0f);
    const std::uint16_t bits = std::isnan(r) ? std::uint16_t{0x7FFF} : static_cast<std::uint16_t>(encode(kType, r));
    out = static_cast<Bits>(out | (static_cast<Bits>(bits) << (16 * l)));
  }
  t.set<Bits>(in.ops[0], out);
}

// The f16/bf16 forms (half_op).
Handler half_handler(Type type) {
  switch (type) {
    case Type::f16: return &half_op<F16, 1>;
    case Type::f16x2: return &half_op<F16, 2>;
    case Type::bf16: return &half_op<BF16, 1>;
    case Type::bf16x2: return &half_op<BF16, 2>;
    default: return nullptr;
  }
}

}  // namespace

Handler alu::packed(Type type, HalfOp code) {
  if (type == Type::f32x2 && code <= kHalfFma) return code == kHalfFma ? &f32x2<3> : &f32x2<2>;
  return is_half(type) ? half_handler(type) : nullptr;
}

}  // namespace tcgen::ptx
