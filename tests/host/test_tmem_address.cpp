// TmemAddress keeps lanes (bits 31-16) and columns (bits 15-0) apart
// (PTX #tcgen05-tensor-memory-addressing).
#include <doctest/doctest.h>

#include "tcgen/tmem/address.hpp"

using tcgen::tmem::TmemAddress;

static_assert(TmemAddress(16, 8).raw() == 0x00100008u);

TEST_CASE("lane and column fields sit where PTX puts them") {
  const TmemAddress a = TmemAddress::from_raw(0x00200040u);
  CHECK(a.lane() == 32);
  CHECK(a.column() == 64);
  CHECK(TmemAddress(a.lane(), a.column()) == a);
}

TEST_CASE("the user's second 16x256b store: lane + 16 is 0x00100000, not + 16") {
  // facts §8a: the second half of a warp's 32 lanes is at taddr + (16 << 16).
  const TmemAddress base = TmemAddress::from_raw(0x00000000u);
  CHECK(base.lane_offset(16).raw() == 0x00100000u);
  CHECK(base.lane_offset(16).column() == 0);
  CHECK(base.col_offset(16).raw() == 16u);  // what a raw "+ 16" does: a column move
  CHECK(base.col_offset(16).lane() == 0);
  // The next 8-column block of 16x256b.x1 is a column move.
  CHECK(base.lane_offset(16).col_offset(8) == TmemAddress(16, 8));
}

TEST_CASE("to_string names both fields") {
  CHECK(tcgen::tmem::to_string(TmemAddress(16, 8)) == "lane 16, column 8 (0x00100008)");
}
