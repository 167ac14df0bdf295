#include "tcgen/model/mma_math.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "mma_kernel.hpp"

namespace tcgen::model {

namespace {

// L adjacent fp32 lanes (GCC/Clang vector extension): each lane is an
// ordinary IEEE multiply and add, so vectorising changes no element's result,
// whatever the width (4: SSE2, the baseline; 8: AVX2 where the CPU has it).
template <int L>
struct Lanes;
// GCC's vector_size takes no dependent size, hence one specialization per width.
template <>
struct Lanes<4> {
  typedef float v __attribute__((vector_size(16)));
};
template <>
struct Lanes<8> {
  typedef float v __attribute__((vector_size(32)));
};
// Every helper is inlined into rows_sse2 or rows_avx2, so no 32-byte vector
// crosses a call (GCC's -Wpsabi note about their ABI does not apply).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpsabi"
template <int L>
[[gnu::always_inline]] inline typename Lanes<L>::v load(const float* p) {
  typename Lanes<L>::v x;
  std::memcpy(&x, p, sizeof x);
  return x;
}
template <int L>
[[gnu::always_inline]] inline void store(float* p, typename Lanes<L>::v x) {
  std::memcpy(p, &x, sizeof x);
}
template <int L>
[[gnu::always_inline]] inline typename Lanes<L>::v splat(float x) {
  typename Lanes<L>::v r;
  for (int i = 0; i < L; ++i) r[i] = x;
  return r;
}

// An R × (L·V) tile of d (R rows, L·V adjacent columns) held in registers
// over K: each element adds its K products one at a time in K order, d is
// read and written once per MMA, and R rows share each load of B's K row.
// With enable-input-d false the sum starts from -0, the identity of IEEE
// addition (-0 + x == x for every x, zeros included), so D = A * B exactly
// as the sum of the products would be.
template <int L, int R, int V>
[[gnu::always_inline]] inline void tile(const typename Lanes<L>::v* as, const float* bt, float* const* d, int n, int K,
                                        int N, bool accumulate) {
  typename Lanes<L>::v acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = accumulate ? load<L>(d[r] + n + L * v) : splat<L>(-0.0f);
  for (int k = 0; k < K; ++k) {
    const float* brow = bt + static_cast<std::size_t>(k) * N + n;
    typename Lanes<L>::v b[V];
    for (int v = 0; v < V; ++v) b[v] = load<L>(brow + L * v);
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < V; ++v) acc[r][v] += as[k * R + r] * b[v];
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) store<L>(d[r] + n + L * v, acc[r][v]);
}

// The same for single columns, when N is not a multiple of L (mma_accumulate
// takes any shape; every legal MMA N is a multiple of 8).
template <int L>
[[gnu::always_inline]] inline void column(const typename Lanes<L>::v* as, const float* bt, float* const* d, int R,
                                          int n, int K, int N, bool accumulate) {
  for (int r = 0; r < R; ++r) {
    float acc = accumulate ? d[r][n] : -0.0f;
    for (int k = 0; k < K; ++k) acc += as[k * R + r][0] * bt[static_cast<std::size_t>(k) * N + n];
    d[r][n] = acc;
  }
}

// Rows m .. m + R - 1 of d: tiles of L·V columns, then of L, then single
// columns. The R × K values of A, with the sign applied (negation is exact,
// so (-a)b = -(ab)), are broadcast once into `as` for all tiles of the rows.
// A K longer than one instruction's (mma_accumulate takes any) goes in
// pieces of kMaxK: each element's running sum is stored and reloaded
// exactly in between, so its additions keep their order.
template <int L, int R, int V>
[[gnu::always_inline]] inline void rows(const float* a, const float* bt, float* const* d, int N, int K,
                                        bool accumulate, float sign) {
  constexpr int kMaxK = 32;  // 256 bits of 8-bit K
  alignas(32) typename Lanes<L>::v as[kMaxK * R];
  for (int k0 = 0; k0 < K; k0 += kMaxK) {
    const int kn = std::min(kMaxK, K - k0);
    const bool acc = accumulate || k0 > 0;
    const float* b = bt + static_cast<std::size_t>(k0) * N;
    for (int k = 0; k < kn; ++k)
      for (int r = 0; r < R; ++r) as[k * R + r] = splat<L>(sign * a[static_cast<std::size_t>(r) * K + k0 + k]);
    int n = 0;
    for (; n + L * V <= N; n += L * V) tile<L, R, V>(as, b, d, n, kn, N, acc);
    for (; n + L <= N; n += L) tile<L, R, 1>(as, b, d, n, kn, N, acc);
    for (; n < N; ++n) column<L>(as, b, d, R, n, kn, N, acc);
  }
}

// All rows, R at a time, in tiles of R × V vectors: 8 accumulators and V B
// vectors, at most 12 of the 16 vector registers of either width.
template <int L, int R, int V>
[[gnu::always_inline]] inline void all_rows(const float* a, const float* bt, int M, int N, int K, float* const* d_rows,
                                            bool accumulate, float sign) {
  int m = 0;
  for (; m + R <= M; m += R)
    rows<L, R, V>(a + static_cast<std::size_t>(m) * K, bt, d_rows + m, N, K, accumulate, sign);
  for (; m < M; ++m) rows<L, 1, V>(a + static_cast<std::size_t>(m) * K, bt, d_rows + m, N, K, accumulate, sign);
}

void rows_sse2(const float* a, const float* bt, int M, int N, int K, float* const* d, bool accumulate, float sign) {
  all_rows<4, 2, 4>(a, bt, M, N, K, d, accumulate, sign);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// The same loops in 8-wide AVX2 registers, for CPUs that have them (no FMA:
// the products and sums round as in the 4-wide loops, bit for bit).
[[gnu::target("avx2")]] void rows_avx2(const float* a, const float* bt, int M, int N, int K, float* const* d,
                                       bool accumulate, float sign) {
  all_rows<8, 4, 2>(a, bt, M, N, K, d, accumulate, sign);
}
#endif
#pragma GCC diagnostic pop

}  // namespace

namespace detail {

void mma_rows(const float* a, const float* bt, int M, int N, int K, float* const* d_rows, bool accumulate, float sign) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx2) return rows_avx2(a, bt, M, N, K, d_rows, accumulate, sign);
#endif
  rows_sse2(a, bt, M, N, K, d_rows, accumulate, sign);
}

}  // namespace detail

void mma_accumulate(const Operand& a, const Operand& b, float* d, bool accumulate, bool negate_a, bool negate_b) {
  if (a.k != b.k || a.k <= 0)
    fail("k", std::to_string(b.k), "expected A and B to have the same positive K (A has " + std::to_string(a.k) + ")");
  const int M = a.rows, N = b.rows, K = a.k;
  // B as K x N, so that one K row of B meets a run of adjacent d columns.
  std::vector<float> bt(static_cast<std::size_t>(K) * N);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) bt[static_cast<std::size_t>(k) * N + n] = b.values[static_cast<std::size_t>(n) * K + k];
  std::vector<float*> rows(static_cast<std::size_t>(M));
  for (int m = 0; m < M; ++m) rows[m] = d + static_cast<std::size_t>(m) * N;
  detail::mma_rows(a.values.data(), bt.data(), M, N, K, rows.data(), accumulate, negate_a != negate_b ? -1.0f : 1.0f);
}

}  // namespace tcgen::model
