// The packed float forms of the arithmetic rows: two f32 lanes in a 64-bit
// register (.f32x2), and .f16/.bf16 with their x2 pairs, each lane's exact
// result rounded once (PTX #half-precision-floating-point-instructions).
#include "alu.hpp"

namespace tcgen::ptx {

using namespace alu;

namespace {

// add/sub/mul/fma .f32x2: two f32 lanes in a 64-bit register, low first.
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
  for (int i = 0; i < 2; ++i)
    d[i] = rounded(in.flags, [&] {
      switch (in.aux) {
        case 0: return a[i] + b[i];
        case 1: return a[i] - b[i];
        case 2: return a[i] * b[i];
        default: return std::fma(a[i], b[i], c[i]);
      }
    });
  std::uint64_t rd;
  std::memcpy(&rd, d, 8);
  t.set<std::uint64_t>(in.ops[0], rd);
}

// 16-bit float arithmetic (.f16, .bf16 and their x2 pairs): the exact result
// rounded once (through double and float, each rounded to odd, then to
// nearest even); a NaN result is the canonical 0x7FFF (as an H200 gives).
template <class H, int Lanes>
void half_op(Thread& t, const Instruction& in) {
  using Bits = std::conditional_t<Lanes == 2, std::uint32_t, std::uint16_t>;
  constexpr ElementType kType = std::is_same_v<H, F16> ? ElementType::fp16 : ElementType::bf16;
  constexpr float kMinNormal = std::is_same_v<H, F16> ? 0x1p-14f : 0x1p-126f;
  const int n = static_cast<int>(in.ops.size()) - 1;
  Bits src[3] = {};
  for (int i = 0; i < n; ++i) src[i] = t.get<Bits>(in.ops[1 + i]);
  Bits out = 0;
  for (int l = 0; l < Lanes; ++l) {
    volatile float v[3] = {};
    for (int i = 0; i < n; ++i) v[i] = H{static_cast<std::uint16_t>(src[i] >> (16 * l))}.value();
    const auto exact = [](double x) { return round_to_odd<float>([&] { return static_cast<float>(x); }); };
    float r = 0;
    switch (in.aux) {
      case 0: r = exact(round_to_odd<double>([&] { return double(v[0]) + double(v[1]); })); break;
      case 1: r = exact(round_to_odd<double>([&] { return double(v[0]) - double(v[1]); })); break;
      case 2: r = exact(double(v[0]) * double(v[1])); break;  // 11- or 8-bit significands: exact in double
      case 3: r = exact(round_to_odd<double>([&] { return std::fma(double(v[0]), double(v[1]), double(v[2])); })); break;
      case 4: r = min_max<float>(v[0], v[1], false); break;
      case 5: r = min_max<float>(v[0], v[1], true); break;
      case 6: r = -v[0]; break;
      case 7: r = std::fabs(v[0]); break;
      case 8: r = std::exp2(v[0]); break;
      default: r = std::tanh(v[0]); break;
    }
    if ((in.flags & kNaN) && (std::isnan(v[0]) || std::isnan(v[1]))) r = std::numeric_limits<float>::quiet_NaN();
    if ((in.flags & kFtz) && std::fabs(r) < kMinNormal) r = std::copysign(0.0f, r);
    if ((in.flags & kRelu) && !(r > 0) && !std::isnan(r)) r = 0;  // negative results and -0 to +0
    if (in.flags & kSat) r = std::isnan(r) ? 0 : std::fmin(std::fmax(r, 0.0f), 1.0f);
    const std::uint16_t bits = std::isnan(r) ? std::uint16_t{0x7FFF} : static_cast<std::uint16_t>(encode(kType, r));
    out = static_cast<Bits>(out | (static_cast<Bits>(bits) << (16 * l)));
  }
  t.set<Bits>(in.ops[0], out);
}

// The f16/bf16 forms: aux is the operation (half_op).
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

// The packed and 16-bit float forms of an arithmetic row, or nullptr for the others.
Handler alu::packed(Instruction& in, HalfOp code) {
  if (in.type == Type::f32x2 && code <= kHalfFma) {
    in.aux = code;
    return code == kHalfFma ? &f32x2<3> : &f32x2<2>;
  }
  if (!is_half(in.type)) return nullptr;
  in.aux = code;
  return half_handler(in.type);
}

}  // namespace tcgen::ptx
