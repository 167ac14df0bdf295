#include "tcgen/mma/instr_descriptor.hpp"

#include <bit>
#include <vector>

namespace tcgen::mma {

namespace {
using R = InstrDescriptorRule;

const char* table_citation(MmaKind kind) {
  if (kind == MmaKind::mxf8f6f4) return "PTX #tcgen05-instuction-desc-kind-mxf8f6f4 Table 43";
  if (block_scaled(kind)) return "PTX #tcgen05-instuction-desc-kind-mxf4-mxf4nvf4 Table 44";
  return "PTX #tcgen05-instuction-desc-kind-tf32-f16-f8f6f4 Table 42";
}

std::string yes_no(bool b) { return b ? "true" : "false"; }

// The value of one spec field as text, for "field = value is invalid".
std::string value_text(const InstrDescriptorSpec& s, std::string_view field) {
  if (field == "kind") return std::to_string(static_cast<int>(s.kind));
  if (field == "cta_group") return std::to_string(s.cta_group);
  if (field == "ws") return yes_no(s.ws);
  if (field == "a") return name(s.a);
  if (field == "b") return name(s.b);
  if (field == "d") return name(s.d);
  if (field == "m") return std::to_string(s.m);
  if (field == "n") return std::to_string(s.n);
  if (field == "k96") return yes_no(s.k96);
  if (field == "a_major") return layout::name(s.a_major);
  if (field == "b_major") return layout::name(s.b_major);
  if (field == "negate_a") return yes_no(s.negate_a);
  if (field == "negate_b") return yes_no(s.negate_b);
  if (field == "saturate") return yes_no(s.saturate);
  if (field == "sparse_selector") return std::to_string(s.sparse_selector);
  if (field == "ws_b_reuse_shift") return std::to_string(s.ws_b_reuse_shift);
  if (field == "scale_type") return name(s.scale_type);
  if (field == "a_sf_id") return std::to_string(s.a_sf_id);
  if (field == "b_sf_id") return std::to_string(s.b_sf_id);
  return "?";
}

// "8, 16, ..., 256": a run of five or more equal steps keeps its first two and last values.
std::string number_list(const std::vector<int>& v) {
  std::string out;
  const auto add = [&](const std::string& t) { out += (out.empty() ? "" : ", ") + t; };
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i + 1;
    if (j < v.size()) {
      const int step = v[j] - v[i];
      while (j + 1 < v.size() && v[j + 1] - v[j] == step) ++j;
    }
    if (j < v.size() && j - i + 1 >= 5) {
      add(std::to_string(v[i]));
      add(std::to_string(v[i + 1]));
      add("...");
      add(std::to_string(v[j]));
      i = j + 1;
    } else {
      add(std::to_string(v[i]));
      ++i;
    }
  }
  return out;
}

[[noreturn]] void fail_rule(const InstrDescriptorSpec& s, R rule) {
  const std::string field = rule_field(rule);
  std::string expected = rule_sentence(rule);
  if (const std::string legal = legal_values(s, field); !legal.empty()) expected += "; legal here: " + legal;
  expected += " [" + describe(s) + "]";
  fail(field.c_str(), value_text(s, field), expected);
}

// A type field of a descriptor: the type whose code it holds for this kind.
ElementType type_from_code(const BitField& f, std::uint32_t word, MmaKind kind, bool accumulator) {
  const auto code_of = [&](ElementType t) { return accumulator ? accumulator_code(kind, t) : operand_code(kind, t); };
  const int code = static_cast<int>(f.extract(word));
  std::string legal;
  for (ElementType t : all_element_types) {
    if (code_of(t) == code) return t;
    if (code_of(t) >= 0) legal += (legal.empty() ? "" : ", ") + std::to_string(code_of(t)) + " (" + name(t) + ")";
  }
  fail(f.name, std::to_string(code),
       std::string("the ") + (accumulator ? "dtype" : f.name == std::string_view("a") ? "atype" : "btype") +
           " code (bits " + std::to_string(f.lo) + "-" + std::to_string(f.lo + f.width - 1) + ") must be one of " + legal +
           " for kind::" + name(kind) + " (" + table_citation(kind) + ")");
}
}  // namespace

std::string describe(const InstrDescriptorSpec& s) {
  std::string t = std::string("kind::") + name(s.kind) + " cta_group::" + std::to_string(s.cta_group);
  if (s.ws) t += " .ws";
  if (s.sparse) t += " sparse";
  t += " M=" + std::to_string(s.m) + " N=" + std::to_string(s.n) + " K=" + std::to_string(k_per_instruction(s));
  t += std::string(" A=") + name(s.a) + " (" + layout::name(s.a_major) + "-major) B=" + name(s.b) + " (" +
       layout::name(s.b_major) + "-major) D=" + name(s.d);
  if (block_scaled(s.kind)) t += std::string(" scale=") + name(s.scale_type);
  return t;
}

std::string legal_values(const InstrDescriptorSpec& spec, std::string_view field) {
  // Keep a candidate if no rule of this field rejects it (rules of other fields may).
  const auto ok = [&](const InstrDescriptorSpec& t) {
    const R r = check(t);
    return r == R::ok || field != rule_field(r);
  };
  const auto numbers = [&](auto member, std::initializer_list<int> candidates) {
    std::vector<int> v;
    for (int c : candidates) {
      InstrDescriptorSpec t = spec;
      t.*member = c;
      if (ok(t)) v.push_back(c);
    }
    return number_list(v);
  };
  if (field == "m") return numbers(&InstrDescriptorSpec::m, {32, 64, 128, 256});
  if (field == "n") {
    std::vector<int> v;
    for (int n = 8; n <= 256; n += 8) {
      InstrDescriptorSpec t = spec;
      t.n = n;
      if (ok(t)) v.push_back(n);
    }
    return number_list(v);
  }
  if (field == "cta_group") return numbers(&InstrDescriptorSpec::cta_group, {1, 2});
  if (field == "sparse_selector") return numbers(&InstrDescriptorSpec::sparse_selector, {0, 1, 2, 3});
  if (field == "ws_b_reuse_shift") return numbers(&InstrDescriptorSpec::ws_b_reuse_shift, {0, 8, 16, 32});
  if (field == "a_sf_id") return numbers(&InstrDescriptorSpec::a_sf_id, {0, 1, 2, 3});
  if (field == "b_sf_id") return numbers(&InstrDescriptorSpec::b_sf_id, {0, 1, 2, 3});
  if (field == "a" || field == "b" || field == "d") {
    std::string out;
    for (ElementType e : all_element_types) {
      InstrDescriptorSpec t = spec;
      (field == "a" ? t.a : field == "b" ? t.b : t.d) = e;
      if (ok(t)) out += (out.empty() ? "" : ", ") + std::string(name(e));
    }
    return out;
  }
  if (field == "scale_type") {
    std::string out;
    for (ScaleType st : {ScaleType::ue8m0, ScaleType::ue4m3}) {
      InstrDescriptorSpec t = spec;
      t.scale_type = st;
      if (ok(t)) out += (out.empty() ? "" : ", ") + std::string(name(st));
    }
    return out;
  }
  return "";
}

std::uint32_t make_instr_descriptor(const InstrDescriptorSpec& spec) {
  const R rule = check(spec);
  if (rule != R::ok) fail_rule(spec, rule);
  return detail::pack(spec);
}

InstrDescriptorSpec decode(std::uint32_t word, MmaKind kind, int cta_group, bool ws) {
  if (static_cast<int>(kind) > static_cast<int>(MmaKind::mxf4nvf4))
    fail("kind", static_cast<int>(kind), rule_sentence(R::kind));
  if (const std::uint32_t reserved = word & reserved_bits(kind)) {
    const int bit = std::countr_zero(reserved);
    fail(("reserved bit " + std::to_string(bit)).c_str(), "1",
         "bit " + std::to_string(bit) + " is reserved and must be 0 for kind::" + name(kind) + " (" +
             table_citation(kind) + ")");
  }
  InstrDescriptorSpec s;
  s.kind = kind;
  s.cta_group = cta_group;
  s.ws = ws;
  const auto major = [](std::uint64_t bit) { return bit ? layout::Major::MN : layout::Major::K; };
  if (!block_scaled(kind)) {
    s.sparse_selector = static_cast<int>(idesc::sparse_selector.extract(word));
    s.sparse = idesc::sparse.extract(word);
    s.saturate = idesc::saturate.extract(word);
    s.d = type_from_code(idesc::d, word, kind, true);
    s.a = type_from_code(idesc::a, word, kind, false);
    s.b = type_from_code(idesc::b, word, kind, false);
    s.negate_a = idesc::negate_a.extract(word);
    s.negate_b = idesc::negate_b.extract(word);
    s.a_major = major(idesc::a_major.extract(word));
    s.b_major = major(idesc::b_major.extract(word));
    s.n = static_cast<int>(idesc::n.extract(word)) << 3;
    s.m = static_cast<int>(idesc::m.extract(word)) << 4;
    const std::uint64_t shift = idesc::ws_b_reuse_shift.extract(word);
    s.ws_b_reuse_shift = shift ? 4 << shift : 0;  // codes 1, 2, 3 = 8, 16, 32
  } else {
    const bool mxf4 = kind != MmaKind::mxf8f6f4;
    s.d = ElementType::f32;  // no dtype field: block-scaled kinds accumulate in f32 (Table 39)
    s.sparse = idesc_mx::sparse.extract(word);
    s.b_sf_id = static_cast<int>(idesc_mx::b_sf_id.extract(word));
    s.a = type_from_code(idesc_mx::a, word, kind, false);
    s.b = type_from_code(mxf4 ? idesc_mx::b_mxf4 : idesc_mx::b, word, kind, false);
    s.negate_a = idesc_mx::negate_a.extract(word);
    s.negate_b = idesc_mx::negate_b.extract(word);
    s.a_major = major(idesc_mx::a_major.extract(word));
    s.b_major = major(idesc_mx::b_major.extract(word));
    s.n = static_cast<int>(idesc_mx::n.extract(word)) << 3;
    s.scale_type = static_cast<ScaleType>(idesc_mx::scale_type.extract(word));
    s.m = static_cast<int>(idesc_mx::m.extract(word)) << 7;
    s.a_sf_id = static_cast<int>(idesc_mx::a_sf_id.extract(word));
    s.k96 = mxf4 && idesc_mx::k96.extract(word);
  }
  if (const R rule = check(s); rule != R::ok) fail_rule(s, rule);
  return s;
}

MmaKind parse_mma_kind(std::string_view text) {
  if (text.substr(0, 6) == "kind::") text.remove_prefix(6);
  std::string valid;
  for (MmaKind k : all_mma_kinds) {
    if (text == name(k)) return k;
    valid += (valid.empty() ? "one of " : ", ") + std::string(name(k));
  }
  fail("kind", std::string(text), valid);
}

}  // namespace tcgen::mma
