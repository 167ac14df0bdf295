// The model's arithmetic half on its own: descriptor and idesc decoding
// against the worked values and rules of tcgen05-facts.md §1 and §3, operand
// fetch against element addresses computed here from the PTX formulas (§2.1,
// §2.3; several written out by hand as literals), and mma_accumulate against
// an fp64 reference. Nothing here uses tcgen::layout or tcgen::mma.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "expect_error.hpp"
#include "tcgen/model/idesc_decode.hpp"
#include "tcgen/model/mma_math.hpp"
#include "tcgen/model/operand_fetch.hpp"
#include "tcgen/model/smem_descriptor_decode.hpp"

using namespace tcgen;
using namespace tcgen::model;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

namespace {

// A descriptor written bit by bit from PTX Table 40 (facts §1): bytes >> 4 at
// 0, 16 and 32, version 0b001 at 46, base offset at 49, swizzle code at 61.
u64 desc(u32 start, u32 lbo, u32 sbo, int layout_type, int base_offset = 0) {
  return u64{start >> 4} | u64{lbo >> 4} << 16 | u64{sbo >> 4} << 32 | u64{1} << 46 | u64(base_offset) << 49 |
         u64(layout_type) << 61;
}

// The physical address of a logical one: the swizzle XOR of facts §2.3, on the absolute address.
u32 swz(u32 a, int layout_type) {
  switch (layout_type) {
    case 6: return a ^ ((a & 0x080) >> 3);
    case 4: return a ^ ((a & 0x180) >> 3);
    case 2: return a ^ ((a & 0x380) >> 3);
    case 1: return a ^ ((a & 0x180) >> 2);
  }
  return a;
}

// Little-endian element writes into an image whose byte 0 is shared address `base`.
struct Image {
  u32 base = 0;
  std::vector<std::uint8_t> bytes;
  Image(u32 base_, std::size_t size, unsigned seed) : base(base_), bytes(size) {
    std::mt19937 rng(seed);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng());  // unwritten bytes are noise, not zeros
  }
  void put(u32 addr, u32 value, int nbytes) {
    for (int i = 0; i < nbytes; ++i) bytes.at(addr - base + i) = static_cast<std::uint8_t>(value >> (8 * i));
  }
  std::span<const std::uint8_t> span() const { return bytes; }
};

u32 float_bits(float x) { return std::bit_cast<u32>(x); }

// A random bit pattern of a type (the low bits(t) bits; tf32 in the top 19 of 32, noise below).
u32 random_bits(ElementType t, std::mt19937& rng) {
  if (t == ElementType::tf32) return static_cast<u32>(rng());
  return static_cast<u32>(rng()) & ((1u << bits(t)) - 1);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Shared-memory descriptor

TEST_CASE("smem descriptor: the worked encodings of facts §1") {
  // K-major SW128, smem 0x400, LBO 16 B, SBO 1024 B.
  const SmemDescriptorFields a = decode_smem_descriptor(0x4000404000010040ull);
  CHECK(a.start_address == 0x400);
  CHECK(a.lbo == 16);
  CHECK(a.sbo == 1024);
  CHECK(a.base_offset == 0);
  CHECK(a.layout_type == 2);
  // K-major no swizzle, smem 0x400, LBO 2048 B, SBO 128 B.
  const SmemDescriptorFields b = decode_smem_descriptor(0x0000400800800040ull);
  CHECK(b.start_address == 0x400);
  CHECK(b.lbo == 2048);
  CHECK(b.sbo == 128);
  CHECK(b.base_offset == 0);
  CHECK(b.layout_type == 0);
  // Every legal code and base offset survives; the 14-bit fields at their maxima.
  for (int code : {0, 1, 2, 4, 6}) CHECK(decode_smem_descriptor(desc(0, 0, 0, code)).layout_type == code);
  CHECK(decode_smem_descriptor(desc(0x400, 16, 1024, 2, 5)).base_offset == 5);
  const SmemDescriptorFields m = decode_smem_descriptor(desc(0x3FFF0, 0x3FFF0, 0x3FFF0, 4, 7));
  CHECK(m.start_address == 0x3FFF0);
  CHECK(m.lbo == 0x3FFF0);
  CHECK(m.sbo == 0x3FFF0);
}

TEST_CASE("smem descriptor: refusals name the field") {
  const u64 ok = 0x4000404000010040ull;
  for (int bit : {14, 15}) expect_error([&] { decode_smem_descriptor(ok | u64{1} << bit); }, "reserved bits 14-15");
  for (int bit : {30, 31}) expect_error([&] { decode_smem_descriptor(ok | u64{1} << bit); }, "reserved bits 30-31");
  for (int bit = 53; bit <= 60; ++bit)
    expect_error([&] { decode_smem_descriptor(ok | u64{1} << bit); }, "reserved bits 53-60");
  expect_error([&] { decode_smem_descriptor(ok & ~(u64{1} << 46)); }, "version");  // the SM90 form
  for (int bit : {47, 48}) expect_error([&] { decode_smem_descriptor(ok | u64{1} << bit); }, "version");
  expect_error([&] { decode_smem_descriptor(ok | u64{1} << 52); }, "lbo_mode");  // sm_103a only
  for (u64 code : {3, 5, 7})
    expect_error([&] { decode_smem_descriptor((ok & ~(u64{7} << 61)) | code << 61); }, "layout_type");
  expect_error([&] { decode_smem_descriptor(desc(0x400, 2048, 128, 0, 1)); }, "base_offset");
}

// ---------------------------------------------------------------------------------------------
// Instruction descriptor

TEST_CASE("idesc: the worked values of facts §3") {
  struct Row {
    u32 word;
    MmaKind kind;
    ElementType ab, d;
    int m, n;
    bool mn;
  };
  using T = ElementType;
  const Row rows[] = {
      {0x08200490, MmaKind::f16, T::bf16, T::f32, 128, 128, false},
      {0x08400490, MmaKind::f16, T::bf16, T::f32, 128, 256, false},
      {0x04040490, MmaKind::f16, T::bf16, T::f32, 64, 16, false},
      {0x08040010, MmaKind::f16, T::fp16, T::f32, 128, 16, false},
      {0x08100000, MmaKind::f16, T::fp16, T::fp16, 128, 64, false},
      {0x08200910, MmaKind::tf32, T::tf32, T::f32, 128, 128, false},
      {0x08218490, MmaKind::f16, T::bf16, T::f32, 128, 128, true},
  };
  for (const Row& r : rows) {
    CAPTURE(r.word);
    const InstrDescriptorFields f = decode_instr_descriptor(r.word, r.kind);
    CHECK(f.kind == r.kind);
    CHECK(f.a == r.ab);
    CHECK(f.b == r.ab);
    CHECK(f.d == r.d);
    CHECK(f.m == r.m);
    CHECK(f.n == r.n);
    CHECK(f.a_mn_major == r.mn);
    CHECK(f.b_mn_major == r.mn);
    CHECK_FALSE(f.negate_a);
    CHECK_FALSE(f.negate_b);
    CHECK_FALSE(f.sparse);
  }
  // bf16, M256 N256 is a cta_group::2 shape: the model runs cta_group::1.
  expect_error([] { decode_instr_descriptor(0x10400490, MmaKind::f16); }, "m");
}

TEST_CASE("idesc: the other fields, bit by bit from Table 42") {
  // f8f6f4: A e4m3 (0), B e5m2 (1 at bit 10), D f32 (bit 4), N 64 (8 << 17), M 128 (8 << 24), negate B (bit 14).
  const InstrDescriptorFields f = decode_instr_descriptor(0x08100410 | 1u << 14, MmaKind::f8f6f4);
  CHECK(f.a == ElementType::e4m3);
  CHECK(f.b == ElementType::e5m2);
  CHECK(f.d == ElementType::f32);
  CHECK(f.n == 64);
  CHECK_FALSE(f.negate_a);
  CHECK(f.negate_b);
  // f8f6f4 sub-byte codes 3, 4, 5 and a D of f16 (code 0).
  const InstrDescriptorFields g = decode_instr_descriptor(0x08100000 | 3u << 7 | 5u << 10, MmaKind::f8f6f4);
  CHECK(g.a == ElementType::e2m3);
  CHECK(g.b == ElementType::e2m1);
  CHECK(g.d == ElementType::fp16);
  CHECK(decode_instr_descriptor(0x08100010 | 4u << 7 | 4u << 10, MmaKind::f8f6f4).a == ElementType::e3m2);
  // i8: s8 x u8 -> s32 (code 2), N 48 (6 << 17), saturate allowed.
  const InstrDescriptorFields h = decode_instr_descriptor(0x08000020 | 1u << 7 | 6u << 17 | 1u << 3, MmaKind::i8);
  CHECK(h.a == ElementType::s8);
  CHECK(h.b == ElementType::u8);
  CHECK(h.d == ElementType::s32);
  CHECK(h.n == 48);
  // Sparse kind::f16 with a selector; negate A.
  const InstrDescriptorFields s = decode_instr_descriptor(0x08200490 | 1u << 2 | 3u | 1u << 13, MmaKind::f16);
  CHECK(s.sparse);
  CHECK(s.negate_a);
  // Every N of Table 39 for cta_group::1: step 8, and i8's 8, 16, 24, 32, then step 16.
  for (u32 field = 1; field <= 32; ++field) {
    CHECK(decode_instr_descriptor(0x08000490 | field << 17, MmaKind::f16).n == int(field * 8));
    const bool i8_ok = field <= 4 || field % 2 == 0;
    if (i8_ok) CHECK(decode_instr_descriptor(0x08000020 | field << 17, MmaKind::i8).n == int(field * 8));
    else expect_error([&] { decode_instr_descriptor(0x08000020 | field << 17, MmaKind::i8); }, "n");
  }
}

TEST_CASE("idesc: refusals name the field") {
  const u32 ok = 0x08200490;  // bf16 -> f32, M128 N128
  const auto refused = [](u32 word, MmaKind kind, const char* field) {
    CAPTURE(word);
    expect_error([&] { decode_instr_descriptor(word, kind); }, field);
  };
  refused(ok | 1u << 6, MmaKind::f16, "reserved bit 6");
  refused(ok | 1u << 23, MmaKind::f16, "reserved bit 23");
  refused(ok | 1u << 29, MmaKind::f16, "reserved bit 29");
  refused(ok | 1u << 30, MmaKind::f16, "ws_b_reuse_shift");
  refused(ok | 1u, MmaKind::f16, "sparse_selector");  // dense
  refused((0x08200020 | 1u | 1u << 2), MmaKind::i8, "sparse_selector");  // sparse i8 has one selector
  refused(ok | 1u << 3, MmaKind::f16, "saturate");
  refused(ok & ~(0x1Fu << 24), MmaKind::f16, "m");                 // M = 0
  refused((ok & ~(0x1Fu << 24)) | 6u << 24, MmaKind::f16, "m");   // M = 96
  refused((ok & ~(0x1Fu << 24)) | 2u << 24, MmaKind::f16, "m");   // M = 32 is .ws only
  refused(ok & ~(0x3Fu << 17), MmaKind::f16, "n");                // N = 0
  refused((ok & ~(0x3Fu << 17)) | 33u << 17, MmaKind::f16, "n");  // N = 264
  refused(ok & ~(1u << 4), MmaKind::f16, "d");                    // bf16 needs D = f32
  refused(0x08200010 | 1u << 10, MmaKind::f16, "b");              // fp16 x bf16
  refused(0x08200010 | 2u << 7, MmaKind::f16, "a");               // code 2 is not a kind::f16 type
  refused(0x08200910 & ~(7u << 7), MmaKind::tf32, "a");           // tf32 must be code 2
  refused(0x08200910 & ~(1u << 4), MmaKind::tf32, "d");           // tf32 -> f16 does not exist
  refused(0x08200010 | 2u << 7, MmaKind::f8f6f4, "a");            // code 2 undefined for f8f6f4
  refused(0x08200010 | 6u << 10, MmaKind::f8f6f4, "b");
  refused(0x08200010, MmaKind::i8, "d");                          // i8 accumulates in s32 (code 2)
  refused(0x08200020 | 2u << 7, MmaKind::i8, "a");
  refused(0x08200020 | 1u << 13, MmaKind::i8, "negate_a");
  refused(0x08200020 | 1u << 14, MmaKind::i8, "negate_b");
  refused(0x08200010 | 5u << 7 | 1u << 15, MmaKind::f8f6f4, "a_major");  // e2m1 exists only K-major
  refused(0x08200010 | 3u << 10 | 1u << 16, MmaKind::f8f6f4, "b_major");
  // An MN-major 8-bit B needs N % 16 (Table 52): N = 24 is refused, 32 accepted.
  refused(0x08000010 | 1u << 16 | 3u << 17, MmaKind::f8f6f4, "n");
  CHECK(decode_instr_descriptor(0x08000010 | 1u << 16 | 4u << 17, MmaKind::f8f6f4).n == 32);
  // N = 24 with a K-major 8-bit B is fine.
  CHECK(decode_instr_descriptor(0x08000010 | 3u << 17, MmaKind::f8f6f4).n == 24);
}

// ---------------------------------------------------------------------------------------------
// Operand fetch: element addresses written out by hand from facts §2.1 / §2.3

namespace {
// The operand a descriptor reads from an image.
Operand fetch_with(Image& img, u64 d, int rows, int k, ElementType t, bool mn) {
  return fetch_operand(img.span(), img.base, d, rows, k, t, mn);
}
}  // namespace

TEST_CASE("fetch: hand-computed addresses, one per mode") {
  using T = ElementType;
  struct Spot {
    int r, k;
    u32 addr;
  };
  const auto run = [](const char* what, u64 d, int rows, int k, T t, bool mn, std::initializer_list<Spot> spots) {
    CAPTURE(what);
    Image img(0, 0x4000, 7);
    // Distinct values in the top byte of each element (tf32 reads only its top 19 bits).
    const auto value = [t](int n) { return u32(0x31 + n) << (bits(t) - 8); };
    int n = 0;
    for (const Spot& s : spots) img.put(s.addr, value(n++), bits(t) / 8);
    const Operand op = fetch_with(img, d, rows, k, t, mn);
    n = 0;
    for (const Spot& s : spots) {
      CAPTURE(s.r);
      CAPTURE(s.k);
      CHECK(float_bits(op.at(s.r, s.k)) == float_bits(decode(t, value(n++))));
    }
  };
  // K-major none (facts §1 example 2: start 0x400, LBO 2048, SBO 128):
  // start + (r%8)*16 + (r/8)*SBO + (k%8)*2 + (k/8)*LBO.
  run("K none bf16", 0x0000400800800040ull, 16, 16, T::bf16, false,
      {{0, 0, 0x400}, {9, 3, 0x496}, {15, 13, 0xCFA}});
  // K-major 128B (facts §1 example 1: start 0x400, SBO 1024): a = start + (r%8)*128 + (r/8)*1024 + 2k,
  // then bits 4-6 ^= bits 7-9. (3, 9): 0x592 -> 0x5A2; (10, 15): 0x91E -> 0x93E.
  run("K 128B bf16", 0x4000404000010040ull, 16, 16, T::bf16, false,
      {{0, 0, 0x400}, {1, 0, 0x490}, {3, 9, 0x5A2}, {10, 15, 0x93E}});
  // The next K step: start 0x420. (1, 0): 0x4A0 -> row 1 -> 0x4B0.
  run("K 128B bf16, K step 1", 0x4000404000010042ull, 16, 16, T::bf16, false, {{0, 0, 0x420}, {1, 0, 0x4B0}});
  // MN-major none fp16 (start 0x800, LBO 256, SBO 128): start + (i%8)*2 + (i/8)*SBO + (k%8)*16 + (k/8)*LBO.
  run("MN none fp16", desc(0x800, 256, 128, 0), 16, 16, T::fp16, true,
      {{0, 0, 0x800}, {5, 3, 0x83A}, {12, 9, 0x998}});
  // MN-major 64B fp16 (start 0x1000, LBO 512, SBO 1024): start + (i%32)*2 + (i/32)*LBO + (k%8)*64 + (k/8)*SBO,
  // then bits 4-5 ^= bits 7-8. (9, 2): 0x1092 -> 0x1082; (40, 11): 0x16D0 -> 0x16C0.
  run("MN 64B fp16", desc(0x1000, 512, 1024, 4), 64, 16, T::fp16, true,
      {{0, 0, 0x1000}, {9, 2, 0x1082}, {40, 11, 0x16C0}});
  // MN-major 128B_base32B tf32 (start 0x2000, LBO 512, SBO 1024): start + (i%32)*4 + (i/32)*LBO + (k%4)*128 +
  // (k/4)*SBO, then bits 5-6 ^= bits 7-8. (1, 1): 0x2084 -> 0x20A4; (35, 6): 0x270C -> 0x274C.
  run("MN 128B_base32B tf32", desc(0x2000, 512, 1024, 1), 64, 8, T::tf32, true,
      {{0, 0, 0x2000}, {1, 1, 0x20A4}, {35, 6, 0x274C}});
  // K-major 32B e4m3 (start 0x3000, SBO 256): start + (r%8)*32 + (r/8)*SBO + k, then bit 4 ^= bit 7.
  // (4, 17): 0x3091 -> 0x3081; (13, 5): 0x31A5 -> 0x31B5.
  run("K 32B e4m3", desc(0x3000, 16, 256, 6), 16, 32, T::e4m3, false, {{4, 17, 0x3081}, {13, 5, 0x31B5}});
  // A sparse MMA's B reads 512 bits of K a row (PTX #tcgen05-sparse-matrices): 4 chunks. K-major 128B bf16,
  // K = 32 from 0x400: chunk c of row r at start + (r%8)*128 + (r/8)*1024 + 16c, swizzled. (2, 27): 0x536 ->
  // 0x516; (9, 20): 0x8A8 -> 0x8B8.
  run("K 128B bf16, sparse B", 0x4000404000010040ull, 16, 32, T::bf16, false,
      {{0, 31, 0x43E}, {2, 27, 0x516}, {9, 20, 0x8B8}});
  // K-major none, K = 32 (LBO 2048): chunk c at c*LBO. (9, 29): 0x400 + 16 + 128 + 3*2048 + 10 = 0x1C9A.
  run("K none bf16, sparse B", 0x0000400800800040ull, 16, 32, T::bf16, false, {{9, 29, 0x1C9A}, {15, 31, 0x1CFE}});
  // MN-major none fp16, K = 32: K rows 16-31 two LBO further. (5, 19): 0x800 + 10 + 3*16 + 2*256 = 0xA3A.
  run("MN none fp16, sparse B", desc(0x800, 256, 128, 0), 16, 32, T::fp16, true, {{5, 19, 0xA3A}});
}

namespace {
// Facts §2.1 per element: the logical byte address of element (i, k) of one K step.
u32 logical_address(u32 start, u32 lbo, u32 sbo, int code, bool mn, int e, u32 i, u32 k) {
  const u32 T = 16 / e, W = code == 0 ? 16 : code == 6 ? 32 : code == 4 ? 64 : 128, E = W / e;
  if (!mn && code == 0) return start + (i % 8) * 16 + (i / 8) * sbo + (k % T) * e + (k / T) * lbo;
  if (!mn) return start + (i % 8) * W + (i / 8) * sbo + k * e;
  if (code == 0) return start + (i % T) * e + (i / T) * sbo + (k % 8) * 16 + (k / 8) * lbo;
  if (code == 1) return start + (i % (128 / e)) * e + (i / (128 / e)) * lbo + (k % 4) * 128 + (k / 4) * sbo;
  return start + (i % E) * e + (i / E) * lbo + (k % 8) * W + (k / 8) * sbo;
}
}  // namespace

TEST_CASE("fetch: every element where the PTX formulas put it") {
  using T = ElementType;
  struct Case {
    T t;
    bool mn;
    int code;
    int rows;
    u32 start, lbo, sbo;
  };
  // Tiles laid out densely: K-major none, 8-row core matrices with the second K chunk LBO away;
  // swizzled, stacks of W-byte rows; MN-major, atoms of W bytes x 8 (4) K rows.
  const Case cases[] = {
      {T::bf16, false, 0, 32, 0x400, 512, 128},   {T::bf16, false, 6, 32, 0x400, 16, 256},
      {T::fp16, false, 4, 32, 0x400, 16, 512},    {T::bf16, false, 2, 24, 0x400, 16, 1024},
      {T::tf32, false, 2, 16, 0x800, 16, 1024},   {T::e4m3, false, 0, 16, 0x400, 256, 128},
      {T::e5m2, false, 6, 16, 0x400, 16, 256},    {T::bf16, true, 0, 32, 0x400, 512, 128},
      {T::bf16, true, 6, 32, 0x400, 256, 512},    {T::fp16, true, 4, 64, 0x400, 512, 1024},
      {T::bf16, true, 2, 128, 0x400, 1024, 2048}, {T::bf16, true, 2, 8, 0x400, 1024, 1024},
      {T::e4m3, true, 2, 256, 0x400, 1024, 2048}, {T::tf32, true, 1, 64, 0x400, 512, 1024},
      {T::e4m3, true, 0, 32, 0x400, 1024, 128},
  };
  std::mt19937 rng(11);
  for (const Case& c : cases) {
    const int e = bits(c.t) / 8, k = 32 / e;
    CAPTURE(name(c.t));
    CAPTURE(c.mn);
    CAPTURE(c.code);
    CAPTURE(c.rows);
    // K steps at the start and, K-major in a 64B or 128B atom, one 32 B further inside the atom.
    const bool inside = !c.mn && (c.code == 2 || c.code == 4);
    for (u32 step_offset : {0u, inside ? 32u : 0u}) {
      const u32 start = c.start + step_offset;
      Image img(0x100, 0x10000, 3);
      std::vector<u32> written(static_cast<std::size_t>(c.rows) * k);
      for (int i = 0; i < c.rows; ++i)
        for (int kk = 0; kk < k; ++kk) {
          const u32 v = random_bits(c.t, rng);
          written[i * k + kk] = v;
          img.put(swz(logical_address(start, c.lbo, c.sbo, c.code, c.mn, e, i, kk), c.code), v, e);
        }
      const Operand op = fetch_with(img, desc(start, c.lbo, c.sbo, c.code), c.rows, k, c.t, c.mn);
      REQUIRE(op.rows == c.rows);
      REQUIRE(op.k == k);
      int wrong = 0;
      for (int i = 0; i < c.rows; ++i)
        for (int kk = 0; kk < k; ++kk) wrong += float_bits(op.at(i, kk)) != float_bits(decode(c.t, written[i * k + kk]));
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("fetch: K-major swizzled ignores the LBO field") {
  // PTX (facts §2.2): for swizzled K-major layouts LBO is "not used, assumed to be 1"; the second
  // 16-byte chunk of a K step is the next one in the swizzle row whatever the field holds.
  Image img(0, 0x1000, 8);
  const auto values = [&](u32 lbo) {
    return fetch_operand(img.span(), 0, desc(0x400, lbo, 1024, 2), 16, 16, ElementType::bf16, false).values;
  };
  const auto reference = values(16);
  for (u32 lbo : {0u, 32u, 2048u, 0x3FFF0u}) {
    CAPTURE(lbo);
    CHECK(values(lbo) == reference);
  }
}

TEST_CASE("fetch: the base offset moves the swizzle anchor by 128-byte rows") {
  // hardware-checks.md: a K-major 128B tile at 8192 + 3*128 whose data is
  // swizzled relative to the tile start reads right with base offset
  // 3 = (start >> 7) & 7 and wrong with 0; data swizzled on the absolute
  // address reads right with 0.
  const u32 start = 8192 + 3 * 128, sbo = 1024;
  const int rows = 16, k = 16;
  std::mt19937 rng(5);
  Image tile_rel(0, 0x4000, 9), absolute(0, 0x4000, 9);
  std::vector<u32> written(rows * k);
  for (u32 r = 0; r < rows; ++r)
    for (u32 kk = 0; kk < k; ++kk) {
      const u32 v = random_bits(ElementType::bf16, rng), off = (r % 8) * 128 + (r / 8) * sbo + kk * 2;
      written[r * k + kk] = v;
      tile_rel.put(start + swz(off, 2), v, 2);
      absolute.put(swz(start + off, 2), v, 2);
    }
  // By hand: (1, 0) is at 0x2180 + (0x80 ^ 0x10) = 0x2210 tile-relative, and (0, 0) at 0x2180 ^ 0x30 = 0x21B0 absolute.
  CHECK(tile_rel.bytes[0x2210] == (written[1 * k] & 0xFF));
  CHECK(absolute.bytes[0x21B0] == (written[0] & 0xFF));
  const auto mismatches = [&](const Image& img, int base_offset) {
    const Operand op = fetch_operand(img.span(), 0, desc(start, 16, sbo, 2, base_offset), rows, k, ElementType::bf16, false);
    int wrong = 0;
    for (int i = 0; i < rows * k; ++i) wrong += float_bits(op.values[i]) != float_bits(decode(ElementType::bf16, written[i]));
    return wrong;
  };
  CHECK(mismatches(tile_rel, 3) == 0);
  CHECK(mismatches(tile_rel, 0) > 0);
  CHECK(mismatches(absolute, 0) == 0);
  CHECK(mismatches(absolute, 3) > 0);
}

TEST_CASE("fetch: every bit pattern decodes as core's decode()") {
  using T = ElementType;
  // 8- and 16-bit: K-major none, LBO 128 and SBO 256, so 8 rows x 32 bytes are one dense 256-byte block
  // and pattern p lands in row p / k, element p % k.
  for (T t : {T::bf16, T::fp16, T::e4m3, T::e5m2, T::s8, T::u8}) {
    CAPTURE(name(t));
    const int e = bits(t) / 8, k = 32 / e, patterns = 1 << bits(t), rows = patterns / k;
    Image img(0, static_cast<std::size_t>(patterns) * e, 1);
    for (int p = 0; p < patterns; ++p) {
      const u32 r = p / k, kk = p % k;
      img.put((r % 8) * 16 + (r / 8) * 256 + (kk % (16 / e)) * e + (kk / (16 / e)) * 128, p, e);
    }
    const Operand op = fetch_operand(img.span(), 0, desc(0, 128, 256, 0), rows, k, t, false);
    int wrong = 0;
    for (int p = 0; p < patterns; ++p) wrong += float_bits(op.values[p]) != float_bits(decode(t, p));
    CHECK(wrong == 0);
  }
  // tf32: the 2^19 patterns in the top bits, noise in the low 13, 2048 rows per fetch.
  std::mt19937 rng(2);
  int wrong = 0;
  for (u32 first = 0; first < (1u << 19); first += 2048 * 8) {
    Image img(0, 2048 * 32, 1);
    for (u32 p = 0; p < 2048 * 8; ++p) {
      const u32 r = p / 8, kk = p % 8;
      img.put((r % 8) * 16 + (r / 8) * 256 + (kk % 4) * 4 + (kk / 4) * 128, (first + p) << 13 | (rng() & 0x1FFF), 4);
    }
    const Operand op = fetch_operand(img.span(), 0, desc(0, 128, 256, 0), 2048, 8, T::tf32, false);
    for (u32 p = 0; p < 2048 * 8; ++p) wrong += float_bits(op.values[p]) != float_bits(decode(T::tf32, (first + p) << 13));
  }
  CHECK(wrong == 0);
}

TEST_CASE("fetch: padded 6- and 4-bit formats, 16 values from bit 0 of each 16 bytes") {
  // PTX #tcgen05-packing-formats: "16 elements of 6-bits each followed by 4 bytes of padding" (4-bit: 8 bytes).
  // The order inside the 12 (8) bytes is taken as little-endian from bit 0, like the layout library; the
  // figures that fix it are not in the text (UNCONFIRMED).
  using T = ElementType;
  for (T t : {T::e2m3, T::e3m2, T::e2m1}) {
    CAPTURE(name(t));
    const int b = bits(t);
    // Two rows (32 values) of K-major none: row r, chunk c at r*16 + c*LBO with LBO = 128.
    Image img(0, 256, 4);
    std::vector<u32> written(64);
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 2; ++c) {
        const u32 chunk = r * 16 + c * 128;
        for (int byte = 0; byte < 16 * b / 8; ++byte) img.bytes[chunk + byte] = 0;  // the padding stays noise
        for (int i = 0; i < 16; ++i) {
          const u32 v = u32(r * 32 + c * 16 + i) * 7 % (1u << b);
          written[r * 32 + c * 16 + i] = v;
          for (int j = 0; j < b; ++j)  // bit j of value i is bit i*b + j of the chunk
            img.bytes[chunk + (i * b + j) / 8] |= static_cast<std::uint8_t>(((v >> j) & 1u) << ((i * b + j) % 8));
        }
      }
    const Operand op = fetch_operand(img.span(), 0, desc(0, 128, 256, 0), 2, 32, t, false);
    int wrong = 0;
    for (int i = 0; i < 64; ++i) wrong += float_bits(op.values[i]) != float_bits(decode(t, written[i]));
    CHECK(wrong == 0);
  }
}

TEST_CASE("fetch: the chunks read, and reads outside the image") {
  // K-major 128B, 8 rows at 0x400: chunk (r, c) at swz(0x400 + 128 r + 16 c).
  std::vector<u32> chunks, expected;
  Image img(0x400, 1024, 1);
  fetch_operand(img.span(), 0x400, 0x4000404000010040ull, 8, 16, ElementType::bf16, false, Fp4Storage::padded, &chunks);
  for (u32 r = 0; r < 8; ++r)
    for (u32 c = 0; c < 2; ++c) expected.push_back(swz(0x400 + 128 * r + 16 * c, 2));
  std::sort(chunks.begin(), chunks.end());
  std::sort(expected.begin(), expected.end());
  CHECK(chunks == expected);
  // 16 rows need the next 8-row group at 0x400 + SBO = 0x800: one byte past a 1 KiB image.
  expect_error([&] { fetch_operand(img.span(), 0x400, 0x4000404000010040ull, 16, 16, ElementType::bf16, false); }, "address");
  // A chunk that only begins inside the image: K-major none, 8 rows at 0 with LBO 128, SBO 256 read
  // [0, 0x80) and [0x80, 0x100); an image ending at 0xF8 cuts the last chunk.
  Image whole(0, 0x100, 1), cut(0, 0xF8, 1);
  CHECK(fetch_operand(whole.span(), 0, desc(0, 128, 256, 0), 8, 16, ElementType::bf16, false).rows == 8);
  expect_error([&] { fetch_operand(cut.span(), 0, desc(0, 128, 256, 0), 8, 16, ElementType::bf16, false); }, "address");
  // An image that starts after the operand.
  Image late(0x410, 1024, 1);
  expect_error([&] { fetch_operand(late.span(), 0x410, 0x4000404000010040ull, 8, 16, ElementType::bf16, false); }, "address");
}

TEST_CASE("fetch: requests the layout rules refuse") {
  Image img(0, 0x4000, 1);
  const auto refused = [&](u64 d, int rows, int k, ElementType t, bool mn, const char* field) {
    expect_error([&] { fetch_operand(img.span(), 0, d, rows, k, t, mn); }, field);
  };
  using T = ElementType;
  refused(desc(0, 16, 1024, 2), 8, 8, T::bf16, false, "k");           // bf16 takes 16 per instruction
  refused(desc(0, 16, 1024, 2), 8, 12, T::tf32, false, "k");          // tf32 takes 8 (a sparse B 16)
  refused(desc(0, 16, 1024, 2), 8, 8, T::f32, false, "type");
  refused(desc(0, 16, 1024, 2), 0, 16, T::bf16, false, "rows");
  refused(desc(0, 512, 1024, 1), 8, 16, T::bf16, false, "layout_type");  // 128B_base32B is not for K-major
  refused(desc(0, 512, 1024, 1), 64, 16, T::bf16, true, "layout_type");  // nor for 16-bit MN-major
  refused(desc(0, 1024, 2048, 2), 64, 8, T::tf32, true, "layout_type");  // MN-major tf32 needs it
  refused(desc(0, 128, 256, 0), 16, 32, T::e2m1, true, "major");         // padded formats are K-major only
  refused(desc(0, 1024, 2048, 2), 8, 32, T::e4m3, true, "rows");         // 8 rows of an MN-major 8-bit chunk of 16
  refused(desc(0, 16, 1024, 3), 8, 16, T::bf16, false, "layout_type");   // the descriptor itself
}

// ---------------------------------------------------------------------------------------------
// mma_accumulate

namespace {
Operand random_operand(ElementType t, int rows, int k, std::mt19937& rng) {
  std::uniform_real_distribution<float> mant(-2.0f, 2.0f);
  std::uniform_int_distribution<int> exp(-6, 6);
  Operand op{rows, k, std::vector<float>(static_cast<std::size_t>(rows) * k)};
  for (float& v : op.values) v = round_to(t, std::ldexp(mant(rng), exp(rng)));
  return op;
}
}  // namespace

TEST_CASE("mma_accumulate: within the fp32 summation bound of an fp64 reference") {
  // Products of two fp16/bf16/tf32/e4m3 values are exact in fp32 and fp64, so
  // the only error is the rounding of each of the n = steps*K additions, |err|
  // <= n * 2^-24 * (|d0| + sum |a b|) (recursive summation, first order; 1%
  // slack for the second-order term).
  using T = ElementType;
  std::mt19937 rng(17);
  struct Shape {
    T t;
    int m, n, k;
  };
  for (const Shape s : {Shape{T::bf16, 128, 64, 16}, Shape{T::fp16, 64, 24, 16}, Shape{T::tf32, 5, 27, 8},
                        Shape{T::e4m3, 3, 40, 32}}) {
    CAPTURE(name(s.t));
    const int steps = 8;
    std::vector<float> d(static_cast<std::size_t>(s.m) * s.n);
    for (float& v : d) v = std::ldexp(std::uniform_real_distribution<float>(-1, 1)(rng), 4);
    std::vector<double> ref(d.begin(), d.end()), mag(d.size());
    for (std::size_t i = 0; i < d.size(); ++i) mag[i] = std::fabs(ref[i]);
    for (int step = 0; step < steps; ++step) {
      const Operand a = random_operand(s.t, s.m, s.k, rng), b = random_operand(s.t, s.n, s.k, rng);
      const bool neg_a = step % 3 == 1, neg_b = step % 4 == 2;
      mma_accumulate(a, b, d.data(), true, neg_a, neg_b);
      const double sign = (neg_a ? -1.0 : 1.0) * (neg_b ? -1.0 : 1.0);
      for (int i = 0; i < s.m; ++i)
        for (int j = 0; j < s.n; ++j)
          for (int kk = 0; kk < s.k; ++kk) {
            const double p = sign * double(a.at(i, kk)) * double(b.at(j, kk));
            ref[i * s.n + j] += p;
            mag[i * s.n + j] += std::fabs(p);
          }
    }
    const double gamma = 1.01 * steps * s.k * std::ldexp(1.0, -24);
    int outside = 0;
    for (std::size_t i = 0; i < d.size(); ++i) outside += std::fabs(double(d[i]) - ref[i]) > gamma * mag[i];
    CHECK(outside == 0);
  }
}

TEST_CASE("mma_accumulate: one product is exact; flags") {
  using T = ElementType;
  // Full-significand values: bf16 (2 - 2^-7)^2, fp16 65504^2 and 2^-24 * 2^-24, tf32 (2 - 2^-10)^2.
  struct Pair {
    T t;
    float x, y;
  };
  for (const Pair p : {Pair{T::bf16, 1.9921875f, -1.9921875f}, Pair{T::fp16, 65504.0f, 65504.0f},
                       Pair{T::fp16, std::ldexp(1.0f, -24), std::ldexp(1.0f, -24)},
                       Pair{T::tf32, 1.9990234375f, 1.9990234375f}, Pair{T::e4m3, 448.0f, -0.001953125f}}) {
    CAPTURE(name(p.t));
    REQUIRE(round_to(p.t, p.x) == p.x);
    REQUIRE(round_to(p.t, p.y) == p.y);
    const int k = p.t == T::tf32 ? 8 : p.t == T::e4m3 ? 32 : 16;
    Operand a{1, k, std::vector<float>(k)}, b{1, k, std::vector<float>(k)};
    a.values[k - 1] = p.x;
    b.values[k - 1] = p.y;
    float d = std::numeric_limits<float>::quiet_NaN();  // enable-input-d false ignores the old D
    mma_accumulate(a, b, &d, false, false, false);
    CHECK(double(d) == double(p.x) * double(p.y));
  }

  // Small integers: every sum below is exact, so the flags can be checked with ==.
  std::mt19937 rng(3);
  const auto small = [&](int rows) {
    Operand op{rows, 16, std::vector<float>(static_cast<std::size_t>(rows) * 16)};
    for (float& v : op.values) v = float(int(rng() % 7) - 3);
    return op;
  };
  const Operand a = small(4), b = small(8);
  std::vector<float> plain(32), na(32), nb(32), nab(32);
  mma_accumulate(a, b, plain.data(), false, false, false);
  mma_accumulate(a, b, na.data(), false, true, false);
  mma_accumulate(a, b, nb.data(), false, false, true);
  mma_accumulate(a, b, nab.data(), false, true, true);
  for (int i = 0; i < 32; ++i) {
    CHECK(na[i] == -plain[i]);
    CHECK(nb[i] == -plain[i]);
    CHECK(nab[i] == plain[i]);
  }
  // accumulate: D = A*B + D, twice the same product on a zero start doubles it exactly.
  std::vector<float> acc(32, 0.0f);
  mma_accumulate(a, b, acc.data(), true, false, false);
  mma_accumulate(a, b, acc.data(), true, false, false);
  for (int i = 0; i < 32; ++i) CHECK(acc[i] == 2.0f * plain[i]);
  // D = A*B + D with D = -A*B is exactly 0.
  mma_accumulate(a, b, na.data(), true, false, false);
  for (int i = 0; i < 32; ++i) CHECK(na[i] == 0.0f);
  // enable-input-d false: D is the IEEE sum of the products alone, so K products of -0 give -0
  // (the model's reading of D = A * B; the hardware's sign of zero is not documented).
  Operand neg{1, 16, std::vector<float>(16, -1.0f)}, zeros{2, 16, std::vector<float>(32, 0.0f)};
  float z[2] = {1.0f, 1.0f};
  mma_accumulate(neg, zeros, z, false, false, false);
  CHECK((z[0] == 0.0f && std::signbit(z[0]) && std::signbit(z[1])));
  // Different K in A and B is an error.
  const Operand short_b = random_operand(T::tf32, 8, 8, rng);
  expect_error([&] { mma_accumulate(a, short_b, plain.data(), true, false, false); }, "k");
}

TEST_CASE("mma_accumulate: the order the model assumes (hardware order UNCONFIRMED)") {
  // A row [2^24, 1 x 14, -2^24] times ones: adding in K order in fp32, each
  // 2^24 + 1 rounds back to 2^24 (a tie, to even), so D = 0; the exact sum is
  // 14. A wider internal sum, as tensor cores may use, would give 14.
  Operand a{1, 16, std::vector<float>(16, 1.0f)}, b{1, 16, std::vector<float>(16, 1.0f)};
  a.values.front() = 16777216.0f;
  a.values.back() = -16777216.0f;
  float d = 0.0f;
  mma_accumulate(a, b, &d, false, false, false);
  CHECK(d == 0.0f);
}
