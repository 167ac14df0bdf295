// The host runtime of tcgen::exec without tcgen05: threads as fibers,
// barriers, warp collectives and their convergence errors, mbarrier waits,
// deadlock reports, the deterministic and the shuffled schedule, and a
// failing CTA being unwound.
#include <doctest/doctest.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "expect_error.hpp"
#include "tcgen/exec/errors.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/exec/thread_set.hpp"
#include "tcgen/model/model_error.hpp"

using namespace tcgen;
using exec::HostArch;
using exec::LaunchOptions;
using exec::host::launch;

namespace {

bool contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return true;
  MESSAGE("missing \"" << part << "\" in:\n" << text);
  return false;
}


}  // namespace

TEST_CASE("thread and lane sets read by warp") {
  CHECK(exec::lanes_text(0x0000FFFFu) == "lanes 0-15");
  CHECK(exec::lanes_text(0x80000001u) == "lanes 0, 31");
  CHECK(exec::lanes_text(0x8u) == "lane 3");
  CHECK(exec::lanes_text(0) == "no lane");
  std::vector<int> warps_2_to_5;
  for (int t = 64; t < 192; ++t) warps_2_to_5.push_back(t);
  CHECK(exec::threads_text(warps_2_to_5) == "warps 2-5 (threads 64-191)");
  CHECK(exec::threads_text({0}) == "warp 0, lane 0 (thread 0)");
  CHECK(exec::threads_text({33, 34, 35, 0}) == "warp 0, lane 0 (thread 0); warp 1, lanes 1-3");
}

TEST_CASE("indices, and a grid's CTAs: in CUDA's order on one OS thread, each once on several") {
  const std::vector<std::string> order{"00", "10", "20", "01", "11", "21"};  // x fastest
  for (unsigned threads : {1u, 3u}) {
    CAPTURE(threads);
    std::mutex m;  // the CTAs run on several OS threads at once
    std::vector<std::string> seen;
    LaunchOptions options;
    options.threads = threads;
    launch(
        {3, 2, 1}, 64, 0,
        [&](HostArch& a) {
          CHECK(a.warp_index() == a.thread_index() / 32);
          CHECK(a.lane_index() == a.thread_index() % 32);
          CHECK(a.block_threads() == 64);
          CHECK(a.grid_dim().x == 3);
          CHECK(a.grid_dim().y == 2);
          CHECK(a.cluster_size() == 1);
          const std::lock_guard lock(m);
          if (a.thread_index() == 63) seen.push_back(std::to_string(a.block_index().x) + std::to_string(a.block_index().y));
        },
        options);
    if (threads > 1) std::sort(seen.begin(), seen.end(), [](const std::string& a, const std::string& b) {
      return std::make_pair(a[1], a[0]) < std::make_pair(b[1], b[0]);
    });
    CHECK(seen == order);
  }
}

TEST_CASE("deterministic schedule: a thread runs until it blocks, then the next in index order") {
  std::vector<int> log;
  launch({1, 1, 1}, 64, 0, [&](HostArch& a) {
    log.push_back(static_cast<int>(a.thread_index()));
    a.sync_threads();
    log.push_back(100 + static_cast<int>(a.thread_index()));
  });
  REQUIRE(log.size() == 128);
  for (int t = 0; t < 64; ++t) {
    CHECK(log[t] == t);  // all reach the barrier before anyone passes it
    CHECK(log[64 + t] == 100 + (63 + t) % 64);  // thread 63 completes it and goes on first
  }
}

TEST_CASE("__syncthreads orders shared-memory stores before loads of other warps") {
  launch({1, 1, 1}, 128, 1024, [&](HostArch& a) {
    const std::uint32_t mine = a.smem_base() + 4 * a.thread_index();
    a.smem_store(mine, 1000u + a.thread_index());
    a.sync_threads();
    std::uint32_t other = 0;
    a.smem_load(a.smem_base() + 4 * ((a.thread_index() + 37) % 128), other);
    CHECK(other == 1000u + (a.thread_index() + 37) % 128);
  });
}

TEST_CASE("named barriers: two pairs of warps each meet on their own barrier") {
  std::vector<int> passed(4, 0), at_pass(4, 0);
  int arrived_01 = 0, arrived_23 = 0;
  launch({1, 1, 1}, 128, 0, [&](HostArch& a) {
    const int w = static_cast<int>(a.warp_index());
    int& arrived = w < 2 ? arrived_01 : arrived_23;
    ++arrived;
    a.bar_sync(w < 2 ? 1 : 2, 64);
    at_pass[w] = arrived;  // every thread of the pair had arrived
    ++passed[w];
  });
  CHECK(at_pass == std::vector<int>{64, 64, 64, 64});
  CHECK(passed == std::vector<int>{32, 32, 32, 32});
}

TEST_CASE("a named barrier's count must be a multiple of 32 and the same for all its threads") {
  CHECK(contains(message_of<Error>([] { launch({1, 1, 1}, 64, 0, [](HostArch& a) { a.bar_sync(1, 48); }); }),
                 "barrier thread count = 48"));
  CHECK(contains(message_of<Error>([] {
                   launch({1, 1, 1}, 128, 0, [](HostArch& a) { a.bar_sync(3, a.warp_index() == 0 ? 64 : 96); });
                 }),
                 "the count the threads already waiting there gave, 64"));
}

TEST_CASE("warp shuffles, votes and elect") {
  launch({1, 1, 1}, 64, 0, [&](HostArch& a) {
    const unsigned lane = a.lane_index();
    CHECK(a.shfl_sync(HostArch::kFullMask, 10 * lane + a.warp_index(), static_cast<int>((lane + 1) % 32)) ==
          10 * ((lane + 1) % 32) + a.warp_index());
    CHECK(a.shfl_sync(HostArch::kFullMask, 0.5 * lane, 7) == 3.5);
    CHECK(a.ballot_sync(HostArch::kFullMask, lane % 2 == 1) == 0xAAAAAAAAu);
    CHECK(a.any_sync(HostArch::kFullMask, lane == 5));
    CHECK_FALSE(a.all_sync(HostArch::kFullMask, lane != 5));
    CHECK(a.all_sync(HostArch::kFullMask, true));
    const std::uint32_t elected = a.ballot_sync(HostArch::kFullMask, a.elect_one());
    CHECK(elected == 1u);  // exactly one lane; the host picks the lowest
    if (lane < 16) {       // a half-warp mask
      CHECK(a.ballot_sync(0x0000FFFFu, true) == 0x0000FFFFu);
      a.sync_warp(0x0000FFFFu);
    }
  });
}

TEST_CASE("shuffles and votes wait for the lanes of the mask that have not exited") {
  launch({1, 1, 1}, 32, 0, [&](HostArch& a) {
    if (a.lane_index() >= 8) return;
    CHECK(a.ballot_sync(HostArch::kFullMask, true) == 0xFFu);
  });
  const std::string m = message_of<Error>([] {
    launch({1, 1, 1}, 32, 0, [](HostArch& a) {
      if (a.lane_index() == 31) return;
      a.shfl_sync(HostArch::kFullMask, 1, 31);
    });
  });
  CHECK(contains(m, "shfl.sync source lane = 31"));
}

TEST_CASE("convergence: lanes at different .sync.aligned instructions") {
  const std::string m = message_of<exec::ConvergenceError>([] {
    launch({1, 1, 1}, 64, 0, [](HostArch& a) {
      if (a.warp_index() == 1 && a.lane_index() >= 16)
        a.wait_st();
      else
        a.wait_ld();
    });
  });
  CHECK(contains(m, "(warp 1): lane 16 arrives at tcgen05.wait::st.sync.aligned at test_exec_runtime.cpp:"));
  CHECK(contains(m, "while lanes 0-15 wait at tcgen05.wait::ld.sync.aligned at test_exec_runtime.cpp:"));
  CHECK(contains(m, "executed by all 32 threads of the warp together, at the same instruction"));
}

TEST_CASE("convergence: the same .sync.aligned instruction from two places is two instructions") {
  const std::string m = message_of<exec::ConvergenceError>([] {
    launch({1, 1, 1}, 32, 0, [](HostArch& a) {
      if (a.lane_index() == 0) {
        a.wait_ld();
      } else {
        a.wait_ld();
      }
    });
  });
  CHECK(contains(m, "lane 1 arrives at tcgen05.wait::ld.sync.aligned at test_exec_runtime.cpp:"));
  CHECK(contains(m, "while lane 0 waits at tcgen05.wait::ld.sync.aligned at test_exec_runtime.cpp:"));
}

TEST_CASE("convergence: a lane exits while the others wait at a .sync.aligned tcgen05 wait") {
  // B200s run it for the lanes that come: a PTX letter (aligned_lanes_apart); the launch goes on.
  int passed = 0;
  launch({1, 1, 1}, 32, 0, [&](HostArch& a) {
    if (a.lane_index() == 31) return;
    a.wait_ld();
    ++passed;
  });
  CHECK(passed == 31);
  // Under letters_as_errors, the error.
  LaunchOptions strict;
  strict.letters_as_errors = true;
  const std::string m = message_of<Error>([&] {
    launch(
        {1, 1, 1}, 32, 0,
        [](HostArch& a) {
          if (a.lane_index() == 31) return;
          a.wait_ld();
        },
        strict);
  });
  CHECK(contains(m, "lanes = 31 lanes of warp 0 at test_exec_runtime.cpp:"));
  CHECK(contains(m, "1 lane of the warp did not come (exited, or waiting elsewhere)"));
  CHECK(contains(m, "#tcgen05-instructions-tcgen05-ld"));
}

TEST_CASE("convergence: different member masks") {
  const std::string m = message_of<exec::ConvergenceError>([] {
    launch({1, 1, 1}, 32, 0, [](HostArch& a) { a.ballot_sync(a.lane_index() < 4 ? 0x1Fu : 0xFFFFFFFFu, true); });
  });
  CHECK(contains(m, "vote.sync.ballot.b32 (warp 0): lane 4 arrives at vote.sync.ballot.b32 at"));
  CHECK(contains(m, "with membermask 0xffffffff, while lanes 0-3 wait at vote.sync.ballot.b32 at"));
  CHECK(contains(m, "with membermask 0x0000001f"));
}

TEST_CASE("mbarrier: waiters sleep until the phase completes") {
  launch({1, 1, 1}, 96, 64, [&](HostArch& a) {
    const std::uint32_t bar = a.smem_base();
    const std::uint32_t data = a.smem_base() + 16;
    if (a.thread_index() == 0) a.mbarrier_init(bar, 32);
    a.sync_threads();
    if (a.warp_index() == 2) {  // the producers arrive last in index order
      a.smem_store(data, 77u);
      a.mbarrier_arrive(bar);
    } else {
      a.mbarrier_wait(bar, 0);
      std::uint32_t v = 0;
      a.smem_load(data, v);
      CHECK(v == 77u);
    }
  });
}

TEST_CASE("mbarrier: try_wait in a loop, and try_wait as a poll between other work") {
  launch({1, 1, 1}, 64, 64, [&](HostArch& a) {
    const std::uint32_t bar = a.smem_base();
    if (a.thread_index() == 0) a.mbarrier_init(bar, 1);
    a.sync_threads();
    if (a.thread_index() == 63) {
      a.mbarrier_arrive(bar);
      return;
    }
    if (a.warp_index() == 0) {
      while (!a.mbarrier_try_wait(bar, 0)) {
      }
    } else if (!a.mbarrier_try_wait(bar, 0)) {
      a.mbarrier_wait(bar, 0);
    }
    CHECK(a.mbarrier_try_wait(bar, 0));
  });
}

TEST_CASE("mbarrier: a waiter the producer overtook by two phases sees the phase it waited for") {
  // Thread 0 finds phase 0 incomplete first (index order); thread 32 then completes phases 0 and 1 without
  // waiting. On a B200 the polling waiter sees phase 0 complete: a PTX letter (mbarrier_phase_overtaken),
  // an error under letters_as_errors. Before, the parity matched again and the waiter never woke.
  for (const bool blocking : {false, true}) {
    const auto kernel = [blocking](HostArch& a) {
      const std::uint32_t bar = a.smem_base();
      if (a.thread_index() == 0) a.mbarrier_init(bar, 1);
      a.sync_threads();
      if (a.thread_index() == 0) {
        if (blocking) {
          a.mbarrier_wait(bar, 0);
        } else {
          while (!a.mbarrier_try_wait(bar, 0)) {
          }
        }
      } else if (a.thread_index() == 32) {
        a.mbarrier_arrive(bar);  // phase 0 completes
        a.mbarrier_arrive(bar);  // and phase 1
      }
    };
    CAPTURE(blocking);
    launch({1, 1, 1}, 64, 64, kernel);
    LaunchOptions strict;
    strict.letters_as_errors = true;
    const std::string m = message_of<Error>([&] { launch({1, 1, 1}, 64, 64, kernel, strict); });
    CHECK(contains(m, "phase = 2 of the mbarrier at 0x400 (parity 0 waited for since phase 0)"));
    CHECK(contains(m, "#parallel-synchronization-and-communication-instructions-mbarrier-test-wait-try-wait"));
  }
  // A waiter that first looks after both phases waits for phase 2, as on silicon: a deadlock here.
  message_of<exec::DeadlockError>([] {
    launch({1, 1, 1}, 64, 64, [](HostArch& a) {
      const std::uint32_t bar = a.smem_base();
      if (a.thread_index() == 0) a.mbarrier_init(bar, 1);
      a.sync_threads();
      if (a.thread_index() == 32) {
        a.mbarrier_arrive(bar);
        a.mbarrier_arrive(bar);
      }
      a.sync_threads();
      if (a.thread_index() == 0) a.mbarrier_wait(bar, 0);
    });
  });
}

TEST_CASE("deadlock: the report names the mbarrier, its phase, the waiters and the last arrival") {
  const auto kernel = [](HostArch& a) {
    const std::uint32_t full = a.smem_base() + 8;
    if (a.thread_index() == 0) a.mbarrier_init(full, 2);  // two producers expected ...
    a.sync_threads();
    if (a.thread_index() == 32)
      a.mbarrier_arrive(full);  // ... one arrives
    else if (a.warp_index() == 0)
      while (!a.mbarrier_try_wait(full, 0)) {
      }
    else if (a.warp_index() == 1)
      a.sync_threads();
  };
  exec::DeadlockError error("", "");
  try {
    launch({1, 1, 1}, 64, 64, kernel);
    FAIL("expected a deadlock");
  } catch (const exec::DeadlockError& e) {
    error = e;
  }
  const std::string& r = error.report();
  CHECK(error.field() == "cta");
  CHECK(error.value() == "(0, 0, 0)");
  CHECK(contains(r, "deadlock in CTA (0, 0, 0): every thread that has not exited waits"));
  CHECK(contains(r, "  warp 0 (threads 0-31): wait on the mbarrier at 0x408 (smem_base + 0x8) for the phase of "
                    "parity 0 to complete; it is in phase 0 with 1 of 2 arrivals pending and tx-count 0; the last "
                    "arrival: thread 32 (warp 1, lane 0): mbarrier.arrive, leaving it in phase 0.\n"));
  // Thread 63 completed the first barrier and ran on to the second one first; 62 arrived last.
  CHECK(contains(r, "  warp 1, lanes 1-31: wait at bar.sync 0 for 64 threads; 31 have arrived, the last thread 62 "
                    "(warp 1, lane 30).\n"));
  CHECK(contains(r, "  exited: warp 1, lane 0 (thread 32).\n"));
}

TEST_CASE("deadlock: no arrival since init, and a warp waiting in a collective") {
  const std::string r = message_of<exec::DeadlockError>([] {
    launch({1, 1, 1}, 32, 64, [](HostArch& a) {
      const std::uint32_t bar = a.smem_base();
      if (a.lane_index() == 0) {
        a.mbarrier_init(bar, 1);
        a.mbarrier_wait(bar, 0);
      }
      a.sync_warp(HostArch::kFullMask);  // a collective that waits for lane 0: tcgen05.ld and waits run apart
    });
  });
  CHECK(contains(r, "warp 0, lane 0 (thread 0): wait on the mbarrier at 0x400 (smem_base + 0x0) for the phase of "
                    "parity 0 to complete; it is in phase 0 with 1 of 1 arrivals pending and tx-count 0; no arrival "
                    "since its mbarrier.init by thread 0 (warp 0, lane 0): mbarrier.init with count 1, leaving it in "
                    "phase 0."));
  CHECK(contains(r, "warp 0, lanes 1-31: wait at bar.warp.sync"));
  CHECK(contains(r, "(warp 0): lanes 1-31 arrived, lane 0 missing."));
}

TEST_CASE("shuffled schedule: the same seed repeats a run, other seeds interleave differently") {
  const auto order = [](std::optional<std::uint64_t> seed) {
    std::vector<int> log;
    exec::LaunchOptions options;
    options.shuffle_seed = seed;
    launch({1, 1, 1}, 64, 512, [&](HostArch& a) {
      for (int i = 0; i < 3; ++i) {
        a.smem_store(a.smem_base() + 8 * a.thread_index(), i);
        log.push_back(static_cast<int>(a.thread_index()));
      }
    }, options);
    return log;
  };
  std::vector<int> in_order;
  for (int t = 0; t < 64; ++t) in_order.insert(in_order.end(), {t, t, t});
  CHECK(order(std::nullopt) == in_order);
  CHECK(order(7) == order(7));
  std::set<std::vector<int>> runs;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) runs.insert(order(seed));
  CHECK(runs.size() == 4);
  CHECK(runs.count(in_order) == 0);
}

TEST_CASE("shuffled schedule: a missing barrier shows up as a different result") {
  // Thread 32 reads what thread 0 wrote, with nothing ordering the two.
  const auto read = [](std::optional<std::uint64_t> seed) {
    std::uint32_t got = 0;
    exec::LaunchOptions options;
    options.shuffle_seed = seed;
    launch({1, 1, 1}, 64, 64, [&](HostArch& a) {
      if (a.thread_index() == 0) a.smem_store(a.smem_base(), 0u);
      a.sync_threads();
      if (a.thread_index() == 0) a.smem_store(a.smem_base(), 42u);
      if (a.thread_index() == 32) a.smem_load(a.smem_base(), got);
    }, options);
    return got;
  };
  CHECK(read(std::nullopt) == 42u);  // index order hides the race
  std::set<std::uint32_t> results;
  for (std::uint64_t seed = 0; seed < 16; ++seed) results.insert(read(seed));
  CHECK(results == std::set<std::uint32_t>{0u, 42u});
}

TEST_CASE("a failing thread stops the CTA: the others are unwound and the error is rethrown") {
  struct Counted {
    int& n;
    ~Counted() { ++n; }
  };
  int destroyed = 0;
  bool ran_past = false;
  const auto run = [&] {
    launch({1, 1, 1}, 64, 64, [&](HostArch& a) {
      Counted c{destroyed};
      if (a.thread_index() == 40) a.mbarrier_arrive(a.smem_base());  // never initialised
      a.sync_threads();
      ran_past = true;
    });
  };
  CHECK_THROWS_AS(run(), model::ModelError);
  CHECK(destroyed == 41);  // threads 0-39 waited at the barrier, 40 threw; 41-63 never started
  CHECK_FALSE(ran_past);
}

TEST_CASE("shared memory below smem_base() and misaligned accesses are refused") {
  CHECK(contains(message_of<Error>([] { launch({1, 1, 1}, 32, 64, [](HostArch& a) { a.smem_store(16u, 1u); }); }),
                 "shared address = 0x10 (st.shared by thread 0 (warp 0, lane 0)) is invalid"));
  CHECK(contains(message_of<Error>([] {
                   launch({1, 1, 1}, 32, 64, [](HostArch& a) { a.smem_store(a.smem_base() + 4, std::uint64_t{1}); });
                 }),
                 "a multiple of 8"));
  CHECK(contains(message_of<Error>([] { launch({1, 1, 1}, 48, 0, [](HostArch&) {}); }), "block_threads = 48"));
}
