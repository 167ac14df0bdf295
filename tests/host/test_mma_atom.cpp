// MMA atoms on the host: the instruction descriptor each atom issues (the
// worked values of tcgen05-facts.md §3), the typed operand checks accepting
// the operands of each form, and SmemMatrix's K-step descriptors against the
// descriptor iterator and the worked descriptors of tcgen05-facts.md §1.
// The rejections are compile-fail tests (tests/compile_fail/mma_cases.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "expect_error.hpp"
#include "tcgen/mma/mma_atom.hpp"

using namespace tcgen;
using namespace tcgen::mma;
using layout::Major;
using layout::SmemOperandSpec;
using layout::SmemSwizzle;
using T = ElementType;
using Spec = InstrDescriptorSpec;

namespace {

template <int Bits, Major Mj, SmemSwizzle Sw, int Rows, int Cols>
using Dense = SmemMatrix<SmemOperandSpec{layout::dense_element(Bits), Mj, Sw, Rows, Cols}>;
template <int M, int N, int CtaGroup = 1, bool Ws = false, T E = T::f32>
using Acc = tmem::AccumulatorTile<layout::AccumulatorSpec{M, N, CtaGroup, Ws}, E>;
constexpr auto K = Major::K;
constexpr auto MN = Major::MN;
constexpr auto SW128 = SmemSwizzle::b128;

// tcgen05-facts.md §3, "Worked idesc values", copied from the sheet.
static_assert(Mma<Spec{.n = 128}>::idesc == 0x08200490);
static_assert(Mma<Spec{.n = 256}>::idesc == 0x08400490);
static_assert(Mma<Spec{.m = 64, .n = 16}>::idesc == 0x04040490);
static_assert(Mma<Spec{.a = T::fp16, .b = T::fp16, .n = 16}>::idesc == 0x08040010);
static_assert(Mma<Spec{.a = T::fp16, .b = T::fp16, .d = T::fp16, .n = 64}>::idesc == 0x08100000);
static_assert(Mma<Spec{.kind = MmaKind::tf32, .a = T::tf32, .b = T::tf32}>::idesc == 0x08200910);
static_assert(Mma<Spec{.m = 256, .n = 256, .cta_group = 2}>::idesc == 0x10400490);
static_assert(Mma<Spec{.a_major = MN, .b_major = MN}>::idesc == 0x08218490);

// K per instruction (PTX Table 39) and the scale vector of each block-scaled kind (Table 57).
static_assert(Mma<Spec{}>::k == 16 && Mma<Spec{.kind = MmaKind::tf32, .a = T::tf32, .b = T::tf32}>::k == 8);
static_assert(Mma<Spec{.kind = MmaKind::i8, .a = T::s8, .b = T::u8, .d = T::s32}>::k == 32);
static_assert(Mma<Spec{.kind = MmaKind::mxf8f6f4, .a = T::e4m3, .b = T::e2m1}>::scale_vec == 1);
static_assert(Mma<Spec{.kind = MmaKind::mxf4, .a = T::e2m1, .b = T::e2m1}>::scale_vec == 2);
static_assert(Mma<Spec{.kind = MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1}>::scale_vec == 2);
static_assert(Mma<Spec{.kind = MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1}, 4>::scale_vec == 4);
static_assert(
    Mma<Spec{.kind = MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1, .scale_type = ScaleType::ue4m3}>::scale_vec == 4);
static_assert(Mma<Spec{}>::scale_vec == 0 && !Mma<Spec{}>::scaled);

// The operands of each form are accepted, and Accumulator is the tile the atom writes.
using Bf16 = Mma<Spec{.n = 256}>;
static_assert(Bf16::accepts<Acc<128, 256>, Dense<16, K, SW128, 128, 64>, Dense<16, K, SW128, 256, 64>>());
static_assert(Bf16::accepts<Acc<128, 256>, tmem::OperandTile<128, 64, T::bf16>, Dense<16, K, SW128, 256, 64>>());
static_assert(std::is_same_v<Bf16::Accumulator, Acc<128, 256>>);
// MN-major fp16 -> fp16, and tf32 B in the 128B-with-32B-atoms swizzle.
static_assert(Mma<Spec{.a = T::fp16, .b = T::fp16, .d = T::fp16, .a_major = MN, .b_major = MN}>::accepts<
              Acc<128, 128, 1, false, T::fp16>, Dense<16, MN, SW128, 128, 64>, Dense<16, MN, SW128, 128, 64>>());
static_assert(Mma<Spec{.kind = MmaKind::tf32, .a = T::tf32, .b = T::tf32, .b_major = MN}>::accepts<
              Acc<128, 128>, Dense<32, K, SW128, 128, 32>, Dense<32, MN, SmemSwizzle::b128_base32b, 128, 32>>());
// cta_group::2: half of A's rows and half of B's per CTA.
static_assert(Mma<Spec{.m = 256, .n = 256, .cta_group = 2}>::accepts<Acc<256, 256, 2>, Dense<16, K, SW128, 128, 64>,
                                                                      Dense<16, K, SW128, 128, 64>>());
static_assert(Mma<Spec{.n = 64, .cta_group = 2}>::accepts<Acc<128, 64, 2>, tmem::OperandTile<64, 64, T::bf16>,
                                                          Dense<16, K, SW128, 32, 64>>());
// .ws M64 (Layout E).
static_assert(Mma<Spec{.m = 64, .ws = true}>::accepts<Acc<64, 128, 1, true>, Dense<16, K, SW128, 64, 64>,
                                                       Dense<16, K, SW128, 128, 64>>());
// f8f6f4 with a padded 4-bit A; mxf4 with packed 4-bit A and B.
static_assert(Mma<Spec{.kind = MmaKind::f8f6f4, .a = T::e2m1, .b = T::e4m3}>::accepts<
              Acc<128, 128>, SmemMatrix<SmemOperandSpec{layout::padded_element(4), K, SW128, 128, 128}>,
              Dense<8, K, SW128, 128, 128>>());
static_assert(Mma<Spec{.kind = MmaKind::mxf4, .a = T::e2m1, .b = T::e2m1}>::accepts<
              Acc<128, 128>, Dense<4, K, SW128, 128, 256>, Dense<4, K, SW128, 128, 256>>());
static_assert(Mma<Spec{.kind = MmaKind::mxf8f6f4, .a = T::e4m3, .b = T::e4m3}>::accepts<
              Acc<128, 128>, tmem::OperandTile<128, 128, T::e4m3>, Dense<8, K, SW128, 128, 128>>());

// ---- SmemMatrix ---------------------------------------------------------------

// kstep(k) of SmemMatrix<S> at `address` against KStepDescriptors, for every step.
template <SmemOperandSpec S>
void check_ksteps(std::uint32_t address) {
  const SmemMatrix<S> tile(address);
  const KStepDescriptors reference(layout::make_smem_operand(S), address);
  REQUIRE(SmemMatrix<S>::ksteps == reference.size());
  for (int k = 0; k < SmemMatrix<S>::ksteps; ++k) {
    CAPTURE(k);
    CHECK(tile.kstep(k) == reference[k]);
  }
}

template <SmemOperandSpec... Specs>
void check_all(std::uint32_t address) {
  (check_ksteps<Specs>(address), ...);
}

constexpr auto e16 = layout::dense_element(16);
constexpr auto e32 = layout::dense_element(32);
constexpr auto e8 = layout::dense_element(8);

}  // namespace

TEST_CASE("SmemMatrix: the worked descriptors of tcgen05-facts.md §1") {
  // K-major SW128 at 0x400, LBO 16 B, SBO 1024 B; K-major no swizzle at 0x400, LBO 2048 B, SBO 128 B.
  CHECK(Dense<16, K, SW128, 128, 64>(0x400).kstep(0) == 0x4000404000010040ull);
  CHECK(Dense<16, K, SmemSwizzle::none, 128, 64>(0x400).kstep(0) == 0x0000400800800040ull);
  // Inside a 128-byte swizzle row, K steps move only the start address, by 32 B = 2 units
  // (hardware-checks.md, checked with wgmma on an H200).
  const Dense<16, K, SW128, 128, 64> tile(0x400);
  for (int k = 0; k < 4; ++k) CHECK(tile.kstep(k) == 0x4000404000010040ull + 2u * static_cast<unsigned>(k));
  // Constant-evaluable: a descriptor can be built at compile time.
  static_assert(Dense<16, K, SW128, 128, 64>(0x400).kstep(1) == 0x4000404000010042ull);
  // In a cluster, rank r's address r·2^24 + 0x400 (hardware-checks.md) names the same offset: the
  // descriptor holds the bits below the rank.
  CHECK(Dense<16, K, SW128, 128, 64>(0x01000400).kstep(0) == 0x4000404000010040ull);
  CHECK(Dense<16, K, SW128, 128, 64>(0x0F000400).kstep(3) == 0x4000404000010046ull);
}

TEST_CASE("SmemMatrix: kstep(k) equals the descriptor iterator for every layout mode") {
  for (std::uint32_t address : {0u, 0x400u, 0x1230u, 0x21000u}) {
    CAPTURE(address);
    check_all<SmemOperandSpec{e16, K, SmemSwizzle::none, 128, 64}, SmemOperandSpec{e16, K, SmemSwizzle::b32, 64, 64},
              SmemOperandSpec{e16, K, SmemSwizzle::b64, 64, 128}, SmemOperandSpec{e16, K, SW128, 256, 128},
              SmemOperandSpec{e16, MN, SmemSwizzle::none, 64, 64}, SmemOperandSpec{e16, MN, SmemSwizzle::b32, 64, 32},
              SmemOperandSpec{e16, MN, SmemSwizzle::b64, 64, 64}, SmemOperandSpec{e16, MN, SW128, 128, 64},
              SmemOperandSpec{e32, K, SW128, 128, 64}, SmemOperandSpec{e32, MN, SmemSwizzle::b128_base32b, 64, 32},
              SmemOperandSpec{e8, K, SW128, 128, 256}, SmemOperandSpec{e8, MN, SW128, 128, 128},
              SmemOperandSpec{layout::padded_element(6), K, SW128, 128, 256},
              SmemOperandSpec{layout::dense_element(4), K, SmemSwizzle::b64, 64, 256}>(address);
  }
}

TEST_CASE("OperandTile: K step k of a TMEM A operand starts 8 columns (256 bits of each row) after step k - 1") {
  // One instruction's K (Mma::k) fills 8 of the tile's columns, so the
  // tile's last K step ends on its last column: kind::f16 (16 bf16 per step,
  // 2 per column) and kind::f8f6f4 (32 e4m3, 4 per column), 64 and 128 rows.
  const auto last_step_ends_the_tile = []<class Tile, class Atom>() {
    const Tile t{tcgen::tmem::TmemAddress(32, 64)};
    const int steps = Tile::k / Atom::k;
    for (int k = 0; k < steps; ++k) {
      CHECK(t.kstep(k).lane() == 32);
      CHECK(t.kstep(k).column() == 64 + 8u * static_cast<std::uint32_t>(k));
    }
    CHECK(t.kstep(steps - 1).column() + 8 == 64 + Tile::columns);
  };
  using tcgen::ElementType;
  using F16 = tcgen::mma::Mma<tcgen::mma::InstrDescriptorSpec{.kind = tcgen::mma::MmaKind::f16, .a = ElementType::bf16,
                                                              .b = ElementType::bf16, .d = ElementType::f32, .m = 128,
                                                              .n = 64}>;
  using F8 = tcgen::mma::Mma<tcgen::mma::InstrDescriptorSpec{.kind = tcgen::mma::MmaKind::f8f6f4,
                                                             .a = ElementType::e4m3, .b = ElementType::e4m3,
                                                             .d = ElementType::f32, .m = 64, .n = 64}>;
  last_step_ends_the_tile.operator()<tcgen::tmem::OperandTile<128, 64, ElementType::bf16>, F16>();
  last_step_ends_the_tile.operator()<tcgen::tmem::OperandTile<64, 128, ElementType::e4m3>, F8>();
}

TEST_CASE("SmemMatrix: addresses and K steps the descriptor cannot hold are errors") {
  expect_error([] { Dense<16, K, SW128, 128, 64> tile(0x408); }, "smem_address");           // not 16-byte aligned
  expect_error([] { Dense<16, K, SW128, 128, 64> tile(0x3E000); }, "smem_address");         // past 256 KiB
  expect_error([] { Dense<16, K, SW128, 128, 64> tile(0x0103E000); }, "smem_address");      // the same in rank 1
  expect_error([] { (void)Dense<16, K, SW128, 128, 64>(0).kstep(4); }, "kstep");            // 4 steps: 0..3
  expect_error([] { (void)Dense<16, K, SW128, 128, 64>(0).kstep(-1); }, "kstep");
}
