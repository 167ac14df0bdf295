#pragma once
// Where mma.sync's fragment elements lie in the tile, from CuTe's SM80 MMA traits
// (include/cute/atom/mma_traits_sm80.hpp: SM80_16x8x16_F16F16F16F16_TN's and SM80_16x8x8's ALayout,
// BLayout and CLayout, (thread, value) -> index strides), not from the PTX ISA's formulas the
// interpreter follows. Thread t = (t % 4, t / 4); value v of a lane's fragment, register v / 2's
// half v % 2 (low first) for A and B, register v for C and D. Indices: A's (m, k) is m + 16·k, B's
// (n, k) is n + 8·k (B held as N×K), C's and D's (m, n) is m + 16·n.
namespace tcgen::test {

inline int mma_a_index(int k, int t, int v) {
  const int t0 = t % 4, t1 = t / 4;
  if (k == 16) return 32 * t0 + t1 + 16 * (v % 2) + 8 * (v / 2 % 2) + 128 * (v / 4);  // ((4,8),(2,2,2)):((32,1),(16,8,128))
  return 32 * t0 + t1 + 16 * (v % 2) + 8 * (v / 2);                                      // ((4,8),(2,2)):((32,1),(16,8))
}
inline int mma_b_index(int k, int t, int v) {
  const int t0 = t % 4, t1 = t / 4;
  if (k == 16) return 16 * t0 + t1 + 8 * (v % 2) + 64 * (v / 2);  // ((4,8),(2,2)):((16,1),(8,64))
  return 16 * t0 + t1 + 8 * v;                                     // ((4,8),2):((16,1),8)
}
inline int mma_c_index(int t, int v) { return 32 * (t % 4) + t / 4 + 16 * (v % 2) + 8 * (v / 2); }  // ((4,8),(2,2)):((32,1),(16,8))

}  // namespace tcgen::test
