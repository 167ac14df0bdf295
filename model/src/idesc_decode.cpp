#include "tcgen/model/idesc_decode.hpp"

#include <array>
#include <string>

#include "tcgen/core/bitfield.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::model {

namespace {

// PTX #tcgen05-instruction-descriptor, Table 42 (kind::f16, tf32, f8f6f4, i8);
// Tables 43 and 44 (the block-scaled kinds) keep bits 2 and 7-22 and use
// the rest as the `mx` fields below.
constexpr BitField sparse_selector{"sparse_selector", 0, 2};
constexpr BitField sparse{"sparse", 2, 1};
constexpr BitField saturate{"saturate", 3, 1};
constexpr BitField dtype{"d", 4, 2};
constexpr BitField atype{"a", 7, 3};
constexpr BitField btype{"b", 10, 3};
constexpr BitField negate_a{"negate_a", 13, 1};
constexpr BitField negate_b{"negate_b", 14, 1};
constexpr BitField a_major{"a_major", 15, 1};  // "Transpose A": 0 = K-major
constexpr BitField b_major{"b_major", 16, 1};
constexpr BitField n_field{"n", 17, 6};  // N >> 3
constexpr BitField m_field{"m", 24, 5};  // M >> 4
constexpr BitField ws_shift{"ws_b_reuse_shift", 30, 2};
constexpr std::array reserved{BitField{"reserved bit 6", 6, 1}, BitField{"reserved bit 23", 23, 1},
                              BitField{"reserved bit 29", 29, 1}};
namespace mx {
constexpr BitField b_sf_id{"b_sf_id", 4, 2};
constexpr BitField btype_fp4{"b", 10, 2};  // kind::mxf4 and mxf4nvf4: bit 12 reserved
constexpr BitField scale_type{"scale_type", 23, 1};  // UE8M0 = 1, UE4M3 = 0
constexpr BitField m_field{"m", 27, 2};  // M >> 7
constexpr BitField a_sf_id{"a_sf_id", 29, 2};
constexpr BitField k96{"k_dimension", 31, 1};  // kind::mxf4, mxf4nvf4: 1 = dense K 96, sm_103a only
constexpr std::array reserved{BitField{"reserved bits 0-1", 0, 2}, BitField{"reserved bit 3", 3, 1},
                              BitField{"reserved bit 6", 6, 1}, BitField{"reserved bits 24-26", 24, 3}};
}  // namespace mx

[[noreturn]] void refuse(const char* field, std::int64_t value, const std::string& why, const char* section) {
  fail(field, std::to_string(value), why + " (PTX " + section + ")");
}
constexpr const char* kTable42 = "#tcgen05-instruction-descriptor Table 42";
constexpr const char* kTable39 = "#tcgen05-kind-shapes Table 39";
const char* table_of(MmaKind kind) {
  if (kind == MmaKind::mxf8f6f4) return "#tcgen05-instuction-desc-kind-mxf8f6f4 Table 43";
  if (block_scaled(kind)) return "#tcgen05-instuction-desc-kind-mxf4-mxf4nvf4 Table 44";
  return kTable42;
}

// atype/btype code -> element type, per kind (Tables 42-44); false if undefined.
bool operand_type(MmaKind kind, std::uint64_t code, ElementType& t) {
  using T = ElementType;
  switch (kind) {
    case MmaKind::f16:
      if (code > 1) return false;
      t = code == 0 ? T::fp16 : T::bf16;
      return true;
    case MmaKind::tf32:
      t = T::tf32;
      return code == 2;
    case MmaKind::f8f6f4:
    case MmaKind::mxf8f6f4:
      switch (code) {  // code 2 is undefined
        case 0: t = T::e4m3; return true;
        case 1: t = T::e5m2; return true;
        case 3: t = T::e2m3; return true;
        case 4: t = T::e3m2; return true;
        case 5: t = T::e2m1; return true;
      }
      return false;
    case MmaKind::i8:
      if (code > 1) return false;
      t = code == 0 ? T::u8 : T::s8;
      return true;
    case MmaKind::mxf4:
    case MmaKind::mxf4nvf4:
      t = T::e2m1;
      return code == 1;
  }
  return false;
}

// dtype code -> accumulator type (Table 42 bits 4-5); false if the kind lacks it.
bool accumulator_type(MmaKind kind, std::uint64_t code, ElementType& t) {
  const bool f16_out = kind == MmaKind::f16 || kind == MmaKind::f8f6f4;
  if (code == 1 && kind != MmaKind::i8) t = ElementType::f32;
  else if (code == 0 && f16_out) t = ElementType::fp16;
  else if (code == 2 && kind == MmaKind::i8) t = ElementType::s32;
  else return false;
  return true;
}

const char* operand_types(MmaKind kind) {
  switch (kind) {
    case MmaKind::f16: return "expected 0 (f16) or 1 (bf16) for kind::f16";
    case MmaKind::tf32: return "expected 2 (tf32) for kind::tf32";
    case MmaKind::f8f6f4:
    case MmaKind::mxf8f6f4: return "expected 0 (e4m3), 1 (e5m2), 3 (e2m3), 4 (e3m2) or 5 (e2m1)";
    case MmaKind::i8: return "expected 0 (u8) or 1 (s8) for kind::i8";
    case MmaKind::mxf4:
    case MmaKind::mxf4nvf4: return "expected 1 (e2m1)";
  }
  return "";
}

bool legal_n(MmaKind kind, int n) {
  if (n < 8 || n > 256) return false;
  if (kind == MmaKind::i8) return n == 8 || n == 24 || n % 16 == 0;  // 8, 16, 24, 32, then step 16
  return n % 8 == 0;
}

// cta_group::2 (Table 39): M 128 or 256 (the pair's, from the descriptor's
// full M), N 16..256 step 16, kind::i8 step 32; an 8-bit MN-major B steps
// by 32 (#tcgen05-kind-shapes-8b-transpose-b).
void check_pair_shape(const InstrDescriptorFields& f, MmaKind kind, const char* m_name, const char* n_name) {
  if (f.m != 128 && f.m != 256)
    refuse(m_name, f.m, "expected M = 128 or 256 for cta_group::2", kTable39);
  if (f.m != 256 && f.sparse && block_scaled(kind))
    refuse(m_name, f.m, std::string("expected M = 256 for a sparse kind::") + name(kind) + " with cta_group::2",
           kTable39);
  const int step = kind == MmaKind::i8 || (f.b_mn_major && bits(f.b) == 8) ? 32 : 16;
  if (f.n < step || f.n > 256 || f.n % step != 0)
    refuse(n_name, f.n, "expected N a multiple of " + std::to_string(step) + " in [" + std::to_string(step) +
                            ", 256] for cta_group::2" + (step == 32 && kind != MmaKind::i8 ? " with an MN-major 8-bit B" : ""),
           step == 32 && kind != MmaKind::i8 ? "#tcgen05-kind-shapes-8b-transpose-b" : kTable39);
}

// Bits 2 and 7-22, common to all tables.
void decode_operands(std::uint64_t w, MmaKind kind, InstrDescriptorFields& f) {
  const auto get = [w](const BitField& b) { return b.extract(w); };
  const char* table = table_of(kind);
  f.kind = kind;
  f.sparse = get(sparse) != 0;
  const bool fp4 = kind == MmaKind::mxf4 || kind == MmaKind::mxf4nvf4;
  const BitField& b_field = fp4 ? mx::btype_fp4 : btype;
  if (!operand_type(kind, get(atype), f.a))
    refuse(atype.name, static_cast<std::int64_t>(get(atype)), operand_types(kind), table);
  if (!operand_type(kind, get(b_field), f.b))
    refuse(b_field.name, static_cast<std::int64_t>(get(b_field)), operand_types(kind), table);
  if (fp4 && (w >> 12 & 1)) refuse("reserved bit 12", 1, "expected 0: reserved", table);
  f.negate_a = get(negate_a) != 0;
  f.negate_b = get(negate_b) != 0;
  if (kind == MmaKind::i8 && f.negate_a) refuse(negate_a.name, 1, "expected 0: kind::i8 cannot negate", table);
  if (kind == MmaKind::i8 && f.negate_b) refuse(negate_b.name, 1, "expected 0: kind::i8 cannot negate", table);
  f.a_mn_major = get(a_major) != 0;
  f.b_mn_major = get(b_major) != 0;
  // The padded 6- and 4-bit formats, and the packed 4-bit one, exist only K-major.
  if (f.a_mn_major && bits(f.a) < 8)
    refuse(a_major.name, 1, std::string("expected 0 (K-major): ") + tcgen::name(f.a) + " cannot be MN-major",
           fp4 ? table : "#tcgen05-canonical-layouts, Table 52");
  if (f.b_mn_major && bits(f.b) < 8)
    refuse(b_major.name, 1, std::string("expected 0 (K-major): ") + tcgen::name(f.b) + " cannot be MN-major",
           fp4 ? table : "#tcgen05-canonical-layouts, Table 52");
  f.n = static_cast<int>(get(n_field) << 3);
}

InstrDescriptorFields decode_block_scaled(std::uint64_t w, MmaKind kind, CtaGroup group) {
  const auto get = [w](const BitField& b) { return b.extract(w); };
  const char* table = table_of(kind);
  for (const BitField& r : mx::reserved)
    if (get(r) != 0) refuse(r.name, static_cast<std::int64_t>(get(r)), "expected 0: reserved", table);
  InstrDescriptorFields f;
  decode_operands(w, kind, f);
  f.d = ElementType::f32;  // the block-scaled kinds accumulate in f32 only (Table 39)
  f.ue8m0 = get(mx::scale_type) != 0;
  if (!f.ue8m0 && kind != MmaKind::mxf4nvf4)
    refuse(mx::scale_type.name, 0,
           std::string("expected 1 (UE8M0): UE4M3 scale factors are for kind::mxf4nvf4 only, not kind::") + name(kind),
           table);
  f.a_sf_id = static_cast<int>(get(mx::a_sf_id));
  f.b_sf_id = static_cast<int>(get(mx::b_sf_id));
  // Table 44 gives the 4-bit kinds IDs 0 or 2; UE4M3 factors come 4 to a
  // word (.scale_vec::4X), whose ID "must be 0" (#tcgen05-mma-scale-factor-a).
  for (const BitField* id : {&mx::a_sf_id, &mx::b_sf_id}) {
    const auto v = static_cast<std::int64_t>(get(*id));
    if (!f.ue8m0 && v != 0)
      refuse(id->name, v, "expected 0: UE4M3 factors fill the whole scale word (.scale_vec::4X)",
             "#tcgen05-mma-scale-factor-a");
    if (kind != MmaKind::mxf8f6f4 && v % 2 != 0)
      refuse(id->name, v, std::string("expected 0 or 2 for kind::") + name(kind), table);
  }
  if (kind == MmaKind::mxf8f6f4 && (w >> 31) != 0) refuse("reserved bit 31", 1, "expected 0: reserved", table);
  if (kind != MmaKind::mxf8f6f4 && get(mx::k96) != 0)
    refuse(mx::k96.name, 1, "expected 0 (dense K = 64): K = 96 is for sm_103a, not sm_100a",
           "#tcgen05-matrix-shape-target-isa-note");
  f.m = static_cast<int>(get(mx::m_field) << 7);
  if (group == CtaGroup::two) {
    check_pair_shape(f, kind, mx::m_field.name, n_field.name);
    return f;
  }
  if (f.m != 128)
    refuse(mx::m_field.name, f.m, std::string("expected M = 128 (field = M >> 7) for kind::") + name(kind) +
                                       " with cta_group::1", kTable39);
  if (!legal_n(kind, f.n))
    refuse(n_field.name, f.n, "expected N a multiple of 8 in [8, 256] (field = N >> 3) for cta_group::1", kTable39);
  if (f.b_mn_major && bits(f.b) == 8 && f.n % 16 != 0)
    refuse(n_field.name, f.n, "expected N a multiple of 16 when an 8-bit B is MN-major (cta_group::1)",
           "#tcgen05-kind-shapes-8b-transpose-b");
  return f;
}

}  // namespace

InstrDescriptorFields decode_instr_descriptor(std::uint32_t idesc, MmaKind kind, bool ws, CtaGroup group) {
  const std::uint64_t w = idesc;
  if (ws && group == CtaGroup::two) refuse("ws", 1, "expected no .ws with cta_group::2: \"Invalid\"", kTable39);
  if (block_scaled(kind)) {
    if (ws) refuse("ws", 1, std::string("kind::") + name(kind) + " has no .ws form", kTable39);
    return decode_block_scaled(w, kind, group);
  }
  const auto get = [w](const BitField& f) { return f.extract(w); };
  for (const BitField& r : reserved)
    if (get(r) != 0) refuse(r.name, 1, "expected 0: reserved", kTable42);
  // Bits 30-31 bound the shift of .ws's opportunistic B reuse, which changes no value (PTX #tcgen05-mma).
  if (get(ws_shift) != 0 && !ws)
    refuse(ws_shift.name, static_cast<std::int64_t>(get(ws_shift)),
           "expected 0: the B-reuse shift belongs to tcgen05.mma.ws", kTable42);

  InstrDescriptorFields f;
  decode_operands(w, kind, f);
  // Bits 0-1 pick the metadata sub-columns "if Sparsity is enabled", and only
  // kind::f16 and tf32 have more than one choice.
  // kind::f8f6f4 and i8 read all their metadata columns: the selector "must be 0"
  // (#tcgen05-sparse-matrices-sparsity-selector-kind-f8f6f4-mxf8f6f4-m128-256).
  if (get(sparse_selector) != 0 && !(f.sparse && (kind == MmaKind::f16 || kind == MmaKind::tf32)))
    refuse(sparse_selector.name, static_cast<std::int64_t>(get(sparse_selector)),
           std::string("expected 0: a sparsity selector needs sparse kind::f16 or tf32, not ") +
               (f.sparse ? "kind::" : "a dense kind::") + name(kind),
           kTable42);
  f.sparse_selector = static_cast<int>(get(sparse_selector));
  if (get(saturate) != 0 && kind != MmaKind::i8)
    refuse(saturate.name, 1, "expected 0: saturate is for kind::i8 only", kTable42);
  if (kind == MmaKind::f16 && f.a != f.b)
    refuse(btype.name, static_cast<std::int64_t>(get(btype)),
           std::string("expected the type of A (") + tcgen::name(f.a) + "): kind::f16 multiplies f16 by f16 or bf16 by bf16",
           kTable39);
  if (!accumulator_type(kind, get(dtype), f.d))
    refuse(dtype.name, static_cast<std::int64_t>(get(dtype)),
           kind == MmaKind::i8 ? "expected 2 (s32) for kind::i8"
           : kind == MmaKind::tf32 ? "expected 1 (f32) for kind::tf32"
                                   : "expected 0 (f16) or 1 (f32)",
           kTable42);
  if (f.a == ElementType::bf16 && f.d != ElementType::f32)
    refuse(dtype.name, static_cast<std::int64_t>(get(dtype)), "expected 1 (f32): bf16 inputs accumulate in f32 only",
           kTable39);

  f.m = static_cast<int>(get(m_field) << 4);
  if (ws) {
    if (f.m != 32 && f.m != 64 && f.m != 128)
      refuse(m_field.name, f.m, "expected M = 32, 64 or 128 (field = M >> 4) for .ws", kTable39);
    if (f.n != 64 && f.n != 128 && (f.n != 256 || f.sparse))
      refuse(n_field.name, f.n,
             f.sparse ? "expected N = 64 or 128 (field = N >> 3) for sparse .ws"
                      : "expected N = 64, 128 or 256 (field = N >> 3) for .ws",
             kTable39);
    return f;
  }
  if (group == CtaGroup::two) {
    check_pair_shape(f, kind, m_field.name, n_field.name);
    return f;
  }
  if (f.m != 64 && f.m != 128)
    refuse(m_field.name, f.m, "expected M = 64 or 128 (field = M >> 4) for cta_group::1", kTable39);
  if (!legal_n(kind, f.n))
    refuse(n_field.name, f.n,
           kind == MmaKind::i8 ? "expected N = 8, 16, 24, 32 or a multiple of 16 up to 256 (field = N >> 3) for "
                                 "kind::i8 cta_group::1"
                               : "expected N a multiple of 8 in [8, 256] (field = N >> 3) for cta_group::1",
           kTable39);
  if (f.b_mn_major && bits(f.b) == 8 && f.n % 16 != 0)
    refuse(n_field.name, f.n, "expected N a multiple of 16 when an 8-bit B is MN-major (cta_group::1)",
           "#tcgen05-kind-shapes-8b-transpose-b");
  return f;
}

}  // namespace tcgen::model
