// SMEM descriptors from canonical layouts; worked values of tcgen05-facts.md §1
// (computed there from PTX Table 40 and matching CUTLASS make_umma_desc).
#include <doctest/doctest.h>

#include "tcgen/mma/smem_descriptor.hpp"

using namespace tcgen;
using namespace tcgen::layout;
using mma::DescriptorArch;

namespace {
constexpr SmemOperand bf16_k(SmemSwizzle sw, Int rows, Int cols) {
  return SmemOperand(SmemOperandSpec{dense_element(16), Major::K, sw, rows, cols});
}
}  // namespace

TEST_CASE("worked encodings of facts §1") {
  // K-major SW128, smem 0x400, LBO 16 B, SBO 1024 B.
  static_assert(mma::encode(mma::descriptor_fields(bf16_k(SmemSwizzle::b128, 128, 64), 0x400)) == 0x4000404000010040ull);
  // K-major no swizzle, smem 0x400, LBO 2048 B, SBO 128 B: the user's layout.
  static_assert(mma::encode(mma::descriptor_fields(bf16_k(SmemSwizzle::none, 128, 16), 0x400)) == 0x0000400800800040ull);
}

TEST_CASE("SM90 form: same fields, no version bit, 2-bit swizzle code at 62") {
  const auto f = mma::descriptor_fields(bf16_k(SmemSwizzle::b128, 128, 64), 0x400);
  const std::uint64_t sm100 = mma::encode(f), sm90 = mma::encode(f, DescriptorArch::sm90);
  // facts §1: a GMMA descriptor with bit 46 set is a valid UMMA descriptor for none/32B/64B/128B.
  CHECK((sm90 | (1ull << 46)) == sm100);
  CHECK(mma::sm90::layout_type.extract(sm90) == 1);  // SM90 code of 128B
  for (SmemSwizzle sw : {SmemSwizzle::none, SmemSwizzle::b32, SmemSwizzle::b64})
    CHECK((mma::encode(mma::descriptor_fields(bf16_k(sw, 64, 64), 0), DescriptorArch::sm90) | (1ull << 46)) ==
          mma::encode(mma::descriptor_fields(bf16_k(sw, 64, 64), 0)));
}

TEST_CASE("K steps inside a 128B atom advance the start address by 32 B") {
  // hardware-checks.md: "K-steps inside one 128B/64B atom advance only the start address (by 32 B)".
  const SmemOperand op = bf16_k(SmemSwizzle::b128, 128, 64);
  for (Int k = 0; k < op.ksteps(); ++k) {
    const auto f = mma::descriptor_fields(op, 0x8000, k);
    CHECK(f.start_address == 0x8000 + 32 * k);
    CHECK(f.base_offset == 0);
  }
}

TEST_CASE("base offset: tile-anchored swizzle off its 1024 B period") {
  const SmemOperand op = bf16_k(SmemSwizzle::b128, 64, 64);
  const Int start = 8192 + 3 * 128;  // hardware-checks.md: (start >> 7) & 7 = 3 was exact on an H200
  CHECK(mma::descriptor_fields(op, start, 0, SwizzleAnchor::tile).base_offset == 3);
  CHECK(mma::descriptor_fields(op, start, 0, SwizzleAnchor::absolute).base_offset == 0);
}

TEST_CASE("fields that do not fit are errors naming the field") {
  mma::SmemDescriptorFields f{0x400, 16, 1024, 0, 2};
  f.start_address = 0x408;
  CHECK_THROWS_WITH_AS(mma::encode(f), doctest::Contains("start_address"), Error);
  f.start_address = 0x400;
  f.sbo = 1 << 18;
  CHECK_THROWS_WITH_AS(mma::encode(f), doctest::Contains("sbo"), Error);
  f.sbo = 1024;
  f.layout_type = 3;
  CHECK_THROWS_WITH_AS(mma::encode(f), doctest::Contains("layout_type"), Error);
  f.layout_type = 1;
  CHECK_THROWS_WITH_AS(mma::encode(f, DescriptorArch::sm90), doctest::Contains("layout_type"), Error);
  CHECK_THROWS_WITH_AS(mma::descriptor_fields(bf16_k(SmemSwizzle::b128, 64, 64), 0, 4), doctest::Contains("kstep"), Error);
}
