// SMEM descriptors from canonical layouts; worked values of tcgen05-facts.md §1
// (computed there from PTX Table 40 and matching CUTLASS make_umma_desc).
#include <doctest/doctest.h>

#include "tcgen/mma/smem_descriptor.hpp"

#include <algorithm>
#include <vector>

#include "tcgen/mma/descriptor_iterator.hpp"

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

// ---- decode ------------------------------------------------------------------

TEST_CASE("decode: the worked encodings of facts §1, in bytes") {
  static_assert(mma::decode(0x4000404000010040ull) == mma::SmemDescriptorFields{0x400, 16, 1024, 0, 2});
  static_assert(mma::decode(0x0000400800800040ull) == mma::SmemDescriptorFields{0x400, 2048, 128, 0, 0});
  // SM90: the same value without bit 46, swizzle code 1 (128B) at bits 62-63, reported as the SM100 code.
  static_assert(mma::decode(0x4000004000010040ull, DescriptorArch::sm90) == mma::SmemDescriptorFields{0x400, 16, 1024, 0, 2});
}

TEST_CASE("decode refuses what the hardware would misread, naming the field") {
  const std::uint64_t good = 0x4000404000010040ull;  // K-major SW128, facts §1
  const auto refused = [](std::uint64_t d, const char* field, DescriptorArch arch = DescriptorArch::sm100) {
    CAPTURE(d);
    CHECK_THROWS_WITH_AS(mma::decode(d, arch), doctest::Contains(field), Error);
  };
  refused(good | 1ull << 14, "reserved bits 14-15");
  refused(good | 1ull << 31, "reserved bits 30-31");
  refused(good | 1ull << 48, "version");       // bits 46-48 must be exactly 0b001
  refused(good & ~(1ull << 46), "version");    // the SM90 form given as SM100
  refused(good | 1ull << 52, "lbo_mode");      // absolute LBO: sm_103a only
  CHECK_THROWS_WITH_AS(mma::decode(good | 1ull << 52), doctest::Contains("sm_103a only"), Error);
  refused(good | 1ull << 53, "reserved bits 53-60");
  refused(good | 1ull << 60, "reserved bits 53-60");
  for (std::uint64_t code : {3ull, 5ull, 7ull}) refused((good & ~(7ull << 61)) | code << 61, "layout_type");
  // Base offset with no swizzle: "valid for all swizzling modes except the no-swizzle mode".
  refused(0x0000400800800040ull | 3ull << 49, "base_offset");
  CHECK(mma::decode(good | 3ull << 49).base_offset == 3);
  // SM90: bits 46-48 and 52-61 are unused.
  refused(good, "unused bits 46-48", DescriptorArch::sm90);
  refused(0x4000004000010040ull | 1ull << 61, "unused bits 52-61", DescriptorArch::sm90);
  refused(0x4000004000010040ull | 1ull << 15, "unused bits 14-15", DescriptorArch::sm90);
  refused(0x0000000800800040ull | 1ull << 49, "base_offset", DescriptorArch::sm90);
  // encode refuses the same base offset.
  CHECK_THROWS_WITH_AS(mma::encode({0x400, 2048, 128, 1, 0}), doctest::Contains("no-swizzle"), Error);
}

TEST_CASE("decode(encode(f)) == f and encode(decode(x)) == x") {
  // Every legal spec at a few tile addresses, both archs where the mode exists.
  const SmemElement elements[] = {dense_element(4), dense_element(8), dense_element(16), dense_element(32),
                                  padded_element(4), padded_element(6)};
  int checked = 0;
  for (SmemElement e : elements)
    for (Major m : {Major::K, Major::MN})
      for (SmemSwizzle sw : {SmemSwizzle::none, SmemSwizzle::b32, SmemSwizzle::b64, SmemSwizzle::b128,
                             SmemSwizzle::b128_base32b}) {
        SmemOperandSpec s{e, m, sw, 0, 0};
        if (check(s) == SmemRule::element_bits || check(s) == SmemRule::k_major_base32b ||
            check(s) == SmemRule::mn_major_tf32 || check(s) == SmemRule::base32b_needs_tf32 ||
            check(s) == SmemRule::mn_major_subbyte)
          continue;
        const auto atom = atom_extent(s);
        s.rows = 2 * atom[0];
        s.cols = std::max(atom[1], kstep_elements(e)) * 2;
        const SmemOperand op(s);
        for (Int base : {Int{0}, Int{0x400}, Int{8192 + 384}, Int{0x3F000}})
          for (auto anchor : {SwizzleAnchor::absolute, SwizzleAnchor::tile})
            for (DescriptorArch arch : {DescriptorArch::sm100, DescriptorArch::sm90}) {
              if (arch == DescriptorArch::sm90 && sw == SmemSwizzle::b128_base32b) continue;
              if (base + op.size_bytes() > (1 << 18)) continue;
              const auto f = mma::descriptor_fields(op, base, 0, anchor);
              const std::uint64_t d = mma::encode(f, arch);
              CHECK(mma::decode(d, arch) == f);
              CHECK(mma::encode(mma::decode(d, arch), arch) == d);
              ++checked;
            }
      }
  CHECK(checked > 100);
  // Random words: decode either refuses with tcgen::Error or round-trips exactly.
  std::uint64_t x = 0x9E3779B97F4A7C15ull;
  int accepted = 0;
  for (int i = 0; i < 20000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    // Half of them forced into the valid shape, so both branches run.
    std::uint64_t d = x;
    if (i % 2) {
      d &= ~(mma::sm100::reserved_14.mask() | mma::sm100::reserved_30.mask() | mma::sm100::reserved_53.mask() |
             mma::sm100::lbo_mode.mask() | mma::sm100::version.mask());
      d |= 1ull << 46;
      if (((d >> 61) & 1) && (d >> 62)) d &= ~(1ull << 61);  // 3, 5, 7 -> 2, 4, 6
      if ((d >> 61) == 0) d &= ~mma::sm100::base_offset.mask();
    }
    for (DescriptorArch arch : {DescriptorArch::sm100, DescriptorArch::sm90}) {
      try {
        const auto f = mma::decode(d, arch);
        CHECK(mma::encode(f, arch) == d);
        ++accepted;
      } catch (const Error&) {
      }
    }
  }
  CHECK(accepted >= 10000);
}

TEST_CASE("describe: one line per field, in bit order, covering all 64 bits") {
  for (DescriptorArch arch : {DescriptorArch::sm100, DescriptorArch::sm90}) {
    const std::uint64_t d = arch == DescriptorArch::sm100 ? 0x0000400800800040ull : 0x0000000800800040ull;
    const auto lines = mma::describe(d, arch);
    int next = 0;
    for (const auto& l : lines) {
      CHECK(l.lo == next);
      next = l.hi + 1;
      CHECK(!l.meaning.empty());
    }
    CHECK(next == 64);
    CHECK(lines[2].name == "lbo");
    CHECK(lines[2].meaning.rfind("2048 B", 0) == 0);
    CHECK(lines[4].meaning.rfind("128 B", 0) == 0);
  }
  CHECK_THROWS_WITH_AS(mma::describe(0x6000404000010040ull), doctest::Contains("layout_type"), Error);
}

// ---- K-step descriptors and advance ------------------------------------------

TEST_CASE("KStepDescriptors: one descriptor per K step, in order, start address only") {
  // The CLI example: bf16 K-major SW128 128 x 64 at 0x400, four K steps 32 B apart.
  constexpr mma::KStepDescriptors steps(bf16_k(SmemSwizzle::b128, 128, 64), 0x400);
  static_assert(steps.size() == 4);
  static_assert(steps[0] == 0x4000404000010040ull);
  static_assert(steps[3] == 0x4000404000010040ull + 3 * 2);  // +96 B = 6 units of 16 B
  std::vector<Int> starts;
  for (auto it = steps.begin(); it != steps.end(); ++it) {
    CHECK(*it == steps[it.kstep()]);
    starts.push_back(mma::decode(*it).start_address);
  }
  CHECK(starts == std::vector<Int>{1024, 1056, 1088, 1120});
  CHECK_THROWS_WITH_AS(steps[4], doctest::Contains("kstep"), Error);

  // Every step equals the descriptor built from that step's fields, for
  // several layouts, both archs, and a tile-anchored base offset.
  for (SmemSwizzle sw : {SmemSwizzle::none, SmemSwizzle::b32, SmemSwizzle::b64, SmemSwizzle::b128}) {
    const SmemOperand ops[] = {bf16_k(sw, 64, 128),
                               SmemOperand(SmemOperandSpec{dense_element(16), Major::MN, sw, 128, 64}),
                               SmemOperand(SmemOperandSpec{dense_element(8), Major::MN, sw, 128, 64})};
    for (const SmemOperand& op : ops)
      for (DescriptorArch arch : {DescriptorArch::sm100, DescriptorArch::sm90})
        for (auto anchor : {SwizzleAnchor::absolute, SwizzleAnchor::tile}) {
          const mma::KStepDescriptors range(op, 8192 + 384, arch, anchor);
          Int k = 0;
          for (std::uint64_t d : range) {
            CHECK(d == mma::encode(mma::descriptor_fields(op, 8192 + 384, k, anchor), arch));
            CHECK(range.fields(k) == mma::descriptor_fields(op, 8192 + 384, k, anchor));
            ++k;
          }
          CHECK(k == op.ksteps());
        }
  }
}

TEST_CASE("advance moves the start address, checked, never wrapping") {
  const std::uint64_t d = 0x4000404000010040ull;  // start 0x400
  static_assert(mma::advance(0x4000404000010040ull, 32) == 0x4000404000010042ull);
  static_assert(mma::advance(0x4000404000010040ull, -1024) == 0x4000404000010000ull);
  CHECK(mma::advance(d, (1 << 18) - 0x400 - 16) == (d | 0x3FFF));
  CHECK_THROWS_WITH_AS(mma::advance(d, 8), doctest::Contains("advance"), Error);
  CHECK_THROWS_WITH_AS(mma::advance(d, (1 << 18) - 0x400), doctest::Contains("start_address"), Error);
  CHECK_THROWS_WITH_AS(mma::advance(d, -0x410), doctest::Contains("start_address"), Error);
}

// ---- check_canonical ---------------------------------------------------------

TEST_CASE("check_canonical accepts every canonical tile and reads the same LBO and SBO") {
  const SmemElement elements[] = {dense_element(4), dense_element(8), dense_element(16), dense_element(32),
                                  padded_element(4), padded_element(6)};
  int checked = 0;
  for (SmemElement e : elements)
    for (Major m : {Major::K, Major::MN})
      for (SmemSwizzle sw : {SmemSwizzle::none, SmemSwizzle::b32, SmemSwizzle::b64, SmemSwizzle::b128,
                             SmemSwizzle::b128_base32b})
        for (Int rm : {1, 2, 3})
          for (Int cm : {1, 2}) {
            SmemOperandSpec s{e, m, sw, 0, 0};
            const auto atom = atom_extent(s);
            s.rows = rm * atom[0];
            s.cols = cm * std::max(atom[1], kstep_elements(e));
            if (check(s) != SmemRule::ok) continue;
            const SmemOperand op(s);
            CAPTURE(to_string(op.layout()));
            const auto f = mma::check_canonical(op.layout(), s);
            CHECK(f == mma::descriptor_fields(op, 0));
            ++checked;
          }
  CHECK(checked > 100);
}

TEST_CASE("check_canonical names the stride a non-canonical layout gets wrong") {
  const SmemOperandSpec k128{dense_element(16), Major::K, SmemSwizzle::b128, 32, 64};
  // 8-row groups at uneven strides: 1024 B, then 3072 B (slots are 2 B here).
  const Layout uneven{Mode{{8, 2, 2}, {64, 512, 2048}}, Mode{{64}, {1}}};
  CHECK_THROWS_WITH_AS(mma::check_canonical(uneven, k128),
                       doctest::Contains("SBO = 3072 B from element (8, 0) to (16, 0) is invalid: expected 1024 B"),
                       Error);
  // A plain row-major tile 128 bf16 wide: rows 256 B apart, where a 128B atom has them 128 B apart.
  const SmemOperandSpec k128w{dense_element(16), Major::K, SmemSwizzle::b128, 16, 128};
  const Layout row_major{Mode{{16}, {128}}, Mode{{128}, {1}}};
  CHECK_THROWS_WITH_AS(mma::check_canonical(row_major, k128w),
                       doctest::Contains("row stride = 256 B from element (0, 0) to (1, 0) is invalid: expected 128 B"),
                       Error);
  // No swizzle, row-major 16 x 16 bf16: rows 32 B apart where a core matrix needs 16 B.
  const SmemOperandSpec knone{dense_element(16), Major::K, SmemSwizzle::none, 16, 16};
  CHECK_THROWS_WITH_AS(mma::check_canonical(Layout{Mode{{16}, {16}}, Mode{{16}, {1}}}, knone),
                       doctest::Contains("row stride"), Error);
  // The canonical no-swizzle tile with LBO and SBO's groups swapped in order is
  // still canonical (other strides): check_canonical reads them off.
  const Layout swapped{Mode{{8, 2}, {8, 128}}, Mode{{8, 2}, {1, 64}}};  // SBO 256 B, LBO 128 B
  const auto f = mma::check_canonical(swapped, knone);
  CHECK(f.lbo == 128);
  CHECK(f.sbo == 256);
  // K chunks not contiguous: K index 1 two slots after K index 0.
  CHECK_THROWS_WITH_AS(mma::check_canonical(Layout{Mode{{8, 2}, {16, 128}}, Mode{{8, 2}, {2, 256}}}, knone),
                       doctest::Contains("element order"), Error);
  // MN-major 128B bf16 given a K-major layout.
  const SmemOperandSpec mn{dense_element(16), Major::MN, SmemSwizzle::b128, 64, 16};
  CHECK_THROWS_WITH_AS(mma::check_canonical(SmemOperand(SmemOperandSpec{dense_element(16), Major::K,
                                                                        SmemSwizzle::b128, 64, 64}).layout(), mn),
                       doctest::Contains("layout"), Error);
  CHECK_THROWS_WITH_AS(mma::check_canonical(Layout{Mode{{64}, {16}}, Mode{{16}, {1}}}, mn),
                       doctest::Contains("element order"), Error);
  // An illegal spec is refused by the spec's own rules.
  CHECK_THROWS_WITH_AS(mma::check_canonical(uneven, SmemOperandSpec{dense_element(16), Major::K,
                                                                    SmemSwizzle::b128_base32b, 32, 64}),
                       doctest::Contains("swizzle"), Error);
}
