// mbarrier phases in the host model, from tcgen05-facts-2.md §4 (PTX
// #parallel-synchronization-and-communication-instructions-mbarrier-*):
// arrivals and tx-count both gate a phase, try_wait.parity names the phase
// that completed last, and out-of-range uses are errors.
#include "test_model_support.hpp"

using namespace model_test;

TEST_CASE("a phase completes when the pending arrivals reach zero; parity names the last completed phase") {
  Mbarrier b;
  CHECK(b.init(3) == Rule::ok);
  // Fresh, phase 0 is running: parity 1 (the "preceding" phase) reads as
  // complete, which is why CUTLASS producers start waiting with phase 1.
  CHECK_FALSE(b.test_wait(0));
  CHECK(b.test_wait(1));
  CHECK(b.arrive(2) == Rule::ok);
  CHECK(b.pending() == 1);
  CHECK_FALSE(b.test_wait(0));
  CHECK(b.arrive(1) == Rule::ok);
  CHECK(b.phase() == 1);
  CHECK(b.pending() == 3);  // reset to the expected count
  CHECK(b.test_wait(0));
  CHECK_FALSE(b.test_wait(1));
  for (int i = 0; i < 3; ++i) CHECK(b.arrive(1) == Rule::ok);
  CHECK(b.phase() == 2);
  CHECK(b.test_wait(1));
}

TEST_CASE("the tx-count gates the phase too; it may go negative; expect_tx alone completes nothing") {
  Mbarrier b;
  CHECK(b.init(1) == Rule::ok);
  CHECK(b.expect_tx(1024) == Rule::ok);
  CHECK(b.arrive(1) == Rule::ok);  // arrivals done, 1024 bytes outstanding
  CHECK(b.phase() == 0);
  CHECK(b.complete_tx(512) == Rule::ok);
  CHECK(b.phase() == 0);
  CHECK(b.complete_tx(512) == Rule::ok);
  CHECK(b.phase() == 1);
  // Bytes that land before their expect_tx: tx goes negative, the phase waits.
  CHECK(b.complete_tx(256) == Rule::ok);
  CHECK(b.tx() == -256);
  CHECK(b.expect_tx(256) == Rule::ok);
  CHECK(b.phase() == 1);  // tx is 0 again, but one arrival is still pending
  CHECK(b.arrive(1) == Rule::ok);
  CHECK(b.phase() == 2);
}

TEST_CASE("out-of-range mbarrier uses are the rules they break") {
  Mbarrier b;
  CHECK(b.arrive(1) == Rule::mbarrier_uninitialized);
  CHECK(b.init(0) == Rule::mbarrier_count);
  CHECK(b.init(Mbarrier::kMaxCount + 1) == Rule::mbarrier_count);
  CHECK(b.init(2) == Rule::ok);
  CHECK(b.init(2) == Rule::mbarrier_reinit);
  CHECK(b.arrive(3) == Rule::mbarrier_arrivals);
  CHECK(b.expect_tx(Mbarrier::kMaxCount + 1) == Rule::mbarrier_tx);
  CHECK(b.inval() == Rule::ok);
  CHECK(b.init(1) == Rule::ok);  // after inval, init is legal again
}

TEST_CASE("the Cta's mbarrier instructions: phases, TMA bytes landing, and their errors") {
  Cta cta;
  const std::uint32_t mbar = 0x100;
  cta.mbarrier_init({0, 0}, mbar, 2);
  cta.mbarrier_arrive_expect_tx({0, 0}, mbar, 64);
  cta.mbarrier_arrive({1, 0}, mbar);
  CHECK_FALSE(cta.mbarrier_try_wait(2, mbar, 0));
  const std::vector<std::uint8_t> tile(64, 0xAB);
  cta.tma_load_landed(0x400, tile, mbar);
  CHECK(cta.mbarrier_try_wait(2, mbar, 0));
  CHECK(cta.mbarrier(mbar).phase() == 1);
  CHECK(cta.smem_image()[0x43F] == 0xAB);
  cta.mbarrier_expect_tx({0, 0}, mbar, 16);
  cta.mbarrier_complete_tx({0, 0}, mbar, 16);
  CHECK(cta.mbarrier(mbar).phase() == 1);  // still two arrivals pending

  expect_rule([&] { cta.mbarrier_arrive({0, 0}, mbar, 3); }, Rule::mbarrier_arrivals,
              {"mbarrier.arrive", "mbar = 0x100", "2 of 2 arrivals pending", "arrives 3 times"});
  expect_rule([&] { cta.mbarrier_init({0, 0}, mbar, 1); }, Rule::mbarrier_reinit, {"mbarrier.inval"});
  expect_rule([&] { cta.mbarrier_try_wait(0, 0x200, 0); }, Rule::mbarrier_uninitialized, {"mbar = 0x200"});
  expect_rule([&] { cta.mbarrier_init({0, 0}, 0x104, 1); }, Rule::mbarrier_address, {"8-byte-aligned"});
  expect_rule([&] { cta.mbarrier_init({0, 0}, 0x108, 0); }, Rule::mbarrier_count, {"count = 0"});
  cta.mbarrier_inval({0, 0}, mbar);
  expect_rule([&] { cta.mbarrier_arrive({0, 0}, mbar); }, Rule::mbarrier_uninitialized, {"mbarrier.inval ended it"});
}
