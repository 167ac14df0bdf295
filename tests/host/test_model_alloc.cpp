// tcgen05.alloc / dealloc / relinquish_alloc_permit in the host model
// (PTX #tcgen05-instructions-tcgen05-alloc, tcgen05-facts.md §6): the address
// written to shared memory, and each allocation rule broken once.
#include "test_model_support.hpp"

using namespace model_test;

TEST_CASE("alloc writes the address to shared memory; a barrier makes it readable to all warps") {
  Cta cta;
  cta.alloc(2, 0x40, 128);
  cta.alloc(2, 0x44, 64);  // not larger than the previous: allowed
  // Warp 2 wrote it and may read it back at once; other warps need a barrier.
  CHECK(cta.ld_shared_u32(2, 0x40) == 0u);
  expect_rule([&] { cta.ld_shared_u32(0, 0x44); }, Rule::alloc_address_before_barrier,
              {"ld.shared (warp 0)", "warp 2", "bar.sync of the whole CTA", "named barrier"});
  cta.bar_sync();
  CHECK(cta.ld_shared_u32(0, 0x44) == 128u);  // lane 0, column 128: the columns go to the first free aligned range
  cta.dealloc(2, 0, 128);
  cta.dealloc(2, 128, 64);
  cta.finish();
}

TEST_CASE("a named barrier orders the warps that wait on it after the allocating warp's arrival") {
  // CUTLASS's hand-off (70_blackwell_gemm on B200s): the MMA warp allocates and bar.arrive's, the
  // epilogue warps bar.sync on the same named barrier, then read the address.
  Cta cta{CtaConfig{.warps = 8}};
  const auto bit = [](int w) { return std::uint64_t{1} << w; };
  cta.alloc(1, 0x40, 128);
  // The true fault stays one: a barrier the allocating warp did not arrive at orders nothing after it.
  cta.named_barrier(bit(4) | bit(5), bit(4) | bit(5));
  expect_rule([&] { cta.ld_shared_u32(4, 0x40); }, Rule::alloc_address_before_barrier, {"warp 1", "named barrier"});
  cta.named_barrier(bit(1) | bit(4) | bit(5), bit(4) | bit(5));  // warp 1 arrives only
  CHECK(cta.ld_shared_u32(4, 0x40) == 0u);
  CHECK(cta.ld_shared_u32(5, 0x40) == 0u);
  // Neither the warps outside it nor an arrive-only warp are ordered by it.
  expect_rule([&] { cta.ld_shared_u32(6, 0x40); }, Rule::alloc_address_before_barrier, {"ld.shared (warp 6)"});
  cta.named_barrier(bit(6) | bit(7), bit(6));
  expect_rule([&] { cta.ld_shared_u32(7, 0x40); }, Rule::alloc_address_before_barrier, {"ld.shared (warp 7)"});
  // Transitively: warp 4 knows it and arrives; warp 7 waits.
  cta.named_barrier(bit(4) | bit(7), bit(7));
  CHECK(cta.ld_shared_u32(7, 0x40) == 0u);
  cta.dealloc(1, 0, 128);
  cta.finish();
}

TEST_CASE("an mbarrier phase the allocating warp arrived on orders the address for the warps that see it complete") {
  // CUTLASS's FMHA: the MMA warp allocates, its pipelines' mbarriers lead on to the epilogue warp,
  // which reads the address at the end to free the columns.
  Cta cta;
  constexpr std::uint32_t kBar = 0x80;
  cta.mbarrier_init({0, 0}, kBar, 1);
  cta.bar_sync();
  cta.alloc(1, 0x40, 64);
  // Before the arrival: nothing carries the address to warp 3.
  cta.mbarrier_arrive({2, 0}, kBar);
  REQUIRE(cta.mbarrier_try_wait(3, kBar, 0));
  expect_rule([&] { cta.ld_shared_u32(3, 0x40); }, Rule::alloc_address_before_barrier, {"ld.shared (warp 3)", "mbarrier phase"});
  cta.mbarrier_arrive({1, 0}, kBar);  // the allocating warp arrives: phase 1
  REQUIRE(cta.mbarrier_try_wait(3, kBar, 1));
  CHECK(cta.ld_shared_u32(3, 0x40) == 0u);
  expect_rule([&] { cta.ld_shared_u32(2, 0x40); }, Rule::alloc_address_before_barrier, {"ld.shared (warp 2)"});
  cta.dealloc(1, 0, 64);
  cta.finish();
}

TEST_CASE("nCols must be a power of two in [32, 512]") {
  Cta cta;
  for (std::uint32_t bad : {0u, 16u, 48u, 100u, 1024u})
    expect_rule([&] { cta.alloc(0, 0, bad); }, Rule::alloc_columns, {"nCols = " + std::to_string(bad)});
  for (std::uint32_t good : {512u, 256u, 64u, 32u}) {  // never growing
    cta.alloc(0, 0, good);
    cta.dealloc(0, cta.ld_shared_u32(0, 0), good);
  }
  cta.finish();
}

TEST_CASE("the number of columns should not grow between allocations: a PTX letter") {
  Cta strict(CtaConfig{.letters_as_errors = true});
  strict.alloc(0, 0, 64);
  expect_rule([&] { strict.alloc(0, 4, 128); }, Rule::alloc_increase, {"previous tcgen05.alloc took 64"});
  Cta cta;
  cta.alloc(0, 0, 64);
  expect_letter(cta, [&] { cta.alloc(0, 4, 128); }, Rule::alloc_increase, {"previous tcgen05.alloc took 64"});
}

TEST_CASE("alloc blocks forever when the CTA itself holds the columns") {
  Cta cta;
  cta.alloc(0, 0, 512);
  expect_rule([&] { cta.alloc(0, 4, 32); }, Rule::alloc_unavailable, {"columns [0, 512) by warp 0"});
}

TEST_CASE("no alloc after relinquish_alloc_permit") {
  Cta cta;
  cta.relinquish_alloc_permit(3);
  expect_rule([&] { cta.alloc(0, 0, 32); }, Rule::alloc_after_relinquish, {"warp 3"});
}

TEST_CASE("dealloc must name a live allocation exactly") {
  Cta cta;
  cta.alloc(0, 0, 64);
  expect_rule([&] { cta.dealloc(0, 0, 32); }, Rule::dealloc_mismatch, {"0x0 with nCols 32", "[0, 64)"});
  expect_rule([&] { cta.dealloc(0, taddr(16, 0), 64); }, Rule::dealloc_mismatch);
  cta.dealloc(0, 0, 64);
  expect_rule([&] { cta.dealloc(0, 0, 64); }, Rule::dealloc_mismatch, {"live allocations: none"});
}

TEST_CASE("Tensor Memory still allocated at the kernel's exit is an error") {
  Cta cta;
  cta.alloc(1, 0, 256);
  expect_rule([&] { cta.finish(); }, Rule::tmem_not_freed, {"kernel exit", "columns [0, 256) by warp 1"});
  cta.dealloc(1, 0, 256);
  cta.finish();
}

TEST_CASE("every tcgen05 instruction of a kernel uses one .cta_group; ::2 needs a CTA pair") {
  Cta cta;
  cta.alloc(0, 0, 32);
  expect_rule([&] { cta.relinquish_alloc_permit(0, CtaGroup::two); }, Rule::mixed_cta_group,
              {".cta_group = ::2", "tcgen05.alloc.cta_group::1", "used ::1"});
  Cta pair;
  expect_rule([&] { pair.alloc(0, 0, 32, CtaGroup::two); }, Rule::pair_missing, {"no peer of rank 1"});
}

TEST_CASE("alloc's dst must be in shared memory; a store over it replaces the address") {
  Cta cta(CtaConfig{.warps = 4, .smem_base = 0, .smem_bytes = 4096});
  expect_rule([&] { cta.alloc(0, 4096, 32); }, Rule::smem_outside_image, {"dst = 0x1000", "[0x0, 0x1000)"});
  cta.alloc(0, 0x10, 32);
  const std::uint8_t zeros[4] = {};
  cta.st_shared(1, 0x10, zeros);  // warp 1's own store: nothing weak left to race with
  CHECK(cta.ld_shared_u32(1, 0x10) == 0u);
}
