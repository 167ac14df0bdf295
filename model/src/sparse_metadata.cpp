#include "tcgen/model/sparse_metadata.hpp"

#include <algorithm>

namespace tcgen::model {

int sparse_chunk(MmaKind kind) {
  switch (kind) {
    case MmaKind::tf32: return 2;
    case MmaKind::mxf4:
    case MmaKind::mxf4nvf4: return 8;
    default: return 4;
  }
}

bool meaningful_metadata(MmaKind kind, unsigned entry) {
  // tf32 keeps one 32-bit value of two, named as its two 16-bit halves: 0-1 or 2-3.
  if (kind == MmaKind::tf32) return entry == 0b0100 || entry == 0b1110;
  switch (entry) {
    case 0b0100: case 0b1000: case 0b1100: case 0b1001: case 0b1101: case 0b0110: case 0b1110: return true;
    default: return false;
  }
}

std::string meaningful_metadata_values(MmaKind kind) {
  if (kind == MmaKind::tf32) return "0b0100 or 0b1110";
  return "0b0100, 0b1000, 0b1100, 0b1001, 0b1101, 0b0110 or 0b1110";
}

int metadata_columns(MmaKind kind) { return kind == MmaKind::f16 || kind == MmaKind::tf32 ? 1 : 2; }

MetadataPlace metadata_place(MmaKind kind, int row, int entry) {
  if (metadata_columns(kind) == 2) return {row, entry / 8, 4 * (entry % 8)};
  // Bit 3 of the row picks the half of the word, the entry's half of the row picks bit 3 of the lane.
  return {(row & ~8) | (entry / 4) << 3, 0, 16 * (row >> 3 & 1) + 4 * (entry % 4)};
}

void decompress_row(MmaKind kind, const float* kept, const std::uint8_t* entries, float* dense) {
  const int chunk = sparse_chunk(kind), stored = chunk / 2, chunks = k_per_instruction(kind) / stored;
  std::fill_n(dense, chunks * chunk, 0.0f);
  for (int j = 0; j < chunks; ++j, kept += stored, dense += chunk) {
    const int first = entries[j] & 3, second = entries[j] >> 2;
    switch (chunk) {
      case 2:  // tf32: the value sits where its first half does (0 or 2 of the halves)
        dense[first / 2] = kept[0];
        break;
      case 4:
        dense[first] = kept[0];
        dense[second] = kept[1];
        break;
      default:  // the 4-bit kinds: two-wide sub-chunks
        dense[2 * first] = kept[0];
        dense[2 * first + 1] = kept[1];
        dense[2 * second] = kept[2];
        dense[2 * second + 1] = kept[3];
    }
  }
}

}  // namespace tcgen::model
