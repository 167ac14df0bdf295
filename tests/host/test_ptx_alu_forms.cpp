// The PTX forms the interpreter once computed wrong or refused, each at a few
// known points: values read off the PTX ISA's semantics, or computed with an
// independent correctly rounded library (Python gmpy2 at 200 bits, then
// rounded to f32 in the named mode), never from the handlers' own formulas.
// Each case names its PTX ISA section.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

using namespace tcgen;

namespace {

// One thread runs `body`; %rd1 points at 16 words of output.
std::string kernel(const std::string& body) {
  return R"(.version 8.7
.target sm_100a
.address_size 64
.visible .entry k(
	.param .u64 k_param_0
)
{
	.reg .pred 	%p<8>;
	.reg .b16 	%rs<16>;
	.reg .b32 	%r<40>;
	.reg .b32 	%f<16>;
	.reg .b64 	%rd<16>;
	ld.param.u64 	%rd1, [k_param_0];
)" + body + R"(
	ret;
}
)";
}

std::vector<std::uint32_t> run(const std::string& body) {
  const ptx::Module m = ptx::Module::parse(kernel(body), "alu_forms.ptx");
  std::vector<std::uint32_t> out(16, 0xDEADBEEFu);
  std::uint32_t* p = out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
  ptx::launch(m, m.entry("k"), {.block = {1, 1, 1}}, args, memory);
  return out;
}

// The reason the interpreter gives for not running `line` ("" when it runs it).
std::string refusal(const std::string& line) {
  const ptx::Module m = ptx::Module::parse(kernel(line), "alu_forms.ptx");
  for (const auto& u : m.entry("k").unsupported) return u.missing;
  return "";
}

}  // namespace

TEST_CASE("mixed precision add/sub/fma .f32.f16/.bf16: a (and b) widened, c f32, one rounding (PTX #mixed-precision-floating-point-instructions)") {
  // gmpy2: a = f16 0x3C01 = 1 + 2^-10, c = 2^-24: the exact sum is a tie at f32 precision.
  // bf16 0x4040 = 3; 3 - 2^-24 toward zero is 0x403FFFFF. fma: (1 + 2^-10)^2 - 1 = 2^-9 + 2^-20
  // (0x3B001000); bf16 0x3F81 = 1 + 2^-7: (1 + 2^-7)^2 + 2^-30 → rn 0x3F820200, rp 0x3F820201.
  const std::vector<std::uint32_t> o = run(R"(
	mov.b16 	%rs1, 0x3C01;
	mov.b16 	%rs2, 0x4040;
	mov.b16 	%rs3, 0x3F81;
	mov.b16 	%rs4, 0x3C00;
	mov.b32 	%f1, 0f33800000;
	mov.b32 	%f2, 0fBF800000;
	mov.b32 	%f3, 0f30800000;
	mov.b32 	%f4, 0f3F000000;
	add.rn.f32.f16 	%f5, %rs1, %f1;
	add.rp.f32.f16 	%f6, %rs1, %f1;
	sub.rz.f32.bf16 	%f7, %rs2, %f1;
	sub.rn.f32.bf16 	%f8, %rs2, %f1;
	fma.rn.f32.f16 	%f9, %rs1, %rs1, %f2;
	fma.rn.f32.bf16 	%f10, %rs3, %rs3, %f3;
	fma.rp.f32.bf16 	%f11, %rs3, %rs3, %f3;
	add.rn.sat.f32.f16 	%f12, %rs4, %f4;
	st.global.v4.b32 	[%rd1], {%f5, %f6, %f7, %f8};
	st.global.v4.b32 	[%rd1+16], {%f9, %f10, %f11, %f12};
)");
  CHECK(o[0] == 0x3F802000u);
  CHECK(o[1] == 0x3F802001u);
  CHECK(o[2] == 0x403FFFFFu);
  CHECK(o[3] == 0x40400000u);
  CHECK(o[4] == 0x3B001000u);
  CHECK(o[5] == 0x3F820200u);
  CHECK(o[6] == 0x3F820201u);
  CHECK(o[7] == 0x3F800000u);  // .sat: 1 + 0.5 clamped to 1.0
  // The ISA gives the mixed forms no .ftz; refused, not ignored.
  CHECK(refusal("add.rn.ftz.f32.f16 %f1, %rs1, %f2;").find("ftz") != std::string::npos);
}

TEST_CASE("min/max .f32 with three inputs, .abs, .NaN and .xorsign.abs (PTX #floating-point-instructions-max, -min)") {
  // Values from the ISA's definitions: max(1, -5, 3) = 3; with .abs max(1, 5, 3) = 5; min.abs(-1, 2, -3) = 1;
  // .NaN with a NaN input gives the canonical NaN; without it the NaN gives way; .xorsign.abs:
  // min(|-2|, |3|) = 2 with sign 1 xor 0 (negative), max(|-2|, |-3|) = 3 with sign 1 xor 1 (positive).
  const std::vector<std::uint32_t> o = run(R"(
	mov.b32 	%f1, 0f3F800000;
	mov.b32 	%f2, 0fC0A00000;
	mov.b32 	%f3, 0f40400000;
	mov.b32 	%f4, 0f7FC00000;
	mov.b32 	%f5, 0fC0000000;
	max.f32 	%r1, %f1, %f2, %f3;
	max.abs.f32 	%r2, %f1, %f2, %f3;
	min.abs.f32 	%r3, %f1, %f2, %f3;
	min.NaN.f32 	%r4, %f4, %f1, %f3;
	min.f32 	%r5, %f4, %f3, %f1;
	min.xorsign.abs.f32 	%r6, %f5, %f3;
	max.xorsign.abs.f32 	%r7, %f5, %f2;
	mov.b32 	%r8, 0;
	st.global.v4.b32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.b32 	[%rd1+16], {%r5, %r6, %r7, %r8};
)");
  CHECK(o[0] == 0x40400000u);  // 3
  CHECK(o[1] == 0x40A00000u);  // 5
  CHECK(o[2] == 0x3F800000u);  // 1
  CHECK(o[3] == 0x7FFFFFFFu);  // canonical NaN
  CHECK(o[4] == 0x3F800000u);  // min(NaN, 3, 1) = 1
  CHECK(o[5] == 0xC0000000u);  // -2
  CHECK(o[6] == 0x40A00000u);  // +5: max(|-2|, |-5|), signs 1 xor 1
  // Two inputs take .abs only with .xorsign (ptxas 13: "Modifier '.abs' requires modifier '.xorsign'").
  CHECK(refusal("max.abs.f32 %f1, %f2, %f3;").find("not modelled: max.abs.f32 with 3 operands") != std::string::npos);
  CHECK(refusal("max.f64 %rd2, %rd3, %rd4, %rd5;").find("not modelled: max.f64 with 4 operands") != std::string::npos);
  CHECK(refusal("max.relu.f32 %f1, %f2, %f3;").find("relu") != std::string::npos);
}

TEST_CASE("max.xorsign.abs.bf16x2 and min.xorsign.abs.f16: per lane, |a| vs |b| with the xor of the signs (PTX #half-precision-floating-point-instructions-max)") {
  // a = {hi -1.0, lo 2.0}, b = {hi 0.5, lo -4.0} (bf16): hi max(1, 0.5) = 1 with sign 1 xor 0 → 0xBF80;
  // lo max(2, 4) = 4 with sign 0 xor 1 → 0xC080. f16: min(|-3|, |-0.5|) = 0.5, signs 1 xor 1 → +0.5 (0x3800).
  const std::vector<std::uint32_t> o = run(R"(
	mov.b32 	%r1, 0xBF804000;
	mov.b32 	%r2, 0x3F00C080;
	max.xorsign.abs.bf16x2 	%r3, %r1, %r2;
	mov.b16 	%rs1, 0xC200;
	mov.b16 	%rs2, 0xB800;
	min.xorsign.abs.f16 	%rs3, %rs1, %rs2;
	cvt.u32.u16 	%r4, %rs3;
	st.global.v2.b32 	[%rd1], {%r3, %r4};
)");
  CHECK(o[0] == 0xBF80C080u);
  CHECK(o[1] == 0x3800u);
}

TEST_CASE(".ftz on .f32x2 add and mul flushes subnormal inputs and results per lane (PTX #floating-point-instructions-add, -mul)") {
  // Lane 0: 2^-130 (f32 subnormal 0x00200000) + 0 is +0 under .ftz, 2^-130 without; lane 1: 1.5 + 1 = 2.5.
  // mul: 2^-100 * 2^-30 = 2^-130, a subnormal result: +0 under .ftz.
  const std::vector<std::uint32_t> o = run(R"(
	mov.b32 	%f1, 0f00200000;
	mov.b32 	%f2, 0f3FC00000;
	mov.b32 	%f3, 0f00000000;
	mov.b32 	%f4, 0f3F800000;
	mov.b32 	%f5, 0f0D800000;
	mov.b32 	%f6, 0f30800000;
	mov.b64 	%rd2, {%f1, %f2};
	mov.b64 	%rd3, {%f3, %f4};
	add.rn.ftz.f32x2 	%rd4, %rd2, %rd3;
	add.rn.f32x2 	%rd5, %rd2, %rd3;
	mov.b64 	%rd6, {%f5, %f5};
	mov.b64 	%rd7, {%f6, %f6};
	mul.rn.ftz.f32x2 	%rd8, %rd6, %rd7;
	mov.b64 	{%r1, %r2}, %rd4;
	mov.b64 	{%r3, %r4}, %rd5;
	mov.b64 	{%r5, %r6}, %rd8;
	st.global.v4.b32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v2.b32 	[%rd1+16], {%r5, %r6};
)");
  CHECK(o[0] == 0u);
  CHECK(o[1] == 0x40200000u);
  CHECK(o[2] == 0x00200000u);
  CHECK(o[3] == 0x40200000u);
  CHECK(o[4] == 0u);
  CHECK(o[5] == 0u);
}

TEST_CASE("16-bit integer pairs: add.u16x2, min/max .u16x2/.s16x2, .relu (PTX #integer-arithmetic-instructions-add, -max, -min)") {
  // add.u16x2: lo 1 + 3 = 4, hi 0xFFFF + 2 wraps to 1. max.s16x2 {hi -32768, lo 5} vs {hi 1, lo -1}: {1, 5};
  // as .u16x2: {0x8000, 0xFFFF}. max.relu.s16x2 {-16, 5} vs {-15, 2}: {max -15 → 0, 5}. min.relu.s32(-3, 4) = 0.
  const std::vector<std::uint32_t> o = run(R"(
	mov.b32 	%r1, 0xFFFF0001;
	mov.b32 	%r2, 0x00020003;
	add.u16x2 	%r3, %r1, %r2;
	mov.b32 	%r4, 0x80000005;
	mov.b32 	%r5, 0x0001FFFF;
	max.s16x2 	%r6, %r4, %r5;
	max.u16x2 	%r7, %r4, %r5;
	mov.b32 	%r8, 0xFFF00005;
	mov.b32 	%r9, 0xFFF10002;
	max.relu.s16x2 	%r10, %r8, %r9;
	min.relu.s32 	%r11, -3, 4;
	min.s16x2 	%r12, %r4, %r5;
	st.global.v4.b32 	[%rd1], {%r3, %r6, %r7, %r10};
	st.global.v2.b32 	[%rd1+16], {%r11, %r12};
)");
  CHECK(o[0] == 0x00010004u);
  CHECK(o[1] == 0x00010005u);
  CHECK(o[2] == 0x8000FFFFu);
  CHECK(o[3] == 0x00000005u);
  CHECK(o[4] == 0u);
  CHECK(o[5] == 0x8000FFFFu);  // min.s16x2: {-32768, -1}
  CHECK(refusal("add.sat.u16x2 %r1, %r2, %r3;").find("sat") != std::string::npos);
}

TEST_CASE(".satfinite: NaN stays NaN, infinities and values past MAX_NORM give sign-preserved MAX_NORM (PTX #data-movement-and-conversion-instructions-cvt)") {
  // MAX_NORM: f16 65504 (0x7BFF), bf16 0x7F7F, tf32 0x7F7FE000, ue8m0 2^127 (0xFE). 70000 > 65504;
  // f32 0xFF7FFFFF rounds to -infinity in bf16 without .satfinite; tf32 0x7F7FF000 rounds (ties away) past the top.
  const std::vector<std::uint32_t> o = run(R"(
	mov.b32 	%f1, 0f7F800000;
	mov.b32 	%f2, 0fFF800000;
	mov.b32 	%f3, 0f7FC00000;
	mov.b32 	%f4, 0f47886000;
	mov.b32 	%f5, 0fFF7FFFFF;
	mov.b32 	%f6, 0f7F7FF000;
	mov.b32 	%f7, 0f3F800000;
	cvt.rn.satfinite.f16x2.f32 	%r1, %f1, %f4;
	cvt.rn.satfinite.f16x2.f32 	%r2, %f2, %f3;
	cvt.rn.satfinite.relu.f16x2.f32 	%r3, %f2, %f1;
	cvt.rn.satfinite.bf16x2.f32 	%r4, %f1, %f5;
	cvt.rn.bf16x2.f32 	%r5, %f1, %f5;
	cvt.rna.satfinite.tf32.f32 	%r6, %f1;
	cvt.rna.satfinite.tf32.f32 	%r7, %f6;
	cvt.rna.satfinite.tf32.f32 	%r8, %f2;
	cvt.rna.tf32.f32 	%r9, %f6;
	cvt.rz.satfinite.ue8m0x2.f32 	%rs1, %f1, %f7;
	cvt.rz.ue8m0x2.f32 	%rs2, %f1, %f7;
	cvt.rn.satfinite.f16.f32 	%rs3, %f2;
	cvt.u32.u16 	%r10, %rs1;
	cvt.u32.u16 	%r11, %rs2;
	cvt.u32.u16 	%r12, %rs3;
	st.global.v4.b32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.b32 	[%rd1+16], {%r5, %r6, %r7, %r8};
	st.global.v4.b32 	[%rd1+32], {%r9, %r10, %r11, %r12};
)");
  CHECK(o[0] == 0x7BFF7BFFu);
  CHECK(o[1] == 0xFBFF7FFFu);  // -MAX_NORM, and NaN as cvt.rn.f16x2 gives it
  CHECK(o[2] == 0x00007BFFu);  // .relu first: -inf to +0
  CHECK(o[3] == 0x7F7FFF7Fu);
  CHECK(o[4] == 0x7F80FF80u);  // without .satfinite: the infinities
  CHECK(o[5] == 0x7F7FE000u);
  CHECK(o[6] == 0x7F7FE000u);
  CHECK(o[7] == 0xFF7FE000u);
  CHECK(o[8] == 0x7F800000u);
  CHECK(o[9] == 0xFE7Fu);  // ue8m0: infinity to MAX_NORM, 1.0 = 2^0 → 127
  CHECK(o[10] == 0xFF7Fu);
  CHECK(o[11] == 0xFBFFu);
}

TEST_CASE("cvt.rs: the random bits added to the discarded bits decide the rounding (PTX #data-movement-and-conversion-instructions-cvt)") {
  // f32 1 + 2^-11 (0x3F801000) lies halfway between f16 1.0 (0x3C00) and 1 + 2^-10 (0x3C01): its 13
  // discarded bits are 0x1000, so random bits 0x0FFF sum below 2^13 (down), 0x1000 reach it (up). The
  // upper half's 3 MSBs are not used (0xEFFF reads as 0x0FFF). bf16: 1 + 2^-8 (0x3F808000), 16 discarded
  // bits 0x8000: 0x7FFF down to 0x3F80, 0x8000 up to 0x3F81. x4 forms (one random byte a value, aligned
  // to the top of the discarded bits): e4m3 1.0625 is halfway from 0x38 to 0x39; e2m1 1.25 halfway from
  // 0x2 to 0x3: 0x7F rounds down, 0x80 up.
  const std::vector<std::uint32_t> o = run(R"(
	mov.b32 	%f1, 0f3F801000;
	mov.b32 	%f2, 0f3F808000;
	mov.b32 	%f3, 0f3F880000;
	mov.b32 	%f4, 0f3FA00000;
	mov.b32 	%f5, 0f7F800000;
	cvt.rs.f16x2.f32 	%r1, %f1, %f1, 0xEFFF1000;
	cvt.rs.bf16x2.f32 	%r2, %f2, %f2, 0x7FFF8000;
	cvt.rs.satfinite.bf16x2.f32 	%r3, %f5, %f2, 0;
	cvt.rs.bf16x2.f32 	%r4, %f5, %f2, 0;
	cvt.rs.satfinite.e4m3x4.f32 	%r5, {%f3, %f3, %f3, %f3}, 0x7F807F80;
	cvt.rs.satfinite.e2m1x4.f32 	%rs1, {%f4, %f4, %f4, %f4}, 0x807F7F80;
	cvt.u32.u16 	%r6, %rs1;
	cvt.rs.relu.satfinite.e4m3x4.f32 	%r7, {%f3, %f5, %f3, %f3}, 0;
	st.global.v4.b32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.b32 	[%rd1+16], {%r5, %r6, %r7, %r7};
)");
  CHECK(o[0] == 0x3C003C01u);
  CHECK(o[1] == 0x3F803F81u);
  CHECK(o[2] == 0x7F7F3F80u);  // .satfinite: infinity to MAX_NORM
  CHECK(o[3] == 0x7F803F80u);
  CHECK(o[4] == 0x38393839u);
  CHECK(o[5] == 0x3223u);
  CHECK(o[6] == 0x387E3838u);  // rbits 0: truncation; infinity under .satfinite: e4m3 MAX_NORM 448 (0x7E)
  CHECK(refusal("cvt.rs.e4m3x4.f32 %r1, {%f1, %f1, %f1, %f1}, %r2;").find("satfinite") != std::string::npos);
}

TEST_CASE("float to integer: NaN gives what silicon gives, not the ISA's 0 (PTX #data-movement-and-conversion-instructions-cvt)") {
  // PTX ISA 8.7, cvt: "In float-to-integer conversion, NaN inputs are converted to 0". An H100 (the
  // conformance table's run, docs/ptx.md) gives 0 only from f16/bf16/f32 to 8, 16 or 32 bits, and
  // 1 << (bits - 1) to 64 bits or from f64 at any width, unsigned destinations too.
  const std::vector<std::uint32_t> o = run(R"(
	mov.b32 	%f1, 0f7FC00000;
	mov.b64 	%rd2, 0d7FF8000000000000;
	cvt.rni.s16.f32 	%rs1, %f1;
	cvt.rmi.u16.f32 	%rs2, %f1;
	cvt.rzi.s64.f32 	%rd3, %f1;
	cvt.rni.u64.f64 	%rd4, %rd2;
	cvt.rpi.s32.f64 	%r1, %rd2;
	cvt.rzi.s64.f64 	%rd5, %rd2;
	cvt.rzi.u16.f64 	%rs3, %rd2;
	cvt.u32.u16 	%r2, %rs1;
	cvt.u32.u16 	%r3, %rs2;
	cvt.u32.u16 	%r4, %rs3;
	st.global.v4.b32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v2.b64 	[%rd1+16], {%rd3, %rd4};
	st.global.b64 	[%rd1+32], %rd5;
)");
  CHECK(o[0] == 0x80000000u);  // f64 to s32
  CHECK(o[1] == 0u);           // f32 to s16
  CHECK(o[2] == 0u);           // f32 to u16
  CHECK(o[3] == 0x8000u);      // f64 to u16
  for (int i : {4, 6, 8}) CHECK(o[i] == 0u);  // low words of the 64-bit results
  for (int i : {5, 7, 9}) CHECK(o[i] == 0x80000000u);  // their high words: 1 << 63
}

TEST_CASE("lop3.{or,and} d|p: p = (d != 0) BoolOp q, d may be _ (PTX #logic-and-shift-instructions-lop3)") {
  // immLut 0x80 is a & b & c: 0xF0 & 0x0F & 0xFF = 0; 0xFE is a | b | c: nonzero.
  const std::vector<std::uint32_t> o = run(R"(
	setp.eq.u32 	%p1, 0, 1;
	setp.eq.u32 	%p2, 1, 1;
	lop3.or.b32 	%r1|%p3, 0xF0, 0x0F, 0xFF, 0x80, %p1;
	lop3.or.b32 	%r2|%p4, 0xF0, 0x0F, 0xFF, 0x80, %p2;
	lop3.and.b32 	_|%p5, 0xF0, 0x0F, 0xFF, 0xFE, %p2;
	lop3.and.b32 	%r3|%p6, 0xF0, 0x0F, 0xFF, 0xFE, %p1;
	selp.u32 	%r4, 1, 0, %p3;
	selp.u32 	%r5, 1, 0, %p4;
	selp.u32 	%r6, 1, 0, %p5;
	selp.u32 	%r7, 1, 0, %p6;
	st.global.v4.b32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.b32 	[%rd1+16], {%r5, %r6, %r7, %r7};
)");
  CHECK(o[0] == 0u);
  CHECK(o[1] == 0u);
  CHECK(o[2] == 0xFFu);
  CHECK(o[3] == 0u);  // (0 != 0) or false
  CHECK(o[4] == 1u);  // (0 != 0) or true
  CHECK(o[5] == 1u);  // (0xFF != 0) and true
  CHECK(o[6] == 0u);  // (0xFF != 0) and false
}

TEST_CASE("dp4a and dp2a: byte and half-word dot products accumulated in 32 bits (PTX #integer-arithmetic-instructions-dp4a, -dp2a)") {
  // dp4a.u32.u32: 1*5 + 2*6 + 3*7 + 4*8 + 10 = 80. .s32.s32 bytes {4, -1, 2, -1} . {1, 1, 1, 1} - 10 = -6.
  // Mixed signs: four (-1)(255) = -1020 either way round. dp2a: Va = {2, 3}, b bytes {13, 12, 11, 10}:
  // .lo 2*13 + 3*12 = 62, .hi 2*11 + 3*10 = 52; .hi.s32.s32 Va = {2, -1}, b bytes {0, 0, 1, -2}: 2 + 2 + 1 = 5.
  const std::vector<std::uint32_t> o = run(R"(
	dp4a.u32.u32 	%r1, 0x01020304, 0x05060708, 10;
	dp4a.s32.s32 	%r2, 0xFF02FF04, 0x01010101, -10;
	dp4a.s32.u32 	%r3, 0xFFFFFFFF, 0xFFFFFFFF, 0;
	dp4a.u32.s32 	%r4, 0xFFFFFFFF, 0xFFFFFFFF, 0;
	dp2a.lo.u32.u32 	%r5, 0x00030002, 0x0A0B0C0D, 0;
	dp2a.hi.u32.u32 	%r6, 0x00030002, 0x0A0B0C0D, 0;
	dp2a.hi.s32.s32 	%r7, 0xFFFF0002, 0xFE010000, 1;
	st.global.v4.b32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.b32 	[%rd1+16], {%r5, %r6, %r7, %r7};
)");
  CHECK(o[0] == 80u);
  CHECK(static_cast<std::int32_t>(o[1]) == -6);
  CHECK(static_cast<std::int32_t>(o[2]) == -1020);
  CHECK(static_cast<std::int32_t>(o[3]) == -1020);
  CHECK(o[4] == 62u);
  CHECK(o[5] == 52u);
  CHECK(o[6] == 5u);
  CHECK(refusal("dp2a.u32.u32 %r1, %r2, %r3, %r4;").find("not modelled: dp2a.u32.u32") != std::string::npos);
}

TEST_CASE("the carry chain: add.cc/addc, sub.cc/subc, mad.cc/madc through CC.CF (PTX #extended-precision-integer-arithmetic-instructions)") {
  // 0xFFFFFFFF + 1 carries: addc 0 + 0 + CF = 1. 0 - 1 borrows: subc 5 - (1 + CF) = 3. mad.lo.cc:
  // (0xFFFF * 0x10001).lo = 0xFFFFFFFF, + 1 carries; madc.hi: (2^32 - 1)^2 >> 32 = 0xFFFFFFFE, + 0 + CF.
  // 64-bit: 2^64 - 1 + 2 = 1 carrying, addc.u64 0 + 0 + CF = 1. mad.hi.cc.s32: (-1 * 1).hi = -1, + 1 carries.
  const std::vector<std::uint32_t> o = run(R"(
	add.cc.u32 	%r1, 0xFFFFFFFF, 1;
	addc.u32 	%r2, 0, 0;
	sub.cc.u32 	%r3, 0, 1;
	subc.u32 	%r4, 5, 1;
	mad.lo.cc.u32 	%r5, 0xFFFF, 0x10001, 1;
	madc.hi.u32 	%r6, 0xFFFFFFFF, 0xFFFFFFFF, 0;
	mov.b64 	%rd2, 0xFFFFFFFFFFFFFFFF;
	add.cc.u64 	%rd3, %rd2, 2;
	addc.cc.u64 	%rd4, 0, 0;
	addc.u32 	%r7, 0, 0;
	mad.hi.cc.s32 	%r8, -1, 1, 1;
	addc.u32 	%r9, 0, 0;
	st.global.v4.b32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.b32 	[%rd1+16], {%r5, %r6, %r7, %r8};
	st.global.v2.b64 	[%rd1+32], {%rd3, %rd4};
	st.global.b32 	[%rd1+48], %r9;
)");
  CHECK(o[0] == 0u);
  CHECK(o[1] == 1u);
  CHECK(o[2] == 0xFFFFFFFFu);
  CHECK(o[3] == 3u);
  CHECK(o[4] == 0u);
  CHECK(o[5] == 0xFFFFFFFFu);
  CHECK(o[6] == 0u);  // addc.cc.u64 0 + 0 + 1 carried nothing out
  CHECK(o[7] == 0u);
  CHECK(o[8] == 1u);
  CHECK(o[9] == 0u);
  CHECK(o[10] == 1u);
  CHECK(o[11] == 0u);
  CHECK(o[12] == 1u);
  // A subtraction's CC.CF is its carry as an addition of a + ~b + 1 (an H100: docs/ptx.md, Conformance):
  // 0 - 0xFFFFFFFF borrows, so addc 0 + 0 + CF = 0; 5 - 3 does not, so it is 1.
  const std::vector<std::uint32_t> mixed = run(R"(
	sub.cc.u32 	%r1, 0, 0xFFFFFFFF;
	addc.u32 	%r2, 0, 0;
	sub.cc.u32 	%r3, 5, 3;
	addc.u32 	%r4, 0, 0;
	st.global.v4.b32 	[%rd1], {%r1, %r2, %r3, %r4};
)");
  CHECK(mixed[0] == 1u);
  CHECK(mixed[1] == 0u);
  CHECK(mixed[2] == 2u);
  CHECK(mixed[3] == 1u);
}

TEST_CASE("sad, bmsk and testp (PTX #integer-arithmetic-instructions-sad, -bmsk, #floating-point-instructions-testp)") {
  // sad: 10 + |-3 - 4| = 17; 0 + |3 - 10| = 7. bmsk: the ISA's example .wrap 1, 2 = 0x6; .clamp 4, 40: from bit 4
  // to the top; .clamp 40, 3: 0; .wrap 40, 3: 3 bits from bit 8; .wrap 30, 5: past 31, to the top.
  // testp: zero is normal, 0x00000001 subnormal, infinity infinite and not finite, NaN not a number.
  const std::vector<std::uint32_t> o = run(R"(
	sad.s32 	%r1, -3, 4, 10;
	sad.u32 	%r2, 3, 10, 0;
	bmsk.wrap.b32 	%r3, 1, 2;
	bmsk.clamp.b32 	%r4, 4, 40;
	bmsk.clamp.b32 	%r5, 40, 3;
	bmsk.wrap.b32 	%r6, 40, 3;
	bmsk.wrap.b32 	%r7, 30, 5;
	mov.b32 	%f1, 0f00000000;
	mov.b32 	%f2, 0f00000001;
	mov.b32 	%f3, 0f7F800000;
	mov.b32 	%f4, 0f7FC00000;
	testp.normal.f32 	%p1, %f1;
	testp.subnormal.f32 	%p2, %f2;
	testp.finite.f32 	%p3, %f3;
	testp.number.f32 	%p4, %f4;
	mov.b64 	%rd2, 0d7FF0000000000000;
	testp.infinite.f64 	%p5, %rd2;
	selp.u32 	%r8, 1, 0, %p1;
	selp.u32 	%r9, 1, 0, %p2;
	selp.u32 	%r10, 1, 0, %p3;
	selp.u32 	%r11, 1, 0, %p4;
	selp.u32 	%r12, 1, 0, %p5;
	st.global.v4.b32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.b32 	[%rd1+16], {%r5, %r6, %r7, %r8};
	st.global.v4.b32 	[%rd1+32], {%r9, %r10, %r11, %r12};
)");
  CHECK(o[0] == 17u);
  CHECK(o[1] == 7u);
  CHECK(o[2] == 0x6u);
  CHECK(o[3] == 0xFFFFFFF0u);
  CHECK(o[4] == 0u);
  CHECK(o[5] == 0x700u);
  CHECK(o[6] == 0xC0000000u);
  CHECK(o[7] == 1u);
  CHECK(o[8] == 1u);
  CHECK(o[9] == 0u);
  CHECK(o[10] == 0u);
  CHECK(o[11] == 1u);
}
