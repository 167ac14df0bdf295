// The tcgen05.mma instruction descriptor: worked values of tcgen05-facts.md §3,
// a round trip over every legal configuration, Table 39 written out a second
// time, every rule's error, and decode's checks of reserved bits and codes.
#include <doctest/doctest.h>

#include <vector>

#include "tcgen/mma/instr_descriptor.hpp"

using namespace tcgen;
using namespace tcgen::mma;
using layout::Major;
using R = InstrDescriptorRule;
using T = ElementType;
using Spec = InstrDescriptorSpec;

namespace {
constexpr Major majors[] = {Major::K, Major::MN};
constexpr bool bools[] = {false, true};

std::vector<int> range(int lo, int hi, int step) {
  std::vector<int> v;
  for (int x = lo; x <= hi; x += step) v.push_back(x);
  return v;
}

// PTX Table 39 (#tcgen05-kind-shapes), written out from the table's rows, not from check().
std::vector<int> table39_m(MmaKind kind, int cta_group, bool ws, bool sparse) {
  if (ws) return block_scaled(kind) || cta_group == 2 ? std::vector<int>{} : std::vector<int>{32, 64, 128};
  if (block_scaled(kind)) return cta_group == 1 ? std::vector<int>{128} : sparse ? std::vector<int>{256} : std::vector<int>{128, 256};
  return cta_group == 1 ? std::vector<int>{64, 128} : std::vector<int>{128, 256};
}
std::vector<int> table39_n(MmaKind kind, int cta_group, bool ws, bool sparse) {
  if (ws) return sparse ? std::vector<int>{64, 128} : std::vector<int>{64, 128, 256};
  if (kind == MmaKind::i8) {
    if (cta_group == 2) return range(32, 256, 32);
    std::vector<int> v{8, 16, 24, 32};  // "N = {8, 16, 24, 32, 48, ... 256} steps of 16 after N > 32"
    for (int n : range(48, 256, 16)) v.push_back(n);
    return v;
  }
  return cta_group == 1 ? range(8, 256, 8) : range(16, 256, 16);
}

Spec with_scale(Spec s, ScaleType t) {
  s.scale_type = t;
  return s;
}

// One legal A (= B) type per kind, for the shape sweeps.
Spec base(MmaKind kind) {
  switch (kind) {
    case MmaKind::f16: return {};
    case MmaKind::tf32: return {.kind = kind, .a = T::tf32, .b = T::tf32};
    case MmaKind::i8: return {.kind = kind, .a = T::s8, .b = T::s8, .d = T::s32};
    case MmaKind::f8f6f4:
    case MmaKind::mxf8f6f4: return {.kind = kind, .a = T::e4m3, .b = T::e4m3};
    default: return {.kind = kind, .a = T::e2m1, .b = T::e2m1};
  }
}

// Bits read straight off Tables 42-44, independently of the BitField tables.
void check_bits(const Spec& s, std::uint32_t w) {
  const auto at = [&](int lo, int width) { return int((w >> lo) & ((1u << width) - 1)); };
  const bool ok = at(17, 6) == s.n / 8 && at(13, 1) == s.negate_a && at(14, 1) == s.negate_b &&
                  at(15, 1) == (s.a_major == Major::MN) && at(16, 1) == (s.b_major == Major::MN) &&
                  at(2, 1) == s.sparse && (w & reserved_bits(s.kind)) == 0;
  if (!ok) FAIL_CHECK("common fields of ", describe(s));
  if (!block_scaled(s.kind)) {
    const int shift = s.ws_b_reuse_shift == 0 ? 0 : s.ws_b_reuse_shift == 8 ? 1 : s.ws_b_reuse_shift == 16 ? 2 : 3;
    const int dcode = s.d == T::fp16 ? 0 : s.d == T::f32 ? 1 : 2;
    if (!(at(24, 5) == s.m / 16 && at(0, 2) == s.sparse_selector && at(3, 1) == s.saturate && at(4, 2) == dcode &&
          at(30, 2) == shift && at(7, 3) == operand_code(s.kind, s.a) && at(10, 3) == operand_code(s.kind, s.b)))
      FAIL_CHECK("Table 42 fields of ", describe(s));
  } else {
    // CUTLASS InstrDescriptorBlockScaled writes M >> 4 into bits [24, 29): the same bits for M = 128, 256.
    if (!(at(27, 2) == s.m / 128 && at(24, 5) == s.m / 16 && at(23, 1) == (s.scale_type == ScaleType::ue8m0) &&
          at(29, 2) == s.a_sf_id && at(4, 2) == s.b_sf_id && at(31, 1) == s.k96 && at(7, 3) == operand_code(s.kind, s.a)))
      FAIL_CHECK("Table 43/44 fields of ", describe(s));
  }
}

// make -> check bits -> decode -> the same spec.
void round_trip(const Spec& s) {
  const std::uint32_t w = make_instr_descriptor(s);
  check_bits(s, w);
  if (decode(w, s.kind, s.cta_group, s.ws) != s) FAIL_CHECK("round trip of ", describe(s));
}
}  // namespace

TEST_CASE("worked idesc values of tcgen05-facts.md §3 (PTX Table 42, CUTLASS UMMA::InstrDescriptor)") {
  // "bf16×bf16→f32, M128 N128 | 0x08200490" ... "bf16, M128 N128, A and B MN-major | 0x08218490"
  static_assert(instr_descriptor<Spec{}>() == 0x08200490);
  static_assert(instr_descriptor<Spec{.n = 256}>() == 0x08400490);
  static_assert(instr_descriptor<Spec{.m = 64, .n = 16}>() == 0x04040490);
  static_assert(instr_descriptor<Spec{.a = T::fp16, .b = T::fp16, .n = 16}>() == 0x08040010);
  static_assert(instr_descriptor<Spec{.a = T::fp16, .b = T::fp16, .d = T::fp16, .n = 64}>() == 0x08100000);
  static_assert(instr_descriptor<Spec{.kind = MmaKind::tf32, .a = T::tf32, .b = T::tf32}>() == 0x08200910);
  static_assert(instr_descriptor<Spec{.m = 256, .n = 256, .cta_group = 2}>() == 0x10400490);  // "256 >> 4 = 16, so bit 28"
  static_assert(instr_descriptor<Spec{.a_major = Major::MN, .b_major = Major::MN}>() == 0x08218490);

  const struct {
    Spec spec;
    std::uint32_t idesc;
  } worked[] = {
      {Spec{}, 0x08200490},
      {Spec{.n = 256}, 0x08400490},
      {Spec{.m = 64, .n = 16}, 0x04040490},
      {Spec{.a = T::fp16, .b = T::fp16, .n = 16}, 0x08040010},
      {Spec{.a = T::fp16, .b = T::fp16, .d = T::fp16, .n = 64}, 0x08100000},
      {Spec{.kind = MmaKind::tf32, .a = T::tf32, .b = T::tf32}, 0x08200910},
      {Spec{.m = 256, .n = 256, .cta_group = 2}, 0x10400490},
      {Spec{.a_major = Major::MN, .b_major = Major::MN}, 0x08218490},
  };
  for (const auto& w : worked) {
    CAPTURE(describe(w.spec));
    CHECK(make_instr_descriptor(w.spec) == w.idesc);
    CHECK(decode(w.idesc, w.spec.kind, w.spec.cta_group) == w.spec);
  }
}

TEST_CASE("block-scaled descriptors: Tables 43/44 bit placement") {
  // mxf8f6f4 e4m3 x e4m3, M128 N256, UE8M0: N>>3 = 32 at 17, scale bit 23, M>>7 = 1 at 27.
  static_assert(instr_descriptor<Spec{.kind = MmaKind::mxf8f6f4, .a = T::e4m3, .b = T::e4m3, .n = 256}>() == 0x08C00000);
  // mxf4nvf4 e2m1 (code 1 at 7 and at 10), M256 N128 cta_group::2, UE4M3 (bit 23 clear), K = 96 (bit 31).
  static_assert(instr_descriptor<Spec{.kind = MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1, .m = 256, .cta_group = 2,
                                      .scale_type = ScaleType::ue4m3, .k96 = true}>() == 0x90200480);
  // Scale-factor IDs: A at 29-30, B at 4-5.
  static_assert(instr_descriptor<Spec{.kind = MmaKind::mxf8f6f4, .a = T::e2m1, .b = T::e3m2, .a_sf_id = 3, .b_sf_id = 1}>() ==
                (0x08A00000u | (3u << 29) | (1u << 4) | (5u << 7) | (4u << 10)));
  CHECK(reserved_bits(MmaKind::f16) == ((1u << 6) | (1u << 23) | (1u << 29)));
  CHECK(reserved_bits(MmaKind::i8) == reserved_bits(MmaKind::f16));
  CHECK(reserved_bits(MmaKind::mxf8f6f4) == (0x3u | (1u << 3) | (1u << 6) | (0x7u << 24) | (1u << 31)));
  CHECK(reserved_bits(MmaKind::mxf4) == (0x3u | (1u << 3) | (1u << 6) | (1u << 12) | (0x7u << 24)));
  CHECK(reserved_bits(MmaKind::mxf4nvf4) == reserved_bits(MmaKind::mxf4));
}

TEST_CASE("K per instruction (PTX Table 39)") {
  CHECK(k_per_instruction(MmaKind::f16) == 16);
  CHECK(k_per_instruction(MmaKind::f16, true) == 32);
  CHECK(k_per_instruction(MmaKind::tf32) == 8);
  CHECK(k_per_instruction(MmaKind::tf32, true) == 16);
  CHECK(k_per_instruction(MmaKind::f8f6f4) == 32);
  CHECK(k_per_instruction(MmaKind::i8, true) == 64);
  CHECK(k_per_instruction(MmaKind::mxf8f6f4) == 32);
  CHECK(k_per_instruction(MmaKind::mxf4) == 64);
  CHECK(k_per_instruction(MmaKind::mxf4nvf4, true) == 128);
  CHECK(k_per_instruction(Spec{.kind = MmaKind::mxf4, .a = T::e2m1, .b = T::e2m1, .m = 256, .cta_group = 2, .k96 = true}) == 96);
}

TEST_CASE("legal M and N sets are those of Table 39 (and Table 52 for an MN-major 8-bit B)") {
  for (MmaKind kind : all_mma_kinds)
    for (int cg : {1, 2})
      for (bool ws : bools)
        for (bool sparse : bools)
          for (Major bm : majors) {
            Spec s = base(kind);
            s.cta_group = cg, s.ws = ws, s.sparse = sparse, s.b_major = bm;
            if (bm == Major::MN && (kind == MmaKind::mxf4 || kind == MmaKind::mxf4nvf4)) continue;
            std::vector<int> want_m = table39_m(kind, cg, ws, sparse), want_n = table39_n(kind, cg, ws, sparse);
            if (bm == Major::MN && bits(s.b) == 8)  // Table 52: "16 <= N <= 256, step 16" / "32 <= N <= 256, step 32"
              std::erase_if(want_n, [&](int n) { return n % (cg == 1 ? 16 : 32) != 0; });
            std::vector<int> ms;
            std::vector<std::vector<int>> n_sets;  // the N set of each legal M: Table 39 gives one per row
            for (int m : {16, 32, 48, 64, 96, 128, 192, 256, 512}) {
              s.m = m;
              std::vector<int> ns;
              for (int n = 0; n <= 264; n += 4) {
                s.n = n;
                if (check(s) == R::ok) ns.push_back(n);
              }
              if (!ns.empty()) ms.push_back(m), n_sets.push_back(ns);
            }
            CAPTURE(describe(s));
            CHECK(ms == want_m);
            for (const auto& ns : n_sets) CHECK(ns == want_n);
          }
}

TEST_CASE("round trip over every legal configuration") {
  // kind x A x B x D x M x N x majors x negates x cta_group x ws x sparse; the other fields 0.
  long legal = 0;
  for (MmaKind kind : all_mma_kinds)
    for (T a : all_element_types)
      for (T b : all_element_types)
        for (T d : all_element_types) {
          if (operand_code(kind, a) < 0 || operand_code(kind, b) < 0 || accumulator_code(kind, d) < 0) continue;
          for (int m : {32, 64, 128, 256})
            for (int n = 8; n <= 256; n += 8)
              for (Major am : majors)
                for (Major bm : majors)
                  for (bool na : bools)
                    for (bool nb : bools)
                      for (int cg : {1, 2})
                        for (bool ws : bools)
                          for (bool sparse : bools) {
                            const Spec s{.kind = kind, .a = a, .b = b, .d = d, .m = m, .n = n, .a_major = am,
                                         .b_major = bm, .negate_a = na, .negate_b = nb, .sparse = sparse,
                                         .cta_group = cg, .ws = ws};
                            if (check(s) != R::ok) continue;
                            ++legal;
                            round_trip(s);
                          }
        }
  CHECK(legal > 0);
}

TEST_CASE("round trip over the other fields: selector, B-reuse shift, saturate, scale type, SF ids, K = 96") {
  long legal = 0;
  for (MmaKind kind : all_mma_kinds)
    for (T a : all_element_types) {
      if (operand_code(kind, a) < 0) continue;
      for (int cg : {1, 2})
        for (bool ws : bools)
          for (bool sparse : bools)
            for (int sel = 0; sel < 4; ++sel)
              for (int shift : {0, 8, 16, 32})
                for (bool sat : bools)
                  for (ScaleType st : {ScaleType::ue8m0, ScaleType::ue4m3})
                    for (int sfa = 0; sfa < 4; ++sfa)
                      for (int sfb = 0; sfb < 4; ++sfb)
                        for (bool k96 : bools) {
                          Spec s = base(kind);
                          s.a = s.b = a;
                          s.cta_group = cg, s.ws = ws, s.sparse = sparse, s.sparse_selector = sel;
                          s.ws_b_reuse_shift = shift, s.saturate = sat, s.scale_type = st;
                          s.a_sf_id = sfa, s.b_sf_id = sfb, s.k96 = k96;
                          s.m = cg == 2 ? 256 : 128;
                          if (check(s) != R::ok) continue;
                          ++legal;
                          round_trip(s);
                        }
    }
  CHECK(legal > 0);
}

TEST_CASE("every rule rejects with its sentence, naming its field") {
  const Spec f16{}, tf32 = base(MmaKind::tf32), i8 = base(MmaKind::i8), f8 = base(MmaKind::f8f6f4);
  const Spec mx = base(MmaKind::mxf8f6f4), nv = base(MmaKind::mxf4nvf4);
  const auto with = [](Spec s, auto edit) {
    edit(s);
    return s;
  };
  const struct {
    R rule;
    Spec spec;
  } cases[] = {
      {R::kind, with(f16, [](Spec& s) { s.kind = static_cast<MmaKind>(9); })},
      {R::cta_group, with(f16, [](Spec& s) { s.cta_group = 3; })},
      {R::ws_cta_group, with(f16, [](Spec& s) { s.ws = true, s.cta_group = 2, s.m = 256; })},
      {R::ws_block_scaled, with(mx, [](Spec& s) { s.ws = true; })},
      {R::a_type, with(f16, [](Spec& s) { s.a = T::e4m3; })},
      {R::b_type, with(tf32, [](Spec& s) { s.b = T::f32; })},
      {R::f16_mixed, with(f16, [](Spec& s) { s.a = T::fp16; })},
      {R::d_type, with(i8, [](Spec& s) { s.d = T::f32; })},
      {R::bf16_d, with(f16, [](Spec& s) { s.d = T::fp16; })},
      {R::m_cg1, with(f16, [](Spec& s) { s.m = 256; })},
      {R::m_ws, with(f16, [](Spec& s) { s.ws = true, s.m = 256; })},
      {R::m_cg2, with(f16, [](Spec& s) { s.cta_group = 2, s.m = 64; })},
      {R::m_block_scaled_cg1, with(mx, [](Spec& s) { s.m = 64; })},
      {R::m_block_scaled_sparse, with(nv, [](Spec& s) { s.cta_group = 2, s.sparse = true; })},
      {R::n_cg1, with(f16, [](Spec& s) { s.n = 12; })},
      {R::n_i8_cg1, with(i8, [](Spec& s) { s.n = 40; })},
      {R::n_cg2, with(f8, [](Spec& s) { s.cta_group = 2, s.n = 24; })},
      {R::n_i8_cg2, with(i8, [](Spec& s) { s.cta_group = 2, s.n = 48; })},
      {R::n_ws, with(tf32, [](Spec& s) { s.ws = true, s.n = 192; })},
      {R::n_ws_sparse, with(f16, [](Spec& s) { s.ws = true, s.sparse = true, s.n = 256; })},
      {R::n_transpose_b_8bit, with(f8, [](Spec& s) { s.b_major = Major::MN, s.n = 24; })},
      {R::k96, with(nv, [](Spec& s) { s.k96 = true; })},
      {R::a_major_mxf4, with(nv, [](Spec& s) { s.a_major = Major::MN; })},
      {R::b_major_mxf4, with(nv, [](Spec& s) { s.b_major = Major::MN; })},
      {R::a_major_subbyte, with(f8, [](Spec& s) { s.a = T::e2m1, s.a_major = Major::MN; })},
      {R::b_major_subbyte, with(mx, [](Spec& s) { s.b = T::e3m2, s.b_major = Major::MN; })},
      {R::negate_a_i8, with(i8, [](Spec& s) { s.negate_a = true; })},
      {R::negate_b_i8, with(i8, [](Spec& s) { s.negate_b = true; })},
      {R::saturate, with(f16, [](Spec& s) { s.saturate = true; })},
      {R::sparse_selector_range, with(f16, [](Spec& s) { s.sparse = true, s.sparse_selector = 4; })},
      {R::sparse_selector_zero, with(f8, [](Spec& s) { s.sparse = true, s.sparse_selector = 1; })},
      {R::ws_shift_value, with(f16, [](Spec& s) { s.ws = true, s.ws_b_reuse_shift = 4; })},
      {R::ws_shift_needs_ws, with(f16, [](Spec& s) { s.ws_b_reuse_shift = 8; })},
      {R::scale_type, with(mx, [](Spec& s) { s.scale_type = ScaleType::ue4m3; })},
      {R::a_sf_id, with(nv, [](Spec& s) { s.a_sf_id = 1; })},
      {R::b_sf_id, with(f16, [](Spec& s) { s.b_sf_id = 2; })},
  };
  int rules = 0;
#define TCGEN_X(code, field, sentence) ++rules;
  TCGEN_INSTR_DESCRIPTOR_RULES(TCGEN_X)
#undef TCGEN_X
  CHECK(std::size(cases) == static_cast<std::size_t>(rules));
  for (int i = 0; i < rules; ++i) CHECK(cases[i].rule == static_cast<R>(i + 1));  // each rule once, in order
  for (const auto& c : cases) {
    CAPTURE(rule_sentence(c.rule));
    CHECK(check(c.spec) == c.rule);
    CHECK_THROWS_WITH_AS(make_instr_descriptor(c.spec), doctest::Contains(rule_sentence(c.rule)), Error);
    try {
      make_instr_descriptor(c.spec);
    } catch (const Error& e) {
      CHECK(e.field() == rule_field(c.rule));
    }
  }
}

TEST_CASE("errors list the values that would be legal") {
  CHECK_THROWS_WITH_AS(make_instr_descriptor({.n = 12}),
                       "n = 12 is invalid: N must be a multiple of 8 in [8, 256] for cta_group::1 (PTX "
                       "#tcgen05-kind-shapes Table 39); legal here: 8, 16, ..., 256 [kind::f16 cta_group::1 M=128 "
                       "N=12 K=16 A=bf16 (K-major) B=bf16 (K-major) D=f32]",
                       Error);
  const Spec i8 = base(MmaKind::i8);
  CHECK(legal_values(i8, "n") == "8, 16, 24, 32, 48, ..., 256");
  CHECK(legal_values(Spec{.cta_group = 2}, "n") == "16, 32, ..., 256");
  CHECK(legal_values(Spec{.b_major = Major::MN, .cta_group = 2}, "n") == "16, 32, ..., 256");  // bf16: no Table 52 step
  CHECK(legal_values(Spec{.kind = MmaKind::f8f6f4, .a = T::e4m3, .b = T::e5m2, .b_major = Major::MN, .cta_group = 2}, "n") ==
        "32, 64, ..., 256");
  CHECK(legal_values(Spec{.ws = true}, "m") == "32, 64, 128");
  CHECK(legal_values(Spec{.sparse = true, .ws = true}, "n") == "64, 128");
  CHECK(legal_values(Spec{.a = T::fp16, .b = T::fp16}, "d") == "fp16, f32");
  CHECK(legal_values(Spec{}, "d") == "f32");
  CHECK(legal_values(base(MmaKind::f8f6f4), "a") == "e4m3, e5m2, e2m3, e3m2, e2m1");
  CHECK(legal_values(base(MmaKind::mxf4nvf4), "scale_type") == "ue8m0, ue4m3");
  // Scale-factor IDs: byte (1X), half-word (2X), whole word (4X, ue4m3); K = 96 per its figures.
  CHECK(legal_values(base(MmaKind::mxf8f6f4), "a_sf_id") == "0, 1, 2, 3");
  CHECK(legal_values(base(MmaKind::mxf4), "a_sf_id") == "0, 2");
  CHECK(legal_values(Spec{.kind = MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1, .scale_type = ScaleType::ue4m3}, "b_sf_id") == "0");
  const Spec k96{.kind = MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1, .m = 256, .cta_group = 2, .k96 = true};
  CHECK(legal_values(k96, "a_sf_id") == "0, 1, 2, 3");
  CHECK(legal_values(with_scale(k96, ScaleType::ue4m3), "a_sf_id") == "0, 2");
  CHECK(legal_values(Spec{}, "b_sf_id") == "0");
  CHECK(legal_values(Spec{.sparse = true}, "sparse_selector") == "0, 1, 2, 3");
  CHECK(legal_values(Spec{}, "sparse_selector") == "0");
  CHECK(legal_values(base(MmaKind::i8), "sparse_selector") == "0");
  CHECK(legal_values(Spec{.n = 64, .ws = true}, "ws_b_reuse_shift") == "0, 8, 16, 32");
  CHECK(legal_values(Spec{}, "ws_b_reuse_shift") == "0");
  CHECK_THROWS_WITH_AS(make_instr_descriptor(Spec{.a = T::fp16, .b = T::fp16, .m = 256}),
                       doctest::Contains("m = 256 is invalid: M must be 64 or 128 for cta_group::1"), Error);
}

TEST_CASE("decode rejects reserved bits, naming the bit") {
  for (MmaKind kind : all_mma_kinds) {
    const Spec s = base(kind);
    const std::uint32_t w = make_instr_descriptor(s);
    for (int bit = 0; bit < 32; ++bit) {
      if (!((reserved_bits(kind) >> bit) & 1u)) continue;
      CAPTURE(name(kind));
      CAPTURE(bit);
      const std::string needle = "reserved bit " + std::to_string(bit) + " = 1 is invalid";
      CHECK_THROWS_WITH_AS(decode(w | (1u << bit), kind), doctest::Contains(needle.c_str()), Error);
    }
  }
  CHECK_THROWS_WITH_AS(decode(0x08400490u | (1u << 23), MmaKind::f16),
                       "reserved bit 23 = 1 is invalid: bit 23 is reserved and must be 0 for kind::f16 (PTX "
                       "#tcgen05-instuction-desc-kind-tf32-f16-f8f6f4 Table 42)",
                       Error);
}

TEST_CASE("decode rejects type codes the kind does not define, naming the field") {
  const auto set = [](std::uint32_t w, int lo, int width, std::uint32_t code) {
    return (w & ~(((1u << width) - 1) << lo)) | (code << lo);
  };
  const std::uint32_t bf16 = 0x08200490;  // bf16 x bf16 -> f32, M128 N128
  CHECK_THROWS_WITH_AS(decode(set(bf16, 4, 2, 2), MmaKind::f16), doctest::Contains("d = 2 is invalid: the dtype code (bits 4-5)"), Error);
  CHECK_THROWS_WITH_AS(decode(set(bf16, 4, 2, 3), MmaKind::f16), doctest::Contains("d = 3"), Error);
  CHECK_THROWS_WITH_AS(decode(set(bf16, 7, 3, 2), MmaKind::f16), doctest::Contains("a = 2 is invalid: the atype code"), Error);
  CHECK_THROWS_WITH_AS(decode(set(bf16, 10, 3, 7), MmaKind::f16), doctest::Contains("b = 7 is invalid: the btype code"), Error);
  CHECK_THROWS_WITH_AS(decode(bf16, MmaKind::tf32), doctest::Contains("a = 1 is invalid"), Error);
  const std::uint32_t e4m3 = make_instr_descriptor(base(MmaKind::f8f6f4));
  CHECK_THROWS_WITH_AS(decode(set(e4m3, 7, 3, 2), MmaKind::f8f6f4), doctest::Contains("a = 2"), Error);
  CHECK_THROWS_WITH_AS(decode(set(e4m3, 10, 3, 6), MmaKind::f8f6f4), doctest::Contains("b = 6"), Error);
  CHECK_THROWS_WITH_AS(decode(set(e4m3, 4, 2, 2), MmaKind::f8f6f4), doctest::Contains("d = 2"), Error);
  const std::uint32_t s8 = make_instr_descriptor(base(MmaKind::i8));
  CHECK_THROWS_WITH_AS(decode(set(s8, 4, 2, 1), MmaKind::i8), doctest::Contains("d = 1"), Error);
  CHECK_THROWS_WITH_AS(decode(set(s8, 7, 3, 2), MmaKind::i8), doctest::Contains("a = 2"), Error);
  const std::uint32_t fp4 = make_instr_descriptor(base(MmaKind::mxf4));
  CHECK_THROWS_WITH_AS(decode(set(fp4, 7, 3, 5), MmaKind::mxf4), doctest::Contains("a = 5"), Error);
  CHECK_THROWS_WITH_AS(decode(set(fp4, 10, 2, 0), MmaKind::mxf4), doctest::Contains("b = 0 is invalid: the btype code (bits 10-11)"), Error);
}

TEST_CASE("decode checks the fields against the rules, with the instruction's cta_group and .ws") {
  CHECK_THROWS_WITH_AS(decode(0x10400490, MmaKind::f16), doctest::Contains("m = 256 is invalid"), Error);
  CHECK(decode(0x10400490, MmaKind::f16, 2).m == 256);
  const std::uint32_t ws = make_instr_descriptor({.n = 64, .ws = true, .ws_b_reuse_shift = 16});
  CHECK(ws == (0x08100490u | (2u << 30)));  // N 64 -> 8 at bit 17, shift 16 -> code 2 at bit 30
  CHECK_THROWS_WITH_AS(decode(ws, MmaKind::f16), doctest::Contains("ws_b_reuse_shift = 16 is invalid"), Error);
  CHECK(decode(ws, MmaKind::f16, 1, true).ws_b_reuse_shift == 16);
  CHECK_THROWS_WITH_AS(decode(0x08200490u | (1u << 3), MmaKind::f16), doctest::Contains("saturate = true is invalid"), Error);
  CHECK_THROWS_WITH_AS(decode(0x08200490u | 1u, MmaKind::f16), doctest::Contains("sparse_selector = 1 is invalid"), Error);
  CHECK_THROWS_WITH_AS(decode(0x08200490u & ~(0x3Fu << 17), MmaKind::f16), doctest::Contains("n = 0 is invalid"), Error);
  const std::uint32_t mx = make_instr_descriptor(base(MmaKind::mxf8f6f4));
  CHECK_THROWS_WITH_AS(decode(mx & ~(1u << 23), MmaKind::mxf8f6f4), doctest::Contains("scale_type = ue4m3 is invalid"), Error);
}
