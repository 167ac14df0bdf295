// tcgen05.mma.sp (PTX #tcgen05-mma-instructions-mma-sp, #tcgen05-sparse-matrices):
// the MMA reads A as stored (half of each row's K values) like any other, then
// spreads each row over the instruction's K by the sparsity metadata that
// [sp-meta-tmem] and the idesc's selector name in Tensor Memory; the dense
// product follows. This file holds the Tensor Memory side of that step and its
// rules; where the entries lie and what they mean is sparse_metadata.cpp.
#include <algorithm>
#include <string>

#include "tcgen/core/hex.hpp"
#include "tcgen/model/cta.hpp"
#include "tcgen/model/sparse_metadata.hpp"

namespace tcgen::model {

namespace {

std::string binary4(unsigned v) {
  std::string s = "0b";
  for (int b = 3; b >= 0; --b) s += (v >> b & 1) ? '1' : '0';
  return s;
}

// The PTX section of the kind's sparsity pattern.
const char* granularity_anchor(MmaKind kind) {
  if (kind == MmaKind::tf32) return "#tcgen05-sparse-matrices-kind-tf32";
  if (packs_fp4(kind)) return "#tcgen05-sparse-matrices-kind-mxf4";
  return "#tcgen05-sparse-matrices-kind-f16-f8f8f4-mxf8f6f4";
}

}  // namespace

void Cta::check_sparse_form(const Issue& issue, const InstrDescriptorFields& f, const MmaVariant& variant,
                            CtaGroup group) {
  const bool spelled_sparse = variant.sp_meta_tmem.has_value();
  if (f.sparse != spelled_sparse)
    raise(ModelError(issue, Rule::idesc_invalid, "idesc.sparse", f.sparse ? "1" : "0",
                     spelled_sparse ? "tcgen05.mma.sp multiplies a sparse A: the idesc's sparsity bit 2 must be 1 "
                                      "(PTX #tcgen05-instruction-descriptor Table 42)."
                                    : "a sparse A needs tcgen05.mma.sp, whose [sp-meta-tmem] names its metadata; "
                                      "tcgen05.mma's idesc has sparsity bit 2 = 0 "
                                      "(PTX #tcgen05-mma-instructions-mma-sp)."));
  if (!f.sparse) return;
  // The metadata layouts of the half-datapath (Layouts F and C) and .ws's
  // narrow shapes (Layouts E and G) are drawn only in PTX's figures 262,
  // 264 and 266, which the model has not been able to read.
  const char* layout = group == CtaGroup::two ? (f.m == 128 ? "C" : nullptr)
                       : variant.ws           ? (f.m == 64 ? "E" : f.m == 32 ? "G" : nullptr)
                                              : (f.m == 64 ? "F" : nullptr);
  if (layout)
    raise(ModelError(issue, Rule::unsupported, "idesc.m", std::to_string(f.m),
                     std::string("where the sparsity metadata of M = ") + std::to_string(f.m) + " (Layout " + layout +
                         ") lies in Tensor Memory is drawn only in PTX figures "
                         "(#tcgen05-sparse-matrices-sparsity-selector-kind-f16-m64 and its tf32 and 8-bit kin, "
                         "UNCONFIRMED); the model runs sparse M = 128 and 256."));
}

void Cta::decompress_a(const Issue& issue, int warp, int issuer, const InstrDescriptorFields& f, std::uint32_t sp_meta,
                       const MmaShape& now, int rows, const float* kept, float* dense) {
  const MmaKind kind = f.kind;
  const int lane0 = static_cast<int>(sp_meta >> 16);
  if (lane0 != 0)
    raise(ModelError(issue, Rule::sparse_metadata_lane, "sp-meta-tmem lane", std::to_string(lane0),
                     "M = " + std::to_string(f.m) + " uses all 128 lanes of the datapath (Layout " +
                         (f.m == 256 ? "A" : "D") + "), so its metadata starts at lane 0 as D does (the address is " +
                         hex(sp_meta) + ")."));
  // The selector picks the sub-column: kind::f16 and tf32 read one column of
  // the metadata, the others all of theirs with selector 0
  // (#tcgen05-sparse-matrices-sparsity-selector). That it counts columns from
  // [sp-meta-tmem] is how CUTLASS (the odd column of its address moved to the
  // selector) and JAX (selector = K step % 2, the address stepping by 2)
  // address it (UNCONFIRMED against PTX's figures).
  const int col0 = static_cast<int>(sp_meta & 0xFFFF) + f.sparse_selector;
  const int last = col0 + metadata_columns(kind) - 1;
  const std::string why = ", and the MMA reads sparsity metadata from it through [sp-meta-tmem] " + hex(sp_meta);
  for (int column = col0; column <= last; ++column) {
    check_column(issue, column, col0, last);
    for (int lane = 0; lane < rows; ++lane) {
      check_order(issue, Touch::mma_read, warp, issuer, lane, column, &now);
      check_written(issue, lane, column, why.c_str());
    }
  }
  const int stored_k = k_per_instruction(kind), K = k_per_instruction(kind, true), entries = K / sparse_chunk(kind);
  const int kept_per_chunk = sparse_chunk(kind) / 2;
  mma_sp_entries_.resize(static_cast<std::size_t>(entries));
  bool zero_chunk_counted = false;  // the letter below, counted once an instruction
  for (int m = 0; m < rows; ++m) {
    for (int j = 0; j < entries; ++j) {
      const MetadataPlace p = metadata_place(kind, m, j);
      const unsigned entry = tmem_.value(p.lane, col0 + p.column) >> p.bit & 0xF;
      mma_sp_entries_[static_cast<std::size_t>(j)] = static_cast<std::uint8_t>(entry);
      if (meaningful_metadata(kind, entry)) continue;
      // A chunk whose kept values are all zero adds nothing wherever its entry puts them: CUTLASS's
      // compressor writes 0b0000 for a chunk of four zeros, and its sparse GEMM (83_blackwell_sparse_gemm)
      // passes its own check on B200s. Otherwise the product depends on what PTX leaves undefined.
      const float* chunk = kept + static_cast<std::size_t>(m) * stored_k + j * kept_per_chunk;
      const bool zeros = std::all_of(chunk, chunk + kept_per_chunk, [](float v) { return v == 0.0f; });
      if (zeros && zero_chunk_counted) continue;
      zero_chunk_counted = zero_chunk_counted || zeros;
      raise(ModelError(issue, zeros ? Rule::sparse_metadata_zero_chunk : Rule::sparse_metadata_value,
                       "sp-meta entry of row " + std::to_string(m) + ", K chunk " + std::to_string(j), binary4(entry),
                       "it lies in lane " + std::to_string(p.lane) + ", column " + std::to_string(col0 + p.column) +
                           ", bits " + std::to_string(p.bit) + "-" + std::to_string(p.bit + 3) + "; kind::" +
                           name(kind) + " gives meaning to " + meaningful_metadata_values(kind) + " only (PTX " +
                           granularity_anchor(kind) + ")" +
                           (zeros ? "; the chunk's kept values are zero, so it adds nothing wherever they go."
                                  : ", and the chunk keeps nonzero values.")));
    }
    decompress_row(kind, kept + static_cast<std::size_t>(m) * stored_k, mma_sp_entries_.data(),
                   dense + static_cast<std::size_t>(m) * K);
  }
}

}  // namespace tcgen::model
