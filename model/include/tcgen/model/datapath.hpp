#pragma once
// Where the MMA's Tensor Memory operands live, for cta_group::1: rows of D
// (and of A for TS-MMA) → lanes, elements of A → cells.
//
// Written for the model from tcgen05-facts.md §4 (Layouts D, E, F and G, PTX
// #tcgen05-data-path-layout-organization) and tcgen05-facts-2.md §1.2 (A in
// TMEM), without the layout library, so the two can be compared.
namespace tcgen::model {

// Lane of row m of an M-row D (or A) whose address has lane `lane0`:
// Layout D (M = 128, lane0 = 0) puts row m in lane m; Layout F (M = 64,
// lane0 = 0 or 16) uses 16 lanes of each 32-lane quarter.
constexpr int datapath_lane(int rows, int m, int lane0) {
  return rows == 128 ? lane0 + m : lane0 + 32 * (m / 16) + m % 16;
}

// The .ws layouts fold D's columns into 128 / M segments of N·M/128 columns
// each: segment s of row m, D[m][s·W .. s·W + W) with W = N·M/128, lies in
// lane m + M·s, columns from d-tmem's on. Layout E (M = 64) has two
// segments, Layout G (M = 32) four; M = 128 is Layout D, one segment.
constexpr int ws_segments(int rows) { return 128 / rows; }
constexpr int ws_lane(int rows, int m, int segment) { return m + rows * segment; }

// A[m][k] of TS-MMA: K-major along the columns, packed little-endian. A cell
// holds 32/bits elements; element k sits in column k/(32/bits), bits
// [bits·(k%(32/bits)), +bits) (tcgen05-facts-2.md §1.2, PTX #tcgen05-packing-formats).
struct PackedPosition {
  int column, shift;
};
constexpr PackedPosition a_tmem_position(int element_bits, int k) {
  const int per_cell = 32 / element_bits;
  return {k / per_cell, element_bits * (k % per_cell)};
}

}  // namespace tcgen::model
