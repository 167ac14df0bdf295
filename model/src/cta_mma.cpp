// tcgen05.mma, SS and TS forms, cta_group::1, dense, with and without .ws
// and block scaling (PTX #tcgen05-mma-instructions-mma). Operands come from
// the arithmetic half (descriptor and idesc decoding, operand fetch, exact
// products); this file places them: A from Tensor Memory for TS, the scale
// factors (cta_mma_scale.cpp), D by Layout D, E, F or G, and the rules.
#include <algorithm>
#include <array>
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

void Cta::mma_ss(Thread t, MmaKind kind, std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc,
                 std::uint32_t idesc, bool enable_input_d, CtaGroup group, const MmaVariant& variant) {
  mma(t, kind, d_tmem, std::nullopt, a_desc, b_desc, idesc, enable_input_d, group, variant);
}

void Cta::mma_ts(Thread t, MmaKind kind, std::uint32_t d_tmem, std::uint32_t a_tmem, std::uint64_t b_desc,
                 std::uint32_t idesc, bool enable_input_d, CtaGroup group, const MmaVariant& variant) {
  mma(t, kind, d_tmem, a_tmem, 0, b_desc, idesc, enable_input_d, group, variant);
}

void Cta::fetch_smem(const Issue& issue, const char* which, std::uint64_t desc, int rows, int k, ElementType type,
                     bool mn_major, float* out, std::ptrdiff_t row_stride, std::ptrdiff_t k_stride) {
  const std::string w = which;
  try {
    decode_smem_descriptor(desc);
  } catch (const Error& e) {
    throw ModelError(issue, Rule::descriptor_invalid, w + "." + e.field(), e.value(),
                     "decoding " + w + " " + hex(desc) + " failed: " + e.what() + ".");
  }
  // The chunks are listed only when some st.shared is not yet fenced: else
  // none can break the proxy-fence rule.
  const bool list_chunks = any_unfenced_st();
  mma_chunks_.clear();
  try {
    detail::fetch_operand_into(smem_.image(), smem_.base(), desc, rows, k, type, mn_major, out, row_stride, k_stride,
                               list_chunks ? &mma_chunks_ : nullptr);
  } catch (const Error& e) {
    if (e.field() != "address")
      throw ModelError(issue, Rule::descriptor_invalid, w + "." + e.field(), e.value(),
                       "reading the operand of " + w + " " + hex(desc) + " failed: " + e.what() + ".");
    throw ModelError(issue, Rule::smem_outside_image, "address", e.value(),
                     "the operand of " + w + " " + hex(desc) + " reaches outside the shared memory image [" +
                         hex(smem_.base()) + ", " + hex(smem_.base() + smem_.size()) + ").");
  }
  if (list_chunks) check_proxy(issue, mma_chunks_);
}

void Cta::read_a_tmem(const Issue& issue, Thread t, std::uint32_t a_tmem, const MmaShape& now, int k,
                      ElementType type, float* out) {
  const std::uint32_t d_tmem = now.d_tmem;
  const int rows = now.m;
  const int element_bits = bits(type);
  if (element_bits != 8 && element_bits != 16 && element_bits != 32)
    throw ModelError(issue, Rule::unsupported, "A type", name(type),
                     "how 6- and 4-bit A elements sit in Tensor Memory is drawn only in figures "
                     "(tcgen05-facts-2.md §1.1).");
  const int lane0 = static_cast<int>(a_tmem >> 16), col0 = static_cast<int>(a_tmem & 0xFFFF);
  if (lane0 != static_cast<int>(d_tmem >> 16))
    throw ModelError(issue, Rule::mma_lane_offset, "a-tmem lane", std::to_string(lane0),
                     "d-tmem uses lane " + std::to_string(d_tmem >> 16) + ".");
  const int columns = k * element_bits / 32;  // 256 bits of each row: 8 columns
  for (int c = 0; c < columns; ++c) check_column(issue, col0 + c, col0, col0 + columns - 1);
  const std::uint32_t mask = element_bits == 32 ? 0xFFFFFFFFu : (1u << element_bits) - 1;
  for (int m = 0; m < rows; ++m) {
    const int lane = datapath_lane(rows, m, lane0);
    for (int kk = 0; kk < k; ++kk) {
      const PackedPosition p = a_tmem_position(element_bits, kk);
      check_order(issue, Touch::mma_read, t.warp, issuer_thread(t.warp, t.lane), lane, col0 + p.column, &now);
      check_written(issue, lane, col0 + p.column, ", and the MMA reads A from it");
      out[static_cast<std::size_t>(m) * k + kk] = decode(type, (tmem_.value(lane, col0 + p.column) >> p.shift) & mask);
    }
  }
}

namespace {

// "tcgen05.mma.ws.cta_group::1.kind::f16 [d-tmem], a-desc, b-desc", as spelled.
std::string mma_instruction(CtaGroup group, MmaKind kind, bool ts, const MmaVariant& v) {
  std::string s = v.ws ? "tcgen05.mma.ws.cta_group::" : "tcgen05.mma.cta_group::";
  s += std::to_string(static_cast<int>(group));
  s += ".kind::";
  s += name(kind);
  if (v.scale_vec) s += ".block_scale.scale_vec::" + std::to_string(v.scale_vec) + "X";
  s += ts ? " [d-tmem], [a-tmem], b-desc" : " [d-tmem], a-desc, b-desc";
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
    throw ModelError(issue, Rule::unsupported, ".kind", "kind::i8",
                     "kind::i8 accumulates in s32, which the model's fp32 accumulator does not reproduce.");
  InstrDescriptorFields f;
  try {
    f = decode_instr_descriptor(idesc, kind, variant.ws);
  } catch (const Error& e) {
    throw ModelError(issue, Rule::idesc_invalid, "idesc." + e.field(), e.value(),
                     "decoding idesc " + hex(idesc) + " for kind::" + name(kind) + " failed: " + e.what() + ".");
  }
  if (f.sparse) throw ModelError(issue, Rule::unsupported, "idesc.sparse", "1", "the model executes dense MMAs only.");
  const bool scaled = block_scaled(kind);
  if (!legal_scale_vec(kind, variant.scale_vec, f.ue8m0)) {
    if (!scaled)
      throw ModelError(issue, Rule::idesc_invalid, ".block_scale", std::to_string(variant.scale_vec) + "X",
                       "only the kinds mxf8f6f4, mxf4 and mxf4nvf4 are block-scaled.");
    const bool vec_fits = legal_scale_vec(kind, variant.scale_vec, true);  // the type is what is wrong
    throw ModelError(issue, Rule::idesc_invalid, vec_fits ? "idesc.scale_type" : ".scale_vec",
                     vec_fits ? "0 (UE4M3)" : std::to_string(variant.scale_vec) + "X",
                     "kind::" + std::string(name(kind)) + " with .scale_vec::" + std::to_string(variant.scale_vec) +
                         "X and " + (f.ue8m0 ? "UE8M0" : "UE4M3") +
                         " factors: the legal pairs are mxf8f6f4 1X, mxf4 2X, mxf4nvf4 2X (UE8M0) or 4X (UE8M0, "
                         "UE4M3) (PTX #tcgen05-mma-scale-valid-comb).");
  }
  if (scaled)
    for (const auto& [field, id] : {std::pair{"idesc.a_sf_id", f.a_sf_id}, std::pair{"idesc.b_sf_id", f.b_sf_id}})
      if (id % variant.scale_vec != 0)
        throw ModelError(issue, Rule::idesc_invalid, field, std::to_string(id),
                         "with .scale_vec::" + std::to_string(variant.scale_vec) + "X the ID picks a " +
                             std::to_string(variant.scale_vec) + "-byte aligned sub-column of the scale word: " +
                             (variant.scale_vec == 1 ? "0-3" : variant.scale_vec == 2 ? "0 or 2" : "0") +
                             " (PTX #tcgen05-mma-scale-factor-a, #tcgen05-mma-scale-factor-b).");
  if (variant.scale_input_d != 0 &&
      (variant.scale_input_d < 0 || variant.scale_input_d > 15 || (kind != MmaKind::f16 && kind != MmaKind::tf32)))
    throw ModelError(issue, Rule::idesc_invalid, "scale-input-d", std::to_string(variant.scale_input_d),
                     "scale-input-d lies in [0, 15] and is for kind::f16 and tf32 only (PTX #tcgen05-mma).");
  const int M = f.m, N = f.n, K = k_per_instruction(kind);
  const int lane0 = static_cast<int>(d_tmem >> 16), col0 = static_cast<int>(d_tmem & 0xFFFF);
  if (!(lane0 == 0 || (M == 64 && !variant.ws && lane0 == 16)))
    throw ModelError(issue, Rule::mma_lane_offset, "d-tmem lane", std::to_string(lane0),
                     variant.ws ? "tcgen05.mma.ws puts D in Layout D, E or G, which start at lane 0."
                     : M == 128 ? "M = 128 uses Layout D, which starts at lane 0."
                                : "M = 64 uses Layout F, which starts at lane 0 or 16.");
  if (a_tmem && f.a_mn_major)
    throw ModelError(issue, Rule::ts_a_major, "idesc.a_major", "MN", "A comes from Tensor Memory ([a-tmem]).");
  if (a_tmem && variant.ws && M != 128)
    throw ModelError(issue, Rule::unsupported, "idesc.m", std::to_string(M),
                     "where A lies in Tensor Memory for tcgen05.mma.ws with M = 32 or 64 is drawn only in PTX "
                     "figures (tcgen05-facts-2.md §1.2, UNCONFIRMED).");

  // D as R rows of W columns: .ws folds each row of D into S segments
  // (datapath.hpp); row v = s·M + m is segment s of D's row m.
  const int S = variant.ws ? ws_segments(M) : 1, W = N / S, R = M * S;
  const auto lane_of = [&](int v) { return variant.ws ? ws_lane(M, v % M, v / M) : datapath_lane(M, v, lane0); };

  // The operands, decoded once per instruction into reused buffers: A as
  // M × K, B straight into K × N (the layout the loop nest wants).
  const MmaShape now{d_tmem, M, N, kind};
  mma_a_.resize(static_cast<std::size_t>(M) * K);
  mma_bt_.resize(static_cast<std::size_t>(K) * N);
  if (a_tmem) read_a_tmem(issue, t, *a_tmem, now, K, f.a, mma_a_.data());
  else fetch_smem(issue, "a-desc", a_desc, M, K, f.a, f.a_mn_major, mma_a_.data(), K, 1);
  fetch_smem(issue, "b-desc", b_desc, N, K, f.b, f.b_mn_major, mma_bt_.data(), 1, N);
  // Block scaling: D = (A · scale_A)(B · scale_B) + D (PTX #tcgen05-block-scaling),
  // each scale factor applied to the K / V elements of its block. A power of
  // two (UE8M0) or a 4-bit-significand UE4M3 times an element of at most 4
  // significant bits is exact in fp32 while it stays in fp32's range.
  if (scaled) {
    const int V = variant.scale_vec, block = K / V;
    mma_scale_a_.resize(static_cast<std::size_t>(M) * V);
    mma_scale_b_.resize(static_cast<std::size_t>(N) * V);
    read_scale_factors(issue, t, "scale-A-tmem", variant.scale_a_tmem, M, V, f.a_sf_id, f.ue8m0, now,
                       mma_scale_a_.data());
    read_scale_factors(issue, t, "scale-B-tmem", variant.scale_b_tmem, N, V, f.b_sf_id, f.ue8m0, now,
                       mma_scale_b_.data());
    for (int m = 0; m < M; ++m)
      for (int k = 0; k < K; ++k) mma_a_[static_cast<std::size_t>(m) * K + k] *= mma_scale_a_[m * V + k / block];
    for (int k = 0; k < K; ++k)
      for (int n = 0; n < N; ++n) mma_bt_[static_cast<std::size_t>(k) * N + n] *= mma_scale_b_[n * V + k / block];
  }

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
  const int issuer = issuer_thread(t.warp, t.lane);
  struct Pair {
    std::uint32_t writer, reader;
  };
  std::array<Pair, 8> checked{};  // (0, 0): untouched since alloc, nothing to order
  int checked_next = 1;
  const auto check_run = [&](int lane, int column, int, std::uint32_t writer, std::uint32_t reader) {
    bool known = false;
    for (const Pair& p : checked) known = known || (p.writer == writer && p.reader == reader);
    if (!known) {
      check_order(issue, Touch::mma_write, t.warp, issuer, lane, column, &now);
      checked[checked_next] = {writer, reader};
      checked_next = checked_next % 7 + 1;  // slots 1-7 in turn; slot 0 keeps (0, 0)
    }
    if (enable_input_d && writer == 0)
      check_written(issue, lane, column,
                    ", and enable-input-d is true, so the MMA adds to it (the first MMA of a chain clears D with "
                    "enable-input-d = false)");
  };
  for (int v = 0; v < R; ++v) {
    const int lane = lane_of(v);
    if (v > 0 && tmem_.same_ids(lane_of(v - 1), lane, col0, W)) continue;
    tmem_.for_each_run(lane, col0, W, [&](int column, int count, std::uint32_t writer, std::uint32_t reader) {
      check_run(lane, column, count, writer, reader);
    });
  }
  // Strict mode: D cells that an earlier mma read as its TS A operand.
  if (config_.strict_mma_pipelining) {
    std::uint32_t passed = 0;  // the last reader checked (most D rows share one)
    for (int v = 0; v < R; ++v) {
      const int lane = lane_of(v);
      for (int n = 0; n < W; ++n) {
        const std::uint32_t reader = tmem_.mma_reader(lane, col0 + n);
        if (reader == 0 || reader == passed) continue;
        check_mma_reader(issue, t.warp, issuer, lane, col0 + n, reader, now);
        passed = reader;
      }
    }
  }

  // The arithmetic (model-math.md). f32 D is accumulated in place in the
  // Tensor Memory rows; f16 D is not packed: one value in the low 16 bits of
  // a cell (PTX #tcgen05-packing-formats-mat-d), decoded to fp32, and the
  // fp32 sum rounded back to it. scale-input-d scales the old D by 2^-s
  // first (exact unless it leaves fp32's normal range).
  const float sign = f.negate_a != f.negate_b ? -1.0f : 1.0f;
  const float d_scale = std::ldexp(1.0f, -variant.scale_input_d);
  const bool in_place = f.d == ElementType::f32;
  mma_rows_.resize(static_cast<std::size_t>(R));
  if (!in_place) mma_d_.assign(static_cast<std::size_t>(R) * W, 0.0f);
  for (int v = 0; v < R; ++v) {
    const int lane = lane_of(v);
    mma_rows_[v] = in_place ? tmem_.value_row(lane) + col0 : mma_d_.data() + static_cast<std::size_t>(v) * W;
    if (!enable_input_d) continue;
    if (!in_place)
      for (int n = 0; n < W; ++n) mma_rows_[v][n] = decode(f.d, tmem_.value(lane, col0 + n));
    if (variant.scale_input_d != 0)
      for (int n = 0; n < W; ++n) mma_rows_[v][n] *= d_scale;
  }
  if (S == 1) {
    detail::mma_rows(mma_a_.data(), mma_bt_.data(), M, N, K, mma_rows_.data(), enable_input_d, sign);
  } else {
    mma_b_segment_.resize(static_cast<std::size_t>(K) * W);
    for (int s = 0; s < S; ++s) {
      for (int k = 0; k < K; ++k)
        std::copy_n(mma_bt_.data() + static_cast<std::size_t>(k) * N + s * W, W,
                    mma_b_segment_.data() + static_cast<std::size_t>(k) * W);
      detail::mma_rows(mma_a_.data(), mma_b_segment_.data(), M, W, K, mma_rows_.data() + s * M, enable_input_d, sign);
    }
  }

  const std::uint32_t id = issue_op(OpKind::mma, issuer, t.warp, t.lane, issue.instruction, 0, now);
  const int a_col0 = a_tmem ? static_cast<int>(*a_tmem & 0xFFFF) : 0, a_columns = K * bits(f.a) / 32;
  for (int v = 0; v < R; ++v) {
    const int lane = lane_of(v);
    tmem_.set_writers(lane, col0, W, id);
    if (!in_place)
      for (int n = 0; n < W; ++n) tmem_.set_value(lane, col0 + n, encode(f.d, mma_rows_[v][n]));
  }
  // The cells of A, remembered only in strict mode (the default orders any two mma of one thread).
  if (a_tmem && config_.strict_mma_pipelining)
    for (int m = 0; m < M; ++m) tmem_.set_mma_readers(datapath_lane(M, m, lane0), a_col0, a_columns, id);
}

}  // namespace tcgen::model
