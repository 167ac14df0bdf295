// The PTX interpreter (tcgen::ptx) on small hand-written kernels: values
// from the PTX ISA's definitions (each case names its section), the parser's
// scoping rules, warp collectives, and the errors a broken kernel gets, each
// naming the PTX line, the thread and the rule.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <tuple>
#include <vector>

#include "tcgen/core/element_type.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"
#include "tcgen/ptx/tensor_map.hpp"

using namespace tcgen;

namespace {

// A kernel `k(.param .u64 out)` whose body is `body`, each thread's out
// pointer in %rd1 = out + 4 * (tid.x * per_thread), run with `threads` threads.
// `prelude`: module-level declarations before it.
std::string kernel(const std::string& body, int per_thread = 16, const std::string& prelude = "") {
  return R"(.version 8.7
.target sm_100a
.address_size 64
)" + prelude + R"(
.visible .entry k(
	.param .u64 k_param_0
)
{
	.reg .pred 	%p<8>;
	.reg .b16 	%rs<8>;
	.reg .b32 	%r<40>;
	.reg .b32 	%f<16>;
	.reg .b64 	%rd<16>;
	ld.param.u64 	%rd0, [k_param_0];
	mov.u32 	%r0, %tid.x;
	mul.wide.u32 	%rd2, %r0, )" +
         std::to_string(4 * per_thread) + R"(;
	add.s64 	%rd1, %rd0, %rd2;
)" + body + R"(
	ret;
}
)";
}

std::vector<std::uint32_t> run(const std::string& body, int threads = 32, int per_thread = 16,
                               ptx::LaunchStats* stats = nullptr, bool strict = false, const std::string& prelude = "") {
  const ptx::Module m = ptx::Module::parse(kernel(body, per_thread, prelude), "test.ptx");
  std::vector<std::uint32_t> out(static_cast<std::size_t>(threads * per_thread), 0xDEADBEEFu);
  std::uint32_t* p = out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
  const ptx::LaunchStats s = ptx::launch(m, m.entry("k"),
                                         {.block = {static_cast<unsigned>(threads), 1, 1}, .strict = strict}, args,
                                         memory);
  if (stats) *stats = s;
  return out;
}

float f(std::uint32_t u) { return std::bit_cast<float>(u); }

// The error of running body, as text: an ExecutionError, or the runtime's
// own (a ConvergenceError when a lane exits while its warp waits for it).
std::string error_of(const std::string& body, int threads = 32, bool strict = false) {
  try {
    run(body, threads, 16, nullptr, strict);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// "test.ptx:N: " for the line of kernel(body) holding `needle`.
std::string line_of(const std::string& body, const std::string& needle) {
  const std::string text = kernel(body);
  const std::size_t at = text.find(needle);
  return "test.ptx:" + std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) + ": ";
}

}  // namespace

TEST_CASE("integer arithmetic, one known point each (PTX #integer-arithmetic-instructions)") {
  const std::vector<std::uint32_t> o = run(R"(
	mov.u32 	%r1, -7;
	div.s32 	%r2, %r1, 2;            // -3: truncation toward zero
	rem.s32 	%r3, %r1, 2;            // -1: the sign of the dividend
	shr.s32 	%r4, %r1, 1;            // -4: arithmetic shift
	shr.u32 	%r5, %r1, 28;           // 15
	mov.u32 	%r6, 0xF0000001;
	mul.hi.u32 	%r7, %r6, 16;           // 0xF
	mul.lo.s32 	%r8, %r6, 16;           // 0x10
	bfe.s32 	%r9, %r6, 28, 4;        // the field 0xF sign-extended: -1
	bfe.u32 	%r10, %r6, 0, 4;        // 1
	prmt.b32 	%r11, %r6, 0x44332211, 0x4321;  // bytes 1, 2, 3, 4 of {b, a}
	popc.b32 	%r12, %r6;              // 5
	clz.b32 	%r13, %r5;              // 28
	brev.b32 	%r14, %r10;             // 0x80000000
	lop3.b32 	%r15, %r6, 0xFF, 0x0F, 0x80;  // a & b & c (immLut 0x80): 0x01
	min.s32 	%r16, %r1, 3;           // -7
	max.u32 	%r17, %r1, 3;           // 0xFFFFFFF9 (unsigned)
	st.global.v4.u32 	[%rd1], {%r2, %r3, %r4, %r5};
	st.global.v4.u32 	[%rd1+16], {%r7, %r8, %r9, %r10};
	st.global.v4.u32 	[%rd1+32], {%r11, %r12, %r13, %r14};
	st.global.v2.u32 	[%rd1+48], {%r15, %r16};
	st.global.u32 	[%rd1+56], %r17;
)", 32);
  CHECK(static_cast<std::int32_t>(o[0]) == -3);
  CHECK(static_cast<std::int32_t>(o[1]) == -1);
  CHECK(static_cast<std::int32_t>(o[2]) == -4);
  CHECK(o[3] == 15u);
  CHECK(o[4] == 0xFu);
  CHECK(o[5] == 0x10u);
  CHECK(static_cast<std::int32_t>(o[6]) == -1);
  CHECK(o[7] == 1u);
  // prmt default mode: selector nibbles 1,2,3,4 pick bytes of {b, a} = 0x44332211'F0000001: 00, 00, F0, 11.
  CHECK(o[8] == 0x11F00000u);
  CHECK(o[9] == 5u);
  CHECK(o[10] == 28u);
  CHECK(o[11] == 0x80000000u);
  CHECK(o[12] == 0x01u);
  CHECK(static_cast<std::int32_t>(o[13]) == -7);
  CHECK(o[14] == 0xFFFFFFF9u);
}

TEST_CASE("conversions: cvt.rn.bf16x2.f32 puts its first source in the upper half (PTX #data-movement-and-conversion-instructions-cvt)") {
  const std::vector<std::uint32_t> o = run(R"(
	mov.f32 	%f1, 0f3F800000;        // 1.0
	mov.f32 	%f2, 0fC0000000;        // -2.0
	cvt.rn.bf16x2.f32 	%r1, %f1, %f2;   // {1.0 -> bits 31:16, -2.0 -> 15:0}
	cvt.rn.f16x2.f32 	%r2, %f1, %f2;
	mov.f32 	%f3, 0f501502F9;        // 1e10
	cvt.rzi.s32.f32 	%r3, %f3;           // saturates to INT32_MAX
	mov.f32 	%f4, 0fC0200000;        // -2.5
	cvt.rni.s32.f32 	%r4, %f4;           // ties to even: -2
	cvt.rzi.u32.f32 	%r5, %f4;           // negative to unsigned saturates to 0
	mov.u32 	%r6, 16777217;          // 2^24 + 1
	cvt.rn.f32.u32 	%f5, %r6;           // rounds to 2^24
	mov.b32 	%r7, %f5;
	cvt.rn.bf16.f32 	%rs1, %f1;
	cvt.u32.u16 	%r8, %rs1;
	mov.u32 	%r9, -1;
	cvt.s64.s32 	%rd3, %r9;
	shr.u64 	%rd4, %rd3, 32;
	cvt.u32.u64 	%r10, %rd4;             // the sign extension: 0xFFFFFFFF
	st.global.v4.u32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 	[%rd1+16], {%r5, %r7, %r8, %r10};
)", 32);
  CHECK(o[0] == 0x3F80C000u);  // bf16(1.0) = 0x3F80, bf16(-2.0) = 0xC000
  CHECK(o[1] == 0x3C00C000u);  // f16(1.0) = 0x3C00, f16(-2.0) = 0xC000
  CHECK(static_cast<std::int32_t>(o[2]) == 2147483647);
  CHECK(static_cast<std::int32_t>(o[3]) == -2);
  CHECK(o[4] == 0u);
  CHECK(f(o[5]) == 16777216.0f);
  CHECK(o[6] == 0x3F80u);
  CHECK(o[7] == 0xFFFFFFFFu);
}

TEST_CASE("FP4 and FP6 conversions: cvt.rn.satfinite.{e2m1x2,e2m3x2,e3m2x2}.f32 put a in the upper half, and back to f16x2") {
  const std::vector<std::uint32_t> o = run(R"(
	{
	.reg .b8 	%c<2>;
	mov.f32 	%f1, 0f3FC00000;        // 1.5
	mov.f32 	%f2, 0fC1000000;        // -8.0: past e2m1's -6 and e2m3's -7.5 (saturates), e3m2 holds it
	cvt.rn.satfinite.e2m1x2.f32 	%c1, %f1, %f2;
	cvt.u32.u8 	%r1, %c1;
	cvt.rn.satfinite.e2m3x2.f32 	%rs1, %f1, %f2;
	cvt.u32.u16 	%r2, %rs1;
	cvt.rn.satfinite.e3m2x2.f32 	%rs2, %f1, %f2;
	cvt.u32.u16 	%r3, %rs2;
	cvt.rn.f16x2.e2m1x2 	%r4, %c1;
	st.global.v4.u32 	[%rd1], {%r1, %r2, %r3, %r4};
	}
)", 32);
  CHECK(o[0] == 0x3Fu);          // e2m1: 1.5 = 0b0011, -6 = 0b1111
  CHECK(o[1] == 0x0C3Fu);        // e2m3 (bias 1): 1.5 = 0b0_01_100, -7.5 = 0b1_11_111
  CHECK(o[2] == 0x0E38u);        // e3m2 (bias 3, max 28): 1.5 = 0b0_011_10, -8 = -2^3 = 0b1_110_00
  CHECK(o[3] == 0x3E00C600u);    // f16(1.5) = 0x3E00 in the upper half, f16(-6) = 0xC600
}

TEST_CASE("cp.async.bulk.global.shared::cta.bulk_group: size bytes shared to global, after fence.proxy.async") {
  // 32 threads write 32 words to shared memory; thread 0 stores the 128 bytes
  // at out + 64 with one bulk copy (FlashMLA's epilogue does so).
  const std::string body = R"(
	mov.u32 	%r1, buf;
	shl.b32 	%r2, %r0, 2;
	add.u32 	%r3, %r1, %r2;
	add.u32 	%r4, %r0, 7000;
	st.shared.u32 	[%r3], %r4;
	FENCE
	bar.sync 	0;
	setp.eq.u32 	%p1, %r0, 0;
	add.s64 	%rd3, %rd0, 64;
	@%p1 cp.async.bulk.global.shared::cta.bulk_group 	[%rd3], [%r1], 128;
	@%p1 cp.async.bulk.commit_group;
	@%p1 cp.async.bulk.wait_group 	0;
)";
  const auto with = [&](const std::string& fence) {
    std::string b = body;
    b.replace(b.find("FENCE"), 5, fence);
    return b;
  };
  const std::string prelude = ".shared .align 128 .b8 buf[128];\n";
  const std::vector<std::uint32_t> o = run(with("fence.proxy.async.shared::cta;"), 32, 16, nullptr, true, prelude);
  for (int t = 0; t < 32; ++t) CHECK(o[16 + t] == 7000u + t);
  CHECK(o[15] == 0xDEADBEEFu);  // nothing before out + 64
  // Without the fence: the async proxy reads st.shared's bytes (a PTX letter: an error in strict mode).
  try {
    run(with(""), 32, 16, nullptr, true, prelude);
    FAIL("expected the proxy-fence rule");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("fence.proxy.async") != std::string::npos);
  }
}

TEST_CASE("UE8M0 scales to bf16: cvt.rn.bf16x2.ue8m0x2 puts 2^(e - 127) of the upper byte in the upper half") {
  const std::vector<std::uint32_t> o = run(R"(
	mov.u16 	%rs1, 0x8079;               // e = 128 (2.0) high, 121 (2^-6) low
	cvt.rn.bf16x2.ue8m0x2 	%r1, %rs1;
	mov.u16 	%rs2, 0x00FF;               // e = 0 (2^-127, a bf16 subnormal) high, 255 (NaN) low
	cvt.rn.bf16x2.ue8m0x2 	%r2, %rs2;
	st.global.v2.u32 	[%rd1], {%r1, %r2};
)", 8);
  CHECK((o[0] >> 16) == encode(ElementType::bf16, 2.0f));
  CHECK((o[0] & 0xFFFFu) == encode(ElementType::bf16, std::ldexp(1.0f, -6)));
  CHECK(decode(ElementType::bf16, (o[1] >> 16)) == std::ldexp(1.0f, -127));
  CHECK(std::isnan(decode(ElementType::bf16, o[1] & 0xFFFFu)));
}

TEST_CASE("UE8M0 scales from values: cvt.{rp,rz}.satfinite.ue8m0x2 take the exponent field, rounded up by .rp") {
  // UE8M0 is 2^(e - 127) (OCP MX v1.0 §5.4.1), 0xFF its NaN. CUTLASS's host form of cvt.rp.satfinite
  // (float_ue8m0_t::convert_from_float) is the oracle: the sign ignored, up unless a power of two, a
  // subnormal at most 2^-127 to 0x00, 0xFE kept by .satfinite, NaN to 0xFF. Infinity: 0xFF in CUTLASS,
  // but .satfinite gives values past MAX_NORM, infinities included, MAX_NORM 0xFE (PTX
  // #data-movement-and-conversion-instructions-cvt), which the interpreter follows.
  const std::vector<std::uint32_t> o = run(R"(
	cvt.rp.satfinite.ue8m0x2.f32 	%rs1, 0f3F800000, 0f3FC00000;   // 1.0 -> 127, 1.5 -> up to 128
	cvt.rz.satfinite.ue8m0x2.f32 	%rs2, 0f3F800000, 0f3FC00000;   // 1.0 -> 127, 1.5 -> 127
	cvt.rp.satfinite.ue8m0x2.f32 	%rs3, 0fC0400000, 0f00200000;   // -3.0 -> 129; 2^-128 -> 0
	cvt.rp.satfinite.ue8m0x2.f32 	%rs4, 0f00400001, 0f7F7FFFFF;   // just past 2^-127 -> 1; max float -> 0xFE
	cvt.rp.satfinite.ue8m0x2.f32 	%rs5, 0f7FC00000, 0f7F800000;   // NaN -> 0xFF, infinity -> 0xFE
	cvt.rp.ue8m0x2.f32 	%rs6, 0f7F7FFFFF, 0f3F800000;             // without .satfinite past 2^127: 0xFF
	mov.b32 	%r7, 0x3FC04040;                                     // bf16 1.5 high, 3.0 low
	cvt.rp.satfinite.ue8m0x2.bf16x2 	%rs7, %r7;
	cvt.u32.u16 	%r1, %rs1;
	cvt.u32.u16 	%r2, %rs2;
	cvt.u32.u16 	%r3, %rs3;
	cvt.u32.u16 	%r4, %rs4;
	cvt.u32.u16 	%r5, %rs5;
	cvt.u32.u16 	%r6, %rs6;
	cvt.u32.u16 	%r8, %rs7;
	st.global.v4.u32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 	[%rd1+16], {%r5, %r6, %r8, %r8};
)", 32);
  CHECK(o[0] == 0x7F80u);
  CHECK(o[1] == 0x7F7Fu);
  CHECK(o[2] == 0x8100u);
  CHECK(o[3] == 0x01FEu);
  CHECK(o[4] == 0xFFFEu);
  CHECK(o[5] == 0xFF7Fu);
  CHECK(o[6] == 0x8081u);  // bf16 1.5 -> 128 high, 3.0 -> 129 low
}

TEST_CASE("floating point: fma rounds once, ex2, rcp, f32x2 lanes, setp with unordered compares (PTX #floating-point-instructions)") {
  const std::vector<std::uint32_t> o = run(R"(
	mov.f32 	%f1, 0f3F800001;        // 1 + 2^-23
	mov.f32 	%f2, 0fBF800002;        // -(1 + 2^-22)
	mul.rn.f32 	%f3, %f1, %f1;          // rounded product
	fma.rn.f32 	%f4, %f1, %f1, %f2;     // exact product + c, rounded once: 2^-46
	ex2.approx.ftz.f32 	%f5, 0f40400000;   // 2^3
	rcp.rn.f32 	%f6, 0f40800000;        // 0.25
	mov.b64 	%rd3, {%f1, %f5};
	mov.b64 	%rd4, {%f5, %f6};
	add.rn.f32x2 	%rd5, %rd3, %rd4;        // {f1 + 8, 8.25}
	mov.b64 	{%f7, %f8}, %rd5;
	mov.f32 	%f9, 0f7FC00000;        // NaN
	setp.lt.f32 	%p1, %f9, %f6;          // ordered: false
	setp.ltu.f32 	%p2, %f9, %f6;          // unordered: true
	selp.u32 	%r1, 1, 0, %p1;
	selp.u32 	%r2, 1, 0, %p2;
	mov.b32 	%r3, %f4;
	mov.b32 	%r4, %f5;
	mov.b32 	%r5, %f7;
	mov.b32 	%r6, %f8;
	st.global.v4.u32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v2.u32 	[%rd1+16], {%r5, %r6};
)", 32);
  CHECK(o[0] == 0u);
  CHECK(o[1] == 1u);
  CHECK(f(o[2]) == std::ldexp(1.0f, -46));
  CHECK(f(o[3]) == 8.0f);
  CHECK(f(o[4]) == f(0x3F800001u) + 8.0f);
  CHECK(f(o[5]) == 8.25f);
}

TEST_CASE("floating point: the rounding modifiers round each lane of f32x2 and each scalar as named (PTX #floating-point-instructions-add)") {
  // FlashAttention-4's ex2 emulation takes the floor of x as x + (2^23 + 2^22) rounded down (add.rm.f32x2),
  // then its fraction as x minus that floor, rounded to nearest: the fraction must land in [0, 1).
  const std::vector<std::uint32_t> o = run(R"(
	mov.f32 	%f1, 0f3F400000;        // 0.75
	mov.f32 	%f2, 0fBE800000;        // -0.25
	mov.f32 	%f3, 0f4B400000;        // 2^23 + 2^22
	mov.b64 	%rd3, {%f1, %f2};
	mov.b64 	%rd4, {%f3, %f3};
	add.rm.f32x2 	%rd5, %rd3, %rd4;        // down: {2^23 + 2^22, 2^23 + 2^22 - 1}
	add.rn.f32x2 	%rd6, %rd3, %rd4;        // nearest even: {2^23 + 2^22 + 1, 2^23 + 2^22}
	add.rp.f32x2 	%rd7, %rd3, %rd4;        // up: {2^23 + 2^22 + 1, 2^23 + 2^22}
	add.rz.f32x2 	%rd8, %rd3, %rd4;        // toward zero: as down for these positive sums
	add.rm.f32 	%f4, %f1, %f3;
	add.rp.f32 	%f5, %f2, %f3;
	mov.b64 	{%r1, %r2}, %rd5;
	mov.b64 	{%r3, %r4}, %rd6;
	mov.b64 	{%r5, %r6}, %rd7;
	mov.b64 	{%r7, %r8}, %rd8;
	mov.b32 	%r9, %f4;
	mov.b32 	%r10, %f5;
	st.global.v4.u32 	[%rd1], {%r1, %r2, %r3, %r4};
	st.global.v4.u32 	[%rd1+16], {%r5, %r6, %r7, %r8};
	st.global.v2.u32 	[%rd1+32], {%r9, %r10};
)", 32);
  const float base = 12582912.0f;  // 2^23 + 2^22, where the f32 step is 1
  CHECK(f(o[0]) == base);
  CHECK(f(o[1]) == base - 1);
  CHECK(f(o[2]) == base + 1);
  CHECK(f(o[3]) == base);
  CHECK(f(o[4]) == base + 1);
  CHECK(f(o[5]) == base);
  CHECK(f(o[6]) == base);
  CHECK(f(o[7]) == base - 1);
  CHECK(f(o[8]) == base);
  CHECK(f(o[9]) == base);
}

TEST_CASE("warp collectives: shfl modes, vote.ballot, elect.sync's leader, activemask (PTX #data-movement-and-conversion-instructions-shfl-sync)") {
  const std::vector<std::uint32_t> o = run(R"(
	activemask.b32 	%r10;                      // before any lane exits: the whole warp
	mul.lo.s32 	%r1, %r0, 10;
	shfl.sync.down.b32 	%r2|%p1, %r1, 3, 31, -1;   // lane + 3, or own value past lane 31
	shfl.sync.up.b32 	%r3, %r1, 1, 0, -1;         // lane - 1, or own value at lane 0
	shfl.sync.bfly.b32 	%r4, %r1, 5, 31, -1;      // lane ^ 5
	shfl.sync.idx.b32 	%r5, %r1, 7, 31, -1;      // lane 7
	and.b32 	%r6, %r0, 1;
	setp.eq.s32 	%p2, %r6, 1;
	vote.sync.ballot.b32 	%r7, %p2, -1;           // odd lanes
	elect.sync 	%r8|%p3, -1;
	selp.u32 	%r9, 1, 0, %p3;
	selp.u32 	%r11, 1, 0, %p1;
	st.global.v4.u32 	[%rd1], {%r2, %r3, %r4, %r5};
	st.global.v4.u32 	[%rd1+16], {%r7, %r8, %r9, %r10};
	st.global.u32 	[%rd1+32], %r11;
)", 32);
  for (std::uint32_t lane = 0; lane < 32; ++lane) {
    CAPTURE(lane);
    const std::uint32_t* t = &o[lane * 16];
    CHECK(t[0] == (lane + 3 <= 31 ? (lane + 3) * 10 : lane * 10));
    CHECK(t[1] == (lane >= 1 ? (lane - 1) * 10 : 0u));
    CHECK(t[2] == (lane ^ 5u) * 10);
    CHECK(t[3] == 70u);
    CHECK(t[4] == 0xAAAAAAAAu);
    CHECK(t[5] == 0u);  // the host elects the lowest lane (PTX fixes only that one lane is elected)
    CHECK(t[6] == (lane == 0 ? 1u : 0u));
    CHECK(t[7] == 0xFFFFFFFFu);
    CHECK(t[8] == (lane + 3 <= 31 ? 1u : 0u));
  }
}

TEST_CASE("the parser: block-scoped .reg and labels repeated by inline asm, d|p and _ destinations, [reg+-off]") {
  // Two inline-asm blocks declare the same predicate and label; each branch goes to its own block's label.
  const std::vector<std::uint32_t> o = run(R"(
	mov.u32 	%r1, 0;
	{
	.reg .pred p;
	setp.eq.s32 	p, %r0, 0;
	@p bra 	DONE;
	add.s32 	%r1, %r1, 1;
DONE:
	}
	{
	.reg .pred p;
	setp.ne.s32 	p, %r0, 0;
	@p bra 	DONE;
	add.s32 	%r1, %r1, 10;
DONE:
	}
	setp.lt.s32 	%p1|%p2, %r0, 16;
	selp.u32 	%r2, 1, 0, %p2;
	add.s64 	%rd3, %rd1, 8;
	st.global.u32 	[%rd3+-8], %r1;
	st.global.u32 	[%rd3+-4], %r2;
)", 32);
  CHECK(o[0] == 10u);       // lane 0: skips the first add, does the second
  CHECK(o[16] == 1u);       // lane 1: the first add only
  CHECK(o[1] == 0u);        // lane 0 < 16: q = false
  CHECK(o[16 * 20 + 1] == 1u);  // lane 20: q = true
}

// vprintf's and __assertfail's declarations and their strings, as nvcc writes them.
constexpr const char* kCallPrelude = R"(
.extern .func  (.param .b32 func_retval0) vprintf
(
	.param .b64 vprintf_param_0,
	.param .b64 vprintf_param_1
)
;
.extern .func __assertfail
(
	.param .b64 __assertfail_param_0,
	.param .b64 __assertfail_param_1,
	.param .b32 __assertfail_param_2,
	.param .b64 __assertfail_param_3,
	.param .b64 __assertfail_param_4
)
;
.global .align 1 .b8 $str[15] = {108, 97, 110, 101, 32, 37, 100, 58, 32, 37, 46, 50, 102, 10, 0};
.global .align 1 .b8 $str$1[6] = {120, 32, 62, 32, 48, 0};
.global .align 1 .b8 $str$2[6] = {107, 46, 99, 117, 0, 0};
)";

TEST_CASE("device printf: vprintf's format and packed arguments, in lane order, its return value") {
  ptx::LaunchStats stats;
  const std::vector<std::uint32_t> o = run(R"(
	.local .align 8 .b8 	__local_depot0[16];
	.reg .b64 	%SP;
	.reg .b64 	%SPL;
	.reg .b64 	%fd<2>;
	mov.u64 	%SPL, __local_depot0;
	cvta.local.u64 	%SP, %SPL;
	add.u64 	%rd3, %SP, 0;
	st.local.u32 	[%SPL], %r0;           // int, 4 bytes at 0
	mov.f64 	%fd1, 0d4004000000000000;  // 2.5 as double, 8 bytes at 8
	st.local.f64 	[%SPL+8], %fd1;
	mov.u64 	%rd4, $str;
	cvta.global.u64 	%rd5, %rd4;
	{ // callseq 0, 0
	.param .b64 param0;
	st.param.b64 	[param0], %rd5;
	.param .b64 param1;
	st.param.b64 	[param1], %rd3;
	.param .b32 retval0;
	call.uni (retval0),
	vprintf,
	(
	param0,
	param1
	);
	ld.param.b32 	%r1, [retval0];
	} // callseq 0
	st.global.u32 	[%rd1], %r1;
)", 32, 16, &stats, false, kCallPrelude);
  std::string expected;
  for (int lane = 0; lane < 32; ++lane) expected += "lane " + std::to_string(lane) + ": 2.50\n";
  CHECK(stats.printed == expected);
  CHECK(o[0] == 13u);       // "lane 0: 2.50\n"
  CHECK(o[16 * 31] == 14u);
}

TEST_CASE("a polling loop's bra.uni on mbarrier.try_wait is no divergence: lanes see the phase at different polls") {
  const std::vector<std::uint32_t> o = run(R"(
	setp.eq.u32 	%p1, %r0, 0;
	@%p1 mbarrier.init.shared::cta.b64 	[bar], 32;
	bar.sync 	0;
	mbarrier.arrive.shared::cta.b64 	%rd3, [bar];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 	%p2, [bar], 0;
	@%p2 bra.uni 	DONE;
	bra.uni 	WAIT;
DONE:
	st.global.u32 	[%rd1], 7;
)", 32, 16, nullptr, false, ".shared .align 8 .b8 bar[8];\n");
  for (int lane = 0; lane < 32; ++lane) CHECK(o[16 * lane] == 7u);
}

// Each thread t of a TMA store kernel puts 1000 + t at buf[t] (the box a store writes out).
const std::string kStoreBox = R"(
	mov.u32 	%r0, %tid.x;
	mov.u32 	%r1, buf;
	shl.b32 	%r2, %r0, 2;
	add.s32 	%r3, %r1, %r2;
	add.s32 	%r4, %r0, 1000;
	st.shared.u32 	[%r3], %r4;
)";

// A map of a `cols` × 4 u32 tensor, rows `stride` bytes apart, with a 32-element box.
tma::TensorMapSpec u32_rows(std::uint64_t cols, std::uint64_t stride) {
  tma::TensorMapSpec spec;
  spec.element_bytes = 4;
  spec.rank = 2;
  spec.global_dims = {cols, 4, 1, 1, 1};
  spec.global_strides = {stride, 0, 0, 0};
  spec.box_dims = {32, 1, 1, 1, 1};
  return spec;
}

// A 32 × 1 box of u32 written by st.shared (thread t: 1000 + t), then stored by TMA at (8, 1)
// of a 64 × 4 tensor; `fence` the fence.proxy.async line or nothing; `after` what thread 0 does
// after the store (by default: commit its bulk group and wait until the store has read the box).
std::string tma_store_kernel(const std::string& fence,
                             const std::string& after = "\t@%p1 cp.async.bulk.commit_group;\n"
                                                        "\t@%p1 cp.async.bulk.wait_group.read \t0;\n"
                                                        "\t@%p1 st.shared.u32 \t[%r1], %r4;\n") {
  return R"(.version 8.7
.target sm_100a
.address_size 64
.shared .align 1024 .b8 buf[128];

.visible .entry tstore(
	.param .align 128 .b8 tstore_param_0[128]
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<10>;
	.reg .b64 	%rd<4>;
)" + kStoreBox + fence + R"(
	bar.sync 	0;
	setp.eq.u32 	%p1, %r0, 0;
	mov.b64 	%rd1, tstore_param_0;
	cvta.param.u64 	%rd2, %rd1;
	mov.u32 	%r5, 8;
	mov.u32 	%r6, 1;
	@%p1 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group 	[%rd2, {%r5, %r6}], [%r1];
)" + after + R"(
	ret;
}
)";
}

// tma_store_kernel's text launched over a zeroed 64 × 4 u32 tensor, which `tensor` receives.
ptx::LaunchStats launch_tma_store(const std::string& text, std::vector<std::uint32_t>& tensor) {
  const ptx::Module m = ptx::Module::parse(text, "t.ptx");
  tensor.assign(64 * 4, 0);
  const ptx::TensorMap map = ptx::encode_tensor_map(u32_rows(64, 256), tensor.data());
  const ptx::Argument args[] = {ptx::argument(map)};
  const ptx::Allocation memory[] = {{tensor.data(), tensor.size() * 4, "tensor", true}};
  return ptx::launch(m, m.entry("tstore"), {.block = {32, 1, 1}}, args, memory);
}

TEST_CASE("cp.reduce.async.bulk.tensor: each element of the box combined with the tensor's, by the map's type") {
  // PTX #data-movement-and-conversion-instructions-cp-reduce-async-bulk-tensor (CUTLASS's FMHA backward
  // accumulates dQ so): the box (1000 + t) added to, maxed with, xor-ed into a tensor holding 5 · i.
  for (const auto& [op, expect] : std::initializer_list<std::pair<const char*, std::uint32_t (*)(std::uint32_t, std::uint32_t)>>{
           {"add", [](std::uint32_t g, std::uint32_t s) { return g + s; }},
           {"max", [](std::uint32_t g, std::uint32_t s) { return std::max(g, s); }},
           {"xor", [](std::uint32_t g, std::uint32_t s) { return g ^ s; }}}) {
    CAPTURE(op);
    std::string text = tma_store_kernel("\tfence.proxy.async.shared::cta;");
    const std::string store = "cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group";
    text.replace(text.find(store), store.size(), std::string("cp.reduce.async.bulk.tensor.2d.global.shared::cta.") + op +
                                                     ".tile.bulk_group");
    const ptx::Module m = ptx::Module::parse(text, "reduce.ptx");
    std::vector<std::uint32_t> tensor(64 * 4);
    for (std::size_t i = 0; i < tensor.size(); ++i) tensor[i] = static_cast<std::uint32_t>(5 * i);
    tma::TensorMapSpec spec = u32_rows(64, 256);
    spec.data_type = 2;  // CU_TENSOR_MAP_DATA_TYPE_UINT32
    const ptx::TensorMap map = ptx::encode_tensor_map(spec, tensor.data());
    const ptx::Argument args[] = {ptx::argument(map)};
    const ptx::Allocation memory[] = {{tensor.data(), tensor.size() * 4, "tensor", true}};
    ptx::launch(m, m.entry("tstore"), {.block = {32, 1, 1}, .strict = true}, args, memory);
    for (int row = 0; row < 4; ++row)
      for (int col = 0; col < 64; ++col) {
        const auto i = static_cast<std::uint32_t>(row * 64 + col);
        const bool in_box = row == 1 && col >= 8 && col < 40;
        CHECK(tensor[i] == (in_box ? expect(5 * i, std::uint32_t(1000 + col - 8)) : 5 * i));
      }
    // NVIDIA's map always holds a type: a spec without one is encoded as the unsigned type of its element
    // size, as exec::device_tensor_map encodes it for the GPU, and combined so.
    spec.data_type = -1;
    CHECK(ptx::decode_tensor_map(ptx::encode_tensor_map(spec, tensor.data()).bytes)->spec.data_type == 2);
  }
}

TEST_CASE("tensormap.replace in shared memory, tensormap.cp_fenceproxy to global: the TMA follows the new map") {
  // CUTLASS's grouped GEMMs (75_blackwell_grouped_gemm): a map copied to shared memory, its global address,
  // dims and strides replaced for the group's tensor, copied to global memory; the TMA reads those bytes.
  const std::string text = R"(.version 8.7
.target sm_100a
.address_size 64
.shared .align 1024 .b8 buf[128];
.shared .align 128 .b8 smap[128];

.visible .entry k(
	.param .align 128 .b8 k_param_0[128],
	.param .u64 k_param_1,
	.param .u64 k_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<12>;
	.reg .b64 	%rd<12>;
)" + kStoreBox + R"(
	fence.proxy.async.shared::cta;
	setp.eq.u32 	%p1, %r0, 0;
	ld.param.u64 	%rd3, [k_param_1];
	ld.param.u64 	%rd4, [k_param_2];
	setp.lt.u32 	%p0, %r0, 8;
	shl.b32 	%r7, %r0, 4;
	mov.u32 	%r8, smap;
	add.s32 	%r9, %r8, %r7;
	mov.b64 	%rd1, k_param_0;
	cvta.param.u64 	%rd2, %rd1;
	cvt.u64.u32 	%rd5, %r7;
	add.s64 	%rd6, %rd2, %rd5;
	@%p0 ld.v4.u32 	{%r5, %r6, %r10, %r11}, [%rd6];
	@%p0 st.shared.v4.u32 	[%r9], {%r5, %r6, %r10, %r11};
	bar.sync 	0;
	cvt.u64.u32 	%rd7, %r8;
	@%p1 tensormap.replace.tile.global_address.shared::cta.b1024.b64 	[%rd7], %rd4;
	mov.u32 	%r5, 128;
	@%p1 tensormap.replace.tile.global_dim.shared::cta.b1024.b32 	[%rd7], 0, %r5;
	mov.u64 	%rd8, 512;
	@%p1 tensormap.replace.tile.global_stride.shared::cta.b1024.b64 	[%rd7], 0, %rd8;
	@%p1 tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned 	[%rd3], [%r8], 128;
	@%p1 fence.proxy.tensormap::generic.acquire.gpu 	[%rd3], 128;
	mov.u32 	%r5, 8;
	mov.u32 	%r6, 1;
	@%p1 cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group 	[%rd3, {%r5, %r6}], [%r1];
	@%p1 cp.async.bulk.commit_group;
	@%p1 cp.async.bulk.wait_group 	0;
	ret;
}
)";
  const ptx::Module m = ptx::Module::parse(text, "replace.ptx");
  std::vector<std::uint32_t> old_tensor(64 * 4, 0), new_tensor(128 * 4, 0);
  alignas(128) std::uint8_t global_map[128] = {};
  const ptx::TensorMap map = ptx::encode_tensor_map(u32_rows(64, 256), old_tensor.data());
  const std::uint64_t gmap = reinterpret_cast<std::uint64_t>(global_map),
                      tensor = reinterpret_cast<std::uint64_t>(new_tensor.data());
  const ptx::Argument args[] = {ptx::argument(map), ptx::argument(gmap), ptx::argument(tensor)};
  const ptx::Allocation memory[] = {{old_tensor.data(), old_tensor.size() * 4, "old tensor", true},
                                    {new_tensor.data(), new_tensor.size() * 4, "new tensor", true},
                                    {global_map, sizeof global_map, "global map", true}};
  ptx::launch(m, m.entry("k"), {.block = {32, 1, 1}, .strict = true}, args, memory);
  for (std::size_t i = 0; i < old_tensor.size(); ++i) CHECK(old_tensor[i] == 0u);
  for (int row = 0; row < 4; ++row)
    for (int col = 0; col < 128; ++col) {
      const bool in_box = row == 1 && col >= 8 && col < 40;
      CHECK(new_tensor[static_cast<std::size_t>(row * 128 + col)] == (in_box ? std::uint32_t(1000 + col - 8) : 0u));
    }
}

TEST_CASE("tensormap.replace of rank, box_dim, element_stride, swizzle, fill and elemtype: the map's fields as PTX encodes them") {
  // PTX #data-movement-and-conversion-instructions-tensormap-replace (tcgen05-facts-2.md §5.1): rank is
  // zero-based; box_dim and element_stride as the driver takes them; swizzle_mode 3 = 128B and
  // swizzle_atomicity 1 = 32B atoms make CU_TENSOR_MAP_SWIZZLE_128B_ATOM_32B; fill_mode 1 = OOB-NaN.
  alignas(128) std::uint8_t gmap[128];
  const auto replace = [&](const std::string& body) {
    const ptx::TensorMap start = ptx::encode_tensor_map(u32_rows(64, 256), gmap);
    std::memcpy(gmap, start.bytes, sizeof gmap);
    const ptx::Module m = ptx::Module::parse(kernel("\tsetp.ne.u32 \t%p1, %r0, 0;\n\t@%p1 bra \tEND;\n" + body + "END:\n"),
                                             "replace_fields.ptx");
    REQUIRE(m.entry("k").unsupported.empty());
    std::uint8_t* p = gmap;
    const ptx::Argument args[] = {ptx::argument(p)};
    const ptx::Allocation memory[] = {{gmap, sizeof gmap, "map", true}};
    std::string error;
    try {
      ptx::launch(m, m.entry("k"), {.block = {32, 1, 1}}, args, memory);
    } catch (const Error& e) {
      error = e.what();
    }
    return error;
  };
  REQUIRE(replace(R"(
	tensormap.replace.tile.rank.global.b1024.b32 	[%rd0], 2;
	tensormap.replace.tile.box_dim.global.b1024.b32 	[%rd0], 1, 16;
	tensormap.replace.tile.box_dim.global.b1024.b32 	[%rd0], 2, 3;
	tensormap.replace.tile.global_dim.global.b1024.b32 	[%rd0], 2, 5;
	tensormap.replace.tile.element_stride.global.b1024.b32 	[%rd0], 1, 4;
	tensormap.replace.tile.swizzle_mode.global.b1024.b32 	[%rd0], 3;
	tensormap.replace.tile.swizzle_atomicity.global.b1024.b32 	[%rd0], 1;
	tensormap.replace.tile.fill_mode.global.b1024.b32 	[%rd0], 1;
	tensormap.replace.tile.interleave_layout.global.b1024.b32 	[%rd0], 0;
)") == "");
  const std::optional<ptx::DecodedTensorMap> d = ptx::decode_tensor_map(gmap);
  REQUIRE(d);
  CHECK(d->spec.rank == 3u);
  CHECK(d->spec.box_dims[1] == 16u);
  CHECK(d->spec.box_dims[2] == 3u);
  CHECK(d->spec.global_dims[2] == 5u);
  CHECK(d->spec.element_strides[1] == 4u);
  CHECK(d->spec.swizzle == tma::TmaSwizzle::b128_atom32b);
  CHECK(d->spec.oob_fill == tma::TmaOobFill::nan_request_zero_fma);
  CHECK(d->spec.global_dims[0] == 64u);  // untouched
  // Atomicity back to 16B: plain 128B.
  REQUIRE(replace("\ttensormap.replace.tile.swizzle_mode.global.b1024.b32 \t[%rd0], 3;\n"
                  "\ttensormap.replace.tile.swizzle_atomicity.global.b1024.b32 \t[%rd0], 0;\n") == "");
  CHECK(ptx::decode_tensor_map(gmap)->spec.swizzle == tma::TmaSwizzle::b128);
  // Out of PTX's range, and values the model's TMA does not move, are named.
  const std::string box0 = replace("\ttensormap.replace.tile.box_dim.global.b1024.b32 \t[%rd0], 0, 0;\n");
  CHECK_MESSAGE(box0.find("new_val = 0") != std::string::npos, box0);
  CHECK_MESSAGE(box0.find("1 to 256") != std::string::npos, box0);
  const std::string rank5 = replace("\ttensormap.replace.tile.rank.global.b1024.b32 \t[%rd0], 5;\n");
  CHECK_MESSAGE(rank5.find("0 to 4") != std::string::npos, rank5);
  const std::string b96 = replace("\ttensormap.replace.tile.swizzle_mode.global.b1024.b32 \t[%rd0], 4;\n");
  CHECK_MESSAGE(b96.find("which the model's TMA does not move") != std::string::npos, b96);
  const std::string interleaved = replace("\ttensormap.replace.tile.interleave_layout.global.b1024.b32 \t[%rd0], 1;\n");
  CHECK_MESSAGE(interleaved.find("interleave: bits 75-76 = 1, which the model's TMA does not move") != std::string::npos,
                interleaved);
  // elemtype in PTX's numbering (11: tf32, which the map holds as f32 with its tf32 bit; replace_probe.csv).
  REQUIRE(replace("\ttensormap.replace.tile.elemtype.global.b1024.b32 \t[%rd0], 11;\n") == "");
  CHECK(ptx::decode_tensor_map(gmap)->spec.data_type == 11);  // CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
  REQUIRE(replace("\ttensormap.replace.tile.elemtype.global.b1024.b32 \t[%rd0], 9;\n") == "");
  CHECK(ptx::decode_tensor_map(gmap)->spec.data_type == 8);  // FLOAT64
  // The numbering is not CUtensorMapDataType's (Triton's TMA_ELEMENT_TYPES agree): 10 is bf16
  // (CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 = 9), 8 is f32.ftz (= 10), each with its element bytes.
  for (const auto& [elemtype, data_type, bytes] : {std::tuple{10, 9, 2u}, {8, 10, 4u}}) {
    CAPTURE(elemtype);
    REQUIRE(replace("\ttensormap.replace.tile.elemtype.global.b1024.b32 \t[%rd0], " + std::to_string(elemtype) + ";\n") == "");
    CHECK(ptx::decode_tensor_map(gmap)->spec.data_type == data_type);
    CHECK(ptx::decode_tensor_map(gmap)->spec.element_bytes == bytes);
  }
}

TEST_CASE("a TMA store writes the box into the tensor; without fence.proxy.async, a counted PTX letter") {
  std::vector<std::uint32_t> tensor;
  for (const bool fenced : {true, false}) {
    CAPTURE(fenced);
    const ptx::LaunchStats stats =
        launch_tma_store(tma_store_kernel(fenced ? "\tfence.proxy.async.shared::cta;" : ""), tensor);
    for (int row = 0; row < 4; ++row)
      for (int col = 0; col < 64; ++col) {
        const bool in_box = row == 1 && col >= 8 && col < 40;
        CHECK(tensor[row * 64 + col] == (in_box ? std::uint32_t(1000 + col - 8) : 0u));
      }
    CHECK(stats.warnings.count("proxy_fence_missing") == (fenced ? 0u : 1u));
    // Where the model's letter was first broken: the instruction that broke it, its kernel, block and warp.
    CHECK(stats.first_warning.count("proxy_fence_missing") == (fenced ? 0u : 1u));
    if (!fenced) {
      const std::string& first = stats.first_warning.at("proxy_fence_missing");
      CAPTURE(first);
      CHECK(first.starts_with("PTX line "));
      CHECK(first.find("(cp.async.bulk.tensor.") != std::string::npos);
      CHECK(first.find(" of kernel tstore, block (0, 0, 0), warp 0, lane ") != std::string::npos);
      CHECK(first.find("fence.proxy.async") != std::string::npos);
    }
  }
  // Overwriting the box before the bulk group's wait_group.read: the store may not have read it yet.
  for (const std::string& early : {std::string("\t@%p1 st.shared.u32 \t[%r1], %r4;\n"),
                                   std::string("\t@%p1 cp.async.bulk.commit_group;\n\t@%p1 st.shared.u32 \t[%r1], %r4;\n")}) {
    std::string e;
    try {
      launch_tma_store(tma_store_kernel("\tfence.proxy.async.shared::cta;", early), tensor);
    } catch (const ptx::ExecutionError& x) {
      e = x.what();
    }
    CHECK(e.find("no write while a TMA store reads it: thread 0's store at t.ptx:") != std::string::npos);
    CHECK(e.find("until its cp.async.bulk.wait_group.read") != std::string::npos);
  }
}

TEST_CASE("TMA tile::gather4: rows 3, 15, 0 and 20 (past the tensor: zeros) land as four rows of the box") {
  // A 16 × 32 u32 tensor, value 100·row + col + 1; the map's box is one row (128 bytes).
  std::vector<std::uint32_t> tensor(16 * 32), out(128, 0xEEEEEEEEu);
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 32; ++c) tensor[r * 32 + c] = static_cast<std::uint32_t>(100 * r + c + 1);
  tma::TensorMapSpec spec;
  spec.element_bytes = 4;
  spec.rank = 2;
  spec.global_dims = {32, 16, 1, 1, 1};
  spec.global_strides = {128, 0, 0, 0};
  spec.box_dims = {32, 1, 1, 1, 1};
  const ptx::TensorMap map = ptx::encode_tensor_map(spec, tensor.data());
  const std::string text = R"(.version 8.7
.target sm_100a
.address_size 64
.shared .align 1024 .b8 buf[512];
.shared .align 8 .b64 bar;

.visible .entry gather(
	.param .align 128 .b8 gather_param_0[128],
	.param .u64 gather_param_1
)
{
	.reg .pred 	%p<3>;
	.reg .b32 	%r<16>;
	.reg .b64 	%rd<8>;
	mov.u32 	%r0, %tid.x;
	mov.u32 	%r1, buf;
	mov.u32 	%r2, bar;
	setp.eq.u32 	%p1, %r0, 0;
	@%p1 mbarrier.init.shared::cta.b64 	[%r2], 1;
	bar.sync 	0;
	mov.b64 	%rd1, gather_param_0;
	cvta.param.u64 	%rd2, %rd1;
	mov.u32 	%r3, 0;
	mov.u32 	%r4, 3;
	mov.u32 	%r5, 15;
	mov.u32 	%r6, 0;
	mov.u32 	%r7, 20;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r2], 512;
	@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile::gather4.mbarrier::complete_tx::bytes 	[%r1], [%rd2, {%r3, %r4, %r5, %r6, %r7}], [%r2];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 	%p2, [%r2], 0;
	@!%p2 bra 	WAIT;
	ld.param.u64 	%rd3, [gather_param_1];
	shl.b32 	%r8, %r0, 4;
	add.s32 	%r9, %r1, %r8;
	ld.shared.v4.u32 	{%r10, %r11, %r12, %r13}, [%r9];
	cvt.u64.u32 	%rd4, %r8;
	add.s64 	%rd5, %rd3, %rd4;
	st.global.v4.u32 	[%rd5], {%r10, %r11, %r12, %r13};
	ret;
}
)";
  const ptx::Module m = ptx::Module::parse(text, "gather.ptx");
  std::uint32_t* const out_ptr = out.data();
  const ptx::Argument args[] = {ptx::argument(map), ptx::argument(out_ptr)};
  const ptx::Allocation memory[] = {{tensor.data(), tensor.size() * 4, "tensor"}, {out.data(), out.size() * 4, "out", true}};
  ptx::launch(m, m.entry("gather"), {.block = {32, 1, 1}}, args, memory);
  const int rows[4] = {3, 15, 0, 20};
  int wrong = 0;
  for (int i = 0; i < 4; ++i)
    for (int c = 0; c < 32; ++c)
      wrong += out[i * 32 + c] != (rows[i] < 16 ? static_cast<std::uint32_t>(100 * rows[i] + c + 1) : 0u);
  CHECK(wrong == 0);
}

TEST_CASE("barrier.cluster in a cluster of one CTA: arrive, then wait for every thread of it") {
  const std::string body = R"(
	mov.u32 	%r1, buf;
	shl.b32 	%r2, %r0, 2;
	add.s32 	%r3, %r1, %r2;
	st.shared.u32 	[%r3], %r0;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	sub.s32 	%r4, 252, %r2;                // 4 · (63 - t)
	add.s32 	%r5, %r1, %r4;
	ld.shared.u32 	%r6, [%r5];
	st.global.u32 	[%rd1], %r6;
)";
  const std::vector<std::uint32_t> o = run(body, 64, 16, nullptr, false, ".shared .align 4 .b8 buf[256];\n");
  for (int t = 0; t < 64; ++t) CHECK(o[16 * t] == static_cast<std::uint32_t>(63 - t));
  CHECK(error_of("\tbarrier.cluster.wait.aligned;\n").find("barrier.cluster.wait = thread 0 (warp 0, lane 0) is "
                                                          "invalid: a barrier.cluster.arrive by the thread before it") !=
        std::string::npos);
}

TEST_CASE("barrier.cluster with blocks of 48 threads: the padding of the last warp never counts as arriving") {
  // Clusters of 2 CTAs of 48 threads, two barrier rounds: after the first,
  // thread t writes t + 1 to its slot; after the second, it reads the slot
  // of thread 47 - t, which the barrier must have let write first.
  const std::string text = kernel(R"(
	barrier.cluster.arrive.release;
	barrier.cluster.wait.acquire;
	mov.u32 	%r1, buf;
	shl.b32 	%r2, %r0, 2;
	add.s32 	%r3, %r1, %r2;
	add.u32 	%r4, %r0, 1;
	st.shared.u32 	[%r3], %r4;
	barrier.cluster.arrive.release;
	barrier.cluster.wait.acquire;
	sub.s32 	%r5, 188, %r2;                // 4 · (47 - t)
	add.s32 	%r6, %r1, %r5;
	ld.shared.u32 	%r7, [%r6];
	mov.u32 	%r8, %ctaid.x;
	mul.lo.u32 	%r8, %r8, 48;
	add.u32 	%r8, %r8, %r0;
	mul.wide.u32 	%rd5, %r8, 4;
	add.s64 	%rd6, %rd0, %rd5;
	st.global.u32 	[%rd6], %r7;
)",
                                  1, ".shared .align 4 .b8 buf[192];\n");
  const ptx::Module m = ptx::Module::parse(text, "padded.ptx");
  std::vector<std::uint32_t> out(2 * 48, 0xDEADBEEFu);
  std::uint32_t* p = out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
  for (std::uint64_t seed : {0u, 1u, 2u, 3u}) {  // 0: the deterministic schedule
    CAPTURE(seed);
    ptx::LaunchConfig config{.grid = {2, 1, 1}, .block = {48, 1, 1}, .cluster = {2, 1, 1}};
    config.options.threads = 1;
    if (seed) config.options.shuffle_seed = seed;
    std::fill(out.begin(), out.end(), 0xDEADBEEFu);
    ptx::launch(m, m.entry("k"), config, args, memory);
    int wrong = 0;
    for (int t = 0; t < 2 * 48; ++t) wrong += out[static_cast<std::size_t>(t)] != static_cast<std::uint32_t>(48 - t % 48);
    CHECK(wrong == 0);
  }
}

TEST_CASE("atom.shared is one step of the schedule: no update lost when every call is a scheduling point") {
  // 128 threads add their index + 1 to one shared counter, under shuffled
  // schedules (a scheduling point at every call into the architecture): the
  // sum must be 128 · 129 / 2 = 8256 (PTX #parallel-synchronization-and-communication-instructions-atom).
  const std::string text = kernel(R"(
	mov.u32 	%r1, counter;
	setp.ne.u32 	%p1, %r0, 0;
	@%p1 bra 	ADD;
	st.shared.u32 	[%r1], 0;
ADD:
	bar.sync 	0;
	add.u32 	%r2, %r0, 1;
	atom.shared.add.u32 	%r3, [%r1], %r2;
	bar.sync 	0;
	@%p1 bra 	END;
	ld.shared.u32 	%r4, [%r1];
	st.global.u32 	[%rd0], %r4;
END:
)",
                                  16, ".shared .align 4 .b32 counter;\n");
  const ptx::Module m = ptx::Module::parse(text, "atom.ptx");
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    CAPTURE(seed);
    std::uint32_t sum = 0;
    std::uint32_t* p = &sum;
    const ptx::Argument args[] = {ptx::argument(p)};
    const ptx::Allocation memory[] = {{&sum, 4, "sum", true}};
    ptx::LaunchConfig config{.block = {128, 1, 1}};
    config.options.shuffle_seed = seed;
    ptx::launch(m, m.entry("k"), config, args, memory);
    CHECK(sum == 8256);
  }
}

TEST_CASE("clusters of CTAs: ranks and ids, mapa, st.shared::cluster to the next rank, barrier.cluster, a remote arrive") {
  // Grid 6 in clusters of 3 (PTX #cluster-of-cooperative-thread-arrays): CTA b
  // has rank b % 3 (x fastest), %clusterid.x b / 3, %nclusterid.x 2. Thread 0
  // writes 16·ctaid + rank into the next rank's `slot` (mapa,
  // #data-movement-and-conversion-instructions-mapa) and arrives on rank 0's
  // mbarrier; after barrier.cluster each reads what its predecessor wrote,
  // and rank 0 sees its mbarrier's phase 0 complete (two remote arrivals and its own).
  const std::string text = kernel(R"(
	mov.u32 	%r1, %cluster_ctarank;
	mov.u32 	%r2, %cluster_nctarank;
	mov.u32 	%r3, slot;
	mov.u32 	%r9, bar;
	setp.ne.u32 	%p1, %r0, 0;
	@%p1 bra 	WAIT;
	setp.ne.u32 	%p2, %r1, 0;
	@%p2 bra 	INITED;
	mbarrier.init.shared::cta.b64 	[%r9], 3;
INITED:
	add.u32 	%r4, %r1, 1;
	rem.u32 	%r4, %r4, %r2;
	mapa.shared::cluster.u32 	%r5, %r3, %r4;
	mov.u32 	%r6, %ctaid.x;
	mul.lo.u32 	%r6, %r6, 16;
	add.u32 	%r6, %r6, %r1;
	st.shared::cluster.u32 	[%r5], %r6;
WAIT:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@%p1 bra 	STORE;
	mov.u32 	%r12, 0;
	mapa.shared::cluster.u32 	%r10, %r9, %r12;
	mbarrier.arrive.release.cluster.shared::cluster.b64 	_, [%r10];
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	mov.u32 	%r13, 0;
	@%p2 bra 	DONE;
	mbarrier.test_wait.parity.shared::cta.b64 	%p3, [%r9], 0;
	selp.u32 	%r13, 1, 0, %p3;
	bra 	DONE;
STORE:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	mov.u32 	%r13, 0;
DONE:
	@%p1 bra 	END;                 // thread 0 reports
	ld.shared.u32 	%r7, [slot];
	mov.u32 	%r8, %ctaid.x;
	mul.wide.u32 	%rd3, %r8, 64;
	add.s64 	%rd4, %rd0, %rd3;
	st.global.u32 	[%rd4], %r7;
	mov.u32 	%r14, %clusterid.x;
	st.global.u32 	[%rd4+4], %r14;
	mov.u32 	%r15, %nclusterid.x;
	st.global.u32 	[%rd4+8], %r15;
	mov.u32 	%r16, %cluster_ctaid.x;
	st.global.u32 	[%rd4+12], %r16;
	st.global.u32 	[%rd4+16], %r13;
END:
)",
                                  16, ".shared .align 4 .b32 slot;\n.shared .align 8 .b64 bar;\n");
  const ptx::Module m = ptx::Module::parse(text, "cluster.ptx");
  std::vector<std::uint32_t> out(6 * 16, 0xDEADBEEFu);
  std::uint32_t* p = out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
  for (unsigned threads : {1u, 2u}) {
    CAPTURE(threads);
    ptx::LaunchConfig config{.grid = {6, 1, 1}, .block = {32, 1, 1}, .cluster = {3, 1, 1}};
    config.options.threads = threads;
    ptx::launch(m, m.entry("k"), config, args, memory);
    for (unsigned b = 0; b < 6; ++b) {
      CAPTURE(b);
      const unsigned rank = b % 3, from_rank = (rank + 2) % 3, from = b / 3 * 3 + from_rank;
      CHECK(out[16 * b] == 16 * from + from_rank);
      CHECK(out[16 * b + 1] == b / 3);
      CHECK(out[16 * b + 2] == 2);
      CHECK(out[16 * b + 3] == rank);
      CHECK(out[16 * b + 4] == (rank == 0 ? 1u : 0u));
    }
  }
  // st.shared::cta cannot reach a peer: the address is named.
  const std::string cta_store = kernel(R"(
	mov.u32 	%r3, slot;
	mov.u32 	%r4, 1;
	mapa.shared::cluster.u32 	%r5, %r3, %r4;
	st.shared::cta.u32 	[%r5], %r4;
)",
                                       16, ".shared .align 4 .b32 slot;\n");
  const ptx::Module bad = ptx::Module::parse(cta_store, "cta.ptx");
  std::string e;
  try {
    ptx::launch(bad, bad.entry("k"), {.grid = {2, 1, 1}, .block = {32, 1, 1}, .cluster = {2, 1, 1}}, args, memory);
  } catch (const Error& x) {
    e = x.what();
  }
  CHECK(e.find("st.shared::cta.u32 by thread 0 (warp 0, lane 0) of rank 0) is invalid: an address of this CTA's own shared "
               "memory") != std::string::npos);
}

TEST_CASE("cvta.shared::cluster and cvta.to.shared::cluster: a peer's variable through the generic space and back") {
  // PTX #data-movement-and-conversion-instructions-cvta: .shared::cluster is one of cvta's spaces (PTX
  // 7.8). Each CTA of a pair makes its peer's `slot` a generic address (mapa, then cvta.shared::cluster),
  // stores 100 + its rank there with a generic st, and converts the generic address back
  // (cvta.to.shared::cluster): the shared::cluster address mapa gave. CuTe DSL's sm100 GEMMs convert so.
  const std::string text = kernel(R"(
	mov.u32 	%r1, %cluster_ctarank;
	mov.u32 	%r3, slot;
	xor.b32 	%r4, %r1, 1;
	mapa.shared::cluster.u32 	%r5, %r3, %r4;
	cvt.u64.u32 	%rd5, %r5;
	cvta.shared::cluster.u64 	%rd6, %rd5;
	add.u32 	%r6, %r1, 100;
	st.u32 	[%rd6], %r6;
	cvta.to.shared::cluster.u64 	%rd7, %rd6;
	cvt.u64.u32 	%rd8, %r5;
	setp.eq.u64 	%p1, %rd7, %rd8;
	selp.u32 	%r7, 1, 0, %p1;
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	ld.shared.u32 	%r8, [slot];
	mov.u32 	%r9, %ctaid.x;
	mul.wide.u32 	%rd3, %r9, 8;
	add.s64 	%rd4, %rd0, %rd3;
	st.global.u32 	[%rd4], %r8;
	st.global.u32 	[%rd4+4], %r7;
)",
                                  16, ".shared .align 4 .b32 slot;\n");
  const ptx::Module m = ptx::Module::parse(text, "cvta_cluster.ptx");
  std::vector<std::uint32_t> out(4, 0xDEADBEEFu);
  std::uint32_t* p = out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
  ptx::launch(m, m.entry("k"), {.grid = {2, 1, 1}, .block = {1, 1, 1}, .cluster = {2, 1, 1}}, args, memory);
  CHECK(out[0] == 101);  // rank 0's slot: what rank 1 stored
  CHECK(out[1] == 1);    // rank 0's round trip gave mapa's address back
  CHECK(out[2] == 100);
  CHECK(out[3] == 1);
}

TEST_CASE("mapa of a rank outside the cluster: an undefined address, a fault only where it is used") {
  // CuTe DSL's cluster launch control scheduler maps %laneid on all 32 lanes and stores through the
  // lanes below the cluster's size (B200s run it). Clusters of 2: in each CTA, lanes 0 and 1 write
  // 100 + lane into rank `lane`'s slot; thread 0 reports its slot after the cluster barrier.
  const auto body = [](const char* writers) {
    return std::string(R"(
	mov.u32 	%r3, slot;
	mov.u32 	%r4, %laneid;
	mapa.shared::cluster.u32 	%r5, %r3, %r4;
	add.u32 	%r6, %r4, 100;
	setp.ge.u32 	%p1, %r4, )") + writers + R"(;
	@%p1 bra 	WAIT;
	st.shared::cluster.u32 	[%r5], %r6;
WAIT:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	setp.ne.u32 	%p2, %r0, 0;
	@%p2 bra 	END;
	ld.shared.u32 	%r7, [slot];
	mov.u32 	%r8, %ctaid.x;
	mul.wide.u32 	%rd3, %r8, 4;
	add.s64 	%rd4, %rd0, %rd3;
	st.global.u32 	[%rd4], %r7;
END:
)";
  };
  std::vector<std::uint32_t> out(32 * 16, 0);
  std::uint32_t* p = out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
  const ptx::LaunchConfig config{.grid = {2, 1, 1}, .block = {32, 1, 1}, .cluster = {2, 1, 1}};
  const ptx::Module used_below = ptx::Module::parse(kernel(body("2"), 16, ".shared .align 4 .b32 slot;\n"), "mapa.ptx");
  ptx::launch(used_below, used_below.entry("k"), config, args, memory);
  CHECK(out[0] == 100);
  CHECK(out[1] == 101);
  // Lane 2's address used: the fault, at the store, names the mapa and the rank.
  const ptx::Module used_all = ptx::Module::parse(kernel(body("3"), 16, ".shared .align 4 .b32 slot;\n"), "mapa.ptx");
  std::string e;
  try {
    ptx::launch(used_all, used_all.entry("k"), config, args, memory);
  } catch (const Error& x) {
    e = x.what();
  }
  CHECK(e.find("an undefined value reaches an address") != std::string::npos);
  CHECK(e.find("holds the address mapa.shared::cluster.u32 at PTX line ") != std::string::npos);
  CHECK(e.find("lane 2") != std::string::npos);
  CHECK(e.find("for rank 2, outside the cluster's 2 CTAs") != std::string::npos);
}

TEST_CASE("st.async and red.async: a peer's stores land in this CTA's shared memory and complete its mbarrier's bytes") {
  // Two CTAs of a cluster, each the other's peer (PTX #data-movement-and-conversion-instructions-st-async,
  // -red-async): thread 0 expects 24 bytes on its own mbarrier, then sends its peer a .u32, a .v2.b32, a .b64
  // and a red.async.add.u32 (4 + 8 + 8 + 4 bytes), each completing on the peer's mbarrier; it waits for its
  // own phase 0 and reports what its peer sent. `cnt` starts at 100.
  const std::string body = R"(
	mov.u32 	%r1, %cluster_ctarank;
	xor.b32 	%r2, %r1, 1;
	mov.u32 	%r3, buf;
	mov.u32 	%r4, bar;
	mov.u32 	%r5, cnt;
	setp.ne.u32 	%p1, %r0, 0;
	@%p1 bra 	SYNC;
	mbarrier.init.shared::cta.b64 	[%r4], 1;
	mov.u32 	%r6, 100;
	st.shared.u32 	[%r5], %r6;
SYNC:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
	@%p1 bra 	DONE;
	mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r4], 24;
	mapa.shared::cluster.u32 	%r7, %r3, %r2;
	mapa.shared::cluster.u32 	%r8, %r4, %r2;
	mapa.shared::cluster.u32 	%r9, %r5, %r2;
	add.u32 	%r10, %r1, 1000;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 	[%r7], %r10, [%r8];
	mul.lo.u32 	%r11, %r1, 10;
	add.u32 	%r12, %r11, 1;
	add.u32 	%r13, %r11, 2;
	add.u32 	%r14, %r7, 8;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.b32 	[%r14], {%r12, %r13}, [%r8];
	cvt.u64.u32 	%rd3, %r1;
	add.u64 	%rd4, %rd3, 4294967296;
	add.u32 	%r15, %r7, 16;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 	[%r15], %rd4, [%r8];
	add.u32 	%r16, %r1, 5;
	red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 	[%r9], %r16, [%r8];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 	%p2, [%r4], 0;
	@!%p2 bra 	WAIT;
	ld.shared.u32 	%r17, [buf];
	ld.shared.v2.u32 	{%r18, %r19}, [buf+8];
	ld.shared.u32 	%r20, [buf+16];
	ld.shared.u32 	%r21, [buf+20];
	ld.shared.u32 	%r22, [cnt];
	mul.wide.u32 	%rd5, %r1, 64;
	add.s64 	%rd6, %rd0, %rd5;
	st.global.v4.u32 	[%rd6], {%r17, %r18, %r19, %r20};
	st.global.v2.u32 	[%rd6+16], {%r21, %r22};
DONE:
	barrier.cluster.arrive.release.aligned;
	barrier.cluster.wait.acquire.aligned;
)";
  const std::string shared = ".shared .align 16 .b8 buf[32];\n.shared .align 8 .b64 bar;\n.shared .align 4 .b32 cnt;\n";
  const ptx::Module m = ptx::Module::parse(kernel(body, 16, shared), "st_async.ptx");
  std::vector<std::uint32_t> out(2 * 16, 0xDEADBEEFu);
  std::uint32_t* p = out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
  ptx::launch(m, m.entry("k"), {.grid = {2, 1, 1}, .block = {32, 1, 1}, .cluster = {2, 1, 1}}, args, memory);
  for (std::uint32_t rank = 0; rank < 2; ++rank) {
    CAPTURE(rank);
    const std::uint32_t peer = rank ^ 1;
    CHECK(out[16 * rank] == 1000 + peer);
    CHECK(out[16 * rank + 1] == 10 * peer + 1);
    CHECK(out[16 * rank + 2] == 10 * peer + 2);
    CHECK(out[16 * rank + 3] == peer);  // the .b64's low word, then its high word 1
    CHECK(out[16 * rank + 4] == 1u);
    CHECK(out[16 * rank + 5] == 100 + 5 + peer);
  }
  // The mbarrier must be in the CTA the data goes to; the address aligned to the data's size.
  const auto fails = [&](const std::string& wrong) {
    const ptx::Module bad = ptx::Module::parse(kernel(wrong, 16, shared), "bad.ptx");
    try {
      ptx::launch(bad, bad.entry("k"), {.grid = {2, 1, 1}, .block = {32, 1, 1}, .cluster = {2, 1, 1}}, args, memory);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string other_bar = fails(R"(
	mov.u32 	%r3, buf;
	mov.u32 	%r4, bar;
	mov.u32 	%r2, 1;
	mapa.shared::cluster.u32 	%r7, %r3, %r2;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 	[%r7], %r2, [%r4];
)");
  CHECK_MESSAGE(other_bar.find("remote_bar") != std::string::npos, other_bar);
  CHECK_MESSAGE(other_bar.find("an mbarrier in the CTA the data goes to, rank 1") != std::string::npos, other_bar);
  const std::string misaligned = fails(R"(
	mov.u32 	%r3, buf;
	mov.u32 	%r4, bar;
	add.u32 	%r3, %r3, 4;
	mov.u64 	%rd3, 7;
	st.async.shared::cluster.mbarrier::complete_tx::bytes.b64 	[%r3], %rd3, [%r4];
)");
  CHECK_MESSAGE(misaligned.find("a multiple of 8 bytes") != std::string::npos, misaligned);
  // Forms PTX does not have are listed, with the forms it has, when the module loads.
  const ptx::Module bad_op = ptx::Module::parse(kernel(R"(
	mov.u32 	%r3, buf;
	mov.u32 	%r4, bar;
	red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.s32 	[%r3], %r4, [%r4];
	st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b64 	[%r3], {%rd1, %rd2, %rd3, %rd4}, [%r4];
)", 16, shared), "bad_op.ptx");
  const auto& missing = bad_op.entry("k").unsupported;
  REQUIRE(missing.size() == 2);
  CHECK(missing[0].missing.find(".inc/.dec.u32") != std::string::npos);
  CHECK(missing[1].missing.find("a .v4 of the 32-bit ones") != std::string::npos);
}

TEST_CASE("stmatrix and ldmatrix m8n8.x4: fragment (t/4, 2(t%4)) per register, rows by thread address, .trans (PTX #warp-level-matrix-instructions-stmatrix)") {
  // Register i of thread t: element (t/4, 2(t%4)) of matrix i in its low half, the next column in its high half,
  // valued 100·i + 8·row + column. Thread 8i + j names row j of matrix i at buf + 16·(8i + j).
  const std::vector<std::uint32_t> o = run(R"(
	shl.b32 	%r1, %r0, 1;                // 2t = 8·(t/4) + 2·(t%4): the low element's 8·row + column
	add.s32 	%r2, %r1, 1;
	shl.b32 	%r2, %r2, 16;
	or.b32  	%r3, %r1, %r2;              // matrix 0's register
	add.s32 	%r4, %r3, 0x00640064;       // + 100 in each half: matrix 1
	add.s32 	%r5, %r3, 0x00C800C8;
	add.s32 	%r6, %r3, 0x012C012C;
	mov.u32 	%r7, buf;
	shl.b32 	%r8, %r0, 4;
	add.s32 	%r9, %r7, %r8;
	stmatrix.sync.aligned.m8n8.x4.shared.b16 	[%r9], {%r3, %r4, %r5, %r6};
	bar.warp.sync 	-1;
	ld.shared.v4.u32 	{%r10, %r11, %r12, %r13}, [%r9];
	st.global.v4.u32 	[%rd1], {%r10, %r11, %r12, %r13};
	ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 	{%r14, %r15, %r16, %r17}, [%r9];
	st.global.v4.u32 	[%rd1+16], {%r14, %r15, %r16, %r17};
	ldmatrix.sync.aligned.m8n8.x4.shared.b16 	{%r18, %r19, %r20, %r21}, [%r9];
	st.global.v4.u32 	[%rd1+32], {%r18, %r19, %r20, %r21};
)", 32, 16, nullptr, false, ".shared .align 16 .b8 buf[512];\n");
  const auto half = [](std::uint32_t v, int h) { return (v >> (16 * h)) & 0xFFFFu; };
  for (std::uint32_t t = 0; t < 32; ++t) {
    CAPTURE(t);
    const std::uint32_t m = t / 8, row = t % 8;
    // Memory row `row` of matrix m holds its 8 columns in order.
    for (int k = 0; k < 8; ++k) CHECK(half(o[16 * t + k / 2], k % 2) == 100 * m + 8 * row + k);
    for (int i = 0; i < 4; ++i) {
      const std::uint32_t r = t / 4, c = 2 * (t % 4);
      // ldmatrix.trans gives register i the transposed matrix's elements (r, c): the stored (c, r).
      CHECK(half(o[16 * t + 4 + i], 0) == 100u * i + 8 * c + r);
      CHECK(half(o[16 * t + 4 + i], 1) == 100u * i + 8 * (c + 1) + r);
      // Without .trans, the round trip gives back what was stored.
      CHECK(half(o[16 * t + 8 + i], 0) == 100u * i + 8 * r + c);
      CHECK(half(o[16 * t + 8 + i], 1) == 100u * i + 8 * r + c + 1);
    }
  }
}

TEST_CASE(".b128 registers: mov.b128 packs two .b64 low first; ld/st.shared.b128 move all 16 bytes") {
  const std::vector<std::uint32_t> o = run(R"(
	.reg .b128 	%q<2>;
	mov.u64 	%rd3, 0x1111222233334444;
	cvt.u64.u32 	%rd4, %r0;
	mov.b128 	%q0, {%rd3, %rd4};
	mov.u32 	%r1, buf;
	shl.b32 	%r2, %r0, 4;
	add.s32 	%r3, %r1, %r2;
	st.shared.b128 	[%r3], %q0;
	ld.shared.b128 	%q1, [%r3];
	mov.b128 	{%rd5, %rd6}, %q1;
	st.global.v2.u64 	[%rd1], {%rd5, %rd6};
	ld.shared.v4.u32 	{%r4, %r5, %r6, %r7}, [%r3];
	st.global.v4.u32 	[%rd1+16], {%r4, %r5, %r6, %r7};
)", 32, 16, nullptr, false, ".shared .align 16 .b8 buf[512];\n");
  for (std::uint32_t t = 0; t < 32; ++t) {
    CAPTURE(t);
    CHECK(o[16 * t + 0] == 0x33334444u);
    CHECK(o[16 * t + 1] == 0x11112222u);
    CHECK(o[16 * t + 2] == t);
    CHECK(o[16 * t + 3] == 0u);
    CHECK(o[16 * t + 4] == 0x33334444u);  // the low 64 bits at the lower address
    CHECK(o[16 * t + 6] == t);
  }
}

TEST_CASE("bar.red: a barrier that reduces a predicate over its threads, popc, and, or (PTX #parallel-synchronization-and-communication-instructions-bar)") {
  const std::vector<std::uint32_t> o = run(R"(
	and.b32 	%r1, %r0, 3;
	setp.eq.u32 	%p1, %r1, 0;                 // every fourth thread
	bar.red.popc.u32 	%r2, 1, 64, %p1;
	bar.red.and.pred 	%p2, 2, %p1;
	bar.red.or.pred 	%p3, 2, %p1;
	bar.red.popc.u32 	%r3, 1, 64, !%p1;
	selp.u32 	%r4, 1, 0, %p2;
	selp.u32 	%r5, 1, 0, %p3;
	st.global.v4.u32 	[%rd1], {%r2, %r3, %r4, %r5};
)", 64);
  for (int t = 0; t < 64; ++t) {
    CAPTURE(t);
    CHECK(o[16 * t] == 16u);
    CHECK(o[16 * t + 1] == 48u);
    CHECK(o[16 * t + 2] == 0u);
    CHECK(o[16 * t + 3] == 1u);
  }
}

TEST_CASE("setmaxnreg: a multiple of 8 in [24, 256]; the same in all four warps of the warpgroup, a PTX letter") {
  run("\tsetmaxnreg.inc.sync.aligned.u32 \t232;\n", 128);  // all four warps: fine
  CHECK(error_of("\tsetmaxnreg.dec.sync.aligned.u32 \t20;\n").find("setmaxnreg register count = 20 is invalid: a "
                                                                 "multiple of 8 in [24, 256]") != std::string::npos);
  // CUTLASS's FMHA gives its idle warp another count than the other three of its warpgroup (on B200s):
  // the same step with another count, a letter.
  const std::string counts = R"(
	setp.lt.u32 	%p1, %r0, 96;
	@%p1 setmaxnreg.dec.sync.aligned.u32 	40;
	@!%p1 setmaxnreg.dec.sync.aligned.u32 	24;
)";
  ptx::LaunchStats stats;
  run(counts, 128, 16, &stats);
  CHECK(stats.warnings["setmaxnreg_not_uniform"] == 1u);  // warp 3 against warp 0
  CHECK(stats.first_warning["setmaxnreg_not_uniform"].find("block (0, 0, 0), warpgroup 0: setmaxnreg = warp 3: dec 24; "
                                                          "warp 0: dec 40 is invalid") != std::string::npos);
  CHECK(error_of(counts, 128, true).find("setmaxnreg_not_uniform, a PTX-letter rule") != std::string::npos);
  // CUTLASS's generation FMHA raises one warp's count where the other three of its warpgroup lower
  // theirs (on B200s): the other direction, a letter too.
  ptx::LaunchStats both_ways;
  run(R"(
	setp.lt.u32 	%p1, %r0, 32;
	@%p1 setmaxnreg.inc.sync.aligned.u32 	192;
	@!%p1 setmaxnreg.dec.sync.aligned.u32 	24;
)", 128, 16, &both_ways);
  CHECK(both_ways.warnings["setmaxnreg_not_uniform"] == 3u);  // warps 1-3 against warp 0
  // A warp that skips the step stays a fault.
  const std::string e = error_of(R"(
	setp.lt.u32 	%p1, %r0, 64;
	@%p1 setmaxnreg.dec.sync.aligned.u32 	40;
)", 128);
  CHECK(e.find("setmaxnreg = warp 2: none; warp 0: dec 40 is invalid: the same setmaxnreg sequence in all four "
               "warps of warpgroup 0") != std::string::npos);
}

TEST_CASE("mbarrier spellings: arrive with a count, standalone expect_tx and complete_tx, test_wait, sem and scope qualifiers") {
  const std::vector<std::uint32_t> o = run(R"(
	setp.eq.u32 	%p1, %r0, 0;
	@%p1 mbarrier.init.shared::cta.b64 	[bar], 2;
	bar.sync 	0;
	@%p1 mbarrier.expect_tx.relaxed.cta.shared::cta.b64 	[bar], 64;
	@%p1 mbarrier.arrive.release.cta.shared::cta.b64 	%rd3, [bar], 2;
	@%p1 mbarrier.test_wait.parity.shared::cta.b64 	%p2, [bar], 0;   // 64 bytes still expected
	@%p1 mbarrier.complete_tx.shared::cta.b64 	[bar], 64;
	bar.sync 	0;
	mbarrier.test_wait.parity.acquire.cta.shared::cta.b64 	%p3, [bar], 0;
	selp.u32 	%r1, 1, 0, %p2;
	selp.u32 	%r2, 1, 0, %p3;
	st.global.v2.u32 	[%rd1], {%r1, %r2};
)", 32, 16, nullptr, false, ".shared .align 8 .b8 bar[8];\n");
  CHECK(o[0] == 0u);
  for (int t = 0; t < 32; ++t) CHECK(o[16 * t + 1] == 1u);
}

// One warp: columns 0 and 1 stored, tcgen05.ld of lane t, column 0, `use` after it, then tcgen05.cp
// overwrites columns 0 to 7.
std::string ld_then_cp(const std::string& use) {
  return R"(
	mov.u32 	%r1, slot;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 	[%r1], 32;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	setp.eq.u32 	%p1, %r0, 0;
	@%p1 mbarrier.init.shared::cta.b64 	[mb], 1;
	fence.proxy.async.shared::cta;
	bar.sync 	0;
	ld.shared.u32 	%r2, [%r1];
	tcgen05.st.sync.aligned.32x32b.x2.b32 	[%r2], {%r0, %r0};
	tcgen05.wait::st.sync.aligned;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 	{%r5}, [%r2];
	)" + use + R"(
	mov.u64 	%rd3, 0x0000400800800040;          // K-major, no swizzle, at 0x400: LBO 2048, SBO 128
	@%p1 tcgen05.cp.cta_group::1.128x256b 	[%r2], %rd3;
	@%p1 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 	[mb];
	mbarrier.try_wait.parity.shared::cta.b64 	%p2, [mb], 0;
	tcgen05.fence::after_thread_sync;
	st.global.u32 	[%rd1], %r6;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 	%r2, 32;
)";
}

TEST_CASE("a tcgen05.ld whose registers were used is complete: an async overwrite after it is ordered") {
  // CUTLASS's FMHA (77_blackwell_fmha) never runs tcgen05.wait::ld: its softmax warps use the S they
  // loaded (ptxas's register scoreboard waits for the load), then its MMA warp overwrites S.
  const std::string prelude = ".shared .align 4 .b8 slot[4];\n.shared .align 8 .b8 mb[8];\n.shared .align 1024 .b8 tile[8192];\n";
  ptx::LaunchStats stats;
  const std::vector<std::uint32_t> o = run(ld_then_cp("add.u32 \t%r6, %r5, 1;"), 32, 16, &stats, false, prelude);
  for (std::uint32_t t = 0; t < 32; ++t) CHECK(o[16 * t] == t + 1);
  CHECK(stats.warnings["ld_register_before_wait"] == 32u);
  // The fault stays one where nothing waited: no use of the registers, no tcgen05.wait::ld.
  std::string e;
  try {
    run(ld_then_cp("mov.u32 \t%r6, 0;"), 32, 16, nullptr, false, prelude);
  } catch (const ptx::ExecutionError& x) {
    e = x.what();
  }
  CAPTURE(e);
  CHECK(e.find("which has not executed tcgen05.wait::ld since") != std::string::npos);
  // Using one load's registers completes that load, not a newer one (column 1, read after it).
  std::string newer;
  try {
    run(ld_then_cp("tcgen05.ld.sync.aligned.32x32b.x1.b32 \t{%r7}, [%r2+1];\n\tadd.u32 \t%r6, %r5, 1;"), 32, 16, nullptr,
        false, prelude);
  } catch (const ptx::ExecutionError& x) {
    newer = x.what();
  }
  CAPTURE(newer);
  CHECK(newer.find("column 1: it is read by tcgen05.ld") != std::string::npos);
}

TEST_CASE("cp.async: global to shared, src-size zero-fills, ignore-src, groups, and mbarrier arrivals") {
  // PTX #data-movement-and-conversion-instructions-cp-async: cp-size bytes land; past src-size, zeros;
  // ignore-src true, all zeros. cp.async.mbarrier.arrive.noinc counts as an arrival, without .noinc not.
  const std::string body = R"(
	mov.u32 	%r1, buf;
	shl.b32 	%r2, %r0, 4;
	add.u32 	%r3, %r1, %r2;
	add.u32 	%r4, %r0, 100;
	st.global.v4.u32 	[%rd1], {%r4, %r4, %r4, %r4};
	cp.async.ca.shared.global 	[%r3], [%rd1], 16, 8;
	cp.async.commit_group;
	cp.async.wait_group 	0;
	ld.shared.v4.u32 	{%r5, %r6, %r7, %r8}, [%r3];
	st.global.v4.u32 	[%rd1+16], {%r5, %r6, %r7, %r8};
	cp.async.ca.shared.global 	[%r3], [%rd1], 4;
	st.shared.u32 	[%r3+512], %r4;
	setp.eq.u32 	%p1, %r0, %r0;
	cp.async.cg.shared.global 	[%r3+512], [%rd1], 16, %p1;
	cp.async.wait_all;
	ld.shared.u32 	%r5, [%r3];
	ld.shared.u32 	%r6, [%r3+512];
	st.global.v2.u32 	[%rd1+32], {%r5, %r6};
	setp.eq.u32 	%p2, %r0, 0;
	@%p2 mbarrier.init.shared.b64 	[mb], 32;
	@%p2 mbarrier.init.shared.b64 	[mb+8], 32;
	bar.sync 	0;
	cp.async.mbarrier.arrive.noinc.shared.b64 	[mb];
	cp.async.mbarrier.arrive.shared::cta.b64 	[mb+8];
	bar.sync 	0;
	mbarrier.test_wait.parity.shared::cta.b64 	%p3, [mb], 0;
	mbarrier.test_wait.parity.shared::cta.b64 	%p4, [mb+8], 0;
	selp.u32 	%r9, 1, 0, %p3;
	selp.u32 	%r10, 1, 0, %p4;
	st.global.v2.u32 	[%rd1+40], {%r9, %r10};
)";
  const std::vector<std::uint32_t> o =
      run(body, 32, 16, nullptr, true, ".shared .align 16 .b8 buf[1024];\n.shared .align 8 .b8 mb[16];\n");
  for (std::uint32_t t = 0; t < 32; ++t) {
    CAPTURE(t);
    const std::uint32_t v = t + 100;
    CHECK(o[16 * t + 4] == v);  // src-size 8 of 16: two words copied, two zeros
    CHECK(o[16 * t + 5] == v);
    CHECK(o[16 * t + 6] == 0u);
    CHECK(o[16 * t + 7] == 0u);
    CHECK(o[16 * t + 8] == v);   // 4 bytes copied
    CHECK(o[16 * t + 9] == 0u);  // ignore-src: zeros over what was there
    CHECK(o[16 * t + 10] == 1u);  // 32 .noinc arrivals complete the phase
    CHECK(o[16 * t + 11] == 0u);  // without .noinc they do not count
  }
  // .cg copies 16 bytes only: another size is invalid PTX, listed as such.
  const ptx::Module m = ptx::Module::parse(kernel("\tcp.async.cg.shared.global \t[%r1], [%rd1], 8;\n"), "cg.ptx");
  REQUIRE(m.entry("k").unsupported.size() == 1);
  CHECK(m.entry("k").unsupported[0].missing.find("invalid PTX (ptxas refuses it): cp-size 8 with .cg") == 0);
}

TEST_CASE("redux.sync: integer and bitwise reductions, and f32 min/max with .abs and .NaN") {
  // PTX #parallel-synchronization-and-communication-instructions-redux-sync. Lane l holds l - 5 (as s32),
  // 1 << (l % 8); f32 lane l: l - 20.5, lane 7 NaN, lane 3 -0.
  const std::string body = R"(
	sub.s32 	%r1, %r0, 5;
	redux.sync.add.s32 	%r2, %r1, 0xffffffff;
	redux.sync.min.s32 	%r3, %r1, 0xffffffff;
	redux.sync.max.u32 	%r4, %r1, 0xffffffff;
	and.b32 	%r5, %r0, 7;
	shl.b32 	%r5, 1, %r5;
	cvt.rn.f32.s32 	%f1, %r0;
	sub.f32 	%f1, %f1, 0f41A40000;
	setp.eq.u32 	%p1, %r0, 7;
	@%p1 mov.b32 	%f1, 0x7fc00000;
	setp.eq.u32 	%p2, %r0, 3;
	@%p2 mov.b32 	%f1, 0x80000000;
	redux.sync.min.f32 	%f2, %f1, 0xffffffff;
	redux.sync.max.abs.f32 	%f3, %f1, 0xffffffff;
	redux.sync.min.NaN.f32 	%f4, %f1, 0xffffffff;
	mov.u32 	%r6, 0;
	setp.lt.u32 	%p3, %r0, 16;
	@%p3 redux.sync.or.b32 	%r6, %r5, 0x0000ffff;
	st.global.v4.u32 	[%rd1], {%r2, %r3, %r4, %r6};
	st.global.v4.b32 	[%rd1+16], {%f2, %f3, %f4, %f4};
)";
  const std::vector<std::uint32_t> o = run(body);
  for (int t = 0; t < 32; ++t) {
    CAPTURE(t);
    CHECK(o[16 * t] == static_cast<std::uint32_t>(32 * 31 / 2 - 5 * 32));  // 336
    CHECK(o[16 * t + 1] == static_cast<std::uint32_t>(-5));
    CHECK(o[16 * t + 2] == static_cast<std::uint32_t>(-1));  // unsigned: -1 is the largest
    CHECK(o[16 * t + 3] == (t < 16 ? 0xFFu : 0u));            // lanes 0-15 only: bits 0-7
    CHECK(f(o[16 * t + 4]) == -20.5f);                       // the NaN passed over
    CHECK(f(o[16 * t + 5]) == 20.5f);                        // |l - 20.5| at lane 0 (lane 41 does not exist)
    CHECK(o[16 * t + 6] == 0x7FFFFFFFu);                       // .NaN: the canonical NaN wins
  }
}

TEST_CASE("a shared::cta address given as a generic one to a shared-only instruction: a PTX letter") {
  // As __cvta_generic_to_shared's value widened to 64 bits: the hardware keeps the low 32 bits.
  const std::string body = R"(
	mov.u32 	%r1, bar;
	cvt.u64.u32 	%rd3, %r1;
	setp.eq.u32 	%p1, %r0, 0;
	@%p1 mbarrier.init.b64 	[%rd3], 32;
	bar.sync 	0;
	mbarrier.arrive.b64 	%rd4, [%rd3];
	bar.sync 	0;
	mbarrier.test_wait.parity.shared::cta.b64 	%p2, [bar], 0;
	selp.u32 	%r2, 1, 0, %p2;
	st.global.u32 	[%rd1], %r2;
)";
  const std::string bar = ".shared .align 8 .b8 bar[8];\n";
  ptx::LaunchStats stats;
  const std::vector<std::uint32_t> o = run(body, 32, 16, &stats, false, bar);
  for (int t = 0; t < 32; ++t) CHECK(o[16 * t] == 1u);  // the phase completed: the offset named the barrier
  CHECK(stats.warnings["shared_offset_as_generic"] == 33u);
  std::string strict;
  try {
    run(body, 32, 16, nullptr, true, bar);
  } catch (const ptx::ExecutionError& e) {
    strict = e.what();
  }
  CHECK(strict.find("shared_offset_as_generic, a PTX-letter rule") != std::string::npos);
  // The true fault: a global pointer is no shared address.
  std::string global;
  try {
    run("\tmbarrier.init.b64 \t[%rd1], 32;\n", 32, 16, nullptr, false, bar);
  } catch (const ptx::ExecutionError& e) {
    global = e.what();
  }
  CHECK(global.find("generic address = 0x") != std::string::npos);
  CHECK(global.find("is invalid: an address in the shared window") != std::string::npos);
}

// Warp 0 allocates and arrives at named barrier `writer_barrier` (bar.arrive); the other warps wait on
// barrier 1 (bar.sync 1, count) and read the address: CUTLASS's hand-off to its epilogue warps
// (70_blackwell_gemm) when warp 0 arrives at barrier 1 too.
std::string named_barrier_handoff(int writer_barrier, int count) {
  return R"(
	mov.u32 	%r1, slot;
	shr.u32 	%r3, %r0, 5;                       // the warp
	setp.eq.u32 	%p1, %r3, 0;
	@%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 	[%r1], 32;
	@%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	@%p1 bar.arrive 	)" + std::to_string(writer_barrier) + ", " + std::to_string(writer_barrier == 1 ? count : 32) + R"(;
	@!%p1 bar.sync 	1, )" + std::to_string(count) + R"(;
	@!%p1 ld.shared.u32 	%r2, [%r1];
	@!%p1 st.global.u32 	[%rd1], %r2;
	bar.sync 	0;
	@%p1 ld.shared.u32 	%r2, [%r1];
	@%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 	%r2, 32;
)";
}

TEST_CASE("the TMEM address handed on by a named barrier: the allocating warp arrives, the readers wait") {
  const std::string slot = ".shared .align 4 .b8 slot[4];\n";
  // Warp 0 arrives at barrier 1 of 64 threads, warp 1 waits there: warp 1 reads the address (column 0).
  const std::vector<std::uint32_t> o = run(named_barrier_handoff(1, 64), 64, 16, nullptr, true, slot);
  for (int t = 32; t < 64; ++t) CHECK(o[16 * t] == 0u);
  // The true fault: warps 1 and 2 meet at barrier 1 while warp 0 arrives at barrier 2.
  std::string e;
  try {
    run(named_barrier_handoff(2, 64), 96, 16, nullptr, true, slot);
  } catch (const Error& x) {
    e = x.what();
  }
  CAPTURE(e);
  CHECK(e.find("wrote the Tensor Memory address there, and no barrier has ordered this warp after it") !=
        std::string::npos);
}

// One CTA of four warps: a sparse kind::f16 MMA, M = 128, N = 8, K = 32, spelled `mma` with operands %r2 (D),
// %rd5 (A), %rd6 (B), [%r14] (metadata), %r13 (idesc), %p7 (false). A keeps 1.0 and 2.0 of each chunk of four;
// B's rows hold 1, 2, 3, 4 at K positions 4j .. 4j + 3; warp q's lanes hold metadata entry e_q in every
// nibble of column 8, so row r (of warp r / 32) sums 8 · (p0 + 1 + 2 (p1 + 1)) over the entry's positions
// (p0, p1). Each thread writes its row of D (8 floats). meta_lane: the metadata's lane, 0 but for the fault.
std::string sparse_mma(const std::string& mma, int meta_lane = 0) {
  return R"(
	mov.u32 	%r1, slot;
	mov.u32 	%r3, sm;                           // A (128 rows x 16 kept fp16) at sm, B (8 x 32) at sm + 4096
	shr.u32 	%r4, %r0, 5;                       // the warp
	setp.eq.u32 	%p1, %r4, 0;
	setp.eq.u32 	%p2, %r0, 0;
	@%p1 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 	[%r1], 32;
	@%p1 tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	@%p2 mbarrier.init.shared::cta.b64 	[mb], 1;
	shl.b32 	%r5, %r0, 5;
	add.u32 	%r6, %r3, %r5;
	mov.u32 	%r7, 0x40003C00;                   // fp16 {1.0, 2.0}: every pair of kept values
	st.shared.v4.u32 	[%r6], {%r7, %r7, %r7, %r7};
	st.shared.v4.u32 	[%r6+16], {%r7, %r7, %r7, %r7};
	and.b32 	%r8, %r0, 1;
	setp.eq.u32 	%p3, %r8, 0;
	selp.u32 	%r9, 0x40003C00, 0x44004200, %p3;  // B: fp16 1, 2 | 3, 4
	shl.b32 	%r10, %r0, 2;
	add.u32 	%r10, %r10, %r3;
	st.shared.u32 	[%r10+4096], %r9;
	fence.proxy.async.shared::cta;
	bar.sync 	0;
	ld.shared.u32 	%r2, [%r1];
	setp.eq.u32 	%p4, %r4, 1;
	setp.eq.u32 	%p5, %r4, 2;
	setp.eq.u32 	%p6, %r4, 3;
	mov.u32 	%r11, 0x44444444;                  // warp 0: 0b0100, positions (0, 1)
	@%p4 mov.u32 	%r11, 0x66666666;              // warp 1: 0b0110, (2, 1)
	@%p5 mov.u32 	%r11, 0x99999999;              // warp 2: 0b1001, (1, 2)
	@%p6 mov.u32 	%r11, 0xEEEEEEEE;              // warp 3: 0b1110, (2, 3)
	shl.b32 	%r12, %r4, 21;                     // lane 32q
	add.u32 	%r12, %r12, %r2;
	tcgen05.st.sync.aligned.32x32b.x1.b32 	[%r12+8], {%r11};
	tcgen05.wait::st.sync.aligned;
	tcgen05.fence::before_thread_sync;
	bar.sync 	0;
	tcgen05.fence::after_thread_sync;
	cvt.u64.u32 	%rd4, %r3;
	shr.u64 	%rd4, %rd4, 4;
	or.b64 	%rd5, %rd4, 0x0000400800800000;        // K-major, no swizzle: LBO 2048, SBO 128
	add.u64 	%rd6, %rd4, 256;
	or.b64 	%rd6, %rd6, 0x0000400800080000;        // LBO 128, SBO 128
	mov.u32 	%r13, 0x08020014;                  // M 128, N 8, f16 x f16 -> f32, sparse
	add.u32 	%r14, %r2, )" + std::to_string(meta_lane << 16 | 8) + R"(;
	mov.u32 	%r24, 0;
	setp.ne.u32 	%p7, %r24, 0;
	@%p2 )" + mma + R"(
	@%p2 tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 	[mb];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 	%p3, [mb], 0;
	@!%p3 bra.uni 	WAIT;
	tcgen05.fence::after_thread_sync;
	tcgen05.ld.sync.aligned.32x32b.x8.b32 	{%r16, %r17, %r18, %r19, %r20, %r21, %r22, %r23}, [%r12];
	tcgen05.wait::ld.sync.aligned;
	st.global.v4.u32 	[%rd1], {%r16, %r17, %r18, %r19};
	st.global.v4.u32 	[%rd1+16], {%r20, %r21, %r22, %r23};
	tcgen05.fence::before_thread_sync;
	bar.sync 	0;
	@%p1 tcgen05.dealloc.cta_group::1.sync.aligned.b32 	%r2, 32;
)";
}

TEST_CASE("tcgen05.mma.sp: [sp-meta-tmem] before idesc, with and without the lane mask; the metadata decides D") {
  const std::string shared =
      ".shared .align 1024 .b8 sm[4608];\n.shared .align 8 .b8 mb[8];\n.shared .align 4 .b8 slot[4];\n";
  for (const std::string mma : {"tcgen05.mma.sp.cta_group::1.kind::f16 \t[%r2], %rd5, %rd6, [%r14], %r13, %p7;",
                                "tcgen05.mma.sp.cta_group::1.kind::f16 \t[%r2], %rd5, %rd6, [%r14], %r13, "
                                "{%r24, %r24, %r24, %r24}, %p7;"}) {
    CAPTURE(mma);
    const std::vector<std::uint32_t> o = run(sparse_mma(mma), 128, 16, nullptr, false, shared);
    // 8 chunks of (p0 + 1) · 1.0 + (p1 + 1) · 2.0: (0, 1) 40, (2, 1) 56, (1, 2) 64, (2, 3) 88.
    constexpr float kD[4] = {40.0f, 56.0f, 64.0f, 88.0f};
    int wrong = 0;
    for (int t = 0; t < 128; ++t)
      for (int n = 0; n < 8; ++n) wrong += f(o[std::size_t(16 * t + n)]) != kD[t / 32];
    CHECK(wrong == 0);
  }
  // Metadata at lane 32: the model's rule, at the instruction's PTX line.
  const std::string body =
      sparse_mma("tcgen05.mma.sp.cta_group::1.kind::f16 \t[%r2], %rd5, %rd6, [%r14], %r13, %p7;", 32);
  std::string e;
  try {
    run(body, 128, 16, nullptr, false, shared);
  } catch (const Error& x) {
    e = x.what();
  }
  CAPTURE(e);
  CHECK(e.find("sp-meta-tmem lane = 32") != std::string::npos);
  CHECK(e.find("@%p2 tcgen05.mma.sp.cta_group::1.kind::f16") != std::string::npos);  // the PTX line
  CHECK(e.find("#tcgen05-sparse-matrices-alignment-restriction") != std::string::npos);
}

TEST_CASE("a lone lane's tcgen05.ld while its warp-mates wait on an mbarrier: a PTX letter, an error when strict") {
  // A producer lane loads Tensor Memory and then arrives on the mbarrier lanes 1-31 wait on: B200s run
  // the .sync.aligned load and wait for lane 0 alone and later for the others (aligned_lanes_apart).
  const std::string body = R"(
	mov.u32 	%r1, slot;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 	[%r1], 32;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	setp.eq.u32 	%p1, %r0, 0;
	@%p1 mbarrier.init.shared::cta.b64 	[mb], 1;
	bar.sync 	0;
	ld.shared.u32 	%r2, [%r1];
	add.u32 	%r3, %r0, 100;
	tcgen05.st.sync.aligned.32x32b.x1.b32 	[%r2], {%r3};
	tcgen05.wait::st.sync.aligned;
	@!%p1 bra 	WAITERS;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 	{%r5}, [%r2];
	tcgen05.wait::ld.sync.aligned;
	mbarrier.arrive.shared::cta.b64 	%rd3, [mb];
	bra 	DONE;
WAITERS:
	mbarrier.try_wait.parity.shared::cta.b64 	%p2, [mb], 0;
	@!%p2 bra 	WAITERS;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 	{%r5}, [%r2];
	tcgen05.wait::ld.sync.aligned;
DONE:
	st.global.u32 	[%rd1], %r5;
	bar.sync 	0;
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 	%r2, 32;
)";
  const std::string shared = ".shared .align 8 .b8 mb[8];\n.shared .align 4 .b8 slot[4];\n";
  ptx::LaunchStats stats;
  const std::vector<std::uint32_t> o = run(body, 32, 16, &stats, false, shared);
  for (std::uint32_t t = 0; t < 32; ++t) CHECK(o[16 * t] == 100 + t);
  // Lane 0's load and wait, then lanes 1-31's.
  CHECK(stats.warnings["aligned_lanes_apart"] == 4u);
  std::string strict_error;
  try {
    run(body, 32, 16, nullptr, true, shared);
  } catch (const Error& e) {
    strict_error = e.what();
  }
  CHECK(strict_error.find("lanes = 1 lane of warp 0 at test.ptx:") != std::string::npos);
  CHECK(strict_error.find("31 lanes of the warp did not come") != std::string::npos);
}

TEST_CASE("a tcgen05.ld destination read before tcgen05.wait::ld: a counted PTX letter, an error when strict") {
  const std::string body = R"(
	mov.u32 	%r1, slot;
	tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 	[%r1], 32;
	tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;
	bar.sync 	0;
	ld.shared.u32 	%r2, [%r1];
	tcgen05.fence::after_thread_sync;
	tcgen05.st.sync.aligned.32x32b.x1.b32 	[%r2], {%r0};
	tcgen05.wait::st.sync.aligned;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 	{%r3}, [%r2];
	tcgen05.wait::ld.sync.aligned;
	tcgen05.ld.sync.aligned.32x32b.x1.b32 	{%r5}, [%r2];
	add.s32 	%r4, %r3, 0;                // waited for before the second load: no letter
	add.s32 	%r6, %r5, 1;                // before the wait
	tcgen05.wait::ld.sync.aligned;
	add.s32 	%r7, %r5, 2;                // after it
	st.global.v2.u32 	[%rd1], {%r6, %r7};
	tcgen05.dealloc.cta_group::1.sync.aligned.b32 	%r2, 32;
)";
  const std::string slot = ".shared .align 4 .b8 slot[4];\n";
  ptx::LaunchStats stats;
  const std::vector<std::uint32_t> o = run(body, 32, 16, &stats, false, slot);
  for (std::uint32_t t = 0; t < 32; ++t) {
    CHECK(o[16 * t] == t + 1);
    CHECK(o[16 * t + 1] == t + 2);
  }
  CHECK(stats.warnings["ld_register_before_wait"] == 32u);  // once per thread
  // The interpreter's own letter, where it was first broken: the add before the wait.
  CAPTURE(stats.first_warning["ld_register_before_wait"]);
  CHECK(stats.first_warning["ld_register_before_wait"].find("(add.s32) of kernel ") != std::string::npos);
  CHECK(stats.first_warning["ld_register_before_wait"].find(", warp 0, lane ") != std::string::npos);
  std::string strict_error;
  try {
    run(body, 32, 16, nullptr, true, slot);
  } catch (const ptx::ExecutionError& e) {
    strict_error = e.what();
  }
  CHECK(strict_error.find("a destination of tcgen05.ld read by add.s32") != std::string::npos);
  CHECK(strict_error.find("PTX #tcgen05-instructions-tcgen05-wait") != std::string::npos);
  CHECK(strict_error.find("a PTX-letter rule: an error in strict mode") != std::string::npos);
}

TEST_CASE("%clock64 moves while a thread runs: a spin on it ends") {
  const std::vector<std::uint32_t> o = run(R"(
	mov.u64 	%rd3, %clock64;
SPIN:
	mov.u64 	%rd4, %clock64;
	sub.s64 	%rd5, %rd4, %rd3;
	setp.lt.u64 	%p1, %rd5, 1000;
	@%p1 bra 	SPIN;
	st.global.u32 	[%rd1], 1;
)", 32);
  for (int t = 0; t < 32; ++t) CHECK(o[16 * t] == 1u);
}

TEST_CASE("errors name the PTX line, the thread and what was expected") {
  SUBCASE("an opcode the interpreter does not run stops at that line") {
    const std::string body = "\ttcgen05.shift.cta_group::1.down [%r0];\n";
    const std::string e = error_of(body);
    CHECK(e.find(line_of(body, "tcgen05.shift") + "tcgen05.shift.cta_group::1.down [%r0]") != std::string::npos);
    CHECK(e.find("warp 0, lane 0 (thread 0)") != std::string::npos);
    CHECK(e.find("opcode = tcgen05.shift.cta_group::1.down is invalid") != std::string::npos);
  }
  SUBCASE("a global store past the allocation is out of bounds, nearest allocation named") {
    const std::string e = error_of("\tst.global.u32 \t[%rd1+64], %r0;\n", 32);
    CHECK(e.find("lane 31 (thread 31)") != std::string::npos);
    CHECK(e.find("out of bounds; nearest: out") != std::string::npos);
  }
  SUBCASE("a misaligned access") {
    const std::string e = error_of("\tst.global.u32 \t[%rd1+2], %r0;\n");
    CHECK(e.find("a multiple of the access size, 4 bytes") != std::string::npos);
  }
  SUBCASE("bra.uni whose guard differs across the warp") {
    const std::string e = error_of(R"(
	setp.lt.u32 	%p1, %r0, 4;
	@%p1 bra.uni 	L1;
L1:
)");
    CHECK(e.find("bra.uni = not taken by lane 4 but taken by lane 0 of warp 0") != std::string::npos);
    CHECK(e.find("PTX #control-flow-instructions-bra") != std::string::npos);
  }
  SUBCASE("a .sync.aligned instruction reached by half a warp") {
    // tcgen05's waits run for the lanes that come (aligned_lanes_apart, a letter: an error when strict);
    // bar.warp.sync-like collectives of another kind stay the convergence error.
    const std::string body = R"(
	setp.lt.u32 	%p1, %r0, 16;
	@%p1 tcgen05.wait::st.sync.aligned;
)";
    CHECK(error_of(body) == "(no error)");
    const std::string e = error_of(body, 32, true);
    CHECK(e.find("lanes = 16 lanes of warp 0 at " +
                 line_of(body, "@%p1 tcgen05").substr(0, line_of(body, "@%p1 tcgen05").size() - 2)) != std::string::npos);
    CHECK(e.find("16 lanes of the warp did not come") != std::string::npos);
    // Lanes that exited before the others arrive: one warning for the instruction, not one per lane.
    ptx::LaunchStats stats;
    run(R"(
	setp.ge.u32 	%p1, %r0, 16;
	@%p1 bra 	END;
	nanosleep.u32 	100;
	tcgen05.wait::st.sync.aligned;
END:
)", 32, 16, &stats);
    CHECK(stats.warnings["aligned_lanes_apart"] == 1u);
  }
  SUBCASE("a trap") {
    CHECK(error_of("\ttrap;\n").find("the kernel aborted") != std::string::npos);
  }
  SUBCASE("a device-side assert: its message, file, line and function") {
    try {
      run(R"(
	mov.u64 	%rd3, $str$1;
	cvta.global.u64 	%rd4, %rd3;
	mov.u64 	%rd5, $str$2;
	cvta.global.u64 	%rd6, %rd5;
	{ // callseq 1, 0
	.param .b64 param0;
	st.param.b64 	[param0], %rd4;
	.param .b64 param1;
	st.param.b64 	[param1], %rd6;
	.param .b32 param2;
	st.param.b32 	[param2], 42;
	.param .b64 param3;
	st.param.b64 	[param3], %rd6;
	.param .b64 param4;
	st.param.b64 	[param4], 1;
	call.uni
	__assertfail,
	(
	param0,
	param1,
	param2,
	param3,
	param4
	);
	} // callseq 1
)", 32, 16, nullptr, false, kCallPrelude);
      FAIL("expected the assert to stop the kernel");
    } catch (const ptx::ExecutionError& e) {
      CHECK(std::string(e.what()).find("assert = x > 0 is invalid: true, at k.cu:42") != std::string::npos);
    }
  }
}

TEST_CASE("kernel arguments are checked against the .param list") {
  const ptx::Module m = ptx::Module::parse(kernel(""), "test.ptx");
  const std::uint32_t small = 0;
  const ptx::Argument wrong_size[] = {ptx::argument(small)};
  CHECK_THROWS_WITH_AS(ptx::launch(m, m.entry("k"), {}, wrong_size, {}),
                       doctest::Contains("8 bytes, the size of .param k_param_0"), Error);
  CHECK_THROWS_WITH_AS(ptx::launch(m, m.entry("k"), {}, {}, {}), doctest::Contains("1, one per .param"), Error);
  CHECK_THROWS_WITH_AS(m.entry("other"), doctest::Contains("a kernel of test.ptx: k"), Error);
  std::uint32_t* none = nullptr;
  const ptx::Argument one[] = {ptx::argument(none)};
  CHECK_THROWS_WITH_AS(ptx::launch(m, m.entry("k"), {.cluster = {2, 1, 1}}, one, {}),
                       doctest::Contains("cluster = 2x1x1 for a grid of 1x1x1 is invalid: a cluster shape that divides the grid"),
                       Error);
  CHECK_THROWS_WITH_AS(ptx::launch(m, m.entry("k"), {.grid = {34, 1, 1}, .cluster = {17, 1, 1}}, one, {}),
                       doctest::Contains("cluster = 17x1x1 is invalid: 1 to 16 CTAs per cluster"), Error);
}

TEST_CASE(".maxntid, .reqntid and .reqnctapercluster bound the launch as on the device (PTX #performance-tuning-directives)") {
  std::string text = kernel("");
  const auto with = [&](const std::string& directive) {
    std::string t = text;
    t.insert(t.find(")\n{") + 2, directive + "\n");
    return ptx::Module::parse(t, "test.ptx");
  };
  std::uint32_t* none = nullptr;
  const ptx::Argument one[] = {ptx::argument(none)};
  const ptx::Module max = with(".maxntid 64, 1, 1"), req = with(".reqntid 32, 2, 1");
  CHECK_THROWS_WITH_AS(ptx::launch(max, max.entry("k"), {.block = {96, 1, 1}}, one, {}),
                       doctest::Contains("block = 96x1x1 is invalid: at most 64 threads: the kernel says .maxntid 64x1x1"),
                       Error);
  CHECK_THROWS_WITH_AS(ptx::launch(req, req.entry("k"), {.block = {64, 1, 1}}, one, {}),
                       doctest::Contains("block = 64x1x1 is invalid: 32x2x1: the kernel says .reqntid 32x2x1"), Error);
  // __cluster_dims__(2, 1, 1) emits .reqnctapercluster: a cluster the host model does not run.
  const ptx::Module pair = with(".reqnctapercluster 2, 1, 1");
  CHECK_THROWS_WITH_AS(ptx::launch(pair, pair.entry("k"), {.block = {32, 1, 1}}, one, {}),
                       doctest::Contains("cluster = 2x1x1 for a grid of 1x1x1 (the kernel's .reqnctapercluster) is invalid: a cluster shape that divides the grid"), Error);
  CHECK_THROWS_WITH_AS(ptx::launch(max, max.entry("k"), {.block = {1, 1, 65}}, one, {}),
                       doctest::Contains("block = 1x1x65 is invalid: 1 to 1024 threads, at most 1024 x 1024 x 64"), Error);
  CHECK_THROWS_WITH_AS(ptx::launch(max, max.entry("k"), {.grid = {1, 70000, 1}, .block = {32, 1, 1}}, one, {}),
                       doctest::Contains("grid = 1x70000x1 is invalid"), Error);
}

TEST_CASE("a named barrier counts whole warps: a partial last warp arrives as 32 (PTX #parallel-synchronization-and-communication-instructions-bar)") {
  // 80 threads: warps 1 and 2 (48 threads) meet at bar.sync 1, 64; warp 0 does not take part.
  const std::vector<std::uint32_t> o = run(R"(
	mov.u32 	%r1, %tid.x;
	setp.ge.u32 	%p1, %r1, 32;
	@%p1 bar.sync 	1, 64;
	st.global.u32 	[%rd1], %r1;
)", 80, 1);
  for (int t = 0; t < 80; ++t) CHECK(o[t] == static_cast<std::uint32_t>(t));
}

TEST_CASE("a block of any size: a partial last warp runs only its threads, and bar.sync waits for those") {
  for (int threads : {1, 40, 100}) {
    CAPTURE(threads);
    const std::vector<std::uint32_t> o = run(R"(
	mov.u32 	%r1, %ntid.x;
	bar.sync 	0;
	activemask.b32 	%r2;
	st.global.v2.u32 	[%rd1], {%r1, %r2};
)", threads, 2);
    const int last_warp = (threads - 1) / 32, in_last = threads - 32 * last_warp;
    for (int t = 0; t < threads; ++t) {
      CHECK(o[2 * t] == static_cast<std::uint32_t>(threads));
      const std::uint32_t lanes = t / 32 < last_warp ? 0xFFFFFFFFu : (in_last == 32 ? 0xFFFFFFFFu : (1u << in_last) - 1);
      CHECK(o[2 * t + 1] == lanes);
    }
  }
}

TEST_CASE("a mangled name the demangler cannot read whole gets its leading name (Itanium ABI <nested-name>, <unscoped-name>)") {
  // The start of CUTLASS 70_blackwell_fp16_gemm's kernel (1,275 characters; c++filt refuses the whole).
  const std::string cutlass = "_ZN7cutlass13device_kernelINS_4gemm6kernel13GemmUniversalIN4cute5tupleIJiiiiEEE";
  CHECK(ptx::leading_name(cutlass) == "cutlass::device_kernel<…>");
  CHECK(ptx::leading_name("_ZN5tcgen4gemm11gemm_kernelE") == "tcgen::gemm::gemm_kernel");
  CHECK(ptx::leading_name("_Z5saxpyifPKfPf") == "saxpy");
  CHECK(ptx::leading_name("_Z11gemm_deviceI13SharedStorageIN7cutlass6half_tE") == "gemm_device<…>");  // CuTe's
  CHECK(ptx::leading_name("scale_add").empty());
  CHECK(ptx::leading_name("_ZN99short").empty());  // a length past the end
  CHECK(ptx::leading_name("_ZN0E").empty());
}
