// Element types: exhaustive round trips, RNE against an independent
// brute-force reference, spec-cited known points, constexpr-ness, parsing.
#include "tcgen/core/hex.hpp"
#include "tcgen/core/element_type.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"

using tcgen::ElementType;
using tcgen::decode;
using tcgen::encode;
using tcgen::round_to;

// ---- constexpr: these only compile if the conversions are constant expressions.
static_assert(encode(ElementType::bf16, 1.0f) == 0x3F80);
static_assert(encode(ElementType::e4m3, 448.0f) == 0x7E);
static_assert(encode(ElementType::e5m2, -1.0e9f) == 0xFB);
static_assert(decode(ElementType::e2m1, 0x7) == 6.0f);
static_assert(decode(ElementType::bf16, 0x0001) == 0x1p-133f);
static_assert(round_to(ElementType::tf32, 1.0f + 0x1p-11f) == 1.0f);
static_assert(round_to(ElementType::e3m2, 27.0f) == 28.0f);
static_assert(tcgen::bits(ElementType::e2m3) == 6 && tcgen::bits(ElementType::tf32) == 32);

namespace {

// ---- The independent reference: each format written out from its spec
// (IEEE 754 binary16/bfloat16/tf32, OCP FP8 v1.0, OCP MX v1.0), valued in
// double with ldexp, and a nearest-value search over that table.
enum class Special { ieee, fn, none };  // top exponent = inf/NaN; only S.1..1.1..1 NaN; all finite
struct Spec {
  ElementType t;
  int E, M, bias;
  Special special;
  bool satfinite;  // overflow and +-inf go to +-max
  int width() const { return 1 + E + M; }
};
const Spec specs[] = {
    {ElementType::bf16, 8, 7, 127, Special::ieee, false},
    {ElementType::fp16, 5, 10, 15, Special::ieee, false},
    {ElementType::tf32, 8, 10, 127, Special::ieee, false},
    {ElementType::e4m3, 4, 3, 7, Special::fn, true},
    {ElementType::e5m2, 5, 2, 15, Special::ieee, true},
    {ElementType::e2m3, 2, 3, 1, Special::none, true},
    {ElementType::e3m2, 3, 2, 3, Special::none, true},
    {ElementType::e2m1, 2, 1, 1, Special::none, true},
};

enum class Class { finite, inf, nan };
Class classify(const Spec& s, std::uint32_t p) {
  const std::uint32_t exp = (p >> s.M) & ((1u << s.E) - 1), frac = p & ((1u << s.M) - 1);
  const bool top = exp == (1u << s.E) - 1;
  if (s.special == Special::ieee && top) return frac == 0 ? Class::inf : Class::nan;
  if (s.special == Special::fn && top && frac == (1u << s.M) - 1) return Class::nan;
  return Class::finite;
}
double spec_value(const Spec& s, std::uint32_t p) {  // finite patterns only
  const std::uint32_t exp = (p >> s.M) & ((1u << s.E) - 1), frac = p & ((1u << s.M) - 1);
  const double v = exp == 0 ? std::ldexp(double(frac), 1 - s.bias - s.M)
                            : std::ldexp(double(frac + (1u << s.M)), int(exp) - s.bias - s.M);
  return (p >> (s.E + s.M)) & 1 ? -v : v;
}

// The library speaks tf32 as an f32 container; the reference as a 19-bit pattern.
std::uint32_t lib_encode(const Spec& s, float x) {
  return s.t == ElementType::tf32 ? encode(s.t, x) >> 13 : encode(s.t, x);
}
float lib_decode(const Spec& s, std::uint32_t p) {
  return decode(s.t, s.t == ElementType::tf32 ? p << 13 : p);
}

struct Table {
  const Spec* spec;
  std::vector<std::pair<double, std::uint32_t>> pos;  // (value, pattern) of +finite, sorted by value
  double max = 0;
  std::uint32_t max_pattern = 0, inf_pattern = 0;
};
Table make_table(const Spec& s) {
  Table t{&s, {}, 0, 0, 0};
  for (std::uint32_t p = 0; p < (1u << (s.E + s.M)); ++p) {
    if (classify(s, p) == Class::inf) t.inf_pattern = p;
    if (classify(s, p) != Class::finite) continue;
    t.pos.emplace_back(spec_value(s, p), p);
  }
  std::sort(t.pos.begin(), t.pos.end());
  t.max = t.pos.back().first;
  t.max_pattern = t.pos.back().second;
  // IEEE overflow: round as if the exponent were unbounded; the next value
  // 2^(emax+1) stands for infinity (its pattern is even, so ties go there).
  if (!s.satfinite) t.pos.emplace_back(std::ldexp(1.0, std::ilogb(t.max) + 1), t.inf_pattern);
  return t;
}

// Nearest table value to x (exact, in double), ties to the even pattern.
std::uint32_t ref_encode(const Table& t, float x) {
  const Spec& s = *t.spec;
  const std::uint32_t sign = std::signbit(x) ? 1u << (s.E + s.M) : 0u;
  double a = std::fabs(double(x));
  if (s.satfinite && a > t.max) a = t.max;  // satfinite: anything past max (inf too) is max
  if (std::isinf(a)) return sign | t.inf_pattern;
  auto hi = std::lower_bound(t.pos.begin(), t.pos.end(), std::make_pair(a, 0u));
  if (hi == t.pos.end()) return sign | t.pos.back().second;  // beyond 2^(emax+1): inf
  if (hi == t.pos.begin() || hi->first == a) return sign | hi->second;
  auto lo = hi - 1;
  const double dlo = a - lo->first, dhi = hi->first - a;
  if (dlo != dhi) return sign | (dlo < dhi ? lo->second : hi->second);
  return sign | ((lo->second & 1) == 0 ? lo->second : hi->second);
}

std::string describe(float x) {
  char b[64];
  std::snprintf(b, sizeof b, "%a (%.9g)", double(x), double(x));
  return b;
}

// Counts encoder/reference disagreements, keeping the first few for the report.
struct Mismatches {
  int count = 0;
  std::string first;
  void check(const Table& t, float x) {
    if (std::isnan(x)) return;
    const std::uint32_t got = lib_encode(*t.spec, x), want = ref_encode(t, x);
    if (got == want) return;
    if (count++ < 8) first += "  " + describe(x) + ": got " + tcgen::hex_upper(got) + ", reference " + tcgen::hex_upper(want) + "\n";
  }
};

std::uint32_t test_seed() {
  if (const char* env = std::getenv("TCGEN_TEST_SEED")) return std::uint32_t(std::strtoul(env, nullptr, 0));
  return std::random_device{}();
}

}  // namespace

TEST_CASE("exhaustive: decode matches the spec table, encode(decode(p)) == p, decode is monotonic") {
  for (const Spec& s : specs) {
    INFO("type = " << tcgen::name(s.t));
    int bad = 0;
    std::string first;
    double prev = -1;
    for (std::uint32_t p = 0; p < (1u << s.width()); ++p) {
      const float v = lib_decode(s, p);
      const bool neg = (p >> (s.E + s.M)) & 1;
      std::uint32_t want = p;  // the pattern we expect encode(v) to give back
      bool ok = true;
      switch (classify(s, p)) {
        case Class::nan:  // NaN payloads are not kept: compare the class
          ok = std::isnan(v) && classify(s, lib_encode(s, v)) == Class::nan;
          want = lib_encode(s, v);
          break;
        case Class::inf:  // satfinite (e5m2) cannot give inf back: it saturates
          ok = std::isinf(v) && std::signbit(v) == neg;
          if (s.satfinite) want = (p & ~((1u << (s.E + s.M)) - 1)) | make_table(s).max_pattern;
          break;
        case Class::finite:
          ok = double(v) == spec_value(s, p) && std::signbit(v) == neg;
          if (!neg && p > 0) {  // positive finite patterns in order have increasing values
            ok = ok && double(v) > prev;
            prev = v;
          }
          break;
      }
      ok = ok && lib_encode(s, v) == want;
      if (!ok && bad++ < 8) first += "  " + tcgen::hex_upper(p) + " -> " + describe(v) + " -> " + tcgen::hex_upper(lib_encode(s, v)) + "\n";
    }
    INFO("first failures:\n" << first);
    CHECK(bad == 0);
  }
}

TEST_CASE("RNE matches the brute-force reference on random floats and every midpoint") {
  const std::uint32_t seed = test_seed();
  INFO("seed = " << seed << " (rerun with TCGEN_TEST_SEED=" << seed << ")");
  std::mt19937 rng(seed);
  for (const Spec& s : specs) {
    INFO("type = " << tcgen::name(s.t));
    const Table t = make_table(s);
    Mismatches m;
    // Random bit patterns: every exponent of f32, including subnormals, inf and overflow.
    for (int i = 0; i < 500000; ++i) m.check(t, std::bit_cast<float>(std::uint32_t(rng())));
    // Random floats within the type's range, 3 binades beyond both ends.
    const int lo = std::max(1, 127 + (1 - s.bias) - s.M - 3), hi = std::min(254, 127 + std::ilogb(t.max) + 3);
    std::uniform_int_distribution<int> exp_dist(lo, hi);
    for (int i = 0; i < 500000; ++i) {
      const std::uint32_t bits = (rng() & 0x807FFFFFu) | (std::uint32_t(exp_dist(rng)) << 23);
      m.check(t, std::bit_cast<float>(bits));
    }
    // Every midpoint between adjacent values (and the f32 values either side of it),
    // including max..2^(emax+1) for IEEE types and the midpoint just past max for satfinite.
    std::vector<double> vals;
    for (const auto& v : t.pos) vals.push_back(v.first);
    if (s.satfinite) vals.push_back(t.max + (t.max - t.pos[t.pos.size() - 2].first));
    for (std::size_t i = 0; i + 1 < vals.size(); ++i) {
      const double mid = (vals[i] + vals[i + 1]) / 2;
      const float f = float(mid);
      REQUIRE(double(f) == mid);  // every midpoint of these formats is an f32
      for (float x : {f, std::nextafter(f, 0.0f), std::nextafter(f, INFINITY)}) {
        m.check(t, x);
        m.check(t, -x);
      }
    }
    INFO(m.count << " mismatches, first:\n" << m.first);
    CHECK(m.count == 0);
  }
}

TEST_CASE("known points (IEEE 754, OCP FP8, OCP MX)") {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  SUBCASE("bf16") {
    CHECK(encode(ElementType::bf16, 1.0f) == 0x3F80);
    CHECK(encode(ElementType::bf16, -2.0f) == 0xC000);
    CHECK(encode(ElementType::bf16, 1.0f + 0x1p-8f) == 0x3F80);      // tie, even stays
    CHECK(encode(ElementType::bf16, 1.0f + 3 * 0x1p-8f) == 0x3F82);  // tie, odd goes up
    CHECK(decode(ElementType::bf16, 0x7F7F) == 0x1.FEp127f);          // max
    CHECK(encode(ElementType::bf16, std::numeric_limits<float>::max()) == 0x7F80);  // rounds to inf
    CHECK(encode(ElementType::bf16, -inf) == 0xFF80);
    CHECK(std::isnan(round_to(ElementType::bf16, nan)));
    CHECK(encode(ElementType::bf16, 0x1p-133f) == 0x0001);  // smallest subnormal
  }
  SUBCASE("fp16") {
    CHECK(encode(ElementType::fp16, 1.0f) == 0x3C00);
    CHECK(encode(ElementType::fp16, 65504.0f) == 0x7BFF);  // max
    CHECK(encode(ElementType::fp16, 65519.0f) == 0x7BFF);
    CHECK(encode(ElementType::fp16, 65520.0f) == 0x7C00);  // max + ulp/2 ties to inf
    CHECK(encode(ElementType::fp16, 0x1p-24f) == 0x0001);  // smallest subnormal
    CHECK(encode(ElementType::fp16, 0x1p-25f) == 0x0000);  // half of it ties to 0
    CHECK(encode(ElementType::fp16, -0x1.8p-25f) == 0x8001);
    CHECK(encode(ElementType::fp16, 0x1p-14f) == 0x0400);  // smallest normal
    CHECK(encode(ElementType::fp16, -nan) == 0xFE00);      // quiet NaN keeps the sign
    CHECK(decode(ElementType::fp16, 0x7C00) == inf);
  }
  SUBCASE("tf32") {
    CHECK(round_to(ElementType::tf32, 1.0f + 0x1p-11f) == 1.0f);                   // tie, even stays
    CHECK(round_to(ElementType::tf32, 1.0f + 3 * 0x1p-11f) == 1.0f + 0x1p-9f);     // tie, odd goes up
    CHECK(round_to(ElementType::tf32, 1.0f + 0x1p-11f + 0x1p-23f) == 1.0f + 0x1p-10f);
    CHECK(encode(ElementType::tf32, 1.0f) == 0x3F800000u);
    CHECK((encode(ElementType::tf32, 3.14159265f) & 0x1FFFu) == 0);
    CHECK(round_to(ElementType::tf32, std::numeric_limits<float>::max()) == inf);  // IEEE overflow
    CHECK(decode(ElementType::tf32, 0x3F801FFFu) == 1.0f);  // low 13 bits are not part of tf32
  }
  SUBCASE("e4m3 (OCP FP8 E4M3FN)") {
    CHECK(encode(ElementType::e4m3, 1.0f) == 0x38);
    CHECK(encode(ElementType::e4m3, 448.0f) == 0x7E);  // max S.1111.110
    CHECK(encode(ElementType::e4m3, 464.0f) == 0x7E);  // midpoint to the NaN slot: satfinite
    CHECK(encode(ElementType::e4m3, 1.0e6f) == 0x7E);
    CHECK(encode(ElementType::e4m3, inf) == 0x7E);
    CHECK(encode(ElementType::e4m3, -inf) == 0xFE);
    CHECK(encode(ElementType::e4m3, nan) == 0x7F);  // S.1111.111 is NaN
    CHECK(encode(ElementType::e4m3, -nan) == 0xFF);
    CHECK(encode(ElementType::e4m3, 0x1p-9f) == 0x01);   // smallest subnormal 2^-9
    CHECK(encode(ElementType::e4m3, 0x1p-10f) == 0x00);  // ties to 0
    CHECK(encode(ElementType::e4m3, 0x1.8p-9f) == 0x02);  // 1.5 * 2^-9 ties to 2 * 2^-9
    CHECK(encode(ElementType::e4m3, 0x1p-6f) == 0x08);   // smallest normal 2^-6
    CHECK(std::isnan(decode(ElementType::e4m3, 0x7F)));
    CHECK(std::isnan(decode(ElementType::e4m3, 0xFF)));
  }
  SUBCASE("e5m2 (OCP FP8 E5M2)") {
    CHECK(encode(ElementType::e5m2, 1.0f) == 0x3C);
    CHECK(encode(ElementType::e5m2, 57344.0f) == 0x7B);  // max
    CHECK(encode(ElementType::e5m2, 1.0e9f) == 0x7B);    // satfinite, not inf
    CHECK(encode(ElementType::e5m2, -inf) == 0xFB);
    CHECK(decode(ElementType::e5m2, 0x7C) == inf);
    CHECK(decode(ElementType::e5m2, 0xFC) == -inf);
    CHECK(std::isnan(decode(ElementType::e5m2, 0x7D)));
    CHECK(std::isnan(decode(ElementType::e5m2, encode(ElementType::e5m2, nan))));
    CHECK(encode(ElementType::e5m2, 0x1p-16f) == 0x01);  // smallest subnormal 2^-16
    CHECK(encode(ElementType::e5m2, 0x1p-14f) == 0x04);  // smallest normal 2^-14
  }
  SUBCASE("e2m3, e3m2 (OCP MX FP6)") {
    CHECK(encode(ElementType::e2m3, 7.5f) == 0x1F);  // max
    CHECK(encode(ElementType::e2m3, 100.0f) == 0x1F);
    CHECK(encode(ElementType::e2m3, -inf) == 0x3F);
    CHECK(encode(ElementType::e2m3, 1.0f) == 0x08);
    CHECK(encode(ElementType::e2m3, 0.125f) == 0x01);   // smallest subnormal 2^-3
    CHECK(encode(ElementType::e2m3, 0.0625f) == 0x00);  // ties to 0
    CHECK(encode(ElementType::e3m2, 28.0f) == 0x1F);    // max
    CHECK(encode(ElementType::e3m2, 1.0f) == 0x0C);
    CHECK(encode(ElementType::e3m2, 0.0625f) == 0x01);  // smallest subnormal 2^-4
    CHECK(encode(ElementType::e3m2, 0.25f) == 0x04);    // smallest normal 2^-2
    // No NaN encoding: NaN -> +max whatever its sign (assumption, as cuda_fp6.h).
    CHECK(encode(ElementType::e2m3, nan) == 0x1F);
    CHECK(encode(ElementType::e2m3, -nan) == 0x1F);
    CHECK(encode(ElementType::e3m2, -nan) == 0x1F);
  }
  SUBCASE("e2m1 (OCP MX FP4)") {
    const float values[8] = {0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
    for (std::uint32_t p = 0; p < 8; ++p) {
      CHECK(decode(ElementType::e2m1, p) == values[p]);
      CHECK(decode(ElementType::e2m1, p | 8) == -values[p]);
    }
    CHECK(encode(ElementType::e2m1, 6.0f) == 0x7);
    CHECK(encode(ElementType::e2m1, 5.0f) == 0x6);    // tie 4|6 -> 4 (even pattern)
    CHECK(encode(ElementType::e2m1, 2.5f) == 0x4);    // tie 2|3 -> 2
    CHECK(encode(ElementType::e2m1, 0.75f) == 0x2);   // tie 0.5|1 -> 1
    CHECK(encode(ElementType::e2m1, 0.25f) == 0x0);   // tie 0|0.5 -> 0
    CHECK(encode(ElementType::e2m1, -0.25f) == 0x8);  // -0
    CHECK(encode(ElementType::e2m1, -7.0f) == 0xF);
    CHECK(encode(ElementType::e2m1, nan) == 0x7);
  }
  SUBCASE("f32 and integers") {
    CHECK(encode(ElementType::f32, 0.1f) == std::bit_cast<std::uint32_t>(0.1f));
    CHECK(decode(ElementType::f32, 0x3F800000u) == 1.0f);
    CHECK(encode(ElementType::s8, 2.5f) == 2);
    CHECK(encode(ElementType::s8, 3.5f) == 4);
    CHECK(encode(ElementType::s8, -2.5f) == 0xFE);
    CHECK(encode(ElementType::s8, -2.7f) == 0xFD);
    CHECK(encode(ElementType::s8, 300.0f) == 0x7F);
    CHECK(encode(ElementType::s8, -300.0f) == 0x80);
    CHECK(encode(ElementType::s8, nan) == 0);
    CHECK(decode(ElementType::s8, 0x80) == -128.0f);
    CHECK(encode(ElementType::u8, -1.0f) == 0);
    CHECK(encode(ElementType::u8, 254.5f) == 254);
    CHECK(encode(ElementType::u8, 1000.0f) == 255);
    CHECK(encode(ElementType::s32, 1.0e10f) == 0x7FFFFFFFu);
    CHECK(encode(ElementType::s32, -1.0e10f) == 0x80000000u);
    CHECK(encode(ElementType::s32, -5.5f) == std::uint32_t(-6));
    CHECK(decode(ElementType::s32, std::uint32_t(-7)) == -7.0f);
  }
}

TEST_CASE("traits and parse_element_type") {
  const int expected_bits[] = {16, 16, 32, 32, 8, 8, 6, 6, 4, 8, 8, 32};
  for (std::size_t i = 0; i < std::size(tcgen::all_element_types); ++i) {
    const ElementType t = tcgen::all_element_types[i];
    CHECK(tcgen::bits(t) == expected_bits[i]);
    CHECK(tcgen::parse_element_type(tcgen::name(t)) == t);
  }
  try {
    tcgen::parse_element_type("fp8");
    FAIL("no error");
  } catch (const tcgen::Error& e) {
    CHECK(e.field() == "dtype");
    CHECK(e.value() == "fp8");
    CHECK(e.expected() == "one of bf16, fp16, tf32, f32, e4m3, e5m2, e2m3, e3m2, e2m1, s8, u8, s32");
    CHECK(std::string(e.what()).find("dtype") != std::string::npos);
  }
  CHECK_THROWS_AS(tcgen::parse_element_type("BF16"), tcgen::Error);
  CHECK_THROWS_AS(tcgen::parse_element_type(""), tcgen::Error);
}
