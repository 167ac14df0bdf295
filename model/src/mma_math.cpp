#include "tcgen/model/mma_math.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "mma_kernel.hpp"

namespace tcgen::model {

namespace {

// Four adjacent fp32 lanes (GCC/Clang vector extension): each lane is an
// ordinary IEEE multiply and add, so vectorising changes no element's result.
using v4 = float __attribute__((vector_size(16)));

v4 load4(const float* p) {
  v4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
void store4(float* p, v4 v) { std::memcpy(p, &v, sizeof v); }
v4 splat4(float x) { return v4{x, x, x, x}; }

// An R × 4V tile of d (R rows, 4V adjacent columns) held in registers over
// K: each element adds its K products one at a time in K order, d is read
// and written once per MMA, and R rows share each load of B's K row.
// With enable-input-d false the sum starts from -0, the identity of IEEE
// addition (-0 + x == x for every x, zeros included), so D = A * B exactly
// as the sum of the products would be.
template <int R, int V>
void tile(const v4* as, const float* bt, float* const* d, int n, int K, int N, bool accumulate) {
  v4 acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = accumulate ? load4(d[r] + n + 4 * v) : splat4(-0.0f);
  for (int k = 0; k < K; ++k) {
    const float* brow = bt + static_cast<std::size_t>(k) * N + n;
    v4 b[V];
    for (int v = 0; v < V; ++v) b[v] = load4(brow + 4 * v);
    for (int r = 0; r < R; ++r)
      for (int v = 0; v < V; ++v) acc[r][v] += as[k * R + r] * b[v];
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) store4(d[r] + n + 4 * v, acc[r][v]);
}

// The same for single columns, when N is not a multiple of 4 (mma_accumulate
// takes any shape; every legal MMA N is a multiple of 8).
void column(const v4* as, const float* bt, float* const* d, int R, int n, int K, int N, bool accumulate) {
  for (int r = 0; r < R; ++r) {
    float acc = accumulate ? d[r][n] : -0.0f;
    for (int k = 0; k < K; ++k) acc += as[k * R + r][0] * bt[static_cast<std::size_t>(k) * N + n];
    d[r][n] = acc;
  }
}

// Rows m .. m + R - 1 of d: tiles of 4V columns, then of 4, then single
// columns. The R × K values of A, with the sign applied (negation is exact,
// so (-a)b = -(ab)), are broadcast once into `as` for all tiles of the rows.
// A K longer than one instruction's (mma_accumulate takes any) goes in
// pieces of kMaxK: each element's running sum is stored and reloaded
// exactly in between, so its additions keep their order.
template <int R, int V>
void rows(const float* a, const float* bt, float* const* d, int N, int K, bool accumulate, float sign) {
  constexpr int kMaxK = 32;  // 256 bits of 8-bit K
  alignas(16) v4 as[kMaxK * R];
  for (int k0 = 0; k0 < K; k0 += kMaxK) {
    const int kn = std::min(kMaxK, K - k0);
    const bool acc = accumulate || k0 > 0;
    const float* b = bt + static_cast<std::size_t>(k0) * N;
    for (int k = 0; k < kn; ++k)
      for (int r = 0; r < R; ++r) as[k * R + r] = splat4(sign * a[static_cast<std::size_t>(r) * K + k0 + k]);
    int n = 0;
    for (; n + 4 * V <= N; n += 4 * V) tile<R, V>(as, b, d, n, kn, N, acc);
    for (; n + 4 <= N; n += 4) tile<R, 1>(as, b, d, n, kn, N, acc);
    for (; n < N; ++n) column(as, b, d, R, n, kn, N, acc);
  }
}

}  // namespace

namespace detail {

void mma_rows(const float* a, const float* bt, int M, int N, int K, float* const* d_rows, bool accumulate, float sign) {
  constexpr int R = 2, V = 4;  // 8 accumulators and 4 B vectors: 12 of the 16 SSE registers
  int m = 0;
  for (; m + R <= M; m += R) rows<R, V>(a + static_cast<std::size_t>(m) * K, bt, d_rows + m, N, K, accumulate, sign);
  for (; m < M; ++m) rows<1, V>(a + static_cast<std::size_t>(m) * K, bt, d_rows + m, N, K, accumulate, sign);
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
