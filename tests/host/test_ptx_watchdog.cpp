// The livelock watchdog (exec::LaunchOptions::watchdog): a kernel that branches to itself
// ran forever, silently, as it never blocks and the deadlock check looks only when all block. Now a
// thread that runs the watchdog's count of instructions with no write, barrier or progress of another
// warp stops the launch with a report naming the loop's PTX lines and where each thread is.
#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <vector>

#include "ptx_kernel_text.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

using namespace tcgen;

namespace {


// The error of running body with 64 threads and the given watchdog, as text.
std::string error_of(const std::string& body, std::uint64_t watchdog, bool lockstep = true) {
  const ptx::Module m = ptx::Module::parse(one_param_kernel(body), "spin.ptx");
  std::vector<std::uint32_t> out(64, 0);
  std::uint32_t* p = out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
  ptx::LaunchConfig config{.block = {64, 1, 1}};
  config.options.watchdog = watchdog;
  config.lockstep = lockstep;
  try {
    ptx::launch(m, m.entry("k"), config, args, memory);
  } catch (const ptx::ExecutionError& e) {
    CHECK(e.kind() == ptx::FaultKind::launch_failure);  // exits as after a fault
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("a thread that branches to itself is a livelock naming the loop's lines and the other threads") {
  // Whether the warps run in lockstep (which splits a warp whose lane finds no progress, so that its
  // lanes go on by themselves first) or each thread on its own fiber, the report is alike but for which
  // thread spins, which the schedule decides. (The bar.sync: a kernel without one runs without lockstep.)
  for (const bool lockstep : {true, false}) {
    const std::string e =
        error_of("\tbar.sync \t0;\nLOOP:\n\tadd.s32 \t%r1, %r1, 1;\n\tbra.uni \tLOOP;\n", 10000, lockstep);
    INFO(e);
    CHECK(e.starts_with("spin.ptx:"));
    std::smatch spinner;
    const bool named = std::regex_search(e, spinner, std::regex("watchdog = warp (\\d+) ran"));
    REQUIRE(named);
    const std::string warp = spinner[1];
    CHECK(e.find(": error: watchdog = warp " + warp +
                 " ran 10000 instructions in a row (per thread) with no memory write, no barrier and no progress of "
                 "another warp: a livelock in the loop from PTX line 15 to 16 (bra.uni \tLOOP) is invalid: a loop "
                 "that ends") != std::string::npos);
    const std::string lane = "warp " + warp + ", lane \\d+ \\(thread \\d+\\)";
    CHECK(std::regex_search(e, std::regex("\n  " + lane + ": spin in the loop above\\.")));
    CHECK(std::regex_search(e, std::regex("PTX kernel k, block \\(0, 0, 0\\), " + lane)));
    CHECK(e.find("ready to run") != std::string::npos);
    CHECK(e.find("--watchdog N") != std::string::npos);
  }
}

TEST_CASE("a loop that stores, or that waits for another warp's store, is no livelock") {
  // Thread 0 spins on a shared flag (cleared by all first: shared memory holds no value until written)
  // that warp 1 sets after 9,000 instructions of its own; in the
  // cooperative schedule warp 1 runs only when thread 0 lets it: the watchdog does (as a GPU runs both)
  // and then sees the write.
  const std::string body = R"(
	.shared .b32 flag;
	st.shared.u32 	[flag], 0;
	bar.sync 	0;
	setp.eq.u32 	%p1, %r0, 0;
	@%p1 bra 	WAIT;
	setp.ne.u32 	%p2, %r0, 32;
	@%p2 bra 	DONE;
	mov.u32 	%r2, 0;
WORK:
	add.s32 	%r2, %r2, 1;
	setp.lt.u32 	%p3, %r2, 3000;
	@%p3 bra 	WORK;
	st.shared.u32 	[flag], 1;
	bra.uni 	DONE;
WAIT:
	ld.volatile.shared.u32 	%r3, [flag];
	setp.eq.u32 	%p3, %r3, 0;
	@%p3 bra 	WAIT;
	st.global.u32 	[%rd0], %r3;
DONE:
)";
  CHECK(error_of(body, 20000) == "(no error)");
  // A loop that writes memory each time round is progress too.
  CHECK(error_of("\tmov.u32 \t%r2, 0;\nL:\n\tst.global.u32 \t[%rd0], %r2;\n\tadd.s32 \t%r2, %r2, 1;\n"
                 "\tsetp.lt.u32 \t%p1, %r2, 5000;\n\t@%p1 bra \tL;\n",
                 100) == "(no error)");
}
