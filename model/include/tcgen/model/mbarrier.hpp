#pragma once
// The mbarrier state machine: phase, pending and expected arrivals, tx-count
// (PTX #parallel-synchronization-and-communication-instructions-mbarrier-contents,
// tcgen05-facts-2.md §4). A phase completes when the pending arrivals reach
// zero and the tx-count is zero; then the phase advances and the pending
// count is reset to the expected count. Operations return Rule::ok or the
// rule they break; the caller adds the instruction context.
#include <cstdint>

#include "tcgen/model/rule.hpp"

namespace tcgen::model {

class Mbarrier {
 public:
  static constexpr std::int64_t kMaxCount = (std::int64_t{1} << 20) - 1;  // PTX "2^20 - 1"

  Rule init(std::int64_t count);  // -init: phase 0, pending = expected = count, tx 0
  Rule inval();                   // -inval: the object is no longer an mbarrier
  Rule arrive(std::int64_t count);        // -arrive-on: pending -= count, then maybe complete
  Rule expect_tx(std::int64_t bytes);     // -expect-tx-operation: tx += bytes; never completes a phase
  Rule complete_tx(std::int64_t bytes);   // -complete-tx-operation: tx -= bytes, then maybe complete

  // try_wait.parity / test_wait.parity: true when the phase of that parity is
  // the one that completed last, i.e. the current phase has the other parity
  // (-test-wait-try-wait: waitComplete = (phase & 1) != parity).
  bool test_wait(std::uint32_t parity) const { return (phase_ & 1) != (parity & 1); }

  bool valid() const { return valid_; }
  std::uint64_t phase() const { return phase_; }  // phases completed so far
  std::int64_t pending() const { return pending_; }
  std::int64_t expected() const { return expected_; }
  std::int64_t tx() const { return tx_; }

 private:
  void maybe_complete();

  bool valid_ = false;
  std::uint64_t phase_ = 0;
  std::int64_t pending_ = 0, expected_ = 0, tx_ = 0;
};

}  // namespace tcgen::model
