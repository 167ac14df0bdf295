// Canonical shared-memory operand tiles (tcgen/layout/smem_operand.hpp),
// checked for every legal (major, swizzle, element format, tile size) against
// formulas written here from ../shared/reference/tcgen05-facts.md:
//   §2.1 "Byte-address form for the emulator" (where each element lies, given
//        the descriptor's start address, LBO and SBO),
//   §2.3 the swizzle XOR formulas, §1 the layout-type codes and base offset,
//   §2.1/§2.2 Table 52 (legal combinations) and Table 53 (atom sizes).
// Known points are cited where they are used. Nothing here was produced by
// running the library.
#include "tcgen/layout/smem_operand.hpp"

#include <doctest/doctest.h>

#include "expect_error.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "tcgen/mma/smem_descriptor.hpp"

using namespace tcgen::layout;

namespace {

// ------------------------------------------------- the fact sheet, by hand --

struct Format {
  const char* name;
  int bits;
  bool padded;  // f8f6f4 .b6x16_p32 / .b4x16_p64: 16 values then padding per 16 B
  SmemElement element() const { return padded ? padded_element(bits) : dense_element(bits); }
  // T: elements per 16-byte chunk (§2.1 "T = 128 / sizeof_bits(elem)"; 16 for the padded formats).
  Int T() const { return padded ? 16 : 128 / bits; }
};
const Format kFormats[] = {
    {"dense 4-bit", 4, false},  {"dense 8-bit", 8, false},  {"dense 16-bit", 16, false},
    {"dense 32-bit", 32, false}, {"padded 4-bit", 4, true}, {"padded 6-bit", 6, true},
};
const Major kMajors[] = {Major::K, Major::MN};
const SmemSwizzle kSwizzles[] = {SmemSwizzle::none, SmemSwizzle::b32, SmemSwizzle::b64, SmemSwizzle::b128,
                                 SmemSwizzle::b128_base32b};

// §2.2 "Which combinations are valid" (PTX Table 52).
bool legal(Major m, SmemSwizzle s, const Format& f) {
  const bool base32b = s == SmemSwizzle::b128_base32b;
  if (m == Major::K) return !base32b;                // all types, every mode but 128B/32B-atom
  if (f.bits == 8 || f.bits == 16) return !base32b;  // MN-major 8/16-bit: every mode but 128B/32B-atom
  if (f.bits == 32) return base32b;                  // MN-major tf32: only 128B/32B-atom
  return false;                                      // MN-major sub-byte: not a listed combination
}

// Swizzle width W in bytes (§2.1); "none" is the 16-byte core-matrix row.
Int width(SmemSwizzle s) {
  switch (s) {
    case SmemSwizzle::none: return 16;
    case SmemSwizzle::b32: return 32;
    case SmemSwizzle::b64: return 64;
    default: return 128;
  }
}

// §2.3, the byte-address formulas.
Int swz(SmemSwizzle s, Int a) {
  switch (s) {
    case SmemSwizzle::none: return a;
    case SmemSwizzle::b32: return a ^ ((a & 0x080) >> 3);
    case SmemSwizzle::b64: return a ^ ((a & 0x180) >> 3);
    case SmemSwizzle::b128: return a ^ ((a & 0x380) >> 3);
    case SmemSwizzle::b128_base32b: return a ^ ((a & 0x180) >> 2);
  }
  return -1;
}
// §2.3 "Repeat period" (none: no pattern; 128 stands in for "any").
Int period(SmemSwizzle s) {
  switch (s) {
    case SmemSwizzle::none: return 128;
    case SmemSwizzle::b32: return 256;
    case SmemSwizzle::b64: return 512;
    case SmemSwizzle::b128: return 1024;
    case SmemSwizzle::b128_base32b: return 512;
  }
  return -1;
}

// Atom extent in elements, {rows (M/N), cols (K)}: §2.2 Table 53 in 16-byte
// units ("multiplied along the leading dimension by" T for smaller types).
std::array<Int, 2> atom(Major m, SmemSwizzle s, const Format& f) {
  const Int chunks = width(s) / 16;
  if (m == Major::K) return {8, chunks * f.T()};                     // 8 x W bytes of K
  if (s == SmemSwizzle::b128_base32b) return {8 * f.T(), 4};         // 8x4 (MN x K)
  return {chunks * f.T(), 8};                                        // W bytes of MN x 8 K rows
}
// K per MMA: "Per instruction, K is always 256 bits (32 B)" = two chunks (§2.1).
Int kstep(const Format& f) { return 2 * f.T(); }

// Bit position of element j (j counted along the contiguous dimension) from
// the start of its run of chunks: chunk j/T, then (j%T)·bits inside the chunk
// (the padded formats keep their 16 values at the front of the chunk).
Int bitpos(const Format& f, Int j) { return (j / f.T()) * 128 + (j % f.T()) * f.bits; }

// §2.1 "Byte-address form for the emulator", in bits so sub-byte elements fit.
// (i, k): M/N index and the K index *inside* the MMA K step; start: the step's
// start address; L, S: the descriptor's LBO and SBO in bytes.
Int canonical_bit(Major m, SmemSwizzle s, const Format& f, Int start, Int L, Int S, Int i, Int k) {
  const Int W = width(s), e8 = f.bits;  // e8: element size in bits
  if (m == Major::K) {
    if (s == SmemSwizzle::none)  // start + (r%8)*16 + (r/8)*SBO + (k%T)*e + (k/T)*LBO
      return 8 * (start + (i % 8) * 16 + (i / 8) * S + (k / f.T()) * L) + (k % f.T()) * e8;
    // start + (r%8)*W + (r/8)*SBO + k*e, k inside the atom row
    return 8 * (start + (i % 8) * W + (i / 8) * S) + bitpos(f, k);
  }
  const Int e = f.bits / 8;  // MN-major is byte-sized only
  if (s == SmemSwizzle::none)  // start + (i%T)*e + (i/T)*SBO + (k%8)*16 + (k/8)*LBO
    return 8 * (start + (i % f.T()) * e + (i / f.T()) * S + (k % 8) * 16 + (k / 8) * L);
  if (s == SmemSwizzle::b128_base32b) {  // start + (i%(128/e))*e + (i/(128/e))*LBO + (k%4)*128 + (k/4)*SBO
    const Int E = 128 / e;
    return 8 * (start + (i % E) * e + (i / E) * L + (k % 4) * 128 + (k / 4) * S);
  }
  const Int E = W / e;  // start + (i%E)*e + (i/E)*LBO + (k%8)*W + (k/8)*SBO
  return 8 * (start + (i % E) * e + (i / E) * L + (k % 8) * W + (k / 8) * S);
}

std::string describe(Major m, SmemSwizzle s, const Format& f, Int rows, Int cols) {
  return std::string(m == Major::K ? "K" : "MN") + "-major " + name(s) + " " + f.name + " " + std::to_string(rows) +
         "x" + std::to_string(cols);
}

// ------------------------------------------ compile time (two static configs) --
// The user's operand (../shared/seed/README.md: "K-major, no swizzle, core
// matrices column-major, LBO = BLOCK_MN·16 B, SBO = 128 B"), bf16 128 x 16.
constexpr SmemOperandSpec kUserSpec{dense_element(16), Major::K, SmemSwizzle::none, 128, 16};
constexpr SmemOperand kUser = smem_operand<kUserSpec>();
static_assert(tcgen::mma::lbo(kUser) == 2048 && tcgen::mma::sbo(kUser) == 128);
static_assert(tcgen::mma::layout_type(kUser.spec().swizzle) == 0 && kUser.ksteps() == 1 && kUser.size_bytes() == 128 * 16 * 2);
static_assert(kUser.offset(9, 8) == 2048 + 128 + 16);  // core matrix (1,1), row 1 of it
// tcgen05-facts.md §1 worked encoding: K-major SW128, LBO = 16 B, SBO = 1024 B (bf16 128 x 64).
constexpr SmemOperandSpec kSw128Spec{dense_element(16), Major::K, SmemSwizzle::b128, 128, 64};
constexpr SmemOperand kSw128 = smem_operand<kSw128Spec>();
static_assert(tcgen::mma::lbo(kSw128) == 16 && tcgen::mma::sbo(kSw128) == 1024 && tcgen::mma::layout_type(kSw128.spec().swizzle) == 2);
static_assert(kSw128.ksteps() == 4 && kSw128.kstep_offset(1) == 32 && kSw128.kstep_offset(3) == 96);

}  // namespace

// ============================================= every legal configuration ==

TEST_CASE("every legal operand tile: injective, dense, PTX canonical addresses, swizzle bijective") {
  int combos = 0, tiles = 0;
  long elements = 0;
  for (Major m : kMajors)
    for (SmemSwizzle s : kSwizzles)
      for (const Format& f : kFormats) {
        if (!legal(m, s, f)) continue;
        ++combos;
        const auto [ar, ak] = atom(m, s, f);
        const Int ks = kstep(f), cstep = std::lcm(ak, ks);
        std::vector<Int> rows_list;
        for (Int r : {ar, 2 * ar, 3 * ar, Int{128}, Int{256}})
          if (r <= 256 && r % ar == 0 && std::find(rows_list.begin(), rows_list.end(), r) == rows_list.end())
            rows_list.push_back(r);
        const Int max_cols = std::max(4 * ks, 2 * ak);
        for (AtomOrder order : {AtomOrder::mn_first, AtomOrder::k_first})
        for (Int rows : rows_list)
          for (Int cols = cstep; cols <= std::max(max_cols, cstep); cols += cstep) {
            const std::string what =
                describe(m, s, f, rows, cols) + (order == AtomOrder::k_first ? ", atoms K first" : "");
            INFO(what);
            const SmemOperandSpec spec{f.element(), m, s, rows, cols, order};
            SmemOperand op(spec);
            REQUIRE_NOTHROW(op = make_smem_operand(spec));
            ++tiles;

            // Descriptor fields: 16-byte aligned (PTX, §1), within 14 bits of 16 B.
            const Int L = tcgen::mma::lbo(op), S = tcgen::mma::sbo(op);
            CHECK(L % 16 == 0);
            CHECK(S % 16 == 0);
            CHECK(L > 0);
            CHECK(S > 0);
            CHECK(L < (Int{1} << 18));
            CHECK(S < (Int{1} << 18));
            CHECK(op.ksteps() == cols / ks);
            CHECK(tcgen::mma::layout_type(op.spec().swizzle) == (s == SmemSwizzle::none ? 0 : s == SmemSwizzle::b128_base32b ? 1
                                       : s == SmemSwizzle::b128 ? 2 : s == SmemSwizzle::b64 ? 4 : 6));
            if (m == Major::K && s != SmemSwizzle::none) {
              CHECK(L == 16);  // §2.2: K-major swizzled LBO "not used, assumed to be 1"
              // hardware-checks.md: SBO = 8·W for a dense stack of atoms (K first: past a row of cols / ak atoms)
              CHECK(S == 8 * width(s) * (order == AtomOrder::k_first && rows > 8 ? cols / ak : 1));
            }
            if (m == Major::K && s == SmemSwizzle::none && order == AtomOrder::mn_first) {
              CHECK(L == 16 * rows);  // ../shared/seed: LBO = BLOCK_MN·16
              CHECK(S == 128);        // SBO = 128
            }

            // A dense tile: rows·cols elements in whole chunks, T per chunk.
            REQUIRE(op.size_bytes() == rows * cols / f.T() * 16);
            const Int nbits = op.size_bytes() * 8;
            std::vector<std::uint8_t> used(nbits, 0);
            bool in_range = true, disjoint = true, canonical = true;
            for (Int r = 0; r < rows; ++r)
              for (Int k = 0; k < cols; ++k) {
                const Int got = 8 * op.offset(r, k) + op.bit(op.layout()(r, k));
                // (b) the PTX canonical formula, per MMA K step.
                const Int step = k / ks;
                const Int start = op.kstep_offset(step);
                const Int expect = canonical_bit(m, s, f, start, L, S, r, k - step * ks);
                if (got != expect) {
                  if (canonical) {
                    FAIL_CHECK("element (" << r << ", " << k << "), K step " << step << " (start " << start
                                           << " B, LBO " << L << ", SBO " << S << "): library bit " << got
                                           << ", PTX formula bit " << expect);
                  }
                  canonical = false;
                }
                // (a) injective and inside size_bytes().
                if (got < 0 || got + f.bits > nbits) {
                  in_range = false;
                  continue;
                }
                for (Int b = got; b < got + f.bits; ++b) {
                  disjoint &= used[b] == 0;
                  used[b] = 1;
                }
                ++elements;
              }
            CHECK(canonical);
            CHECK(in_range);
            CHECK(disjoint);
            for (Int step = 0; step < op.ksteps(); ++step) CHECK(op.kstep_offset(step) % 16 == 0);
            // Every 16-byte chunk holds elements (dense), in its first T·bits bits.
            bool dense = true;
            for (Int c = 0; c < op.size_bytes() / 16; ++c)
              for (Int b = 0; b < 128; ++b) dense &= used[c * 128 + b] == (b < f.T() * f.bits ? 1 : 0);
            CHECK(dense);

            // (c) the swizzle on absolute addresses, tile base on the pattern period.
            for (Int base : {Int{0}, Int{3 * 1024}, Int{0x8800}}) {
              REQUIRE(base % period(s) == 0);
              const Int nchunks = op.size_bytes() / 16;
              std::vector<Int> chunk_to(nchunks, -1);
              std::vector<int> hit(nchunks, 0);
              bool ok = true;
              for (Int r = 0; r < rows; ++r)
                for (Int k = 0; k < cols; ++k) {
                  const Int off = op.offset(r, k);
                  const Int a = op.address(base, r, k);
                  const Int step = k / ks;
                  const Int formula_byte =
                      canonical_bit(m, s, f, op.kstep_offset(step), L, S, r, k - step * ks) / 8;
                  ok &= a == swz(s, base + formula_byte);      // Swz(a) of §2.1 / §2.3
                  ok &= a % 16 == (base + off) % 16;           // inside the chunk: unchanged
                  ok &= a >= base && a < base + op.size_bytes();  // same tile range
                  if (a < base || a >= base + op.size_bytes()) continue;
                  Int& to = chunk_to[off / 16];
                  const Int dst = (a - base) / 16;
                  if (to == -1) {
                    to = dst;
                    ++hit[dst];
                  } else {
                    ok &= to == dst;  // a chunk moves as a whole
                  }
                }
              CHECK_MESSAGE(ok, "tile base " << base);
              CHECK(std::all_of(hit.begin(), hit.end(), [](int h) { return h == 1; }));  // bijection on chunks
            }
          }
      }
  MESSAGE("smem operands: " << combos << " legal (major, swizzle, format) combinations, " << tiles << " tiles, "
                            << elements << " elements");
  CHECK(combos == 33);  // K: 6 formats x 4 modes; MN: 8/16-bit x 4 modes + tf32 x 128B_base32B
}

// ================================================================ known points ==

TEST_CASE("known point: the user's K-major no-swizzle bf16 128x16 operand") {
  // ../shared/seed/README.md and hardware-checks.md (wgmma check, 2026-11-29):
  // core matrix (i, j) (8 rows x 16 B, contiguous) at byte j·LBO + i·SBO,
  // LBO = 128·16 = 2048 B, SBO = 128 B; core matrices column-major.
  const SmemOperand op = make_smem_operand({dense_element(16), Major::K, SmemSwizzle::none, 128, 16});
  CHECK(tcgen::mma::lbo(op) == 2048);
  CHECK(tcgen::mma::sbo(op) == 128);
  CHECK(tcgen::mma::layout_type(op.spec().swizzle) == 0);
  for (Int r = 0; r < 128; ++r)
    for (Int k = 0; k < 16; ++k) {
      const Int i = r / 8, j = k / 8;  // core matrix
      CHECK(op.offset(r, k) == j * 2048 + i * 128 + (r % 8) * 16 + (k % 8) * 2);
    }
}

TEST_CASE("known point: K-major SW128 bf16 128x64") {
  // tcgen05-facts.md §1 worked encoding: LBO = 16 B (field 1), SBO = 1024 B.
  // hardware-checks.md: K steps inside one 128B atom advance only the start
  // address, by 32 B.
  const SmemOperand op = make_smem_operand({dense_element(16), Major::K, SmemSwizzle::b128, 128, 64});
  CHECK(tcgen::mma::lbo(op) == 16);
  CHECK(tcgen::mma::sbo(op) == 1024);
  CHECK(tcgen::mma::layout_type(op.spec().swizzle) == 2);
  for (Int s = 0; s < 4; ++s) CHECK(op.kstep_offset(s) == 32 * s);
  // Row 1 of the 128B atom is 128 B on, row 8 is the next atom (SBO); the
  // physical address of (1, 0) at base 0 is 0x080 ^ 0x010 = 0x090 (§2.3).
  CHECK(op.offset(1, 0) == 128);
  CHECK(op.offset(8, 0) == 1024);
  CHECK(op.address(0, 1, 0) == 0x090);
}

TEST_CASE("known point: an MN-major bf16 B with atoms K first is the K-major tile of its transpose") {
  // Attention's keys × latent tile, K-major SW128 in 64-dim chunks (K of
  // S = Q·Kᵀ), read as V (N = 256 dims, K = 64 keys, MN-major) for O = P·V.
  // §2.1 MN-major swizzled: MN atom i/64 at LBO, 8-row K group k/8 at SBO;
  // here the next 64 dims are the next 8 KB chunk, the next 8 keys 1024 B on.
  const SmemOperand keys = make_smem_operand({dense_element(16), Major::K, SmemSwizzle::b128, 64, 512});
  const SmemOperand values =
      make_smem_operand({dense_element(16), Major::MN, SmemSwizzle::b128, 256, 64, AtomOrder::k_first});
  CHECK(tcgen::mma::lbo(values) == 8192);
  CHECK(tcgen::mma::sbo(values) == 1024);
  CHECK(values.kstep_offset(1) == 2048);  // 16 keys a step: two 8-row K groups
  for (Int n = 0; n < 256; ++n)
    for (Int k = 0; k < 64; ++k) REQUIRE(values.address(0, n, k) == keys.address(0, k, n));
  // M/N first (CuTe's order) stacks the 64-dim blocks 1024 B apart instead: not the keys' tile.
  const SmemOperand stacked = make_smem_operand({dense_element(16), Major::MN, SmemSwizzle::b128, 256, 64});
  CHECK(tcgen::mma::lbo(stacked) == 1024);
  CHECK(stacked.address(0, 64, 0) != keys.address(0, 0, 64));
}

TEST_CASE("known points: swizzle functions of §2.3, codes of §1, base offset") {
  // 128B: bits 4-6 ^= bits 7-9.
  const Swizzle s128 = swizzle_function(SmemSwizzle::b128);
  CHECK(s128(0x080) == 0x090);
  CHECK(s128(0x3F0) == 0x380);  // bits 7-9 = 111 cancel bits 4-6 = 111
  CHECK(s128(0x100) == 0x120);
  CHECK(s128(0x40F) == 0x40F);  // bit 10 and the low nibble are untouched
  // 64B: bits 4-5 ^= bits 7-8; 32B: bit 4 ^= bit 7; 128B/32B-atom: bits 5-6 ^= bits 7-8.
  CHECK(swizzle_function(SmemSwizzle::b64)(0x180) == 0x1B0);
  CHECK(swizzle_function(SmemSwizzle::b64)(0x200) == 0x200);
  CHECK(swizzle_function(SmemSwizzle::b32)(0x080) == 0x090);
  CHECK(swizzle_function(SmemSwizzle::b32)(0x0F0) == 0x0E0);
  CHECK(swizzle_function(SmemSwizzle::b128_base32b)(0x180) == 0x1E0);
  CHECK(swizzle_function(SmemSwizzle::b128_base32b)(0x090) == 0x0B0);
  CHECK(swizzle_function(SmemSwizzle::none)(0x3F0) == 0x3F0);
  // Whole-range agreement with the §2.3 formulas and periods.
  for (SmemSwizzle s : kSwizzles) {
    INFO(name(s));
    const Swizzle f = swizzle_function(s);
    bool ok = true;
    for (Int a = 0; a < 8192; ++a) ok &= f(a) == swz(s, a);
    CHECK(ok);
    if (s != SmemSwizzle::none) CHECK(f.period() == period(s));
  }
  // §1, descriptor bits 61-63: 0 none, 1 128B/32B-atom, 2 128B, 4 64B, 6 32B.
  CHECK(tcgen::mma::layout_type(SmemSwizzle::none) == 0);
  CHECK(tcgen::mma::layout_type(SmemSwizzle::b128_base32b) == 1);
  CHECK(tcgen::mma::layout_type(SmemSwizzle::b128) == 2);
  CHECK(tcgen::mma::layout_type(SmemSwizzle::b64) == 4);
  CHECK(tcgen::mma::layout_type(SmemSwizzle::b32) == 6);
  // §1 base offset: 0 when the pattern starts on its 1024/512/256 B boundary,
  // else (start >> 7) & 7. hardware-checks.md ("base offset"): a 128B tile at
  // 8192 + 3·128 swizzled relative to its own start needs 3; swizzled on the
  // absolute address it needs 0 wherever it starts.
  const auto tile = SwizzleAnchor::tile, absolute = SwizzleAnchor::absolute;
  CHECK(tcgen::mma::base_offset(SmemSwizzle::b128, 0x400, tile) == 0);
  CHECK(tcgen::mma::base_offset(SmemSwizzle::b128, 0x2000, tile) == 0);
  CHECK(tcgen::mma::base_offset(SmemSwizzle::b64, 0x200, tile) == 0);
  CHECK(tcgen::mma::base_offset(SmemSwizzle::b32, 0x100, tile) == 0);
  CHECK(tcgen::mma::base_offset(SmemSwizzle::b128, 8192 + 3 * 128, tile) == 3);
  CHECK(tcgen::mma::base_offset(SmemSwizzle::b128, 8192 + 3 * 128, absolute) == 0);
  CHECK(tcgen::mma::base_offset(SmemSwizzle::b128, 0x280, tile) == 5);
  CHECK(tcgen::mma::base_offset(SmemSwizzle::b64, 0x2080, tile) == 1);
  CHECK(tcgen::mma::base_offset(SmemSwizzle::b32, 0x080, tile) == 1);
  CHECK(tcgen::mma::base_offset(SmemSwizzle::none, 0x080, tile) == 0);
  for (Int a = 0; a < 0x4000; a += 16) {
    CHECK(tcgen::mma::base_offset(SmemSwizzle::b128, a, tile) == (a % 1024 == 0 ? 0 : (a >> 7) & 7));
    CHECK(tcgen::mma::base_offset(SmemSwizzle::b64, a, tile) == (a % 512 == 0 ? 0 : (a >> 7) & 7));
    CHECK(tcgen::mma::base_offset(SmemSwizzle::b32, a, tile) == (a % 256 == 0 ? 0 : (a >> 7) & 7));
    for (SmemSwizzle s : kSwizzles) CHECK(tcgen::mma::base_offset(s, a, absolute) == 0);
  }
}

TEST_CASE("tile-anchored swizzle: base + Swz(offset), a chunk bijection at any 16-byte-aligned base") {
  // The same tile placed at bases off the pattern period (e.g. 8192 + 3·W, the
  // hardware check's placement): each element lands at base + Swz(offset)
  // (§2.3 applied to the tile offset), inside [base, base + size).
  int tiles = 0;
  for (Major m : kMajors)
    for (SmemSwizzle s : kSwizzles)
      for (const Format& f : kFormats) {
        if (!legal(m, s, f)) continue;
        const auto [ar, ak] = atom(m, s, f);
        const Int rows = 2 * ar, cols = std::lcm(ak, kstep(f)) * 2;
        INFO(describe(m, s, f, rows, cols));
        const SmemOperand op = make_smem_operand({f.element(), m, s, rows, cols});
        for (Int base : {Int{8192 + 3 * 128}, Int{8192 + 3 * 64}, Int{8192 + 3 * 32}, Int{16}}) {
          std::vector<int> hit(op.size_bytes() / 16, 0);
          std::vector<Int> chunk_to(op.size_bytes() / 16, -1);
          bool ok = true;
          for (Int r = 0; r < rows; ++r)
            for (Int k = 0; k < cols; ++k) {
              const Int off = op.offset(r, k), a = op.address(base, r, k, SwizzleAnchor::tile);
              ok &= a == base + swz(s, off);
              ok &= a >= base && a < base + op.size_bytes();
              if (a < base || a >= base + op.size_bytes()) continue;
              Int& to = chunk_to[off / 16];
              if (to == -1) to = (a - base) / 16, ++hit[to];
              else ok &= to == (a - base) / 16;
            }
          CHECK_MESSAGE(ok, "tile base " << base);
          CHECK(std::all_of(hit.begin(), hit.end(), [](int h) { return h == 1; }));
        }
        ++tiles;
      }
  CHECK(tiles == 33);
}

// ============================================================ illegal specs ==

TEST_CASE("every illegal (major, swizzle, format) combination throws tcgen::Error") {
  int illegal = 0;
  for (Major m : kMajors)
    for (SmemSwizzle s : kSwizzles)
      for (const Format& f : kFormats) {
        if (legal(m, s, f)) continue;
        ++illegal;
        INFO(describe(m, s, f, 256, 512));
        bool threw = false;
        try {
          (void)make_smem_operand({f.element(), m, s, 256, 512});
        } catch (const tcgen::Error& e) {
          threw = true;
          CHECK((e.field() == "swizzle" || e.field() == "element"));
          CHECK(std::string(e.what()).find(e.field()) != std::string::npos);
        }
        CHECK(threw);
        CHECK(check(SmemOperandSpec{f.element(), m, s, 256, 512}) != SmemRule::ok);
      }
  MESSAGE(illegal << " illegal combinations");
  CHECK(illegal == 60 - 33);
}

TEST_CASE("illegal specs name the field") {
  const SmemElement bf16 = dense_element(16), tf32 = dense_element(32), e4m3 = dense_element(8);
  // tf32 MN-major needs 128B_base32B (§2.2, Table 49 text).
  expect_error([&] { (void)make_smem_operand({tf32, Major::MN, SmemSwizzle::b128, 64, 32}); }, "swizzle");
  expect_error([&] { (void)make_smem_operand({tf32, Major::MN, SmemSwizzle::none, 64, 32}); }, "swizzle");
  // 128B_base32B is invalid for K-major (CUTLASS), and only for 32-bit MN-major.
  expect_error([&] { (void)make_smem_operand({bf16, Major::K, SmemSwizzle::b128_base32b, 128, 64}); }, "swizzle");
  expect_error([&] { (void)make_smem_operand({tf32, Major::K, SmemSwizzle::b128_base32b, 128, 64}); }, "swizzle");
  expect_error([&] { (void)make_smem_operand({bf16, Major::MN, SmemSwizzle::b128_base32b, 128, 64}); }, "swizzle");
  expect_error([&] { (void)make_smem_operand({e4m3, Major::MN, SmemSwizzle::b128_base32b, 128, 64}); }, "swizzle");
  // MN-major sub-byte.
  for (SmemElement e : {dense_element(4), padded_element(4), padded_element(6)})
    for (SmemSwizzle s : {SmemSwizzle::none, SmemSwizzle::b128}) {
      INFO(e.bits << "-bit, " << e.per_chunk << " per chunk, " << name(s));
      expect_error([&] { (void)make_smem_operand({e, Major::MN, s, 256, 256}); }, "element");
    }
  // Element formats that are neither dense nor padded 4/6-bit.
  expect_error([&] { (void)make_smem_operand({SmemElement{12, 10}, Major::K, SmemSwizzle::none, 128, 64}); },
               "element");
  expect_error([&] { (void)make_smem_operand({SmemElement{16, 16}, Major::K, SmemSwizzle::none, 128, 64}); },
               "element");
  // rows not a multiple of the atom's M/N extent.
  expect_error([&] { (void)make_smem_operand({bf16, Major::K, SmemSwizzle::b128, 12, 64}); }, "rows");
  expect_error([&] { (void)make_smem_operand({bf16, Major::K, SmemSwizzle::none, 0, 16}); }, "rows");
  expect_error([&] { (void)make_smem_operand({bf16, Major::MN, SmemSwizzle::b128, 32, 16}); }, "rows");  // atom 64
  expect_error([&] { (void)make_smem_operand({tf32, Major::MN, SmemSwizzle::b128_base32b, 16, 8}); }, "rows");  // atom 32
  // cols not a multiple of the atom's K extent / the MMA K step.
  expect_error([&] { (void)make_smem_operand({bf16, Major::K, SmemSwizzle::b128, 128, 32}); }, "cols");  // atom 64
  expect_error([&] { (void)make_smem_operand({bf16, Major::K, SmemSwizzle::none, 128, 8}); }, "cols");   // K step 16
  expect_error([&] { (void)make_smem_operand({bf16, Major::K, SmemSwizzle::none, 128, 0}); }, "cols");
  expect_error([&] { (void)make_smem_operand({tf32, Major::MN, SmemSwizzle::b128_base32b, 32, 4}); }, "cols");  // K step 8
  expect_error([&] { (void)make_smem_operand({e4m3, Major::MN, SmemSwizzle::none, 16, 16}); }, "cols");  // K step 32
}
