#include "tcgen/exec/unit_pool.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace tcgen::exec {

unsigned pool_threads(unsigned requested) {
  if (requested > 0) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

void UnitPool::completed(std::uint64_t unit, std::exception_ptr error) {
  const std::lock_guard lock(m_);
  if (error && unit < first_failure_) {
    first_failure_ = unit;
    failure_ = error;
  }
  done_.insert(unit);
  while (finished_ <= first_failure_ && done_.erase(finished_)) {
    try {
      (*finish_)(finished_);
    } catch (...) {
      if (finished_ < first_failure_) {
        first_failure_ = finished_;
        failure_ = std::current_exception();
      }
    }
    ++finished_;
  }
}

std::optional<std::uint64_t> UnitPool::cancel() {
  if (cancels_refused_) return std::nullopt;
  const std::uint64_t i = next_.fetch_add(1);
  if (i >= units_ || i > first_failure_) return std::nullopt;
  completed(i, nullptr);
  return i;
}

void UnitPool::run(const std::function<void(std::uint64_t)>& run, const std::function<void(std::uint64_t)>& finish) {
  finish_ = &finish;
  const auto work = [&] {
    for (;;) {
      const std::uint64_t i = next_.fetch_add(1);
      if (i >= units_ || i > first_failure_) return;
      std::exception_ptr error;
      try {
        run(i);
      } catch (...) {
        error = std::current_exception();
      }
      completed(i, error);
    }
  };
  const std::uint64_t workers = std::min<std::uint64_t>(pool_threads(threads_), units_);
  if (workers <= 1) {
    work();  // on the calling thread
  } else {
    std::vector<std::thread> pool;
    try {
      for (std::uint64_t w = 0; w < workers; ++w) pool.emplace_back(work);
    } catch (...) {  // no more threads: hand out no more units, let the started ones end
      next_ = units_;
      for (std::thread& t : pool) t.join();
      throw;
    }
    for (std::thread& t : pool) t.join();
  }
  if (failure_) std::rethrow_exception(failure_);
}

void run_units(std::uint64_t units, unsigned threads, const std::function<void(std::uint64_t)>& run,
               const std::function<void(std::uint64_t)>& finish) {
  UnitPool(units, threads).run(run, finish);
}

}  // namespace tcgen::exec
