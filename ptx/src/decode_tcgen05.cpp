// tcgen05 (PTX #tcgen05-instructions): allocation, mma, commit, ld/st, cp,
// the waits and fences, each carried to the model through HostArch's
// run-time forms with the PTX line as its code site, so that a warp's lanes
// meet at one instruction.
#include <cstdlib>

#include "decode.hpp"
#include "tcgen/model/cp_shape.hpp"
#include "tcgen/model/ld_st_access.hpp"
#include "tcgen/model/mma_types.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

namespace {

int cta_group(const Opcode& op) { return op.has("cta_group::2") ? 2 : 1; }

void alloc(Thread& t, const Instruction& in) {
  t.arch().alloc(t.shared_address(t.address(in.ops[0]), in), t.get<std::uint32_t>(in.ops[1]), in.aux, t.site(in));
}
void dealloc(Thread& t, const Instruction& in) {
  t.arch().dealloc(t.get<std::uint32_t>(in.ops[0]), t.get<std::uint32_t>(in.ops[1]), in.aux, t.site(in));
}
void relinquish(Thread& t, const Instruction& in) { t.arch().relinquish_alloc_permit(in.aux, t.site(in)); }

// tcgen05.mma.cta_group::N.kind::K [d], a-desc | [a-tmem], b-desc, idesc[, {disable-output-lane}],
// enable-input-d; aux2 = MmaKind. CuTe always passes the lane mask, all zero.
void mma(Thread& t, const Instruction& in) {
  const Operand& mask = in.ops[4];
  if (mask.kind == Operand::Kind::vector)
    for (std::uint32_t i = 0; i < mask.count; ++i)
      if (const std::uint32_t m = t.get<std::uint32_t>(in.elements[mask.first + i]); m != 0)
        fault("tcgen05.mma disable-output-lane", "word " + std::to_string(i) + " = " + std::to_string(m),
              "0 in every word: the host model writes every output lane (disabling lanes is not modelled)");
  const bool ts = in.ops[1].kind == Operand::Kind::address;
  const std::optional<std::uint32_t> a_tmem =
      ts ? std::optional<std::uint32_t>(static_cast<std::uint32_t>(t.address(in.ops[1]))) : std::nullopt;
  t.arch().mma(static_cast<model::MmaKind>(in.aux2), in.aux, static_cast<std::uint32_t>(t.address(in.ops[0])), a_tmem,
               ts ? 0 : t.get<std::uint64_t>(in.ops[1]), t.get<std::uint64_t>(in.ops[2]),
               t.get<std::uint32_t>(in.ops[3]), t.pred(in.ops.back()));
}

// tcgen05.commit.cta_group::N.mbarrier::arrive::one[.shared::cluster][.multicast::cluster].b64 [mbar][, ctaMask]
void commit(Thread& t, const Instruction& in) {
  if (in.ops.size() > 1) {
    const std::uint32_t mask = t.get<std::uint32_t>(in.ops[1]);
    if (mask != 1u)
      fault("tcgen05.commit ctaMask", std::to_string(mask),
            "1 (this CTA): the host model runs clusters of one CTA (PTX #tcgen05-instructions-tcgen05-commit)");
  }
  t.arch().commit(t.shared_address(t.address(in.ops[0]), in), in.aux);
}

model::LdStAccess access_of(const Instruction& in) {
  model::LdStAccess a;
  a.shape = static_cast<model::LdStShape>(in.aux);
  a.num = in.aux2;
  a.pack = in.flags != 0;
  return a;
}

// tcgen05.ld.sync.aligned.shape.num[.pack::16b].b32 {r...}, [taddr][, immHalfSplitoff]
void ld(Thread& t, const Instruction& in) {
  model::LdStAccess a = access_of(in);
  if (in.ops.size() > 2) a.half_split = static_cast<int>(t.get<std::int32_t>(in.ops[2]));
  const Operand& v = in.ops[0];
  std::uint32_t regs[128];
  t.arch().ld(a, static_cast<std::uint32_t>(t.address(in.ops[1])), regs, t.site(in));
  for (std::uint32_t i = 0; i < v.count; ++i) {
    const Operand& r = in.elements[v.first + i];
    t.set<std::uint32_t>(r, regs[i]);
    if (r.kind == Operand::Kind::reg) t.mark_pending(r.slot);
  }
}

// tcgen05.st.sync.aligned.shape.num[.unpack::16b].b32 [taddr][, immHalfSplitoff], {r...}
void st(Thread& t, const Instruction& in) {
  model::LdStAccess a = access_of(in);
  const bool split = in.ops.size() > 2;
  if (split) a.half_split = static_cast<int>(t.get<std::int32_t>(in.ops[1]));
  const Operand& v = in.ops[split ? 2 : 1];
  std::uint32_t regs[128];
  for (std::uint32_t i = 0; i < v.count; ++i) regs[i] = t.get<std::uint32_t>(in.elements[v.first + i]);
  t.arch().st(a, static_cast<std::uint32_t>(t.address(in.ops[0])), regs, t.site(in));
}

void wait_ld(Thread& t, const Instruction& in) {
  t.arch().wait_ld(t.site(in));
  t.clear_pending();
}
void wait_st(Thread& t, const Instruction& in) { t.arch().wait_st(t.site(in)); }
void fence_before(Thread& t, const Instruction&) { t.arch().fence_before_thread_sync(); }
void fence_after(Thread& t, const Instruction&) { t.arch().fence_after_thread_sync(); }

// tcgen05.cp.cta_group::N.shape [taddr], s-desc; aux2 = CpShape
void cp(Thread& t, const Instruction& in) {
  t.arch().cp(static_cast<model::CpShape>(in.aux2), static_cast<std::uint32_t>(t.address(in.ops[0])),
              t.get<std::uint64_t>(in.ops[1]), in.aux);
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

bool decode_tcgen05(const Opcode& op, Instruction& in, std::string& why) {
  if (op.base() != "tcgen05" || op.parts.size() < 2) return false;
  const std::string_view what = op.parts[1];
  in.aux = cta_group(op);
  if (what == "alloc") in.run = &alloc;
  else if (what == "dealloc") in.run = &dealloc;
  else if (what == "relinquish_alloc_permit") in.run = &relinquish;
  else if (what == "wait::ld") in.run = &wait_ld;
  else if (what == "wait::st") in.run = &wait_st;
  else if (what == "fence::before_thread_sync") in.run = &fence_before;
  else if (what == "fence::after_thread_sync") in.run = &fence_after;
  else if (what == "commit") in.run = &commit;
  else if (what == "mma") {
    static constexpr std::pair<std::string_view, model::MmaKind> kinds[] = {
        {"kind::f16", model::MmaKind::f16}, {"kind::tf32", model::MmaKind::tf32},
        {"kind::f8f6f4", model::MmaKind::f8f6f4}, {"kind::i8", model::MmaKind::i8}};
    in.aux2 = -1;
    for (const auto& [text, kind] : kinds)
      if (op.has(text)) in.aux2 = static_cast<std::int32_t>(kind);
    if (in.aux2 < 0 || op.has("ws") || op.has("block_scale") || op.has("sp")) {
      why = ".ws, sparse and block-scaled tcgen05.mma (the model runs kinds f16, tf32, f8f6f4 and i8)";
      return false;
    }
    const bool lane_mask = in.ops.size() == 6 && in.ops[4].kind == Operand::Kind::vector;
    if (!(in.ops.size() == 5 && in.ops[4].kind != Operand::Kind::vector) && !lane_mask) {
      why = "tcgen05.mma with scale-input-d";
      return false;
    }
    in.run = &mma;
  } else if (what == "ld" || what == "st") {
    const auto shape = ld_st_shape(op);
    const std::string_view num = op.starting("x");
    if (!shape || num.size() < 2) {
      why = "a tcgen05." + std::string(what) + " shape and .num";
      return false;
    }
    model::LdStAccess a;
    a.shape = *shape;
    a.num = static_cast<int>(std::strtol(std::string(num.substr(1)).c_str(), nullptr, 10));
    a.pack = op.has("pack::16b") || op.has("unpack::16b");
    const Operand& regs = in.ops[what == "ld" ? 0 : in.ops.size() - 1];
    if (!model::problem(a).empty() || regs.kind != Operand::Kind::vector ||
        static_cast<int>(regs.count) != model::registers(a)) {
      why = "a legal shape and .num with one register per value";
      return false;
    }
    in.aux = static_cast<std::int32_t>(a.shape);
    in.aux2 = a.num;
    in.flags = a.pack;
    in.run = what == "ld" ? &ld : &st;
  } else if (what == "cp") {
    const auto shape = cp_shape(op);
    if (!shape || op.starting("b8x16").size() || op.starting("b6x16").size() || op.starting("b4x16").size()) {
      why = "tcgen05.cp without decompression";
      return false;
    }
    in.aux2 = static_cast<std::int32_t>(*shape);
    in.run = &cp;
  } else {
    why = "tcgen05." + std::string(what);
    return false;
  }
  return true;
}

}  // namespace tcgen::ptx
