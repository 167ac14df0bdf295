// exec::run_units (exec/unit_pool.hpp): a grid's CTAs on several OS threads,
// finished in the grid's order, the first failure by index reported as a
// one-thread run would report it.
#include <doctest/doctest.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "tcgen/exec/unit_pool.hpp"

using tcgen::exec::run_units;

TEST_CASE("run_units: every unit runs once, on several OS threads, and finishes in index order") {
  constexpr std::uint64_t kUnits = 64;
  std::mutex m;
  std::multiset<std::uint64_t> ran;
  std::set<std::thread::id> threads;
  std::vector<std::uint64_t> finished;
  run_units(
      kUnits, 4,
      [&](std::uint64_t i) {
        std::this_thread::sleep_for(std::chrono::microseconds(200 + 37 * (i % 7)));  // uneven, so units overtake
        const std::lock_guard lock(m);
        ran.insert(i);
        threads.insert(std::this_thread::get_id());
      },
      [&](std::uint64_t i) { finished.push_back(i); });
  CHECK(ran.size() == kUnits);
  for (std::uint64_t i = 0; i < kUnits; ++i) CHECK(ran.count(i) == 1);
  CHECK(threads.size() > 1);
  REQUIRE(finished.size() == kUnits);
  for (std::uint64_t i = 0; i < kUnits; ++i) CHECK(finished[i] == i);
}

TEST_CASE("run_units: the lowest failing unit's error, after the units before it are finished") {
  for (unsigned threads : {1u, 3u, 8u}) {
    CAPTURE(threads);
    std::vector<std::uint64_t> finished;
    try {
      run_units(
          40, threads,
          [&](std::uint64_t i) {
            if (i == 31) std::this_thread::sleep_for(std::chrono::milliseconds(5));  // 33 fails first in time
            if (i == 31 || i == 33) throw std::runtime_error("unit " + std::to_string(i));
          },
          [&](std::uint64_t i) { finished.push_back(i); });
      FAIL("expected unit 31's error");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()) == "unit 31");
    }
    REQUIRE(finished.size() == 32);  // 0 … 31: the failing unit is finished too (its output is shown)
    for (std::uint64_t i = 0; i < finished.size(); ++i) CHECK(finished[i] == i);
  }
}

TEST_CASE("run_units: one thread runs on the caller's; 0 threads means one per core") {
  const std::thread::id caller = std::this_thread::get_id();
  bool on_caller = true;
  run_units(5, 1, [&](std::uint64_t) { on_caller = on_caller && std::this_thread::get_id() == caller; },
            [](std::uint64_t) {});
  CHECK(on_caller);
  CHECK(tcgen::exec::pool_threads(0) == std::max(1u, std::thread::hardware_concurrency()));
  CHECK(tcgen::exec::pool_threads(6) == 6);
}
