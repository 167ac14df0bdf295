#include "tcgen/exec/unit_pool.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace tcgen::exec {

unsigned pool_threads(unsigned requested) {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

void run_units(std::uint64_t units, unsigned threads, const std::function<void(std::uint64_t)>& run,
               const std::function<void(std::uint64_t)>& finish) {
  const std::uint64_t workers = std::min<std::uint64_t>(pool_threads(threads), units);
  if (workers <= 1) {  // on the calling thread
    for (std::uint64_t i = 0; i < units; ++i) {
      try {
        run(i);
      } catch (...) {
        finish(i);
        throw;
      }
      finish(i);
    }
    return;
  }
  constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();
  std::atomic<std::uint64_t> next{0}, first_failure{kNone};
  std::mutex m;  // guards what follows, and serialises finish()
  std::exception_ptr failure;
  std::set<std::uint64_t> completed;  // run, not yet finished
  std::uint64_t finished = 0;         // units [0, finished) are finished
  const auto fail_at = [&](std::uint64_t i, std::exception_ptr e) {  // under m
    if (i < first_failure) {
      first_failure = i;
      failure = e;
    }
  };
  const auto work = [&] {
    for (;;) {
      const std::uint64_t i = next.fetch_add(1);
      if (i >= units || i > first_failure) return;
      std::exception_ptr error;
      try {
        run(i);
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard lock(m);
      if (error) fail_at(i, error);
      completed.insert(i);
      while (finished <= first_failure && completed.erase(finished)) {
        try {
          finish(finished);
        } catch (...) {
          fail_at(finished, std::current_exception());
        }
        ++finished;
      }
    }
  };
  std::vector<std::thread> pool;
  try {
    for (std::uint64_t w = 0; w < workers; ++w) pool.emplace_back(work);
  } catch (...) {  // no more threads: hand out no more units, let the started ones end
    next = units;
    for (std::thread& t : pool) t.join();
    throw;
  }
  for (std::thread& t : pool) t.join();
  if (failure) std::rethrow_exception(failure);
}

}  // namespace tcgen::exec
