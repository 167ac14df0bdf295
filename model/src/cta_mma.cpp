// tcgen05.mma, SS and TS forms, cta_group::1 and 2, dense and sparse
// (tcgen05.mma.sp), with and without .ws and block scaling (PTX
// #tcgen05-mma-instructions-mma, -mma-sp). Operands come from the arithmetic
// half (descriptor and idesc decoding, operand fetch, exact products); this
// file places them: A from Tensor Memory for TS, decompressed by its
// metadata when sparse (cta_mma_sparse.cpp), the scale factors
// (cta_mma_scale.cpp), D by Layout A, B, D, E, F or G, and the rules.
#include <algorithm>
#include <array>
#include <bitset>
#include <cmath>
#include <string>
#include <utility>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/cta.hpp"
#include "tcgen/model/datapath.hpp"
#include "tcgen/model/idesc_decode.hpp"
#include "tcgen/model/smem_descriptor_decode.hpp"
#include "tcgen/core/hex.hpp"
#include "mma_kernel.hpp"
#include "operand_fetch_into.hpp"

namespace tcgen::model {

struct Cta::MmaShare {
  const Issue& issue;
  Thread t;    // the issuing thread: of this CTA, or of acting_'s
  int issuer;  // its key here (Issuers::thread, or Issuers::pair for the peer's)
  MmaShape now;
  const InstrDescriptorFields& f;
  const MmaVariant& variant;
  bool enable_input_d;
  int M, N, K;     // D's rows held here, its columns, K
  int S;           // segments each row of D is folded into: 1, or 2 and 4 for Layouts B, E and G
  int lane0;       // d-tmem's lane
  bool segmented;  // row v = s·M + m lies in lane v (Layouts B, E, G); else datapath_lane(M, v, lane0)
  std::array<const float*, 2> a;  // A, M × K, for the first segment and for the others
  const float* bt;                // B transposed, K × N
  std::optional<std::uint32_t> a_tmem;
  int a_rows;  // rows v of A read from Tensor Memory, at lane(v)
  // Rows v of D computed from cells never written (TS A rows, or the accumulator with
  // enable-input-d): set, and left undefined in Tensor Memory, for a tcgen05.ld of them to refuse.
  // Null where the model refuses such reads at the MMA (.ws and CTA pairs, whose rows mix A copies).
  std::uint8_t* undefined_rows = nullptr;

  int lane(int v) const { return segmented ? v : datapath_lane(M, v, lane0); }
};

void Cta::mma_ss(Thread t, MmaKind kind, std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc,
                 std::uint32_t idesc, bool enable_input_d, CtaGroup group, const MmaVariant& variant) {
  mma(t, kind, d_tmem, std::nullopt, a_desc, b_desc, idesc, enable_input_d, group, variant);
}

void Cta::mma_ts(Thread t, MmaKind kind, std::uint32_t d_tmem, std::uint32_t a_tmem, std::uint64_t b_desc,
                 std::uint32_t idesc, bool enable_input_d, CtaGroup group, const MmaVariant& variant) {
  mma(t, kind, d_tmem, a_tmem, 0, b_desc, idesc, enable_input_d, group, variant);
}

void Cta::fetch_smem(const Issue& issue, const char* which, std::uint64_t desc, int rows, int k, ElementType type,
                     bool mn_major, Fp4Storage fp4, float* out, std::ptrdiff_t row_stride, std::ptrdiff_t k_stride) {
  const std::string w = which;
  try {
    decode_smem_descriptor(desc);
  } catch (const Error& e) {
    raise(ModelError(issue, Rule::descriptor_invalid, w + "." + e.field(), e.value(),
                     "decoding " + w + " " + hex(desc) + " failed: " + e.what() + "."));
  }
  // The chunks are listed only when some st.shared is not yet fenced: else
  // none can break the proxy-fence rule.
  const bool list_chunks = any_unfenced_st();
  mma_chunks_.clear();
  try {
    detail::fetch_operand_into(smem_.image(), smem_.base(), desc, rows, k, type, mn_major, fp4, out, row_stride,
                               k_stride, list_chunks || config_.provenance ? &mma_chunks_ : nullptr);
  } catch (const Error& e) {
    if (e.field() != "address")
      raise(ModelError(issue, Rule::descriptor_invalid, w + "." + e.field(), e.value(),
                       "reading the operand of " + w + " " + hex(desc) + " failed: " + e.what() + "."));
    raise(ModelError(issue, Rule::smem_outside_image, "address", e.value(),
                     "the operand of " + w + " " + hex(desc) + " reaches outside the shared memory image [" +
                         hex(smem_.base()) + ", " + hex(smem_.base() + smem_.size()) + ")."));
  }
  if (list_chunks) check_proxy(issue, mma_chunks_);
  operand_origins_.clear();
  if (!config_.provenance) return;
  if (!smem_.any_origin()) {  // every chunk of unknown source: none is judged (check_tile)
    operand_origins_.resize(mma_chunks_.size(), 0);
    return;
  }
  for (std::uint32_t c : mma_chunks_) operand_origins_.push_back(smem_.origin(c));
  check_tile(issue, which, desc, rows, k, type, mn_major, fp4, operand_origins_);
}

void Cta::read_a_tmem(const Issue& issue, int warp, int issuer, std::uint32_t a_tmem, const MmaShape& now, int rows,
                      int first_lane, bool layout_f, int k, ElementType type, float* out, std::uint8_t* undefined_rows) {
  const std::uint32_t d_tmem = now.d_tmem;
  const int element_bits = bits(type);
  if (element_bits != 8 && element_bits != 16 && element_bits != 32)
    raise(ModelError(issue, Rule::unsupported, "A type", name(type),
                     "how 6- and 4-bit A elements sit in Tensor Memory is drawn only in figures "
                     "(tcgen05-facts-2.md §1.1)."));
  const int lane0 = static_cast<int>(a_tmem >> 16), col0 = static_cast<int>(a_tmem & 0xFFFF);
  if (lane0 != static_cast<int>(d_tmem >> 16))
    raise(ModelError(issue, Rule::mma_lane_offset, "a-tmem lane", std::to_string(lane0),
                     "d-tmem uses lane " + std::to_string(d_tmem >> 16) + "."));
  const int columns = k * element_bits / 32;  // 256 bits of each row: 8 columns
  for (int c = 0; c < columns; ++c) check_column(issue, col0 + c, col0, col0 + columns - 1);
  const std::uint32_t mask = element_bits == 32 ? 0xFFFFFFFFu : (1u << element_bits) - 1;
  // The cells' sources, where tcgen05.cp or tcgen05.st brought any (the first copy's: the others repeat its rows).
  const bool sources = config_.provenance && !tmem_sources_.empty() && first_lane == 0;
  if (sources) operand_stored_.clear();
  for (int m = 0; m < rows; ++m) {
    // M = 64 of cta_group::1 without .ws is Layout F; the rest are rows of lanes.
    const int lane = layout_f ? datapath_lane(64, m, lane0) : lane0 + first_lane + m;
    for (int kk = 0; kk < k; ++kk) {
      const PackedPosition p = a_tmem_position(element_bits, kk);
      check_order(issue, Touch::mma_read, warp, issuer, lane, col0 + p.column, &now);
      if (undefined_rows && (tmem_.writer(lane, col0 + p.column) == 0 || tmem_.undefined_by(lane, col0 + p.column)))
        undefined_rows[m] = 1;  // its row of D is undefined: refused where it is read
      else
        check_written(issue, lane, col0 + p.column, ", and the MMA reads A from it");
      out[static_cast<std::size_t>(m) * k + kk] = decode(type, (tmem_.value(lane, col0 + p.column) >> p.shift) & mask);
    }
    if (sources)
      for (int c = 0; c < columns; ++c) {
        const CellSource& s = tmem_sources_[static_cast<std::size_t>(lane) * TensorMemory::kColumns + col0 + c];
        const bool holds = s.writer == tmem_.writer(lane, col0 + c);
        operand_origins_.push_back(holds ? s.global : 0);
        operand_stored_.push_back(holds && s.stored);
      }
  }
  if (sources) check_tmem_tile(issue, a_tmem, rows, type);
}

namespace {

Fp4Storage fp4_storage(MmaKind kind) { return packs_fp4(kind) ? Fp4Storage::packed : Fp4Storage::padded; }

}  // namespace

void Cta::read_a(const Issue& issue, int warp, int issuer, const InstrDescriptorFields& f, const MmaVariant& variant,
                 std::optional<std::uint32_t> a_tmem, std::uint64_t a_desc, const MmaShape& now, int rows, int copies,
                 bool layout_f, std::uint8_t* undefined_rows) {
  // A holds the dense K's worth of values a row; tcgen05.mma.sp keeps them
  // apart and spreads them over twice that K by the metadata.
  const int stored_k = k_per_instruction(f.kind), K = k_per_instruction(f.kind, f.sparse);
  std::vector<float>& stored = f.sparse ? mma_a_kept_ : mma_a_;
  const std::size_t stored_size = static_cast<std::size_t>(rows) * stored_k, size = static_cast<std::size_t>(rows) * K;
  stored.resize(copies * stored_size);
  mma_a_.resize(copies * size);
  for (int copy = 0; copy < copies; ++copy) {
    float* out = stored.data() + copy * stored_size;
    if (!a_tmem) {
      fetch_smem(issue, "a-desc", a_desc, rows, stored_k, f.a, f.a_mn_major, fp4_storage(f.kind), out, stored_k, 1);
      break;  // one copy in shared memory
    }
    read_a_tmem(issue, warp, issuer, *a_tmem, now, rows, 64 * copy, layout_f, stored_k, f.a, out, undefined_rows);
  }
  if (f.sparse)
    for (int copy = 0; copy < (a_tmem ? copies : 1); ++copy)
      decompress_a(issue, warp, issuer, f, *variant.sp_meta_tmem, now, rows, stored.data() + copy * stored_size,
                   mma_a_.data() + copy * size);
}

namespace {

// "tcgen05.mma.ws.cta_group::1.kind::f16 [d-tmem], a-desc, b-desc", as spelled.
std::string mma_instruction(CtaGroup group, MmaKind kind, bool ts, const MmaVariant& v) {
  std::string s = "tcgen05.mma";
  if (v.ws) s += ".ws";
  if (v.sp_meta_tmem) s += ".sp";
  s += ".cta_group::" + std::to_string(static_cast<int>(group));
  s += ".kind::";
  s += name(kind);
  if (v.scale_vec) s += ".block_scale.scale_vec::" + std::to_string(v.scale_vec) + "X";
  s += ts ? " [d-tmem], [a-tmem], b-desc" : " [d-tmem], a-desc, b-desc";
  if (v.sp_meta_tmem) s += ", [sp-meta-tmem]";
  if (v.scale_vec) s += ", [scale-A-tmem], [scale-B-tmem]";
  return s;
}

// The scale vector sizes each block-scaled kind takes (PTX #tcgen05-mma-scale-valid-comb).
bool legal_scale_vec(MmaKind kind, int v, bool ue8m0) {
  switch (kind) {
    case MmaKind::mxf8f6f4: return v == 1 && ue8m0;
    case MmaKind::mxf4: return v == 2 && ue8m0;
    case MmaKind::mxf4nvf4: return v == 4 || (v == 2 && ue8m0);
    default: return v == 0;
  }
}

}  // namespace

void Cta::mma(Thread t, MmaKind kind, std::uint32_t d_tmem, std::optional<std::uint32_t> a_tmem,
              std::uint64_t a_desc, std::uint64_t b_desc, std::uint32_t idesc, bool enable_input_d, CtaGroup group,
              const MmaVariant& variant) {
  const Issue issue{mma_instruction(group, kind, a_tmem.has_value(), variant), t.warp, t.lane};
  check_thread(issue, t);
  check_cta_group(issue, group);
  if (kind == MmaKind::i8)
    raise(ModelError(issue, Rule::unsupported, ".kind", "kind::i8",
                     "kind::i8 accumulates in s32, which the model's fp32 accumulator does not reproduce."));
  InstrDescriptorFields f;
  try {
    f = decode_instr_descriptor(idesc, kind, variant.ws, group);
  } catch (const Error& e) {
    raise(ModelError(issue, Rule::idesc_invalid, "idesc." + e.field(), e.value(),
                     "decoding idesc " + hex(idesc) + " for kind::" + name(kind) + " failed: " + e.what() + "."));
  }
  check_sparse_form(issue, f, variant, group);
  const bool scaled = block_scaled(kind);
  if (!legal_scale_vec(kind, variant.scale_vec, f.ue8m0)) {
    if (!scaled)
      raise(ModelError(issue, Rule::idesc_invalid, ".block_scale", std::to_string(variant.scale_vec) + "X",
                       "only the kinds mxf8f6f4, mxf4 and mxf4nvf4 are block-scaled."));
    const bool vec_fits = legal_scale_vec(kind, variant.scale_vec, true);  // the type is what is wrong
    raise(ModelError(issue, Rule::idesc_invalid, vec_fits ? "idesc.scale_type" : ".scale_vec",
                     vec_fits ? "0 (UE4M3)" : std::to_string(variant.scale_vec) + "X",
                     "kind::" + std::string(name(kind)) + " with .scale_vec::" + std::to_string(variant.scale_vec) +
                         "X and " + (f.ue8m0 ? "UE8M0" : "UE4M3") +
                         " factors: the legal pairs are mxf8f6f4 1X, mxf4 2X, mxf4nvf4 2X (UE8M0) or 4X (UE8M0, "
                         "UE4M3) (PTX #tcgen05-mma-scale-valid-comb)."));
  }
  if (scaled)
    for (const auto& [field, id] : {std::pair{"idesc.a_sf_id", f.a_sf_id}, std::pair{"idesc.b_sf_id", f.b_sf_id}})
      if (id % variant.scale_vec != 0)
        raise(ModelError(issue, Rule::idesc_invalid, field, std::to_string(id),
                         "with .scale_vec::" + std::to_string(variant.scale_vec) + "X the ID picks a " +
                             std::to_string(variant.scale_vec) + "-byte aligned sub-column of the scale word: " +
                             (variant.scale_vec == 1 ? "0-3" : variant.scale_vec == 2 ? "0 or 2" : "0") +
                             " (PTX #tcgen05-mma-scale-factor-a, #tcgen05-mma-scale-factor-b)."));
  if (variant.scale_input_d != 0 &&
      (variant.scale_input_d < 0 || variant.scale_input_d > 15 || (kind != MmaKind::f16 && kind != MmaKind::tf32)))
    raise(ModelError(issue, Rule::idesc_invalid, "scale-input-d", std::to_string(variant.scale_input_d),
                     "scale-input-d lies in [0, 15] and is for kind::f16 and tf32 only (PTX #tcgen05-mma)."));
  if (a_tmem && f.a_mn_major)
    raise(ModelError(issue, Rule::ts_a_major, "idesc.a_major", "MN", "A comes from Tensor Memory ([a-tmem])."));
  if (group == CtaGroup::two) return pair_mma(issue, t, f, d_tmem, a_tmem, a_desc, b_desc, enable_input_d, variant);
  const int M = f.m, N = f.n, K = k_per_instruction(kind, f.sparse);
  const int lane0 = static_cast<int>(d_tmem >> 16);
  if (!(lane0 == 0 || (M == 64 && !variant.ws && lane0 == 16)))
    raise(ModelError(issue, Rule::mma_lane_offset, "d-tmem lane", std::to_string(lane0),
                     variant.ws ? "tcgen05.mma.ws puts D in Layout D, E or G, which start at lane 0."
                     : M == 128 ? "M = 128 uses Layout D, which starts at lane 0."
                                : "M = 64 uses Layout F, which starts at lane 0 or 16."));
  if (a_tmem && variant.ws && M == 32)
    raise(ModelError(issue, Rule::unsupported, "idesc.m", std::to_string(M),
                     "where A lies in Tensor Memory for tcgen05.mma.ws with M = 32 is drawn only in PTX figures "
                     "(tcgen05-facts-2.md §1.2, UNCONFIRMED)."));

  // The operands, decoded once per instruction into reused buffers: A as
  // M × K, B straight into K × N (the layout the loop nest wants).
  const MmaShape now{d_tmem, M, N, kind};
  const int issuer = keys_.thread(t.warp, t.lane);
  // .ws with M = 64 (Layout E) computes D's column halves in lanes 0-63 and
  // 64-127, each from the A rows in its own lanes: A row m at lane m and,
  // for the second half, at lane 64 + m, as for Layout B's duplicated A
  // (UNCONFIRMED in PTX's text; FlashMLA's MODEL1 decode puts two different
  // K chunks of Q there on B200s, its "dual GEMM", and sums the halves).
  const int a_copies = a_tmem && variant.ws && M == 64 ? 2 : 1;
  mma_bt_.resize(static_cast<std::size_t>(K) * N);
  // Without .ws row m of D is computed from row m of A and of D alone: an undefined row stays one.
  mma_undefined_.assign(variant.ws ? 0 : static_cast<std::size_t>(M), 0);
  std::uint8_t* undefined_rows = variant.ws ? nullptr : mma_undefined_.data();
  operand_origins_.clear();  // A from Tensor Memory: of unknown source
  read_a(issue, t.warp, issuer, f, variant, a_tmem, a_desc, now, M, a_copies, M == 64 && !variant.ws, undefined_rows);
  mma_a_origins_.swap(operand_origins_);
  fetch_smem(issue, "b-desc", b_desc, N, K, f.b, f.b_mn_major, fp4_storage(kind), mma_bt_.data(), 1, N);
  mma_b_origins_.swap(operand_origins_);
  if (config_.provenance) check_k_block(issue, d_tmem, enable_input_d, a_desc, b_desc, f, group, {M, N});
  if (block_scaled(kind))
    apply_scale_factors(issue, t.warp, issuer, f, variant, now, M, N, K, mma_a_.data(), mma_bt_.data());

  // .ws folds each row of D into S segments (datapath.hpp).
  const int S = variant.ws ? ws_segments(M) : 1;
  const float* a_second = mma_a_.data() + static_cast<std::size_t>(a_copies - 1) * M * K;
  const MmaShare share{issue, t, issuer, now, f, variant, enable_input_d, M, N, K, S, lane0, variant.ws,
                       {mma_a_.data(), a_second}, mma_bt_.data(), a_tmem, a_copies * M, undefined_rows};
  check_mma_share(share);
  write_mma_share(share);
}

// cta_group::2 (PTX #tcgen05-issue-granularity, #tcgen05-data-path-layout-
// organization; tcgen05-facts.md §4): the CTA of rank parity v holds rows
// [v·M/2, (v+1)·M/2) of A (in shared memory at a-desc, or in Tensor Memory at
// a-tmem) and of D, and rows [v·N/2, (v+1)·N/2) of B at b-desc; each CTA's D
// is its M/2 rows by N: Layout A for M = 256 (rows at lanes 0-127), Layout B
// for M = 128 (row m' at lane m' for the first N/2 columns, lane m' + 64
// for the rest, both at d-tmem's columns, each half computed from the copy
// of A in those lanes: CUTLASS duplicates A there). d-tmem, a-tmem and the
// descriptors name the same offsets in both CTAs.
void Cta::pair_mma(const Issue& issue, Thread t, const InstrDescriptorFields& f, std::uint32_t d_tmem,
                   std::optional<std::uint32_t> a_tmem, std::uint64_t a_desc, std::uint64_t b_desc,
                   bool enable_input_d, const MmaVariant& variant) {
  if (block_scaled(f.kind) && f.m != 256)
    raise(ModelError(issue, Rule::unsupported, "idesc.m", std::to_string(f.m),
                     "a block-scaled cta_group::2 MMA is modelled for M = 256, where each CTA keeps the factors "
                     "of its own 128 rows of A; where M = 128's 64 rows keep theirs is UNCONFIRMED."));
  if (rank() & 1)
    raise(ModelError(issue, Rule::pair_mma_by_odd_cta, "%cluster_ctarank", std::to_string(rank()),
                      "this CTA is the odd one of its pair; its peer, rank " + std::to_string(peer_->rank()) +
                          ", issues the pair's MMAs in CUTLASS and the public 2-CTA kernels."));
  const int lane0 = static_cast<int>(d_tmem >> 16);
  if (lane0 != 0)
    raise(ModelError(issue, Rule::mma_lane_offset, "d-tmem lane", std::to_string(lane0),
                     "cta_group::2 puts D in Layout A (M = 256) or B (M = 128), which start at lane 0."));
  const int M = f.m, N = f.n, K = k_per_instruction(f.kind, f.sparse), rows = M / 2, half = N / 2;
  const MmaShape now{d_tmem, M, N, f.kind};
  std::array<Cta*, 2> pair{};  // by rank parity
  pair[rank() & 1] = this;
  pair[(rank() & 1) ^ 1] = peer_;
  // Operands: each CTA its own A rows, B gathered from both halves; their sources, the even CTA's first.
  mma_bt_.resize(static_cast<std::size_t>(K) * N);
  mma_a_origins_.clear();
  mma_b_origins_.clear();
  for (int v = 0; v < 2; ++v) {
    Cta& c = *pair[v];
    const ActingFor acting(c, *this);
    const int issuer = c.issuer_key(*this, t);
    c.fetch_smem(issue, "b-desc", b_desc, half, K, f.b, f.b_mn_major, fp4_storage(f.kind), mma_bt_.data() + v * half,
                 1, N);
    mma_b_origins_.insert(mma_b_origins_.end(), c.operand_origins_.begin(), c.operand_origins_.end());
    c.operand_origins_.clear();  // A from Tensor Memory: of unknown source
    c.read_a(issue, t.warp, issuer, f, variant, a_tmem, a_desc, now, rows, M == 128 ? 2 : 1, false, nullptr);
    mma_a_origins_.insert(mma_a_origins_.end(), c.operand_origins_.begin(), c.operand_origins_.end());
  }
  if (config_.provenance) check_k_block(issue, d_tmem, enable_input_d, a_desc, b_desc, f, CtaGroup::two, {M, N});
  // Block scaling: each CTA scales its rows of A and all N columns of B by the factors in its own
  // Tensor Memory, as for a cta_group::1 MMA of its M/2 rows (CUTLASS's MMA_ScaleFactor for the
  // 2-SM atoms is the 1-SM MMA of M/2 × round_up(N, 128), each CTA's factors copied to its own
  // Tensor Memory by tcgen05.cp.cta_group::2).
  if (block_scaled(f.kind)) {
    Cta& peer = *pair[(rank() & 1) ^ 1];
    peer.mma_bt_ = mma_bt_;
    for (int v = 0; v < 2; ++v) {
      Cta& c = *pair[v];
      const ActingFor acting(c, *this);
      c.apply_scale_factors(issue, t.warp, c.issuer_key(*this, t), f, variant, now, rows, N, K, c.mma_a_.data(),
                            c.mma_bt_.data());
    }
  }
  // Each CTA's share, checked in both before either is written.
  std::array<std::optional<MmaShare>, 2> shares;
  for (int v = 0; v < 2; ++v) {
    Cta& c = *pair[v];
    const float* a = c.mma_a_.data();
    // B as this CTA gathered it, or as each CTA scaled it by its own factors.
    const float* bt = block_scaled(f.kind) ? c.mma_bt_.data() : mma_bt_.data();
    shares[v].emplace(MmaShare{issue, t, c.issuer_key(*this, t), now, f, variant, enable_input_d, rows, N, K, M == 128 ? 2 : 1, 0, M == 128,
                               {a, a_tmem && M == 128 ? a + static_cast<std::size_t>(rows) * K : a}, bt,
                               a_tmem, a_tmem && M == 128 ? 2 * rows : rows});
  }
  for (int v = 0; v < 2; ++v) {
    const ActingFor acting(*pair[v], *this);
    pair[v]->check_mma_share(*shares[v]);
  }
  for (int v = 0; v < 2; ++v) {
    const ActingFor acting(*pair[v], *this);
    pair[v]->write_mma_share(*shares[v]);
  }
}

void Cta::check_mma_share(const MmaShare& s) {
  const Issue& issue = s.issue;
  const int W = s.N / s.S, R = s.M * s.S, col0 = static_cast<int>(s.now.d_tmem & 0xFFFF);
  for (int n = 0; n < W; ++n)
    if (!tmem_.live(col0 + n)) check_column(issue, col0 + n, col0, col0 + W - 1);

  // The rules for each D cell, a lane (row of D) at a time. Cells with the
  // same writer and reader pass the same checks, and D is usually one earlier
  // MMA's, read by a few tcgen05.ld, so:
  //  - a row whose writers and readers (kept per 16-column segment when they
  //    agree) equal those of the row checked before it passes as that row did;
  //  - otherwise its runs of cells that share writer and reader are visited
  //    in column order, and each distinct pair is checked once (the last few
  //    pairs are remembered); a failing run reports its first cell, so the
  //    error names the first cell that breaks a rule, as a cell-by-cell walk would.
  // Nothing is changed until every cell has passed.
  struct Pair {
    std::uint32_t writer, reader;
  };
  std::array<Pair, 8> checked{};  // (0, 0): untouched since alloc, nothing to order
  int checked_next = 1;
  const auto check_run = [&](int lane, int column, int, std::uint32_t writer, std::uint32_t reader) {
    bool known = false;
    for (const Pair& p : checked) known = known || (p.writer == writer && p.reader == reader);
    if (!known) {
      check_order(issue, Touch::mma_write, s.t.warp, s.issuer, lane, column, &s.now);
      checked[checked_next] = {writer, reader};
      checked_next = checked_next % 7 + 1;  // slots 1-7 in turn; slot 0 keeps (0, 0)
    }
    if (s.enable_input_d && writer == 0 && !s.undefined_rows)
      check_written(issue, lane, column,
                    ", and enable-input-d is true, so the MMA adds to it (the first MMA of a chain clears D with "
                    "enable-input-d = false)");
  };
  // enable-input-d on cells never written, or undefined: the row's sum is undefined too. A row with
  // the same writers as the row before is as that row while Tensor Memory has held no undefined cell
  // (TensorMemory::any_undefined: its store of undefined marks exists from the first one on).
  const bool track_undefined = s.enable_input_d && s.undefined_rows;
  bool undefined = false;  // the accumulator row last walked
  for (int v = 0; v < R; ++v) {
    const int lane = s.lane(v);
    const bool same = v > 0 && tmem_.same_ids(s.lane(v - 1), lane, col0, W);
    if (track_undefined && (!same || tmem_.any_undefined())) undefined = accumulator_undefined(lane, col0, W);
    if (track_undefined && undefined) s.undefined_rows[v] = 1;
    if (same) continue;
    tmem_.for_each_run(lane, col0, W, [&](int column, int count, std::uint32_t writer, std::uint32_t reader) {
      check_run(lane, column, count, writer, reader);
    });
  }
  // Strict mode: D cells that an earlier mma read as its TS A operand.
  if (config_.strict_mma_pipelining) {
    std::uint32_t passed = 0;  // the last reader checked (most D rows share one)
    for (int v = 0; v < R; ++v) {
      const int lane = s.lane(v);
      for (int n = 0; n < W; ++n) {
        const std::uint32_t reader = tmem_.mma_reader(lane, col0 + n);
        if (reader == 0 || reader == passed) continue;
        check_mma_reader(issue, s.t.warp, s.issuer, lane, col0 + n, reader, s.now);
        passed = reader;
      }
    }
  }
}

// Whether cells [col0, col0 + W) of the lane hold an accumulator an MMA cannot add to defined: a
// cell never written, or undefined. Looked at a run at a time (a segment whose cells share a writer),
// cell by cell once Tensor Memory has held an undefined cell.
bool Cta::accumulator_undefined(int lane, int col0, int W) {
  bool undefined = false;
  tmem_.for_each_run(lane, col0, W, [&](int column, int count, std::uint32_t writer, std::uint32_t) {
    undefined = undefined || writer == 0;
    for (int c = column; tmem_.any_undefined() && c < column + count && !undefined; ++c)
      undefined = tmem_.undefined_by(lane, c) != 0;
  });
  return undefined;
}

void Cta::write_mma_share(const MmaShare& s) {
  // The arithmetic (model-math.md). f32 D is accumulated in place in the
  // Tensor Memory rows; f16 D is not packed: one value in the low 16 bits of
  // a cell (PTX #tcgen05-packing-formats-mat-d), decoded to fp32, and the
  // fp32 sum rounded back to it. scale-input-d scales the old D by 2^-s
  // first (exact unless it leaves fp32's normal range).
  const InstrDescriptorFields& f = s.f;
  const int M = s.M, N = s.N, K = s.K, S = s.S, W = N / S, R = M * S;
  const int col0 = static_cast<int>(s.now.d_tmem & 0xFFFF);
  const float sign = f.negate_a != f.negate_b ? -1.0f : 1.0f;
  const float d_scale = std::ldexp(1.0f, -s.variant.scale_input_d);
  const bool in_place = f.d == ElementType::f32;
  mma_rows_.resize(static_cast<std::size_t>(R));
  if (!in_place) mma_d_.assign(static_cast<std::size_t>(R) * W, 0.0f);
  for (int v = 0; v < R; ++v) {
    const int lane = s.lane(v);
    mma_rows_[v] = in_place ? tmem_.value_row(lane) + col0 : mma_d_.data() + static_cast<std::size_t>(v) * W;
    if (!s.enable_input_d) continue;
    if (!in_place)
      for (int n = 0; n < W; ++n) mma_rows_[v][n] = decode(f.d, tmem_.value(lane, col0 + n));
    if (s.variant.scale_input_d != 0)
      for (int n = 0; n < W; ++n) mma_rows_[v][n] *= d_scale;
  }
  if (S == 1) {
    detail::mma_rows(s.a[0], s.bt, M, N, K, mma_rows_.data(), s.enable_input_d, sign);
  } else {
    mma_b_segment_.resize(static_cast<std::size_t>(K) * W);
    for (int seg = 0; seg < S; ++seg) {
      for (int k = 0; k < K; ++k)
        std::copy_n(s.bt + static_cast<std::size_t>(k) * N + seg * W, W,
                    mma_b_segment_.data() + static_cast<std::size_t>(k) * W);
      detail::mma_rows(s.a[seg < 2 ? seg : 0], mma_b_segment_.data(), M, W, K, mma_rows_.data() + seg * M,
                       s.enable_input_d, sign);
    }
  }

  const std::uint32_t id = issue_op(OpKind::mma, s.issuer, s.t.warp, s.t.lane, op_instruction(s.issue.instruction), 0,
                                    s.now);
  std::bitset<128> lanes;
  for (int v = 0; v < R; ++v) {
    const int lane = s.lane(v);
    lanes.set(static_cast<std::size_t>(lane));
    tmem_.set_writers(lane, col0, W, id);
    if (s.undefined_rows && s.undefined_rows[v]) tmem_.set_undefined(lane, col0, W, id);
    if (!in_place)
      for (int n = 0; n < W; ++n) tmem_.set_value(lane, col0 + n, encode(f.d, mma_rows_[v][n]));
  }
  note_mma_write(s.issue, s.now, W, !s.variant.ws && s.now.m == M, lanes);
  // The cells of A, remembered only in strict mode (the default orders any two mma of one thread).
  if (s.a_tmem && config_.strict_mma_pipelining) {
    const int a_col0 = static_cast<int>(*s.a_tmem & 0xFFFF), a_columns = k_per_instruction(f.kind) * bits(f.a) / 32;
    for (int v = 0; v < s.a_rows; ++v) tmem_.set_mma_readers(s.lane(v), a_col0, a_columns, id);
  }
}

}  // namespace tcgen::model
