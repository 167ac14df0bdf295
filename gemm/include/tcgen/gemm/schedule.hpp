#pragma once
// The persistent grid's work: D is cut into 128 × tile_n output tiles, and
// CTA b of a grid of G takes tiles b, b + G, b + 2G, ... . Tiles are numbered
// M first, so the CTAs running at one time share B's column block (and
// read it from L2) while each brings its own rows of A. All three roles of a
// CTA (TMA, MMA, epilogue) walk the same list.
#include "tcgen/core/host_device.hpp"
#include "tcgen/tile/epilogue.hpp"

namespace tcgen::gemm {

using tile::TileOrigin;

struct Schedule {
  int m_tiles = 0, n_tiles = 0;
  int tile_m = 0, tile_n = 0;

  constexpr TCGEN_HD Schedule(int m, int n, int tm, int tn)
      : m_tiles((m + tm - 1) / tm), n_tiles((n + tn - 1) / tn), tile_m(tm), tile_n(tn) {}

  constexpr TCGEN_HD int tiles() const { return m_tiles * n_tiles; }
  constexpr TCGEN_HD TileOrigin origin(int tile) const { return {tile % m_tiles * tile_m, tile / m_tiles * tile_n}; }
};

// The persistent grid's CTAs: one cluster of `cluster` CTAs per tile, at most
// `ctas` CTAs in all (0: a B200's 148 SMs), and at least one cluster.
constexpr TCGEN_HD int grid_ctas(int tiles, int ctas, int cluster = 1) {
  const int clusters = (ctas > 0 ? ctas : 148) / cluster;
  return cluster * (tiles < clusters ? tiles : clusters > 0 ? clusters : 1);
}

// A cluster's CTAs and its work, by cta_group: one CTA and a 128 × tile_n
// tile; or two CTA pairs side by side in N, sharing A's rows, and a
// 256 × 2·tile_n tile (kernel.hpp, CTA pairs).
constexpr TCGEN_HD int cluster_ctas(int cta_group) { return cta_group == 2 ? 4 : 1; }
constexpr TCGEN_HD Schedule cluster_schedule(int m, int n, int tile_n, int cta_group) {
  return cta_group == 2 ? Schedule(m, n, 256, 2 * tile_n) : Schedule(m, n, 128, tile_n);
}
// The launch's grid: for one CTA per tile, the persistent grid of at most
// `ctas`; for pairs, a cluster per cluster tile, which clusterlaunchcontrol
// makes persistent whatever `ctas` says.
constexpr TCGEN_HD int grid_of(int m, int n, int tile_n, int cta_group, int ctas) {
  const int tiles = cluster_schedule(m, n, tile_n, cta_group).tiles();
  return cta_group == 2 ? cluster_ctas(cta_group) * tiles : grid_ctas(tiles, ctas);
}

}  // namespace tcgen::gemm
