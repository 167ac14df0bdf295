#pragma once
// The sparsity metadata of tcgen05.mma.sp (PTX #tcgen05-sparse-matrices):
// A keeps half of each row's K values, and a 4-bit metadata entry per chunk
// of a row says where in the chunk its kept values came from. This file is
// the arithmetic of it, apart from Tensor Memory's rules (cta_mma_sparse.cpp):
// the chunk of each kind, the entries PTX gives a meaning, where row m's
// entries lie in Tensor Memory, and the decompression of a row.
#include <cstdint>
#include <string>

#include "tcgen/model/mma_types.hpp"

namespace tcgen::model {

// The K values one metadata entry covers (PTX #tcgen05-sparse-matrices,
// "Sparse Granularity"): 2 for kind::tf32 (1:2), 4 for kind::f16, f8f6f4,
// mxf8f6f4 and i8 (2:4), 8 for kind::mxf4 and mxf4nvf4 (4:8, in pairs).
int sparse_chunk(MmaKind kind);

// Whether PTX gives the entry a meaning for the kind: two 2-bit indices,
// the first in bits 0-1, of the 4-wide chunk's kept positions (of its
// two-wide sub-chunks for the 4-bit kinds, of its 16-bit halves for tf32):
// 0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110, 0b1110; for tf32 only
// 0b0100 and 0b1110. "Rest of the values result in undefined behavior"
// (#tcgen05-sparse-matrices-kind-tf32, -kind-f16-f8f8f4-mxf8f6f4, -kind-mxf4).
bool meaningful_metadata(MmaKind kind, unsigned entry);

// Those values, for messages: "0b0100 or 0b1110".
std::string meaningful_metadata_values(MmaKind kind);

// Where entry j of row m of one CTA's 128 rows of A lies: lanes from
// [sp-meta-tmem]'s, columns from its column plus the sparsity selector, and
// the entry's first bit in that cell.
struct MetadataPlace {
  int lane, column, bit;
};

// The layouts of the whole datapath (M = 128, and each CTA's 128 rows of
// M = 256; PTX #tcgen05-sparse-matrices-sparsity-selector-kind-f16-m128-256,
// -kind-tf32-m128-256, -kind-f8f6f4-mxf8f6f4-m128-256, drawn only in
// Figures 263, 265 and 267). The positions are those of CUTLASS's
// UMMA::tmem_e_frg and of JAX's format_tcgen05_sparse_metadata, which agree
// for kind::f16 (UNCONFIRMED against the figures):
//  - kind::f16 and tf32 (8 entries a row, 32 bits): one column; rows m and
//    m + 8 of each 16 share a lane, m's entries in bits 0-15 and m + 8's in
//    bits 16-31; entries 0-3 in lane (m & ~8), entries 4-7 in lane (m | 8).
//  - the 8- and 4-bit kinds (16 entries, 64 bits): row m in lane m, entry j
//    in column j / 8, bits 4 (j % 8).
MetadataPlace metadata_place(MmaKind kind, int row, int entry);

// The columns one instruction's metadata spans from its first: 1 for
// kind::f16 and tf32, 2 for the others.
int metadata_columns(MmaKind kind);

// Row `kept` (k_per_instruction(kind) values, the stored half) spread over
// `dense` (k_per_instruction(kind, true) values) by the row's metadata
// entries, entries[j] for chunk j: each kept value at the position its
// entry names, zero elsewhere. "The metadata specifies the mapping of the
// K/2 non-zero elements to the K elements before performing the MMA
// operation" (PTX #tcgen05-sparse-matrices). An entry PTX gives no meaning
// still places each value by its two indices: the model reaches that only for
// chunks whose kept values are zero, where any placement gives zeros.
void decompress_row(MmaKind kind, const float* kept, const std::uint8_t* entries, float* dense);

}  // namespace tcgen::model
