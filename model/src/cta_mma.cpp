// tcgen05.mma, SS and TS forms, cta_group::1, dense (PTX
// #tcgen05-mma-instructions-mma). Operands come from the arithmetic half
// (descriptor and idesc decoding, operand fetch, exact products); this file
// places them: A from Tensor Memory for TS, D by Layout D or F, and the rules.
#include <algorithm>
#include <array>
#include <string>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/cta.hpp"
#include "tcgen/model/datapath.hpp"
#include "tcgen/model/idesc_decode.hpp"
#include "tcgen/model/smem_descriptor_decode.hpp"
#include "hex.hpp"
#include "mma_kernel.hpp"
#include "operand_fetch_into.hpp"

namespace tcgen::model {

void Cta::mma_ss(Thread t, MmaKind kind, std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc,
                 std::uint32_t idesc, bool enable_input_d, CtaGroup group) {
  mma(t, kind, d_tmem, std::nullopt, a_desc, b_desc, idesc, enable_input_d, group);
}

void Cta::mma_ts(Thread t, MmaKind kind, std::uint32_t d_tmem, std::uint32_t a_tmem, std::uint64_t b_desc,
                 std::uint32_t idesc, bool enable_input_d, CtaGroup group) {
  mma(t, kind, d_tmem, a_tmem, 0, b_desc, idesc, enable_input_d, group);
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

// "tcgen05.mma.cta_group::1.kind::f16 [d-tmem], a-desc, b-desc", built once per form.
const std::string& mma_instruction(CtaGroup group, MmaKind kind, bool ts) {
  static const auto names = [] {
    std::array<std::string, 2 * 4 * 2> n;
    for (int g = 1; g <= 2; ++g)
      for (int k = 0; k < 4; ++k)
        for (int t = 0; t < 2; ++t)
          n[((g - 1) * 4 + k) * 2 + t] = "tcgen05.mma.cta_group::" + std::to_string(g) + ".kind::" +
                                         name(static_cast<MmaKind>(k)) +
                                         (t ? " [d-tmem], [a-tmem], b-desc" : " [d-tmem], a-desc, b-desc");
    return n;
  }();
  const int g = group == CtaGroup::two ? 2 : 1;
  return names[((g - 1) * 4 + static_cast<int>(kind)) * 2 + (ts ? 1 : 0)];
}

}  // namespace

void Cta::mma(Thread t, MmaKind kind, std::uint32_t d_tmem, std::optional<std::uint32_t> a_tmem,
              std::uint64_t a_desc, std::uint64_t b_desc, std::uint32_t idesc, bool enable_input_d, CtaGroup group) {
  const Issue issue{(group == CtaGroup::one || group == CtaGroup::two) && static_cast<int>(kind) < 4
                        ? mma_instruction(group, kind, a_tmem.has_value())
                        : "tcgen05.mma.cta_group::" + std::to_string(static_cast<int>(group)) + ".kind::" + name(kind) +
                              (a_tmem ? " [d-tmem], [a-tmem], b-desc" : " [d-tmem], a-desc, b-desc"),
                    t.warp, t.lane};
  check_thread(issue, t);
  check_cta_group(issue, group);
  if (kind == MmaKind::i8)
    throw ModelError(issue, Rule::unsupported, ".kind", "kind::i8",
                     "kind::i8 accumulates in s32, which the model's fp32 accumulator does not reproduce.");
  InstrDescriptorFields f;
  try {
    f = decode_instr_descriptor(idesc, kind);
  } catch (const Error& e) {
    throw ModelError(issue, Rule::idesc_invalid, "idesc." + e.field(), e.value(),
                     "decoding idesc " + hex(idesc) + " for kind::" + name(kind) + " failed: " + e.what() + ".");
  }
  if (f.sparse) throw ModelError(issue, Rule::unsupported, "idesc.sparse", "1", "the model executes dense MMAs only.");
  const int M = f.m, N = f.n, K = k_per_instruction(kind);
  const int lane0 = static_cast<int>(d_tmem >> 16), col0 = static_cast<int>(d_tmem & 0xFFFF);
  if (!(lane0 == 0 || (M == 64 && lane0 == 16)))
    throw ModelError(issue, Rule::mma_lane_offset, "d-tmem lane", std::to_string(lane0),
                     M == 128 ? "M = 128 uses Layout D, which starts at lane 0."
                              : "M = 64 uses Layout F, which starts at lane 0 or 16.");
  if (a_tmem && f.a_mn_major)
    throw ModelError(issue, Rule::ts_a_major, "idesc.a_major", "MN", "A comes from Tensor Memory ([a-tmem]).");

  // The operands, decoded once per instruction into reused buffers: A as
  // M × K, B straight into K × N (the layout the loop nest wants).
  const MmaShape now{d_tmem, M, N, kind};
  mma_a_.resize(static_cast<std::size_t>(M) * K);
  mma_bt_.resize(static_cast<std::size_t>(K) * N);
  if (a_tmem) read_a_tmem(issue, t, *a_tmem, now, K, f.a, mma_a_.data());
  else fetch_smem(issue, "a-desc", a_desc, M, K, f.a, f.a_mn_major, mma_a_.data(), K, 1);
  fetch_smem(issue, "b-desc", b_desc, N, K, f.b, f.b_mn_major, mma_bt_.data(), 1, N);

  for (int n = 0; n < N; ++n)
    if (!tmem_.live(col0 + n)) check_column(issue, col0 + n, col0, col0 + N - 1);

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
  for (int m = 0; m < M; ++m) {
    const int lane = datapath_lane(M, m, lane0);
    if (m > 0 && tmem_.same_ids(datapath_lane(M, m - 1, lane0), lane, col0, N)) continue;
    tmem_.for_each_run(lane, col0, N, [&](int column, int count, std::uint32_t writer, std::uint32_t reader) {
      check_run(lane, column, count, writer, reader);
    });
  }
  // Strict mode: D cells that an earlier mma read as its TS A operand.
  if (config_.strict_mma_pipelining) {
    std::uint32_t passed = 0;  // the last reader checked (most D rows share one)
    for (int m = 0; m < M; ++m) {
      const int lane = datapath_lane(M, m, lane0);
      for (int n = 0; n < N; ++n) {
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
  // fp32 sum rounded back to it.
  const float sign = f.negate_a != f.negate_b ? -1.0f : 1.0f;
  const bool in_place = f.d == ElementType::f32;
  mma_rows_.resize(static_cast<std::size_t>(M));
  if (!in_place) mma_d_.assign(static_cast<std::size_t>(M) * N, 0.0f);
  for (int m = 0; m < M; ++m) {
    const int lane = datapath_lane(M, m, lane0);
    if (in_place) {
      mma_rows_[m] = tmem_.value_row(lane) + col0;
      continue;
    }
    mma_rows_[m] = mma_d_.data() + static_cast<std::size_t>(m) * N;
    if (enable_input_d)
      for (int n = 0; n < N; ++n) mma_rows_[m][n] = decode(f.d, tmem_.value(lane, col0 + n));
  }
  detail::mma_rows(mma_a_.data(), mma_bt_.data(), M, N, K, mma_rows_.data(), enable_input_d, sign);

  const std::uint32_t id = issue_op(OpKind::mma, issuer, t.warp, t.lane, issue.instruction, 0, now);
  const int a_col0 = a_tmem ? static_cast<int>(*a_tmem & 0xFFFF) : 0, a_columns = K * bits(f.a) / 32;
  for (int m = 0; m < M; ++m) {
    const int lane = datapath_lane(M, m, lane0);
    tmem_.set_writers(lane, col0, N, id);
    if (!in_place)
      for (int n = 0; n < N; ++n) tmem_.set_value(lane, col0 + n, encode(f.d, mma_rows_[m][n]));
    // The cells of A, remembered only in strict mode (the default orders any two mma of one thread).
    if (a_tmem && config_.strict_mma_pipelining) tmem_.set_mma_readers(lane, a_col0, a_columns, id);
  }
}

}  // namespace tcgen::model
