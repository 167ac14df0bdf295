#pragma once
// The grouped GEMM's work: expert e multiplies its count_e tokens (rows
// [first_e, first_e + count_e) of A and D, first_e the tokens of the experts
// before it) by its n × k weights, in tiles of 128 tokens × tile_n columns.
// Tiles are numbered expert by expert, and within an expert M first (as
// gemm::Schedule: the CTAs running at one time share a weight block), so an
// expert without tokens has no tiles. CTA b of a persistent grid of G takes
// tiles b, b + G, ...; each of its roles walks them with an ExpertWalk, which
// reads the token counts from the device array as it goes: the host need
// not know them.
#include "tcgen/core/host_device.hpp"

namespace tcgen::moe {

struct ExpertTile {
  int expert = 0;
  int row0 = 0;         // the tile's first token: its row of A and of D
  int rows = 0;         // the expert's tokens from row0 on, at most 128: the rows D keeps
  int scale_block = 0;  // the 128-row block of A's scale factors (scale_layout.hpp) it reads
  int n0 = 0;           // its first column of the expert's n
};

class ExpertWalk {
 public:
  constexpr TCGEN_HD ExpertWalk(const int* counts, int experts, int n_tiles, int tile_n)
      : counts_(counts), experts_(experts), n_tiles_(n_tiles), tile_n_(tile_n) {}

  // Tile t of the launch, t at least the last one asked for: false when there
  // is none (the walk only moves forward, each expert's count read once).
  constexpr TCGEN_HD bool seek(int t, ExpertTile& out) {
    for (; expert_ < experts_; ++expert_) {
      const int count = counts_[expert_], m_tiles = (count + 127) / 128, tiles = m_tiles * n_tiles_;
      if (t < tiles_before_ + tiles) {
        const int local = t - tiles_before_, mt = local % m_tiles;
        out = {expert_, first_row_ + 128 * mt, count - 128 * mt < 128 ? count - 128 * mt : 128, blocks_before_ + mt,
               local / m_tiles * tile_n_};
        return true;
      }
      tiles_before_ += tiles;
      first_row_ += count;
      blocks_before_ += m_tiles;
    }
    return false;
  }

 private:
  const int* counts_;
  int experts_, n_tiles_, tile_n_;
  int expert_ = 0, tiles_before_ = 0, first_row_ = 0, blocks_before_ = 0;
};

// The most tiles `tokens` tokens over `experts` experts can make: each
// expert's last tile may be partial, so at most one per expert with tokens
// beyond tokens / 128. The persistent grid is never larger.
constexpr TCGEN_HD int most_tiles(int tokens, int experts, int n_tiles) {
  const int partial = experts < tokens ? experts : tokens;
  return (tokens / 128 + partial) * n_tiles;
}

}  // namespace tcgen::moe
