#include "tcgen/model/mbarrier.hpp"

namespace tcgen::model {

Rule Mbarrier::init(std::int64_t count) {
  if (valid_) return Rule::mbarrier_reinit;
  if (count < 1 || count > kMaxCount) return Rule::mbarrier_count;
  *this = Mbarrier{};
  valid_ = true;
  pending_ = expected_ = count;
  return Rule::ok;
}

Rule Mbarrier::inval() {
  if (!valid_) return Rule::mbarrier_uninitialized;
  valid_ = false;
  return Rule::ok;
}

Rule Mbarrier::arrive(std::int64_t count) {
  if (!valid_) return Rule::mbarrier_uninitialized;
  // More arrivals than are pending is outside the documented range (UB).
  if (count < 1 || count > pending_) return Rule::mbarrier_arrivals;
  pending_ -= count;
  maybe_complete();
  return Rule::ok;
}

Rule Mbarrier::expect_tx(std::int64_t bytes) {
  if (!valid_) return Rule::mbarrier_uninitialized;
  if (bytes < 0 || tx_ + bytes > kMaxCount) return Rule::mbarrier_tx;
  tx_ += bytes;
  return Rule::ok;
}

Rule Mbarrier::complete_tx(std::int64_t bytes) {
  if (!valid_) return Rule::mbarrier_uninitialized;
  // tx may go negative: a transfer can land before its expect_tx (facts-2 §4).
  if (bytes < 0 || tx_ - bytes < -kMaxCount) return Rule::mbarrier_tx;
  tx_ -= bytes;
  maybe_complete();
  return Rule::ok;
}

// -phase-completion: pending arrivals zero and tx-count zero.
void Mbarrier::maybe_complete() {
  if (pending_ != 0 || tx_ != 0) return;
  ++phase_;
  pending_ = expected_;
}

}  // namespace tcgen::model
