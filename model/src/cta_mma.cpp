// tcgen05.mma, SS and TS forms, cta_group::1, dense (PTX
// #tcgen05-mma-instructions-mma). Operands come from the arithmetic half
// (descriptor and idesc decoding, operand fetch, exact products); this file
// places them: A from Tensor Memory for TS, D by Layout D or F, and the rules.
#include <string>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/cta.hpp"
#include "tcgen/model/datapath.hpp"
#include "tcgen/model/idesc_decode.hpp"
#include "tcgen/model/mma_math.hpp"
#include "tcgen/model/operand_fetch.hpp"
#include "tcgen/model/smem_descriptor_decode.hpp"
#include "hex.hpp"

namespace tcgen::model {

void Cta::mma_ss(Thread t, MmaKind kind, std::uint32_t d_tmem, std::uint64_t a_desc, std::uint64_t b_desc,
                 std::uint32_t idesc, bool enable_input_d, CtaGroup group) {
  mma(t, kind, d_tmem, std::nullopt, a_desc, b_desc, idesc, enable_input_d, group);
}

void Cta::mma_ts(Thread t, MmaKind kind, std::uint32_t d_tmem, std::uint32_t a_tmem, std::uint64_t b_desc,
                 std::uint32_t idesc, bool enable_input_d, CtaGroup group) {
  mma(t, kind, d_tmem, a_tmem, 0, b_desc, idesc, enable_input_d, group);
}

Operand Cta::fetch_smem(const Issue& issue, const char* which, std::uint64_t desc, int rows, int k, ElementType type,
                        bool mn_major) {
  const std::string w = which;
  try {
    decode_smem_descriptor(desc);
  } catch (const Error& e) {
    throw ModelError(issue, Rule::descriptor_invalid, w + "." + e.field(), e.value(),
                     "decoding " + w + " " + hex(desc) + " failed: " + e.what() + ".");
  }
  std::vector<std::uint32_t> chunks;
  Operand op;
  try {
    op = fetch_operand(smem_.image(), smem_.base(), desc, rows, k, type, mn_major, &chunks);
  } catch (const Error& e) {
    if (e.field() != "address")
      throw ModelError(issue, Rule::descriptor_invalid, w + "." + e.field(), e.value(),
                       "reading the operand of " + w + " " + hex(desc) + " failed: " + e.what() + ".");
    throw ModelError(issue, Rule::smem_outside_image, "address", e.value(),
                     "the operand of " + w + " " + hex(desc) + " reaches outside the shared memory image [" +
                         hex(smem_.base()) + ", " + hex(smem_.base() + smem_.size()) + ").");
  }
  check_proxy(issue, chunks);
  return op;
}

Operand Cta::read_a_tmem(const Issue& issue, Thread t, std::uint32_t a_tmem, std::uint32_t d_tmem, int rows, int k,
                         ElementType type) {
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
  Operand a;
  a.rows = rows;
  a.k = k;
  a.values.resize(static_cast<std::size_t>(rows) * k);
  for (int m = 0; m < rows; ++m) {
    const int lane = datapath_lane(rows, m, lane0);
    for (int kk = 0; kk < k; ++kk) {
      const PackedPosition p = a_tmem_position(element_bits, kk);
      check_order(issue, Touch::mma_read, t.warp, issuer_thread(t.warp, t.lane), lane, col0 + p.column);
      check_written(issue, lane, col0 + p.column, ", and the MMA reads A from it");
      a.values[static_cast<std::size_t>(m) * k + kk] =
          decode(type, (tmem_.cell(lane, col0 + p.column).value >> p.shift) & mask);
    }
  }
  return a;
}

void Cta::mma(Thread t, MmaKind kind, std::uint32_t d_tmem, std::optional<std::uint32_t> a_tmem,
              std::uint64_t a_desc, std::uint64_t b_desc, std::uint32_t idesc, bool enable_input_d, CtaGroup group) {
  const Issue issue{"tcgen05.mma.cta_group::" + std::to_string(static_cast<int>(group)) + ".kind::" + name(kind) +
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

  const Operand a = a_tmem ? read_a_tmem(issue, t, *a_tmem, d_tmem, M, K, f.a)
                           : fetch_smem(issue, "a-desc", a_desc, M, K, f.a, f.a_mn_major);
  const Operand b = fetch_smem(issue, "b-desc", b_desc, N, K, f.b, f.b_mn_major);

  for (int n = 0; n < N; ++n) check_column(issue, col0 + n, col0, col0 + N - 1);
  const int issuer = issuer_thread(t.warp, t.lane);
  std::vector<float> d(static_cast<std::size_t>(M) * N, 0.0f);
  // Cells with the same writer and reader pass the same checks: D is
  // usually one earlier MMA's, so this checks each distinct pair once.
  std::uint32_t checked_writer = 0, checked_reader = 0;
  for (int m = 0; m < M; ++m) {
    const int lane = datapath_lane(M, m, lane0);
    for (int n = 0; n < N; ++n) {
      const TmemCell& c = tmem_.cell(lane, col0 + n);
      if (c.writer != checked_writer || c.reader != checked_reader) {
        check_order(issue, Touch::mma_write, t.warp, issuer, lane, col0 + n);
        checked_writer = c.writer;
        checked_reader = c.reader;
      }
      if (!enable_input_d) continue;
      if (c.writer == 0)
        check_written(issue, lane, col0 + n,
                      ", and enable-input-d is true, so the MMA adds to it (the first MMA of a chain clears D with "
                      "enable-input-d = false)");
      d[static_cast<std::size_t>(m) * N + n] = decode(f.d, c.value);
    }
  }
  mma_accumulate(a, b, d.data(), enable_input_d, f.negate_a, f.negate_b);
  // f16 D is not packed: one value in the low 16 bits of a cell (PTX
  // #tcgen05-packing-formats-mat-d); the model rounds the fp32 sum to it.
  const std::uint32_t id = issue_op(OpKind::mma, issuer, t.warp, t.lane, issue.instruction, 0);
  for (int m = 0; m < M; ++m) {
    const int lane = datapath_lane(M, m, lane0);
    for (int n = 0; n < N; ++n) {
      TmemCell& c = tmem_.cell(lane, col0 + n);
      c.value = encode(f.d, d[static_cast<std::size_t>(m) * N + n]);
      c.writer = id;
    }
  }
}

}  // namespace tcgen::model
