// tcgen05 (PTX #tcgen05-instructions): allocation, mma, commit, ld/st, cp,
// the waits and fences, each carried to the model through HostArch's
// run-time forms with the PTX line as its code site, so that a warp's lanes
// meet at one instruction.
#include <algorithm>
#include <cstdlib>
#include <vector>
#include <optional>

#include "decode.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/model/cp_shape.hpp"
#include "tcgen/model/ld_st_access.hpp"
#include "tcgen/model/mma_types.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

int cta_group(const Opcode& op) { return op.has("cta_group::2") ? 2 : 1; }

// The modifier of the tcgen05 instructions that have no other: .cta_group::N.
struct CtaGroupModifiers {
  int cta_group;
};

int cta_group_of(const Instruction& in) { return in.modifiers.get<CtaGroupModifiers>().cta_group; }

void alloc(Thread& t, const Instruction& in) {
  t.arch().alloc(t.shared_address(t.address(in.ops[0]), in), t.get<std::uint32_t>(in.ops[1]), cta_group_of(in), t.site(in));
}
void dealloc(Thread& t, const Instruction& in) {
  t.arch().dealloc(t.get<std::uint32_t>(in.ops[0]), t.get<std::uint32_t>(in.ops[1]), cta_group_of(in), t.site(in));
}
void relinquish(Thread& t, const Instruction& in) { t.arch().relinquish_alloc_permit(cta_group_of(in), t.site(in)); }

// The forms of tcgen05.mma (PTX #tcgen05-mma-instructions-mma):
//   tcgen05.mma.cta_group::N.kind::K [d], a-desc | [a-tmem], b-desc, idesc[, {disable-output-lane}],
//       enable-input-d[, scale-input-d]
//   tcgen05.mma.cta_group::N.kind::K.block_scale.scale_vec::VX [d], a, b-desc, idesc, [scale-A], [scale-B],
//       enable-input-d
//   tcgen05.mma.ws.cta_group::1.kind::K [d], a, b-desc, idesc, enable-input-d[, zero-column-mask-desc]
// and each with .sp after .mma (.ws.sp for .ws), whose [sp-meta-tmem] comes
// before idesc (#tcgen05-mma-instructions-mma-sp, -mma-ws-sp).
// CuTe always passes the lane mask, all zero.
struct MmaModifiers {
  int cta_group;
  int scale_vec;  // .scale_vec::NX of a block-scaled kind; 0 for the others
  model::MmaKind kind;
  bool ws;
  bool sparse;         // tcgen05.mma.sp: [sp-meta-tmem] is operand 3, idesc operand 4
  bool scale_input_d;  // the scale-input-d operand is given
};

void mma(Thread& t, const Instruction& in) {
  const MmaModifiers m = in.modifiers.get<MmaModifiers>();
  const bool ws = m.ws, scale_input_d = m.scale_input_d;
  model::MmaVariant variant{.ws = ws, .scale_vec = m.scale_vec};
  const std::size_t idesc = m.sparse ? 4 : 3;
  if (m.sparse) variant.sp_meta_tmem = static_cast<std::uint32_t>(t.address(in.ops[3]));
  std::size_t next = idesc + 1;  // the operand after idesc
  if (variant.scale_vec) {
    variant.scale_a_tmem = static_cast<std::uint32_t>(t.address(in.ops[next]));
    variant.scale_b_tmem = static_cast<std::uint32_t>(t.address(in.ops[next + 1]));
    next += 2;
  } else if (const Operand& mask = in.ops[next]; mask.kind == Operand::Kind::vector) {
    for (std::uint32_t i = 0; i < mask.count; ++i)
      if (const std::uint32_t m = t.get<std::uint32_t>(in.elements[mask.first + i]); m != 0)
        fault("tcgen05.mma disable-output-lane", "word " + std::to_string(i) + " = " + std::to_string(m),
              "0 in every word: the host model writes every output lane (disabling lanes is not modelled)");
    ++next;
  }
  const bool enable_input_d = t.pred(in.ops[next]);
  if (scale_input_d) variant.scale_input_d = static_cast<int>(t.get<std::int32_t>(in.ops[next + 1]));
  // Bit 39 of the zero-column mask descriptor says whether it holds a mask:
  // 0 generates an all-zero mask, every column of B taking part (PTX #tcgen05-zero-column-mask-descriptor).
  if (ws && in.ops.size() > next + 1)
    if (const std::uint64_t desc = t.get<std::uint64_t>(in.ops[next + 1]); desc >> 39 & 1)
      fault("tcgen05.mma.ws zero-column-mask-desc", hex(desc),
            "bit 39 clear (no mask): the host model multiplies every column of B (zero-column masks are not "
            "modelled)");
  const bool ts = in.ops[1].kind == Operand::Kind::address;
  const std::optional<std::uint32_t> a_tmem =
      ts ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(t.address(in.ops[1]))) : std::nullopt;
  t.arch().mma(m.kind, m.cta_group, static_cast<std::uint32_t>(t.address(in.ops[0])), a_tmem,
               ts ? 0 : t.get<std::uint64_t>(in.ops[1]), t.get<std::uint64_t>(in.ops[2]),
               t.get<std::uint32_t>(in.ops[idesc]), enable_input_d, variant);
}

// Decodes a tcgen05.mma's qualifiers and operand list into `in`; false with `why` for a form not run.
bool decode_mma(const Opcode& op, Instruction& in, std::string& why) {
  static constexpr std::pair<std::string_view, model::MmaKind> kinds[] = {
      {"kind::f16", model::MmaKind::f16},           {"kind::tf32", model::MmaKind::tf32},
      {"kind::f8f6f4", model::MmaKind::f8f6f4},     {"kind::i8", model::MmaKind::i8},
      {"kind::mxf8f6f4", model::MmaKind::mxf8f6f4}, {"kind::mxf4", model::MmaKind::mxf4},
      {"kind::mxf4nvf4", model::MmaKind::mxf4nvf4}};
  std::optional<model::MmaKind> found;
  for (const auto& [text, kind] : kinds)
    if (op.has(text)) found = kind;
  if (!found) {  // not a missing feature: PTX has no other kind, and ptxas refuses the instruction
    const std::string_view given = op.starting("kind::");
    why = "invalid PTX (ptxas refuses it): ";
    // append(), not "." + string: GCC 12 warns falsely (-Wrestrict) on that operator+.
    why.append(given.empty() ? "no .kind" : ".").append(given);
    why += " is none of PTX's .kind::f16, ::tf32, ::f8f6f4, ::i8, ::mxf8f6f4, ::mxf4, ::mxf4nvf4 "
           "(PTX #tcgen05-mma-instructions-mma)";
    return false;
  }
  if (op.has("ashift")) {
    why = "tcgen05.mma.ashift";
    return false;
  }
  for (const std::string_view part : op.parts)
    if (part.starts_with("collector::") && !part.ends_with("::discard")) {
      why = "tcgen05.mma with a collector buffer's fill, use or lastuse";
      return false;
    }
  const model::MmaKind kind = *found;
  const bool ws = op.has("ws");
  int scale_vec = 0;
  if (model::block_scaled(kind)) {
    // .block32 is 1X for mxf8f6f4 (K = 32) and 2X for the 4-bit kinds (K = 64); .block16 is 4X.
    if (op.has("scale_vec::1X")) scale_vec = 1;
    else if (op.has("scale_vec::2X")) scale_vec = 2;
    else if (op.has("scale_vec::4X") || op.has("block16")) scale_vec = 4;
    else if (op.has("block32") || kind != model::MmaKind::mxf4nvf4) scale_vec = kind == model::MmaKind::mxf8f6f4 ? 1 : 2;
    if (!scale_vec || !op.has("block_scale")) {
      why = "a block-scaled tcgen05.mma with .block_scale and (for kind::mxf4nvf4) a scale vector size";
      return false;
    }
  }
  // The sparse forms name [sp-meta-tmem] before idesc; the rest of the list is the dense form's, one further on.
  const bool sparse = op.has("sp");
  if (sparse && (in.ops.size() < 4 || in.ops[3].kind != Operand::Kind::address)) {
    why = "tcgen05.mma.sp operands [d], a, b, [sp-meta-tmem], idesc, ...";
    return false;
  }
  const std::size_t n = in.ops.size() - (sparse ? 1 : 0), after = sparse ? 5 : 4;  // after: the operand after idesc
  const std::string sp = sparse ? "[sp-meta-tmem], " : "";
  const bool mask = in.ops.size() > after && in.ops[after].kind == Operand::Kind::vector;
  bool scale_input_d = false;
  if (scale_vec) {
    if (n != 7 || in.ops[after].kind != Operand::Kind::address || in.ops[after + 1].kind != Operand::Kind::address) {
      why = "block-scaled tcgen05.mma operands [d], a, b, " + sp + "idesc, [scale-A], [scale-B], enable-input-d";
      return false;
    }
  } else if (ws) {
    if (n != 5 && n != 6) {
      why = "tcgen05.mma.ws operands [d], a, b, " + sp + "idesc, enable-input-d[, zero-column-mask-desc]";
      return false;
    }
  } else {
    if (n != (mask ? 6u : 5u) && n != (mask ? 7u : 6u)) {
      why = "tcgen05.mma operands [d], a, b, " + sp +
            "idesc[, {disable-output-lane}], enable-input-d[, scale-input-d]";
      return false;
    }
    scale_input_d = n == (mask ? 7u : 6u);
  }
  in.modifiers.set(MmaModifiers{.cta_group = cta_group(op),
                                .scale_vec = scale_vec,
                                .kind = kind,
                                .ws = ws,
                                .sparse = sparse,
                                .scale_input_d = scale_input_d});
  in.run = &mma;
  return true;
}

// tcgen05.commit.cta_group::N.mbarrier::arrive::one[.shared::cluster][.multicast::cluster].b64 [mbar][, ctaMask]
void commit(Thread& t, const Instruction& in) {
  const std::uint32_t mbar = t.shared_address(t.address(in.ops[0]), in);
  if (in.ops.size() > 1)
    t.arch().commit_multicast(mbar, cta_group_of(in), t.get<std::uint16_t>(in.ops[1]));
  else
    t.arch().commit(mbar, cta_group_of(in));
}

// tcgen05.ld/.st's access but its half-split offset, an operand.
struct LdStModifiers {
  model::LdStShape shape;
  int num;
  bool pack;
};

model::LdStAccess access_of(const Instruction& in) {
  const LdStModifiers m = in.modifiers.get<LdStModifiers>();
  model::LdStAccess a;
  a.shape = m.shape;
  a.num = m.num;
  a.pack = m.pack;
  return a;
}

// tcgen05.ld.sync.aligned.shape.num[.pack::16b].b32 {r...}, [taddr][, immHalfSplitoff]
void ld(Thread& t, const Instruction& in) {
  model::LdStAccess a = access_of(in);
  if (in.ops.size() > 2) a.half_split = static_cast<int>(t.get<std::int32_t>(in.ops[2]));
  const Operand& v = in.ops[0];
  std::uint32_t regs[128];
  const auto taddr = static_cast<std::uint32_t>(t.address(in.ops[1]));
  // Cells that hold no defined value: under strict, a fault here (uninitialized_tmem); else the
  // registers that receive them are undefined, their use judged (docs/model.md, Definedness).
  std::uint32_t origins[128];
  bool any = false;
  if (t.grid().config.strict) {
    t.arch().ld(a, taddr, regs, t.site(in));
  } else {
    std::vector<model::Cta::UndefinedRead> undefined;
    t.arch().ld(a, taddr, regs, t.site(in), &undefined);
    if (!undefined.empty()) {
      any = true;
      std::fill(origins, origins + v.count, 0u);
      for (const model::Cta::UndefinedRead& u : undefined)
        if (u.reg < v.count && !origins[u.reg]) origins[u.reg] = t.tmem_origin(u, in);
    }
  }
  t.load_pending(in.elements.data() + v.first, v.count, regs, any ? origins : nullptr);
}

// tcgen05.st.sync.aligned.shape.num[.unpack::16b].b32 [taddr][, immHalfSplitoff], {r...}
void st(Thread& t, const Instruction& in) {
  model::LdStAccess a = access_of(in);
  const bool split = in.ops.size() > 2;
  if (split) a.half_split = static_cast<int>(t.get<std::int32_t>(in.ops[1]));
  const Operand& v = in.ops[split ? 2 : 1];
  std::uint32_t regs[128];
  for (std::uint32_t i = 0; i < v.count; ++i) regs[i] = t.get<std::uint32_t>(in.elements[v.first + i]);
  std::uint64_t sources[128];  // provenance: registers a recent global load filled carry its address
  const bool known = t.word_origins(regs, v.count, sources);
  t.arch().st(a, static_cast<std::uint32_t>(t.address(in.ops[0])), regs, t.site(in), known ? sources : nullptr);
}

void wait_ld(Thread& t, const Instruction& in) {
  t.arch().wait_ld(t.site(in));
  t.clear_pending();
}
void wait_st(Thread& t, const Instruction& in) { t.arch().wait_st(t.site(in)); }
void fence_before(Thread& t, const Instruction&) { t.arch().fence_before_thread_sync(); }
void fence_after(Thread& t, const Instruction&) { t.arch().fence_after_thread_sync(); }

// tcgen05.cp.cta_group::N.shape [taddr], s-desc
struct CpModifiers {
  model::CpShape shape;
  int cta_group;
};

void cp(Thread& t, const Instruction& in) {
  const CpModifiers m = in.modifiers.get<CpModifiers>();
  t.arch().cp(m.shape, static_cast<std::uint32_t>(t.address(in.ops[0])), t.get<std::uint64_t>(in.ops[1]), m.cta_group);
}

std::optional<model::LdStShape> ld_st_shape(const Opcode& op) {
  static constexpr std::pair<std::string_view, model::LdStShape> shapes[] = {
      {"32x32b", model::LdStShape::s32x32b}, {"16x64b", model::LdStShape::s16x64b},
      {"16x128b", model::LdStShape::s16x128b}, {"16x256b", model::LdStShape::s16x256b},
      {"16x32bx2", model::LdStShape::s16x32bx2}};
  for (const auto& [text, shape] : shapes)
    if (op.has(text)) return shape;
  return std::nullopt;
}

std::optional<model::CpShape> cp_shape(const Opcode& op) {
  static constexpr std::pair<std::string_view, model::CpShape> shapes[] = {
      {"128x256b", model::CpShape::s128x256b}, {"4x256b", model::CpShape::s4x256b},
      {"128x128b", model::CpShape::s128x128b}, {"warpx2::02_13", model::CpShape::s64x128b_warpx2_02_13},
      {"warpx2::01_23", model::CpShape::s64x128b_warpx2_01_23}, {"warpx4", model::CpShape::s32x128b_warpx4}};
  for (const auto& [text, shape] : shapes)
    if (op.has(text)) return shape;
  return std::nullopt;
}

}  // namespace

namespace {

// The tcgen05 instructions whose only modifier is .cta_group::N.
bool with_cta_group(const Opcode& op, Instruction& in, Handler run) {
  in.modifiers.set(CtaGroupModifiers{.cta_group = cta_group(op)});
  in.run = run;
  return true;
}

// tcgen05.ld/.st.sync.aligned.shape.num[.pack::16b|.unpack::16b]
bool decode_ld_st(const Opcode& op, Instruction& in, std::string& why, bool load) {
  const auto shape = ld_st_shape(op);
  const std::string_view num = op.starting("x");
  if (!shape || num.size() < 2) {
    why = "a tcgen05." + std::string(op.parts[1]) + " shape and .num";
    return false;
  }
  model::LdStAccess a;
  a.shape = *shape;
  a.num = static_cast<int>(std::strtol(std::string(num.substr(1)).c_str(), nullptr, 10));
  a.pack = op.has("pack::16b") || op.has("unpack::16b");
  const Operand& regs = in.ops[load ? 0 : in.ops.size() - 1];
  if (!model::problem(a).empty() || regs.kind != Operand::Kind::vector ||
      static_cast<int>(regs.count) != model::registers(a)) {
    why = "a legal shape and .num with one register per value";
    return false;
  }
  in.modifiers.set(LdStModifiers{.shape = a.shape, .num = a.num, .pack = a.pack});
  in.run = load ? &ld : &st;
  return true;
}

}  // namespace

bool decode_tcgen05_alloc(const Opcode& op, Instruction& in, std::string&) { return with_cta_group(op, in, &alloc); }
bool decode_tcgen05_dealloc(const Opcode& op, Instruction& in, std::string&) { return with_cta_group(op, in, &dealloc); }
bool decode_tcgen05_relinquish_alloc_permit(const Opcode& op, Instruction& in, std::string&) {
  return with_cta_group(op, in, &relinquish);
}
bool decode_tcgen05_commit(const Opcode& op, Instruction& in, std::string&) { return with_cta_group(op, in, &commit); }
bool decode_tcgen05_wait_ld(const Opcode& op, Instruction& in, std::string&) { return with_cta_group(op, in, &wait_ld); }
bool decode_tcgen05_wait_st(const Opcode& op, Instruction& in, std::string&) { return with_cta_group(op, in, &wait_st); }
bool decode_tcgen05_fence_before_thread_sync(const Opcode& op, Instruction& in, std::string&) {
  return with_cta_group(op, in, &fence_before);
}
bool decode_tcgen05_fence_after_thread_sync(const Opcode& op, Instruction& in, std::string&) {
  return with_cta_group(op, in, &fence_after);
}

bool decode_tcgen05_mma(const Opcode& op, Instruction& in, std::string& why) { return decode_mma(op, in, why); }

bool decode_tcgen05_ld(const Opcode& op, Instruction& in, std::string& why) { return decode_ld_st(op, in, why, true); }
bool decode_tcgen05_st(const Opcode& op, Instruction& in, std::string& why) { return decode_ld_st(op, in, why, false); }

// tcgen05.cp.cta_group::N.shape [taddr], s-desc
bool decode_tcgen05_cp(const Opcode& op, Instruction& in, std::string& why) {
  const auto shape = cp_shape(op);
  if (!shape || op.starting("b8x16").size() || op.starting("b6x16").size() || op.starting("b4x16").size()) {
    why = "tcgen05.cp without decompression";
    return false;
  }
  in.modifiers.set(CpModifiers{.shape = *shape, .cta_group = cta_group(op)});
  in.run = &cp;
  return true;
}

}  // namespace tcgen::ptx
