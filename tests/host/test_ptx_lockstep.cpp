// Warps in lockstep (ptx/src/warp_lockstep.hpp): a warp's lanes at its lowest pc run each
// instruction in turn on its leader's fiber (a handler's warp form for them at once where it has
// one), pass a bar.sync they all reached as one arrival, and split onto their own fibers where they
// must. Each kernel runs both ways (LaunchConfig::lockstep) and must give what its own arithmetic
// says, the same instruction count, and the same errors.
#include <doctest/doctest.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

#include "ptx_kernel_text.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

using namespace tcgen;

namespace {

struct Run {
  std::vector<std::uint32_t> out;
  std::uint64_t instructions = 0;
  std::string error;
};

// Runs body with `threads` threads; out holds one u32 per thread (%rd0 points at it), zeroed first.
// `globals`: module-scope declarations before the kernel.
Run run(const std::string& body, unsigned threads, bool lockstep, std::uint64_t watchdog = std::uint64_t{1} << 27,
        const std::string& globals = "") {
  std::string text = one_param_kernel(body);
  text.insert(text.find(".visible .entry"), globals);
  const ptx::Module m = ptx::Module::parse(text, "lockstep.ptx");
  Run r;
  r.out.assign(threads, 0);
  std::uint32_t* p = r.out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{r.out.data(), r.out.size() * 4, "out", true}};
  ptx::LaunchConfig config{.block = {threads, 1, 1}};
  config.lockstep = lockstep;
  config.options.watchdog = watchdog;
  try {
    r.instructions = ptx::launch(m, m.entry("k"), config, args, memory).instructions;
  } catch (const std::exception& e) {  // ExecutionError; a deadlock's Error
    r.error = e.what();
  }
  return r;
}

// out[tid] = &out[tid]: the address of the thread's word.
const std::string kMyWord = "\tmul.wide.u32 \t%rd1, %r0, 4;\n\tadd.s64 \t%rd1, %rd0, %rd1;\n";

}  // namespace

TEST_CASE("a block reduced one thread at a time between bar.syncs: each thread sees every earlier one's sum") {
  // As CUTLASS's reference_abs_diff_kernel reduces: for i < ntid, thread i adds its value to a shared
  // sum, then bar.sync; each thread keeps the sum it saw after its own turn.
  const std::string body = kMyWord + R"(
	.shared .u32 sum;
	mov.u32 	%r1, 0;
	st.shared.u32 	[sum], 0;
	bar.sync 	0;
	mov.u32 	%r2, %ntid.x;
LOOP:
	setp.ne.u32 	%p0, %r1, %r0;
	@%p0 bra 	SKIP;
	ld.shared.u32 	%r3, [sum];
	add.u32 	%r3, %r3, %r0;
	add.u32 	%r3, %r3, 1;
	st.shared.u32 	[sum], %r3;
	st.global.u32 	[%rd1], %r3;
SKIP:
	bar.sync 	0;
	add.u32 	%r1, %r1, 1;
	setp.lt.u32 	%p1, %r1, %r2;
	@%p1 bra 	LOOP;
)";
  // With an immediate barrier id the leader's arrival brings its lanes'; with a register the warp
  // splits there and each lane runs its bar.sync with its own operands.
  std::string by_register = body;
  by_register.replace(by_register.find("SKIP:\n\tbar.sync \t0;"), 19, "SKIP:\n\tbar.sync \t%r4;");
  by_register = "\tmov.u32 \t%r4, 0;\n" + by_register;
  for (const auto& [threads, text] : {std::pair{32u, body}, {96u, body}, {1024u, body}, {96u, by_register}}) {
    CAPTURE(threads);
    CAPTURE(text);
    const Run converged = run(text, threads, true), apart = run(text, threads, false);
    REQUIRE(converged.error.empty());
    REQUIRE(apart.error.empty());
    for (unsigned t = 0; t < threads; ++t) {
      CAPTURE(t);
      CHECK(converged.out[t] == (t + 1) * (t + 2) / 2);  // 1 + 2 + ... + (t + 1)
    }
    CHECK(converged.out == apart.out);
    CHECK(converged.instructions == apart.instructions);
  }
}

TEST_CASE("lanes that diverge by lane-dependent trip counts meet again and go on together") {
  // Lane l loops l times on one side of a branch or 2l times on the other, then all store.
  const std::string body = kMyWord + R"(
	bar.sync 	0;
	and.b32 	%r1, %r0, 31;
	mov.u32 	%r2, 0;
	and.b32 	%r3, %r0, 1;
	setp.eq.u32 	%p0, %r3, 0;
	@%p0 bra 	EVEN;
	shl.b32 	%r1, %r1, 1;
EVEN:
	setp.eq.u32 	%p1, %r1, 0;
	@%p1 bra 	DONE;
	add.u32 	%r2, %r2, 3;
	sub.u32 	%r1, %r1, 1;
	bra.uni 	EVEN;
DONE:
	st.global.u32 	[%rd1], %r2;
)";
  const Run converged = run(body, 64, true), apart = run(body, 64, false);
  REQUIRE(converged.error.empty());
  for (unsigned t = 0; t < 64; ++t) {
    CAPTURE(t);
    CHECK(converged.out[t] == 3 * (t % 32) * (t % 2 ? 2 : 1));
  }
  CHECK(converged.instructions == apart.instructions);
}

TEST_CASE("a lane that waits for a warp-mate further on splits the warp and is no livelock") {
  // Lane 0 spins for a flag lane 31 sets: run in turn, lane 31 never would; lane 0's watchdog runs
  // out, the warp splits, and lane 31 runs as PTX's independent thread scheduling has it.
  const std::string body = kMyWord + R"(
	.shared .u32 flag;
	st.shared.u32 	[flag], 0;
	bar.sync 	0;
	setp.eq.u32 	%p0, %r0, 31;
	@%p0 bra 	SET;
WAIT:
	setp.ne.u32 	%p1, %r0, 0;
	@%p1 bra 	DONE;
	ld.volatile.shared.u32 	%r1, [flag];
	setp.eq.u32 	%p2, %r1, 0;
	@%p2 bra 	WAIT;
	st.global.u32 	[%rd1], %r1;
	bra.uni 	DONE;
SET:
	st.volatile.shared.u32 	[flag], 7;
DONE:
)";
  const Run converged = run(body, 32, true, std::uint64_t{1} << 16);
  REQUIRE(converged.error.empty());
  CHECK(converged.out[0] == 7);
}

TEST_CASE("a fault of one lane in lockstep names that lane") {
  // Lane 5 alone stores to a misaligned address.
  const std::string body = kMyWord + R"(
	bar.sync 	0;
	setp.ne.u32 	%p0, %r0, 5;
	@%p0 bra 	DONE;
	add.s64 	%rd1, %rd1, 2;
	st.global.u32 	[%rd1], %r0;
DONE:
)";
  for (bool lockstep : {true, false}) {
    const Run r = run(body, 32, lockstep);
    INFO(r.error);
    CHECK(r.error.find("lane 5 (thread 5)") != std::string::npos);
    CHECK(r.error.find("a multiple of the access size, 4 bytes") != std::string::npos);
  }
}

TEST_CASE("a converged warp waiting at bar.sync is reported as its threads waiting there") {
  // Warp 0 waits at barrier 1 for 64 threads; warp 1 waits at barrier 2: a deadlock.
  const std::string body = R"(
	setp.lt.u32 	%p0, %r0, 32;
	@%p0 bra 	FIRST;
	bar.sync 	2, 64;
	bra.uni 	DONE;
FIRST:
	bar.sync 	1, 64;
DONE:
)";
  const Run converged = run(body, 64, true), apart = run(body, 64, false);
  INFO(converged.error);
  for (const std::string& e : {converged.error, apart.error}) {
    CHECK(e.find("deadlock") != std::string::npos);
    CHECK(e.find("warp 0 (threads 0-31): wait at bar.sync 1 for 64 threads; 32 have arrived") != std::string::npos);
    CHECK(e.find("warp 1 (threads 32-63): wait at bar.sync 2 for 64 threads; 32 have arrived") != std::string::npos);
  }
}

TEST_CASE("lanes that diverge meet again before bar.sync and arrive at it as one warp") {
  // Warp 0's lanes loop by lane-dependent counts, then wait at a barrier warp 1 never reaches. In
  // lockstep every lane stopped there: the warp arrives as one, its leader, lane 0, last; each thread
  // on its own fiber arrives in lane order.
  const std::string body = R"(
	setp.ge.u32 	%p0, %r0, 32;
	@%p0 bra 	DONE;
	mov.u32 	%r1, %r0;
LOOP:
	setp.eq.u32 	%p1, %r1, 0;
	@%p1 bra 	MET;
	sub.u32 	%r1, %r1, 1;
	bra.uni 	LOOP;
MET:
	bar.sync 	1, 64;
DONE:
)";
  const Run converged = run(body, 64, true), apart = run(body, 64, false);
  INFO(converged.error);
  INFO(apart.error);
  const std::string waits = "warp 0 (threads 0-31): wait at bar.sync 1 for 64 threads; 32 have arrived, the last ";
  CHECK(converged.error.find(waits + "thread 0 (warp 0, lane 0)") != std::string::npos);
  CHECK(apart.error.find(waits + "thread 31 (warp 0, lane 31)") != std::string::npos);
}

TEST_CASE("lanes that exit early leave the rest of their warp to run on together") {
  // No bar.sync. Every third thread exits at once; the rest loop tid % 7 times, each lane's loads
  // alternating between `out` and a global variable (another allocation each time: ld.global's
  // common case misses and its checked way loads), and store the sum.
  const std::string table = ".global .align 4 .u32 table[4] = {10, 20, 30, 40};\n";
  const std::string body = kMyWord + R"(
	rem.u32 	%r1, %r0, 3;
	setp.eq.u32 	%p0, %r1, 0;
	@%p0 bra 	DONE;
	st.global.u32 	[%rd1], 1;
	rem.u32 	%r2, %r0, 7;
	mov.u32 	%r3, 0;
	mov.u64 	%rd2, table;
	and.b32 	%r4, %r0, 3;
	mul.wide.u32 	%rd3, %r4, 4;
	add.s64 	%rd2, %rd2, %rd3;
LOOP:
	setp.eq.u32 	%p1, %r2, 0;
	@%p1 bra 	STORE;
	ld.global.u32 	%r5, [%rd2];
	add.u32 	%r3, %r3, %r5;
	ld.global.u32 	%r5, [%rd1];
	add.u32 	%r3, %r3, %r5;
	sub.u32 	%r2, %r2, 1;
	bra.uni 	LOOP;
STORE:
	st.global.u32 	[%rd1], %r3;
DONE:
)";
  for (unsigned threads : {32u, 80u}) {
    CAPTURE(threads);
    const std::uint64_t watchdog = std::uint64_t{1} << 27;
    const Run converged = run(body, threads, true, watchdog, table), apart = run(body, threads, false, watchdog, table);
    REQUIRE(converged.error.empty());
    REQUIRE(apart.error.empty());
    for (unsigned t = 0; t < threads; ++t) {
      CAPTURE(t);
      CHECK(converged.out[t] == (t % 3 == 0 ? 0 : (t % 7) * (10 * (t % 4 + 1) + 1)));
    }
    CHECK(converged.instructions == apart.instructions);
  }
}

TEST_CASE("one lane's undefined value takes the checked way through a converged warp's arithmetic") {
  // Lane 3 alone loads a shared word never written; every lane adds 1 to it into another register (a
  // handler with a warp form) and stores that: lane 3's store is the error, named as without lockstep.
  const std::string body = kMyWord + R"(
	.shared .u32 never;
	mov.u32 	%r1, 5;
	setp.eq.u32 	%p0, %r0, 3;
	@%p0 ld.shared.u32 	%r1, [never];
	add.u32 	%r2, %r1, 1;
	st.global.u32 	[%rd1], %r2;
)";
  const Run converged = run(body, 32, true), apart = run(body, 32, false);
  INFO(converged.error);
  CHECK(converged.error.find("lane 3 (thread 3)") != std::string::npos);
  CHECK(converged.error.find("an undefined value reaches global memory") != std::string::npos);
  CHECK(converged.error == apart.error);
}

TEST_CASE("one lane's global load outside memory or misaligned is its fault in a converged warp") {
  // Lane 9 alone loads 4 bytes past the end of `out`, or 2 bytes into its own word; the rest load
  // their own words.
  for (const auto& [offset, fault] : {std::pair<std::string, std::string>{"128", "out of bounds; nearest: out"},
                                       {"2", "a multiple of the access size, 4 bytes"}}) {
    CAPTURE(offset);
    const std::string body = kMyWord + "\tsetp.eq.u32 \t%p0, %r0, 9;\n\t@%p0 add.s64 \t%rd1, %rd1, " + offset +
                             ";\n\tld.global.u32 \t%r1, [%rd1];\n";
    for (bool lockstep : {true, false}) {
      const Run r = run(body, 32, lockstep);
      INFO(r.error);
      CHECK(r.error.find("lane 9 (thread 9)") != std::string::npos);
      CHECK(r.error.find(fault) != std::string::npos);
    }
  }
}

TEST_CASE("a converged warp's signed and unsigned narrow global loads extend as ld.sN and ld.uN do") {
  // PTX #data-movement-and-conversion-instructions-ld: an .sN load sign-extends to the register's
  // width, a .uN or .bN one zero-extends. Lane l loads byte l % 4 (as .u8, then .s8) and halfword
  // l % 2 (.u16, then .s16) of tables whose high bits are set, and stores the 32-bit results' sum.
  // Each table is an allocation of its own: the first load of each goes the checked way, the second
  // (the allocation the lane's last access hit) the common case's.
  const std::string tables =
      ".global .align 4 .b8 bytes[4] = {128, 127, 255, 1};\n.global .align 4 .b16 halves[2] = {32768, 65535};\n";
  const std::string body = kMyWord + R"(
	and.b32 	%r1, %r0, 3;
	cvt.u64.u32 	%rd2, %r1;
	mov.u64 	%rd3, bytes;
	add.s64 	%rd3, %rd3, %rd2;
	ld.global.u8 	%r3, [%rd3];
	ld.global.s8 	%r2, [%rd3];
	and.b32 	%r1, %r0, 1;
	mul.wide.u32 	%rd2, %r1, 2;
	mov.u64 	%rd3, halves;
	add.s64 	%rd3, %rd3, %rd2;
	ld.global.u16 	%r5, [%rd3];
	ld.global.s16 	%r4, [%rd3];
	add.u32 	%r2, %r2, %r3;
	add.u32 	%r2, %r2, %r4;
	add.u32 	%r2, %r2, %r5;
	st.global.u32 	[%rd1], %r2;
)";
  const std::uint8_t bytes[4] = {128, 127, 255, 1};
  const std::uint16_t halves[2] = {32768, 65535};
  const std::uint64_t watchdog = std::uint64_t{1} << 27;
  for (bool lockstep : {true, false}) {
    CAPTURE(lockstep);
    const Run r = run(body, 32, lockstep, watchdog, tables);
    REQUIRE(r.error.empty());
    for (unsigned t = 0; t < 32; ++t) {
      CAPTURE(t);
      const std::int32_t s8 = static_cast<std::int8_t>(bytes[t % 4]), s16 = static_cast<std::int16_t>(halves[t % 2]);
      CHECK(r.out[t] ==
            static_cast<std::uint32_t>(s8) + bytes[t % 4] + static_cast<std::uint32_t>(s16) + halves[t % 2]);
    }
  }
}

TEST_CASE("a converged warp's guarded arithmetic runs on the lanes its guard, negated or not, lets it") {
  // Odd lanes add 1, even lanes 10 (@p and @!p of one predicate); lanes below 5 then branch apart and
  // add 100 under the same guards, a part of the warp running; 40 threads: the second warp is partial.
  const std::string body = kMyWord + R"(
	and.b32 	%r1, %r0, 1;
	setp.ne.u32 	%p0, %r1, 0;
	mov.u32 	%r2, 7;
	@%p0 add.u32 	%r2, %r2, 1;
	@!%p0 add.u32 	%r2, %r2, 10;
	and.b32 	%r3, %r0, 31;
	setp.ge.u32 	%p1, %r3, 5;
	@%p1 bra 	DONE;
	@%p0 add.u32 	%r2, %r2, 100;
	@!%p0 add.u32 	%r2, %r2, 1000;
DONE:
	st.global.u32 	[%rd1], %r2;
)";
  for (bool lockstep : {true, false}) {
    CAPTURE(lockstep);
    const Run r = run(body, 40, lockstep);
    REQUIRE(r.error.empty());
    for (unsigned t = 0; t < 40; ++t) {
      CAPTURE(t);
      const bool odd = t % 2 == 1, low = t % 32 < 5;
      CHECK(r.out[t] == 7 + (odd ? 1 : 10) + (low ? (odd ? 100 : 1000) : 0));
    }
  }
}
