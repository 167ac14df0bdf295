// What a launch tells about its own progress: the heartbeat while it runs (LaunchConfig::heartbeat,
// tcgen run's progress line) and each instruction's executions once it is done (LaunchConfig::profile,
// tcgen run --profile). Counted by hand from the kernel's PTX below.
#include <doctest/doctest.h>

#include <cstdint>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "ptx_kernel_text.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

using namespace tcgen;

namespace {

// Each thread runs the loop `trips` times (PTX lines 14-16), then only even threads store (line 19,
// guarded: executed by all) and odd threads branch past a second store (lines 20-21).
std::string kernel(std::uint32_t trips) {
  return one_param_kernel(R"(LOOP:
	add.s32 	%r1, %r1, 1;
	setp.lt.u32 	%p1, %r1, )" + std::to_string(trips) + R"(;
	@%p1 bra.uni 	LOOP;
	and.b32 	%r2, %r0, 1;
	setp.eq.u32 	%p2, %r2, 0;
	@%p2 st.global.u32 	[%rd0], %r1;
	@!%p2 bra 	DONE;
	st.global.u32 	[%rd0+4], %r1;
DONE:)");
}

struct Run {
  ptx::LaunchStats stats;
  std::vector<ptx::LaunchProgress> beats;
};

Run run(std::uint32_t trips, std::uint32_t ctas, bool profile) {
  const ptx::Module m = ptx::Module::parse(kernel(trips), "count.ptx");
  std::vector<std::uint32_t> out(2, 0);
  std::uint32_t* p = out.data();
  const ptx::Argument args[] = {ptx::argument(p)};
  const ptx::Allocation memory[] = {{out.data(), out.size() * 4, "out", true}};
  Run r;
  std::mutex lock;
  ptx::LaunchConfig config{.grid = {ctas, 1, 1}, .block = {64, 1, 1}};
  config.profile = profile;
  config.options.threads = 1;  // the CTAs one after another: the beats in order
  config.heartbeat = [&](const ptx::LaunchProgress& p) {
    const std::lock_guard hold(lock);
    r.beats.push_back(p);
  };
  r.stats = ptx::launch(m, m.entry("k"), config, args, memory);
  return r;
}

// The instruction of PTX line `line` in the entry's code.
std::size_t at_line(std::uint32_t line) {
  const ptx::Module m = ptx::Module::parse(kernel(1), "count.ptx");
  const ptx::Function& f = m.entry("k");
  for (std::size_t i = 0; i < f.code.size(); ++i)
    if (f.code[i].line == line) return i;
  FAIL("no instruction at PTX line " << line);
  return 0;
}

}  // namespace

TEST_CASE("the profile counts each instruction's executions, one per thread, guards that failed included") {
  const Run r = run(10, 2, true);
  const std::vector<std::uint64_t>& e = r.stats.executed;
  const std::uint64_t threads = 2 * 64;
  REQUIRE(e.size() == ptx::Module::parse(kernel(10), "count.ptx").entry("k").code.size());
  CHECK(std::accumulate(e.begin(), e.end(), std::uint64_t{0}) == r.stats.instructions);
  CHECK(e[at_line(12)] == threads);        // mov, once per thread
  CHECK(e[at_line(14)] == threads * 10);   // the loop's body, 10 trips
  CHECK(e[at_line(16)] == threads * 10);   // its branch, taken 9 times and not once
  CHECK(e[at_line(19)] == threads);        // guarded store: every thread executes it, half store
  CHECK(e[at_line(21)] == threads / 2);    // past the odd threads' branch: even threads only
  CHECK(r.stats.instructions == threads * (2 + 3 * 10 + 5) + threads / 2);  // ret counted once per thread
}

TEST_CASE("no profile: no counts") { CHECK(run(10, 1, false).stats.executed.empty()); }

TEST_CASE("the heartbeat comes each 2^20 instructions of a CTA and at each CTA's end, with the counts so far") {
  const std::uint32_t trips = 1 << 15;  // 64 threads × 3 × 2^15 = 6 · 2^20 instructions per CTA
  const Run r = run(trips, 2, false);
  const std::uint64_t per_cta = r.stats.instructions / 2, beat = std::uint64_t{1} << 20, inside = per_cta >> 20;
  REQUIRE(inside >= 6);
  // One CTA after the other (threads = 1): its beats, then its end, which joins the rest of its count.
  REQUIRE(r.beats.size() == 2 * (inside + 1));
  for (std::uint64_t cta = 0; cta < 2; ++cta) {
    for (std::uint64_t k = 0; k < inside; ++k) {
      const ptx::LaunchProgress& b = r.beats[cta * (inside + 1) + k];
      INFO("CTA " << cta << ", beat " << k);
      CHECK(b.ctas == 2);
      CHECK(b.ctas_done == cta);
      CHECK(b.instructions == cta * per_cta + (k + 1) * beat);
    }
    const ptx::LaunchProgress& end = r.beats[cta * (inside + 1) + inside];
    INFO("the end of CTA " << cta);
    CHECK(end.ctas_done == cta + 1);
    CHECK(end.instructions == (cta + 1) * per_cta);
  }
}
