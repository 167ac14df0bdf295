// Definedness of memory never written (docs/model.md, Definedness): shared memory
// holds no defined value until something writes it since the CTA started, local
// memory none until the thread stores to it. The model's images are zero, a GPU's
// hold whatever was left; so a load of such bytes gives undefined registers whose
// use where it matters (global memory, an address, a predicate) is reported, naming
// the byte and the load, while a load whose value is discarded stays silent. Raw PTX
// kernels, as test_ptx_interpreter's.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "tcgen/core/hex.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"
#include "tcgen/ptx/tensor_map.hpp"

using namespace tcgen;

namespace {

// A kernel `k(.param .u64 out)` with 512 bytes of static shared memory `buf` and 64 of local
// memory `depot`; %rd1 = out + 64 * tid.x (16 words a thread), %r1 = buf's shared address,
// %rd3 = depot's local address, out[0] = buf's address.
std::string kernel(const std::string& body) {
  return R"(.version 8.7
.target sm_100a
.address_size 64
.shared .align 16 .b8 buf[512];
.shared .align 8 .b64 bar;

.visible .entry k(
	.param .u64 k_param_0
)
{
	.local .align 16 .b8 	depot[64];
	.reg .pred 	%p<8>;
	.reg .b16 	%rs<4>;
	.reg .b32 	%r<40>;
	.reg .b64 	%rd<16>;
	ld.param.u64 	%rd0, [k_param_0];
	mov.u32 	%r0, %tid.x;
	mul.wide.u32 	%rd2, %r0, 64;
	add.s64 	%rd1, %rd0, %rd2;
	mov.u32 	%r1, buf;
	mov.u64 	%rd3, depot;
	setp.eq.u32 	%p7, %r0, 0;
	@%p7 st.global.u32 	[%rd0], %r1;
)" + body + R"(
	ret;
}
)";
}

struct Run {
  std::vector<std::uint32_t> out = std::vector<std::uint32_t>(32 * 16, 0xEEEEEEEEu);
  std::string error;  // "" when the launch passed
  ptx::LaunchStats stats;
  // buf's shared address, as the kernel stored it, + offset: what a report names.
  std::string buf(std::uint32_t offset) const { return hex(out[0] + offset); }
};

Run run(const std::string& body, int threads = 32, bool strict = false) {
  Run r;
  const ptx::Module m = ptx::Module::parse(kernel(body), "unwritten.ptx");
  std::uint32_t* p = r.out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{r.out.data(), r.out.size() * 4, "out", true}};
  try {
    r.stats = ptx::launch(m, m.entry("k"), {.block = {static_cast<unsigned>(threads), 1, 1}, .strict = strict}, args,
                          memory);
  } catch (const ptx::ExecutionError& e) {
    r.error = e.what();
  }
  return r;
}

// "PTX line N" of the line of kernel(body) that holds `needle`.
std::string line_of(const std::string& body, const std::string& needle) {
  const std::string text = kernel(body);
  const std::size_t at = text.find(needle);
  REQUIRE(at != std::string::npos);
  return "PTX line " + std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

// The start of an undefined_value_used report at that line.
std::string error_at(const std::string& body, const std::string& needle) {
  return "unwritten.ptx:" + line_of(body, needle).substr(9) + ": error: undefined value = ";
}

bool has(const std::string& s, const std::string& part) {
  if (s.find(part) != std::string::npos) return true;
  MESSAGE("missing \"" << part << "\" in: " << (s.empty() ? "(no error)" : s));
  return false;
}

}  // namespace

TEST_CASE("unwritten shared memory: a loaded value stored to global memory is reported at the store") {
  const std::string body = R"(
	ld.shared.u32 	%r2, [%r1+8];
	add.s32 	%r3, %r2, 1;
	st.global.u32 	[%rd1+4], %r3;
)";
  const Run r = run(body);
  CHECK(has(r.error, error_at(body, "st.global.u32 \t[%rd1+4]") + "%r3 (st.global.u32)"));  // reported at the store
  CHECK(has(r.error, "an undefined value reaches global memory"));
  CHECK(has(r.error, "%r3 holds shared memory never written since the CTA started: byte " + r.buf(8)));
  CHECK(has(r.error, "as ld.shared.u32 at " + line_of(body, "ld.shared") + " read it"));
  CHECK(has(r.error, "[undefined_value_used]"));
  // As an address and as a branch condition.
  const Run address = run(R"(
	ld.shared.u32 	%r2, [%r1+16];
	ld.shared.u32 	%r3, [%r2];
)");
  CHECK(has(address.error, "an undefined value reaches an address"));
  CHECK(has(address.error, "byte " + address.buf(16)));
  const Run branch = run(R"(
	ld.shared.u32 	%r2, [%r1+20];
	setp.eq.u32 	%p1, %r2, 0;
	@%p1 bra 	DONE;
DONE:
)");
  CHECK(has(branch.error, "an undefined value reaches a branch's guard predicate"));
  CHECK(has(branch.error, "byte " + branch.buf(20)));
}

TEST_CASE("unwritten shared memory: a load whose value is discarded is silent, as on the GPU") {
  const Run r = run(R"(
	ld.shared.v4.u32 	{%r2, %r3, %r4, %r5}, [%r1+32];
	add.s32 	%r6, %r2, %r3;
	mov.u32 	%r2, 7;
	st.global.u32 	[%rd1+4], %r2;
)");
  CHECK_MESSAGE(r.error.empty(), r.error);
  for (int t = 0; t < 32; ++t) CHECK(r.out[static_cast<std::size_t>(16 * t + 1)] == 7u);
  CHECK(r.stats.warnings.empty());
}

TEST_CASE("shared memory written, then read: silent and exact, each vector element judged on its own") {
  const Run r = run(R"(
	shl.b32 	%r2, %r0, 2;
	add.s32 	%r3, %r1, %r2;
	mad.lo.u32 	%r4, %r0, 3, 5;
	st.shared.u32 	[%r3], %r4;
	bar.sync 	0;
	xor.b32 	%r5, %r0, 1;
	shl.b32 	%r6, %r5, 2;
	add.s32 	%r7, %r1, %r6;
	ld.shared.u32 	%r8, [%r7];
	st.global.u32 	[%rd1+4], %r8;
	@%p7 st.shared.u16 	[%r1+256], %r4;
	bar.sync 	0;
	ld.shared.v4.u32 	{%r10, %r11, %r12, %r13}, [%r1+16];
	ld.shared.v2.u16 	{%rs1, %rs2}, [%r1+256];
	cvt.u32.u16 	%r14, %rs1;
	st.global.v2.u32 	[%rd1+8], {%r10, %r14};
)");
  CHECK_MESSAGE(r.error.empty(), r.error);
  for (int t = 0; t < 32; ++t) {
    CHECK(r.out[static_cast<std::size_t>(16 * t + 1)] == static_cast<std::uint32_t>(3 * (t ^ 1) + 5));
    CHECK(r.out[static_cast<std::size_t>(16 * t + 2)] == 3u * 4u + 5u);  // thread 4's word
    CHECK(r.out[static_cast<std::size_t>(16 * t + 3)] == 5u);  // thread 0's low half at buf + 256; %rs2 unwritten
  }
  // The vector's unwritten second half: %rs2 stored is reported, naming its byte.
  const Run half = run(R"(
	@%p7 st.shared.u16 	[%r1+256], %r0;
	bar.sync 	0;
	ld.shared.v2.u16 	{%rs1, %rs2}, [%r1+256];
	cvt.u32.u16 	%r14, %rs2;
	st.global.u32 	[%rd1+8], %r14;
)");
  CHECK(has(half.error, "an undefined value reaches global memory"));
  CHECK(has(half.error, "byte " + half.buf(258)));
}

TEST_CASE("unwritten local memory: reported where used, silent when discarded or written first") {
  const std::string body = R"(
	st.local.u32 	[%rd3], %r0;
	ld.local.v2.u32 	{%r2, %r3}, [%rd3];
	st.global.u32 	[%rd1+4], %r2;
	ld.local.u32 	%r4, [%rd3+12];
	st.global.u32 	[%rd1+8], %r4;
)";
  const Run r = run(body);
  CHECK(has(r.error, "an undefined value reaches global memory"));
  CHECK(has(r.error, "%r4 holds local memory never written since the thread started: byte 0xc of thread"));
  CHECK(has(r.error, "as ld.local.u32 at " + line_of(body, "ld.local.u32") + " read it"));
  for (int t = 0; t < 32; ++t)
    if (r.out[static_cast<std::size_t>(16 * t + 1)] != 0xEEEEEEEEu) CHECK(r.out[static_cast<std::size_t>(16 * t + 1)] == static_cast<std::uint32_t>(t));
  // Through a generic address into the local window, written first: exact and silent.
  const Run generic = run(R"(
	cvta.local.u64 	%rd4, %rd3;
	add.s32 	%r5, %r0, 40;
	st.u32 	[%rd4+20], %r5;
	ld.u32 	%r6, [%rd4+20];
	ld.u32 	%r7, [%rd4+24];
	st.global.u32 	[%rd1+4], %r6;
)");
  CHECK_MESSAGE(generic.error.empty(), generic.error);
  for (int t = 0; t < 32; ++t) CHECK(generic.out[static_cast<std::size_t>(16 * t + 1)] == static_cast<std::uint32_t>(t + 40));
}

TEST_CASE("strict: the load of memory never written is the fault, at the load") {
  const std::string body = R"(
	ld.shared.u32 	%r2, [%r1+8];
)";
  const Run r = run(body, 32, true);
  CHECK(has(r.error, error_at(body, "ld.shared") + "the value (ld.shared.u32)"));  // reported at the load
  CHECK(has(r.error, "byte " + r.buf(8)));
  CHECK(has(r.error, "under strict"));
  const Run local = run(R"(
	ld.local.u32 	%r2, [%rd3+4];
)", 32, true);
  CHECK(has(local.error, "local memory never written since the thread started: byte 0x4"));
}

TEST_CASE("atom.shared on a word never written: the old value and what it stores are undefined") {
  const std::string body = R"(
	atom.shared.add.u32 	%r2, [%r1+64], 1;
	bar.sync 	0;
	ld.shared.u32 	%r3, [%r1+64];
	st.global.u32 	[%rd1+4], %r3;
)";
  const Run r = run(body);
  CHECK(has(r.error, "an undefined value reaches global memory"));
  CHECK(has(r.error, "byte " + r.buf(64)));
  CHECK(has(r.error, "as atom.shared.add.u32 at " + line_of(body, "atom.shared") + " read it"));
  // Zeroed first (as a kernel must), the count is exact.
  const Run zeroed = run(R"(
	@%p7 st.shared.u32 	[%r1+64], 0;
	bar.sync 	0;
	atom.shared.add.u32 	%r2, [%r1+64], 1;
	bar.sync 	0;
	ld.shared.u32 	%r3, [%r1+64];
	st.global.u32 	[%rd1+4], %r3;
)");
  CHECK_MESSAGE(zeroed.error.empty(), zeroed.error);
  CHECK(zeroed.out[1] == 32u);
}

TEST_CASE("ldmatrix: rows never written make their registers undefined; stmatrix's rows are written") {
  // stmatrix x1 writes matrix 0's 8 rows of 16 bytes at buf + 16·row; ldmatrix x2 reads those and 8 more.
  const std::string setup = R"(
	and.b32 	%r2, %r0, 7;
	shl.b32 	%r3, %r2, 4;
	add.s32 	%r4, %r1, %r3;
	add.s32 	%r5, %r0, 100;
	stmatrix.sync.aligned.m8n8.x1.shared.b16 	[%r4], {%r5};
	bar.sync 	0;
	shl.b32 	%r6, %r0, 4;
	add.s32 	%r7, %r1, %r6;
	ldmatrix.sync.aligned.m8n8.x2.shared.b16 	{%r8, %r9}, [%r7];
)";
  const Run written = run(setup + "\tst.global.u32 \t[%rd1+4], %r8;\n");
  CHECK_MESSAGE(written.error.empty(), written.error);
  for (int t = 0; t < 32; ++t) CHECK(written.out[static_cast<std::size_t>(16 * t + 1)] == static_cast<std::uint32_t>(t + 100));
  const Run unwritten = run(setup + "\tst.global.u32 \t[%rd1+4], %r9;\n");
  CHECK(has(unwritten.error, "an undefined value reaches global memory"));
  CHECK(has(unwritten.error, "%r9 holds shared memory never written since the CTA started: byte "));
  CHECK(has(unwritten.error, "as ldmatrix.sync.aligned.m8n8.x2.shared.b16"));
}

TEST_CASE("mbarrier.init's object counts as written; cp.async's bytes, zero-filled ones too, are written") {
  const Run r = run(R"(
	mov.u32 	%r2, bar;
	@%p7 mbarrier.init.shared::cta.b64 	[%r2], 1;
	bar.sync 	0;
	ld.shared.u32 	%r3, [%r2];
	add.s64 	%rd5, %rd0, 256;
	shl.b32 	%r4, %r0, 3;
	add.s32 	%r5, %r1, %r4;
	cp.async.ca.shared.global 	[%r5], [%rd5], 8, 4;
	cp.async.wait_all;
	bar.sync 	0;
	ld.shared.v2.u32 	{%r6, %r7}, [%r5];
	or.b32 	%r8, %r6, %r3;
	st.global.v2.u32 	[%rd1+8], {%r8, %r7};
)");
  CHECK_MESSAGE(r.error.empty(), r.error);
}

TEST_CASE("a TMA load's box is written: ld.shared of it is silent and exact; the bytes past it are not") {
  // A 4 × 32 u32 tensor, value 100·row + col + 1; the box: 2 rows of 32 (256 bytes) at row 1.
  std::vector<std::uint32_t> tensor(4 * 32), out(32 * 4, 0xEEEEEEEEu);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 32; ++c) tensor[static_cast<std::size_t>(r * 32 + c)] = static_cast<std::uint32_t>(100 * r + c + 1);
  tma::TensorMapSpec spec;
  spec.element_bytes = 4;
  spec.rank = 2;
  spec.global_dims = {32, 4, 1, 1, 1};
  spec.global_strides = {128, 0, 0, 0};
  spec.box_dims = {32, 2, 1, 1, 1};
  const ptx::TensorMap map = ptx::encode_tensor_map(spec, tensor.data());
  auto text = [](int offset) {
    return R"(.version 8.7
.target sm_100a
.address_size 64
.shared .align 1024 .b8 buf[512];
.shared .align 8 .b64 bar;

.visible .entry box(
	.param .align 128 .b8 box_param_0[128],
	.param .u64 box_param_1
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
	mov.b64 	%rd1, box_param_0;
	cvta.param.u64 	%rd2, %rd1;
	mov.u32 	%r3, 0;
	mov.u32 	%r4, 1;
	@%p1 mbarrier.arrive.expect_tx.shared::cta.b64 	_, [%r2], 256;
	@%p1 cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes 	[%r1], [%rd2, {%r3, %r4}], [%r2];
WAIT:
	mbarrier.try_wait.parity.shared::cta.b64 	%p2, [%r2], 0;
	@!%p2 bra 	WAIT;
	ld.param.u64 	%rd3, [box_param_1];
	shl.b32 	%r8, %r0, 4;
	add.s32 	%r9, %r1, %r8;
	ld.shared.v4.u32 	{%r10, %r11, %r12, %r13}, [%r9+)" +
           std::to_string(offset) + R"(];
	cvt.u64.u32 	%rd4, %r8;
	add.s64 	%rd5, %rd3, %rd4;
	st.global.v4.u32 	[%rd5], {%r10, %r11, %r12, %r13};
	ret;
}
)";
  };
  auto launch = [&](int offset) -> std::string {
    const ptx::Module m = ptx::Module::parse(text(offset), "box.ptx");
    std::uint32_t* const out_ptr = out.data();
    const ptx::Argument args[] = {ptx::argument(map), ptx::argument(out_ptr)};
    const ptx::Allocation memory[] = {{tensor.data(), tensor.size() * 4, "tensor"}, {out.data(), out.size() * 4, "out", true}};
    try {
      ptx::launch(m, m.entry("box"), {.block = {16, 1, 1}}, args, memory);
    } catch (const ptx::ExecutionError& e) {
      return e.what();
    }
    return "";
  };
  const std::string box = launch(0);
  CHECK_MESSAGE(box.empty(), box);
  int wrong = 0;
  for (int i = 0; i < 64; ++i) wrong += out[static_cast<std::size_t>(i)] != static_cast<std::uint32_t>(100 * (1 + i / 32) + i % 32 + 1);
  CHECK(wrong == 0);
  const std::string past = launch(256);  // buf + 256 on: no TMA wrote it
  CHECK(has(past, "an undefined value reaches global memory"));
  CHECK(has(past, "shared memory never written since the CTA started"));
}
