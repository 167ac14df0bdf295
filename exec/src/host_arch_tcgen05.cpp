// HostArch's Tensor Memory half: tcgen05.alloc/dealloc, mma, commit, cp, ld/st, their waits and
// fences, each handed to the host model (model::Cta) of its CTA (host_arch.hpp).
#include "tcgen/exec/host_arch.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "tcgen/core/hex.hpp"
#include "tcgen/exec/cluster_runtime.hpp"

namespace tcgen::exec {

model::LdStAccess model_access(const layout::TmemAccess& a) {
  model::LdStAccess m;
  switch (a.shape) {
    case layout::TmemShape::s32x32b: m.shape = model::LdStShape::s32x32b; break;
    case layout::TmemShape::s16x64b: m.shape = model::LdStShape::s16x64b; break;
    case layout::TmemShape::s16x128b: m.shape = model::LdStShape::s16x128b; break;
    case layout::TmemShape::s16x256b: m.shape = model::LdStShape::s16x256b; break;
    case layout::TmemShape::s16x32bx2: m.shape = model::LdStShape::s16x32bx2; break;
  }
  m.num = static_cast<int>(a.num);
  m.pack = a.pack;
  // The immediate tmem::Atom passes: the explicit offset, or the first half's width.
  if (a.shape == layout::TmemShape::s16x32bx2) m.half_split = static_cast<int>(a.split());
  return m;
}

model::MmaKind model_kind(mma::MmaKind kind) {
  switch (kind) {
    case mma::MmaKind::f16: return model::MmaKind::f16;
    case mma::MmaKind::tf32: return model::MmaKind::tf32;
    case mma::MmaKind::f8f6f4: return model::MmaKind::f8f6f4;
    case mma::MmaKind::i8: return model::MmaKind::i8;
    case mma::MmaKind::mxf8f6f4: return model::MmaKind::mxf8f6f4;
    case mma::MmaKind::mxf4: return model::MmaKind::mxf4;
    case mma::MmaKind::mxf4nvf4: return model::MmaKind::mxf4nvf4;
  }
  fail("kind", std::to_string(static_cast<int>(kind)), "one of the seven tcgen05.mma kinds");
}

model::CtaGroup model_group(int cta_group) { return cta_group == 2 ? model::CtaGroup::two : model::CtaGroup::one; }

// ---- Tensor Memory allocation, tcgen05.mma and commit, tcgen05.ld/st

void HostArch::alloc(std::uint32_t slot, std::uint32_t ncols, int cta_group, CodeSite site) {
  if (!rt_.enter()) return;
  slot = own(slot, "tcgen05.alloc");
  check_smem(slot, 4, "tcgen05.alloc");
  aligned("tcgen05.alloc.cta_group::" + std::to_string(cta_group) + ".sync.aligned.shared::cta.b32", site,
          [&] { rt_.cta().alloc(warp(), slot, ncols, model_group(cta_group)); });
}

void HostArch::relinquish_alloc_permit(int cta_group, CodeSite site) {
  if (!rt_.enter()) return;
  aligned("tcgen05.relinquish_alloc_permit.cta_group::" + std::to_string(cta_group) + ".sync.aligned", site,
          [&] { rt_.cta().relinquish_alloc_permit(warp(), model_group(cta_group)); });
}

void HostArch::dealloc(std::uint32_t taddr, std::uint32_t ncols, int cta_group, CodeSite site) {
  if (!rt_.enter()) return;
  aligned("tcgen05.dealloc.cta_group::" + std::to_string(cta_group) + ".sync.aligned.b32", site,
          [&] { rt_.cta().dealloc(warp(), taddr, ncols, model_group(cta_group)); });
}

void HostArch::mma(model::MmaKind kind, int cta_group, std::uint32_t d_tmem, std::optional<std::uint32_t> a_tmem,
                   std::uint64_t a_desc, std::uint64_t b_desc, std::uint32_t idesc, bool accumulate,
                   const model::MmaVariant& variant) {
  if (!rt_.enter()) return;
  const model::CtaGroup group = model_group(cta_group);
  if (a_tmem)
    rt_.cta().mma_ts(me(), kind, d_tmem, *a_tmem, b_desc, idesc, accumulate, group, variant);
  else
    rt_.cta().mma_ss(me(), kind, d_tmem, a_desc, b_desc, idesc, accumulate, group, variant);
}

void HostArch::commit(std::uint32_t mbar, int cta_group) {
  if (!rt_.enter()) return;
  CtaRuntime* other = peer(mbar, "tcgen05.commit.shared::cluster");  // its mbarrier may be a peer's
  check_smem(mbar, 8, "tcgen05.commit");
  CtaRuntime& target = other ? *other : rt_;
  rt_.cta().commit(me(), mbar, model_group(cta_group), &target.cta());
  target.mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::arrival,
                          "tcgen05.commit.cta_group::" + std::to_string(cta_group) + ".mbarrier::arrive::one" +
                              (other ? " from rank " + std::to_string(rt_.rank()) : ""));
}

void HostArch::commit_multicast(std::uint32_t mbar, int cta_group, std::uint16_t cta_mask) {
  if (!rt_.enter()) return;
  const int size = rt_.cluster().size();
  const std::string instruction = "tcgen05.commit.cta_group::" + std::to_string(cta_group) +
                                  ".mbarrier::arrive::one.shared::cluster.multicast::cluster";
  if (cta_mask == 0 || cta_mask >> size != 0)
    fail("ctaMask", hex(cta_mask) + " (" + instruction + " by " + thread_text(thread_) + ")",
         "bits for 1 to the cluster's " + std::to_string(size) + " ranks (PTX #tcgen05-instructions-tcgen05-commit)");
  mbar = own(mbar, instruction.c_str());
  check_smem(mbar, 8, instruction.c_str());
  for (int rank = 0; rank < size; ++rank) {
    if (!(cta_mask >> rank & 1u)) continue;
    CtaRuntime& cta = rt_.cluster().cta(rank);
    rt_.cta().commit(me(), mbar, model_group(cta_group), &cta.cta());
    cta.mbarrier_changed(mbar, thread_, CtaRuntime::MbarrierEvent::arrival,
                         instruction + (&cta == &rt_ ? "" : " from rank " + std::to_string(rt_.rank())));
  }
}

// tmem's names for the shapes and the model's are kept apart (the model
// depends on no tcgen library that it checks); this is where they meet.
void HostArch::cp(tmem::CopyShape shape, tmem::TmemAddress taddr, std::uint64_t s_desc, int cta_group) {
  using S = tmem::CopyShape;
  using M = model::CpShape;
  const M m = [&] {
    switch (shape) {
      case S::s128x256b: return M::s128x256b;
      case S::s128x128b: return M::s128x128b;
      case S::s4x256b: return M::s4x256b;
      case S::s64x128b_02_13: return M::s64x128b_warpx2_02_13;
      case S::s64x128b_01_23: return M::s64x128b_warpx2_01_23;
      case S::s32x128b_warpx4: return M::s32x128b_warpx4;
    }
    fail("tcgen05.cp shape", static_cast<std::int64_t>(shape), "expected a tmem::CopyShape");
  }();
  cp(m, taddr.raw(), s_desc, cta_group);
}

void HostArch::cp(model::CpShape shape, std::uint32_t taddr, std::uint64_t s_desc, int cta_group) {
  if (!rt_.enter()) return;
  rt_.cta().cp(me(), shape, taddr, s_desc, model_group(cta_group));
}

void HostArch::ld(const model::LdStAccess& access, std::uint32_t taddr, std::uint32_t* regs, CodeSite site) {
  ld(access, taddr, regs, site, nullptr);
}

void HostArch::ld(const model::LdStAccess& access, std::uint32_t taddr, std::uint32_t* regs, CodeSite site,
                  std::vector<model::Cta::UndefinedRead>* undefined) {
  if (!rt_.enter()) return;
  struct Frame {
    std::uint32_t taddr;
    std::uint32_t* regs;
    std::vector<model::Cta::UndefinedRead>* undefined;
  } frame{taddr, regs, undefined};
  rt_.collective(thread_, {model::instruction_name(true, access), true, site}, kFullMask, frame,
                 [&](const std::array<Frame*, 32>& f) {
                   // Lanes that run it apart (WarpCollectives::Apart) have no frame: they read at the
                   // address of a lane that came, and what they read goes nowhere.
                   const Frame* any = *std::find_if(f.begin(), f.end(), [](const Frame* p) { return p != nullptr; });
                   std::array<std::uint32_t, 32> taddrs;
                   for (int lane = 0; lane < 32; ++lane) taddrs[lane] = (f[lane] ? f[lane] : any)->taddr;
                   std::vector<model::Cta::UndefinedRead> reads;
                   const model::WarpRegisters out =
                       rt_.cta().ld(warp(), access, taddrs, any->undefined ? &reads : nullptr);
                   for (int lane = 0; lane < 32; ++lane)
                     if (f[lane]) std::memcpy(f[lane]->regs, out[lane].data(), sizeof(std::uint32_t) * out[lane].size());
                   for (const model::Cta::UndefinedRead& r : reads)
                     if (f[r.thread] && f[r.thread]->undefined) f[r.thread]->undefined->push_back(r);
                 });
}

void HostArch::st(const model::LdStAccess& access, std::uint32_t taddr, const std::uint32_t* regs, CodeSite site,
                  const std::uint64_t* sources) {
  if (!rt_.enter()) return;
  struct Frame {
    std::uint32_t taddr;
    const std::uint32_t* regs;
    const std::uint64_t* sources;
  } frame{taddr, regs, sources};
  const int count = model::registers(access);
  rt_.collective(thread_, {model::instruction_name(false, access), true, site}, kFullMask, frame,
                 [&](const std::array<Frame*, 32>& f) {
                   std::array<std::uint32_t, 32> taddrs;
                   model::WarpRegisters in;
                   model::WarpSources from;
                   bool any = false;
                   for (int lane = 0; lane < 32; ++lane) {
                     taddrs[lane] = f[lane]->taddr;
                     in[lane].assign(f[lane]->regs, f[lane]->regs + count);
                     if (f[lane]->sources) from[lane].assign(f[lane]->sources, f[lane]->sources + count), any = true;
                   }
                   rt_.cta().st(warp(), access, taddrs, in, any ? &from : nullptr);
                 });
}

// ---- tcgen05 waits and fences

void HostArch::wait_ld(CodeSite site) {
  if (!rt_.enter()) return;
  aligned("tcgen05.wait::ld.sync.aligned", site, [&] { rt_.cta().wait_ld(warp()); });
}

void HostArch::wait_st(CodeSite site) {
  if (!rt_.enter()) return;
  aligned("tcgen05.wait::st.sync.aligned", site, [&] { rt_.cta().wait_st(warp()); });
}

void HostArch::fence_before_thread_sync() {
  if (!rt_.enter()) return;
  rt_.cta().fence_before_thread_sync(warp());
}

void HostArch::fence_after_thread_sync() {
  if (!rt_.enter()) return;
  rt_.cta().fence_after_thread_sync(warp());
}

}  // namespace tcgen::exec
