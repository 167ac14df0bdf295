// Operand provenance at each tcgen05.mma (Rule::operand_not_a_tile): where
// the 16-byte chunks an SS operand's descriptor reads came from in global
// memory, held against a tile of one tensor. Legal descriptors that read the
// wrong bytes (LBO and SBO swapped, a swizzle other than the TMA box's, the
// other major-ness, a K block read twice) compute garbage on a B200 without
// a fault; here they are named at the MMA.
#include <string>
#include <vector>

#include "operand_fetch_into.hpp"
#include "tcgen/core/hex.hpp"
#include "tcgen/model/cta.hpp"
#include "tcgen/model/operand_fetch.hpp"
#include "tcgen/model/smem_descriptor_decode.hpp"

namespace tcgen::model {

namespace {

// The chunk addresses an operand's descriptor reads, in the walk's order (K-major: row r, chunk c
// at r·C + c; MN-major: K row kk, chunk j at kk·J + j), or none where the descriptor does not decode
// or reads outside the image.
std::vector<std::uint32_t> chunks_of(const SharedMemory& smem, std::uint64_t desc, int rows, int k, ElementType type,
                                     bool mn_major, Fp4Storage fp4) {
  std::vector<std::uint32_t> chunks;
  std::vector<float> scratch(static_cast<std::size_t>(rows) * static_cast<std::size_t>(k));
  try {
    detail::fetch_operand_into(smem.image(), smem.base(), desc, rows, k, type, mn_major, fp4, scratch.data(), k, 1,
                               &chunks);
  } catch (const Error&) {
    chunks.clear();
  }
  return chunks;
}

// Where each chunk came from (0: unknown).
std::vector<std::uint64_t> origins_of(const SharedMemory& smem, const std::vector<std::uint32_t>& chunks) {
  std::vector<std::uint64_t> o;
  for (std::uint32_t c : chunks) o.push_back(smem.origin(c));
  return o;
}

// A line of the operand (a row of a K-major one, a K row of an MN-major one) is `per` chunks that a
// tile of one tensor holds contiguously in global memory, `step` bytes of it each (16; 8 for 4-bit
// values padded to a byte in shared memory, 12 for 6-bit ones). Rows may come from anywhere (a
// gather, as sparse attention's); within a row, chunk p must lie step·p bytes past chunk 0's source. The first
// chunk (its index) whose known source breaks that, with the known chunk it is held against; -1 when
// none does. Chunks of unknown source (computed values, never written) are not judged.
struct Misfit {
  long index = -1, against = -1;
};
Misfit first_misfit(const std::vector<std::uint64_t>& o, std::size_t per, std::int64_t step) {
  if (per < 2) return {};
  for (std::size_t line = 0; line + per <= o.size(); line += per) {
    long first = -1;
    for (std::size_t p = 0; p < per; ++p) {
      const std::uint64_t g = o[line + p];
      if (g == 0) continue;
      if (first < 0) {
        first = static_cast<long>(line + p);
        continue;
      }
      const std::int64_t want = step * (static_cast<std::int64_t>(line + p) - first);
      if (static_cast<std::int64_t>(g - o[static_cast<std::size_t>(first)]) != want)
        return {static_cast<long>(line + p), first};
    }
  }
  return {};
}

// Whether the chunks make a tile of one tensor: line i, chunk p from o0 + i·stride + step·p. Nine in
// ten must be of known source (a value two of a thread's recent loads brought is of unknown source),
// and every known one must fit. What a diagnosis must show of the reading it proposes.
bool is_tile(const std::vector<std::uint64_t>& o, std::size_t per, std::int64_t step) {
  if (o.empty() || per == 0 || o.size() % per != 0) return false;
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < o.size(); ++i)
    if (o[i]) at.push_back(i);
  if (at.size() * 10 < o.size() * 9) return false;
  const std::size_t first = at.front();
  const auto line = [&](std::size_t i) { return static_cast<std::int64_t>(i / per); };
  const auto pos = [&](std::size_t i) { return static_cast<std::int64_t>(i % per); };
  std::int64_t stride = 0;
  for (std::size_t i : at)
    if (line(i) != line(first)) {
      const std::int64_t rest = static_cast<std::int64_t>(o[i] - o[first]) - step * (pos(i) - pos(first));
      if (rest % (line(i) - line(first)) != 0) return false;
      stride = rest / (line(i) - line(first));
      break;
    }
  for (std::size_t i : at)
    if (static_cast<std::int64_t>(o[i] - o[first]) != (line(i) - line(first)) * stride + step * (pos(i) - pos(first)))
      return false;
  return true;
}

// "A(3, 16)": the element at the start of chunk i of an operand read `per` chunks a line (a row of a
// K-major operand, a K row of an MN-major one), `elements` a chunk, its rows counted from row0.
std::string element_name(const char* name, long i, std::size_t per, std::int64_t elements, bool mn_major,
                         std::size_t row0 = 0) {
  const std::size_t line = static_cast<std::size_t>(i) / per + (mn_major ? 0 : row0);
  const std::size_t chunk = static_cast<std::size_t>(i) % per;
  const std::size_t along = chunk * static_cast<std::size_t>(elements) + (mn_major ? row0 : 0);
  const std::size_t first = mn_major ? along : line, second = mn_major ? line : along;
  return std::string(name) + "(" + std::to_string(first) + ", " + std::to_string(second) + ")";
}

std::uint64_t with_field(std::uint64_t desc, int shift, int width, std::uint64_t value) {
  const std::uint64_t mask = ((1ull << width) - 1) << shift;
  return (desc & ~mask) | ((value << shift) & mask);
}

}  // namespace

void Cta::check_tile(const Issue& issue, const char* which, std::uint64_t desc, int rows, int k, ElementType type,
                     bool mn_major, Fp4Storage fp4, const std::vector<std::uint64_t>& o) {
  if (o.empty()) return;
  // Chunks per line: a row's along K (K-major), a K row's along M/N (MN-major).
  const std::size_t per = o.size() / static_cast<std::size_t>(mn_major ? k : rows);
  // Global bytes behind a 16-byte chunk: its elements' bits (T elements of `type` a chunk).
  const std::int64_t elements = static_cast<std::int64_t>(mn_major ? rows : k) / static_cast<std::int64_t>(per);
  const std::int64_t step = elements * bits(type) / 8;
  const Misfit bad = first_misfit(o, per, step);
  if (bad.index < 0) return;
  // Which legal descriptor would have read rows of one tensor: the diagnosis.
  const SmemDescriptorFields f = decode_smem_descriptor(desc);
  struct Alternative {
    std::uint64_t desc;
    bool mn_major;
    std::string says;
  };
  std::vector<Alternative> alternatives = {
      {with_field(with_field(desc, 16, 14, f.sbo >> 4), 32, 14, f.lbo >> 4), mn_major,
       "LBO and SBO are swapped: an LBO of " + std::to_string(f.sbo) + " and SBO of " + std::to_string(f.lbo) +
           " would read the tile"},
      {desc, !mn_major,
       std::string("the operand is ") + (mn_major ? "K" : "MN") + "-major in shared memory where the instruction " +
           "descriptor says " + (mn_major ? "MN" : "K") + "-major (its transpose bit)"}};
  for (int layout : {0, 6, 4, 2})
    if (layout != f.layout_type)
      alternatives.push_back({with_field(desc, 61, 3, static_cast<std::uint64_t>(layout)), mn_major,
                              "the descriptor's swizzle (layout type " + std::to_string(f.layout_type) +
                                  ") is not the one the data was written with: layout type " + std::to_string(layout) +
                                  " would read the tile"});
  std::string diagnosis = "no other LBO/SBO, swizzle or major-ness reads whole rows of one tensor either";
  for (const Alternative& a : alternatives) {
    const std::vector<std::uint32_t> c = chunks_of(smem_, a.desc, rows, k, type, a.mn_major, fp4);
    if (c.size() != o.size()) continue;
    if (is_tile(origins_of(smem_, c), c.size() / static_cast<std::size_t>(a.mn_major ? k : rows), step)) {
      diagnosis = a.says;
      break;
    }
  }
  const char* name = which[0] == 'a' ? "A" : "B";
  const std::int64_t got = static_cast<std::int64_t>(o[static_cast<std::size_t>(bad.index)] - o[static_cast<std::size_t>(bad.against)]);
  raise(ModelError(issue, Rule::operand_not_a_tile, which, hex(desc),
                   element_name(name, bad.index, per, elements, mn_major) + " was loaded from " + std::to_string(got) +
                       " bytes past the source of " + element_name(name, bad.against, per, elements, mn_major) +
                       ", where a row of one tensor holds it " +
                       std::to_string(step * (bad.index - bad.against)) + " bytes past it (each " + (mn_major ? "K row" : "row") +
                       "'s elements are contiguous in the tensor): " + diagnosis + "."));
}

namespace {

// The first chunk (its index) whose known source an earlier MMA read too; -1 when none.
long first_seen(const SourceSet& seen, const std::vector<std::uint64_t>& o) {
  for (std::size_t i = 0; i < o.size(); ++i)
    if (o[i] != 0 && seen.contains(o[i])) return static_cast<long>(i);
  return -1;
}

// The bytes one K block (`per` chunks a row) takes along a K-major operand's rows, where the next
// starts (PTX #tcgen05-shared-memory-descriptor's canonical layouts): without swizzle its chunks are
// core matrices LBO apart; swizzled, they lie along the atom's row while it lasts (the next atom's
// place is not in the descriptor: 0, unknown).
std::int64_t k_block_bytes(std::uint64_t previous, std::size_t per) {
  const SmemDescriptorFields d = decode_smem_descriptor(previous);
  if (d.layout_type == 0) return static_cast<std::int64_t>(per) * d.lbo;
  const std::uint32_t width = d.layout_type == 6 ? 32 : d.layout_type == 4 ? 64 : 128;  // the atom row's bytes
  const std::uint32_t along = static_cast<std::uint32_t>(per) * 16;
  return d.start_address % width + along < width ? along : 0;
}

// How far an operand's descriptor moved from the previous MMA's, against the K step it should take:
// k_block_bytes of a K-major operand (the encoded start address counts 16-byte units), K rows of an
// MN-major one. Empty when it moved by exactly the K step.
std::string step_taken(const char* which, std::uint64_t desc, std::uint64_t previous, int k, ElementType type,
                       bool mn_major, std::size_t chunks_per_row) {
  const std::int64_t moved =
      (static_cast<std::int64_t>(desc & 0x3FFF) - static_cast<std::int64_t>(previous & 0x3FFF)) * 16;
  const std::int64_t step = mn_major ? 0 : k_block_bytes(previous, chunks_per_row);
  if (step != 0 && moved == step) return "";
  std::string s = std::string(which) + "'s start address advanced " + std::to_string(moved) + " bytes (encoded " +
                  std::to_string(moved / 16) + ") from the previous MMA's";
  if (mn_major)
    return s + ", where a K step of " + std::to_string(k) + " is " + std::to_string(k) + " K rows of the MN-major operand";
  if (step == 0) return s;
  return s + ", where a K step of " + std::to_string(k) + " " + name(type) + " elements is " + std::to_string(step) +
         " bytes (encoded " + std::to_string(step / 16) + ")";
}

}  // namespace

void Cta::check_tmem_tile(const Issue& issue, std::uint32_t a_tmem, int rows, ElementType type) {
  const std::vector<std::uint64_t>& o = operand_origins_;
  const std::size_t per = o.size() / static_cast<std::size_t>(rows);  // cells a row, 4 bytes of the tensor each
  const Misfit bad = first_misfit(o, per, 4);
  if (bad.index < 0) return;
  const std::int64_t elements = 32 / bits(type);
  const std::int64_t got =
      static_cast<std::int64_t>(o[static_cast<std::size_t>(bad.index)] - o[static_cast<std::size_t>(bad.against)]);
  const bool stored = operand_stored_[static_cast<std::size_t>(bad.index)];
  raise(ModelError(issue, Rule::operand_not_a_tile, "a-tmem", hex(a_tmem),
                   element_name("A", bad.index, per, elements, false) +
                       (stored ? " was stored (tcgen05.st) from " : " was copied (tcgen05.cp) from ") +
                       std::to_string(got) + " bytes past the source of " +
                       element_name("A", bad.against, per, elements, false) + ", where a row of one tensor holds it " +
                       std::to_string(4 * (bad.index - bad.against)) + " bytes past it (each row's elements are "
                       "contiguous in the tensor): " +
                       (stored ? "the tcgen05.st put registers in other columns than their elements' (the order of "
                                 "its registers, or the columns its address names)."
                               : "the tcgen05.cp's descriptor read shared memory in another layout than it was "
                                 "written in (its LBO and SBO, or its swizzle).")));
}

void Cta::check_k_block(const Issue& issue, std::uint32_t d_tmem, bool enable_input_d, std::uint64_t a_desc,
                        std::uint64_t b_desc, const InstrDescriptorFields& f, CtaGroup group,
                        std::array<int, 2> rows) {
  Accumulation& seen = accumulations_[d_tmem];
  if (!enable_input_d) {  // a new accumulation starts
    seen.firsts.clear();
    seen.a.clear();
    seen.b.clear();
  }
  const std::vector<std::uint64_t>&a = mma_a_origins_, &b = mma_b_origins_;
  if (a.empty() || b.empty()) return;  // A from Tensor Memory (attention's P of P·V): not judged
  const std::uint64_t a0 = a.front(), b0 = b.front();
  const bool repeat = a0 != 0 && b0 != 0 && !seen.firsts.insert({a0, b0}).second;
  if (repeat)
    raise(ModelError(issue, Rule::k_block_read_twice, "d-tmem", hex(d_tmem),
                     "this MMA's A and B come from the same places in global memory as an earlier MMA of the same "
                     "accumulation (A(0, 0) from " + hex(a0) + ", B(0, 0) from " + hex(b0) + "): a K block added "
                     "twice. A K step that does not advance the descriptors, or a stage read again before its next "
                     "TMA landed, does that."));
  // Not the same K block, yet part of one already added: the K step moved the descriptors by the
  // wrong count, reading rows shifted or K columns read again.
  const long a_seen = repeat ? -1 : first_seen(seen.a, a), b_seen = a_seen < 0 ? -1 : first_seen(seen.b, b);
  if (b_seen >= 0) {
    const int ka = k_per_instruction(f.kind), kb = k_per_instruction(f.kind, f.sparse);
    const std::size_t ctas = group == CtaGroup::two ? 2 : 1;
    // A pair's operand lists each CTA's share in turn: rows / ctas rows (lines, or columns of K rows) each.
    const auto element = [&](const char* name, const std::vector<std::uint64_t>& o, long i, bool mn_major, int k,
                             int rows_total) {
      const std::size_t share = o.size() / ctas, share_rows = static_cast<std::size_t>(rows_total) / ctas;
      const std::size_t per = share / (mn_major ? static_cast<std::size_t>(k) : share_rows);
      const std::int64_t elements = static_cast<std::int64_t>(mn_major ? share_rows : static_cast<std::size_t>(k)) /
                                    static_cast<std::int64_t>(per);
      return element_name(name, i % static_cast<long>(share), per, elements, mn_major,
                          static_cast<std::size_t>(i) / share * share_rows);
    };
    const std::size_t a_per = a.size() / static_cast<std::size_t>(rows[0]),
                      b_per = b.size() / static_cast<std::size_t>(rows[1]);  // chunks a row (K-major)
    std::string steps;
    for (const std::string& s : {a_desc == 0 ? std::string()  // A from Tensor Memory
                                             : step_taken("a-desc", a_desc, seen.a_desc, ka, f.a, f.a_mn_major, a_per),
                                 step_taken("b-desc", b_desc, seen.b_desc, kb, f.b, f.b_mn_major, b_per)})
      if (!s.empty()) steps += (steps.empty() ? "" : "; ") + s;
    raise(ModelError(issue, Rule::k_block_read_twice, "d-tmem", hex(d_tmem),
                     "this MMA reads " + element("A", a, a_seen, f.a_mn_major, ka, rows[0]) + " and " +
                         element("B", b, b_seen, f.b_mn_major, kb, rows[1]) +
                         " from where an earlier MMA of the same accumulation read some of its A and B: part of a K "
                         "block added twice. " +
                         (steps.empty() ? std::string("Both descriptors advanced one K step from the previous MMA's; "
                                                      "what shared memory holds there was read before.")
                                        : "The step taken: " + steps + ".")));
  }
  for (std::uint64_t g : a)
    if (g != 0) seen.a.insert(g);
  for (std::uint64_t g : b)
    if (g != 0) seen.b.insert(g);
  seen.a_desc = a_desc;
  seen.b_desc = b_desc;
}

}  // namespace tcgen::model
