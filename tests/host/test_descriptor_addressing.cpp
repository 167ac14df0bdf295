// The independent cross-check of the SMEM descriptors: a small emulator of how
// tcgen05.mma (and wgmma) fetch an operand through its 64-bit descriptor,
// written here from the PTX rules only (../shared/reference/tcgen05-facts.md):
//   §1   the bit positions (#tcgen05-shared-memory-descriptor, and the wgmma
//        descriptor), decoded with shifts and masks written below, not with
//        the library's BitFields or decode();
//   §2.1 "Byte-address form for the emulator" (#tcgen05-canonical-layouts):
//        where element (i, k) of a K step lies, from start address, LBO, SBO;
//   §2.3 the swizzle XOR, applied to the absolute address.
// For every legal mode, element format, a few tile sizes, every K step, both
// archs and several tile bases, the address the descriptor implies for each
// element must equal SmemOperand::address(tile_base, row, k_global): the place
// the layout library says the element is stored. The expected side never
// calls mma::lbo()/sbo() or mma::decode().
#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>

#include "tcgen/mma/descriptor_iterator.hpp"

using namespace tcgen;
using namespace tcgen::layout;
using mma::DescriptorArch;

namespace {

// ---- the emulator -------------------------------------------------------------

struct Desc {
  Int start, lbo, sbo, base_offset;
  Int width;     // swizzle width W in bytes; 16 = no swizzle (one core-matrix row)
  bool base32b;  // 128B with 32B atomicity (SM100 code 1)
};

// §1: "matrix-descriptor-encode(x) = (x & 0x3FFFF) >> 4", fields at bits
// 0-13 (start), 16-29 (LBO), 32-45 (SBO), 49-51 (base offset); the swizzle
// code at 61-63 (SM100: 0 none, 1 128B/32B-atom, 2 128B, 4 64B, 6 32B) or
// 62-63 (SM90: 0 none, 1 128B, 2 64B, 3 32B).
Desc decode_by_hand(std::uint64_t d, DescriptorArch arch) {
  Desc f{};
  f.start = static_cast<Int>(d & 0x3FFF) << 4;
  f.lbo = static_cast<Int>((d >> 16) & 0x3FFF) << 4;
  f.sbo = static_cast<Int>((d >> 32) & 0x3FFF) << 4;
  f.base_offset = static_cast<Int>((d >> 49) & 7);
  if (arch == DescriptorArch::sm100) {
    REQUIRE(((d >> 46) & 7) == 1);                                   // "fixed constant value of 0b001"
    REQUIRE((d & (3ull << 14 | 3ull << 30 | 0xFFull << 53)) == 0);  // reserved 14-15, 30-31, 53-60
    REQUIRE(((d >> 52) & 1) == 0);                                   // relative LBO (absolute: sm_103a)
    switch (d >> 61) {
      case 0: f.width = 16; break;
      case 1: f.width = 128; f.base32b = true; break;
      case 2: f.width = 128; break;
      case 4: f.width = 64; break;
      case 6: f.width = 32; break;
      default: FAIL("invalid SM100 swizzle code " << (d >> 61));
    }
  } else {
    REQUIRE((d & (3ull << 14 | 3ull << 30 | 7ull << 46 | 0x3FFull << 52)) == 0);  // unused: 14-15, 30-31, 46-48, 52-61
    const Int widths[] = {16, 128, 64, 32};
    f.width = widths[d >> 62];
  }
  return f;
}

// §2.1, with i the M/N index and k the K index inside the K step, e the
// element bytes, T elements per 16 B chunk. The PTX forms write k*e (or i*e)
// inside a swizzle row; for dense types that is (k/T)*16 + (k%T)*e, which is
// also right for the padded formats (16 values, then padding, per 16 B), so
// the emulator returns the 16-byte chunk and the element's index inside it.
struct Place {
  Int chunk;  // pre-swizzle byte address of the element's 16-byte chunk
  Int q;      // index of the element inside the chunk
};
Place place(const Desc& f, Major major, Int T, Int i, Int k) {
  const Int W = f.width;
  if (major == Major::K) {
    if (W == 16)  // a = start + (r%8)*16 + (r/8)*SBO + (k%T)*e + (k/T)*LBO
      return {f.start + (i % 8) * 16 + (i / 8) * f.sbo + (k / T) * f.lbo, k % T};
    // a = start + (r%8)*W + (r/8)*SBO + k*e, with k < E inside the atom
    REQUIRE(k * 16 / T < W);
    return {f.start + (i % 8) * W + (i / 8) * f.sbo + (k / T) * 16, k % T};
  }
  if (W == 16)  // a = start + (i%T)*e + (i/T)*SBO + (k%8)*16 + (k/8)*LBO
    return {f.start + (i / T) * f.sbo + (k % 8) * 16 + (k / 8) * f.lbo, i % T};
  if (f.base32b) {  // a = start + (i%(128/e))*e + (i/(128/e))*LBO + (k%4)*128 + (k/4)*SBO
    const Int E = 8 * T;
    return {f.start + (i % E) / T * 16 + (i / E) * f.lbo + (k % 4) * 128 + (k / 4) * f.sbo, i % T};
  }
  const Int E = W / 16 * T;  // a = start + (i%E)*e + (i/E)*LBO + (k%8)*W + (k/8)*SBO
  return {f.start + (i % E) / T * 16 + (i / E) * f.lbo + (k % 8) * W + (k / 8) * f.sbo, i % T};
}

// §2.3 on the absolute byte address.
Int swizzle_by_hand(const Desc& f, Int a) {
  if (f.width == 16) return a;
  if (f.base32b) return a ^ ((a & 0x180) >> 2);
  if (f.width == 32) return a ^ ((a & 0x080) >> 3);
  if (f.width == 64) return a ^ ((a & 0x180) >> 3);
  return a ^ ((a & 0x380) >> 3);
}
// A non-zero base offset says the pattern starts (pattern start >> 7) & 7
// rows of 128 B past its period boundary (PTX Table 41): the pattern is then
// computed on the address minus those rows. This reading is ours; on an H200
// it was exact for 128B (hardware-checks.md, "base offset").
Int physical(const Desc& f, Int a) {
  const Int shift = f.base_offset * 128;
  return swizzle_by_hand(f, a - shift) + shift;
}

// The byte the descriptor makes the MMA read for element (i, k) of its step.
// Sub-byte elements compare 16-byte chunks (their in-chunk order is the
// packing format's business, not the descriptor's).
Int fetched(const Desc& f, const SmemOperandSpec& s, Int i, Int k) {
  const Place p = place(f, s.major, s.element.per_chunk, i, k);
  if (s.element.bits % 8 != 0 || s.element.bits * s.element.per_chunk != 128) return physical(f, p.chunk);
  return physical(f, p.chunk + p.q * s.element.bits / 8);
}
Int stored(const SmemOperand& op, Int base, Int r, Int c, SwizzleAnchor anchor) {
  const auto& e = op.spec().element;
  const Int a = op.address(base, r, c, anchor);
  return (e.bits % 8 != 0 || e.bits * e.per_chunk != 128) ? a / 16 * 16 : a;
}

// Elements of the tile the descriptors fetch from a different place than the
// layout stores them; every element of every K step.
struct Tally {
  Int compared = 0, wrong = 0;
  std::string first;
};
template <class Tamper>
Tally cross_check(const SmemOperand& op, Int base, DescriptorArch arch, SwizzleAnchor anchor, Tamper tamper) {
  const SmemOperandSpec& s = op.spec();
  const Int KS = 2 * s.element.per_chunk;  // K per MMA: always 256 bits, two 16 B chunks (facts §2.1)
  const mma::KStepDescriptors steps(op, base, arch, anchor);
  Tally t;
  REQUIRE(steps.size() * KS == s.cols);
  for (Int step = 0; step < steps.size(); ++step) {
    const Desc f = decode_by_hand(tamper(steps[step]), arch);
    for (Int i = 0; i < s.rows; ++i)
      for (Int k = 0; k < KS; ++k) {
        const Int want = stored(op, base, i, step * KS + k, anchor), got = fetched(f, s, i, k);
        ++t.compared;
        if (want != got && t.wrong++ == 0)
          t.first = "step " + std::to_string(step) + " element (" + std::to_string(i) + ", " +
                    std::to_string(step * KS + k) + "): descriptor reads " + std::to_string(got) + ", layout stores " +
                    std::to_string(want);
      }
  }
  return t;
}
std::uint64_t untouched(std::uint64_t d) { return d; }

struct Format {
  const char* name;
  SmemElement element;
};
const Format kFormats[] = {{"dense 4-bit", dense_element(4)},   {"dense 8-bit", dense_element(8)},
                           {"dense 16-bit", dense_element(16)}, {"dense 32-bit", dense_element(32)},
                           {"padded 4-bit", padded_element(4)}, {"padded 6-bit", padded_element(6)}};
const SmemSwizzle kSwizzles[] = {SmemSwizzle::none, SmemSwizzle::b32, SmemSwizzle::b64, SmemSwizzle::b128,
                                 SmemSwizzle::b128_base32b};

// PTX Table 52 (facts §2.2), written out again here rather than taken from check().
bool legal(Major m, SmemSwizzle sw, SmemElement e) {
  const bool b32 = sw == SmemSwizzle::b128_base32b;
  if (m == Major::K) return !b32;
  if (e.bits == 8 || e.bits == 16) return !b32 && e.per_chunk * e.bits == 128;
  if (e.bits == 32) return b32;
  return false;
}
// PTX Table 53 atom extents in elements, {rows, K}.
std::array<Int, 2> atom(Major m, SmemSwizzle sw, SmemElement e) {
  const Int T = e.per_chunk;
  const Int w = sw == SmemSwizzle::none ? 1 : sw == SmemSwizzle::b32 ? 2 : sw == SmemSwizzle::b64 ? 4 : 8;
  if (m == Major::K) return {8, w * T};
  if (sw == SmemSwizzle::b128_base32b) return {8 * T, 4};
  return {w * T, 8};
}

std::string label(const Format& f, Major m, SmemSwizzle sw, Int rows, Int cols, Int base, DescriptorArch arch,
                  SwizzleAnchor anchor) {
  return std::string(f.name) + " " + name(m) + "-major " + name(sw) + " " + std::to_string(rows) + "x" +
         std::to_string(cols) + " at " + std::to_string(base) + (arch == DescriptorArch::sm90 ? " sm90" : " sm100") +
         (anchor == SwizzleAnchor::tile ? " tile-anchored" : "");
}

}  // namespace

TEST_CASE("emulator sanity: known points of facts §1/§2 by hand") {
  // K-major SW128 bf16 at 0x400: element (1, 0) is one 128 B row on, its chunk
  // XORed with row bit 7 -> 0x400 + 128 ^ 16 = 0x490.
  const Desc f = decode_by_hand(0x4000404000010040ull, DescriptorArch::sm100);
  CHECK(f.start == 0x400);
  CHECK(f.sbo == 1024);
  CHECK(f.width == 128);
  CHECK(fetched(f, {dense_element(16), Major::K, SmemSwizzle::b128, 128, 64}, 1, 0) == 0x400 + 144);
  // The user's no-swizzle layout: LBO 2048 B, SBO 128 B.
  const Desc g = decode_by_hand(0x0000400800800040ull, DescriptorArch::sm100);
  CHECK(g.lbo == 2048);
  CHECK(g.sbo == 128);
  CHECK(fetched(g, {dense_element(16), Major::K, SmemSwizzle::none, 128, 16}, 8, 8) == 0x400 + 128 + 2048);
}

TEST_CASE("every mode x format x size x K step x base: the descriptor fetches what the layout stores") {
  Int cases = 0, elements = 0;
  for (const Format& fmt : kFormats)
    for (Major m : {Major::K, Major::MN})
      for (SmemSwizzle sw : kSwizzles) {
        if (!legal(m, sw, fmt.element)) continue;
        const auto a = atom(m, sw, fmt.element);
        const Int kstep = 2 * fmt.element.per_chunk;  // 256 bits of K per MMA
        for (Int rm : {1, 2, 3})
          for (Int cm : {1, 2, 3}) {
            const Int rows = rm * a[0], cols = cm * std::max(a[1], kstep);
            const SmemOperand op = make_smem_operand({fmt.element, m, sw, rows, cols});
            // Bases: pattern-aligned, the CLI's 0x400, 128-aligned off the
            // pattern (8192 + 3 rows), and for the absolute anchor one only
            // 16-aligned (the hardware swizzles the absolute address anyway).
            for (Int base : {Int{0x8000}, Int{0x400}, Int{8192 + 384}, Int{0x8030}})
              for (auto anchor : {SwizzleAnchor::absolute, SwizzleAnchor::tile})
                for (DescriptorArch arch : {DescriptorArch::sm100, DescriptorArch::sm90}) {
                  if (arch == DescriptorArch::sm90 && sw == SmemSwizzle::b128_base32b) continue;  // no such wgmma mode
                  if (anchor == SwizzleAnchor::tile && base % 128 != 0) continue;  // base offset counts 128 B rows
                  if (base + op.size_bytes() > (Int{1} << 18)) continue;
                  CAPTURE(label(fmt, m, sw, rows, cols, base, arch, anchor));
                  const Tally t = cross_check(op, base, arch, anchor, untouched);
                  CHECK_MESSAGE(t.wrong == 0, t.first);
                  ++cases;
                  elements += t.compared;
                }
          }
      }
  MESSAGE(cases << " tiles, " << elements << " element fetches compared");
  CHECK(cases > 1000);
}

TEST_CASE("the check can fail: LBO and SBO swapped, or SBO doubled, misplace elements") {
  // hardware-checks.md: with LBO and SBO swapped wgmma faulted; a doubled SBO gave wrong results.
  const auto swap = [](std::uint64_t d) {
    const std::uint64_t lbo = (d >> 16) & 0x3FFF, sbo = (d >> 32) & 0x3FFF;
    return (d & ~(0x3FFFull << 16) & ~(0x3FFFull << 32)) | sbo << 16 | lbo << 32;
  };
  const auto double_sbo = [](std::uint64_t d) {
    const std::uint64_t sbo = (d >> 32) & 0x3FFF;
    return (d & ~(0x3FFFull << 32)) | (2 * sbo) << 32;
  };
  int swapped = 0, doubled = 0;
  for (const Format& fmt : kFormats)
    for (Major m : {Major::K, Major::MN})
      for (SmemSwizzle sw : kSwizzles) {
        if (!legal(m, sw, fmt.element)) continue;
        const auto a = atom(m, sw, fmt.element);
        // Two groups each way, so LBO and SBO are both read.
        const SmemOperand op =
            make_smem_operand({fmt.element, m, sw, 2 * a[0], 2 * std::max(a[1], Int{2} * fmt.element.per_chunk)});
        CAPTURE(label(fmt, m, sw, op.spec().rows, op.spec().cols, 0x8000, DescriptorArch::sm100, SwizzleAnchor::absolute));
        const std::uint64_t d0 = mma::KStepDescriptors(op, 0x8000)[0];
        if (((d0 >> 16) & 0x3FFF) != ((d0 >> 32) & 0x3FFF)) {
          CHECK(cross_check(op, 0x8000, DescriptorArch::sm100, SwizzleAnchor::absolute, swap).wrong > 0);
          ++swapped;
        }
        CHECK(cross_check(op, 0x8000, DescriptorArch::sm100, SwizzleAnchor::absolute, double_sbo).wrong > 0);
        ++doubled;
      }
  CHECK(swapped >= 20);
  CHECK(doubled >= 20);
}

TEST_CASE("the CLI example: bf16 K-major 128B 128 x 64 at 0x400") {
  const SmemOperand op = make_smem_operand({dense_element(16), Major::K, SmemSwizzle::b128, 128, 64});
  const mma::KStepDescriptors steps(op, 0x400);
  for (Int k = 0; k < 4; ++k) {
    CHECK(steps[k] == 0x4000404000010040ull + 2 * static_cast<std::uint64_t>(k));  // +32 B per step
    CHECK(decode_by_hand(steps[k], DescriptorArch::sm100).start == 1024 + 32 * k);
  }
  CHECK(cross_check(op, 0x400, DescriptorArch::sm100, SwizzleAnchor::absolute, untouched).wrong == 0);
}
