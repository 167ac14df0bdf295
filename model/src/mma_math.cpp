#include "tcgen/model/mma_math.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::model {

namespace {

// W adjacent columns of one row of d, each adding its K products in K order
// in a register-sized local array: d is read and written once per MMA, and
// the W-wide inner loop vectorises without reordering any element's sum.
// With enable-input-d false the sum starts from -0, the identity of IEEE
// addition (-0 + x == x for every x, zeros included), so D = A * B exactly
// as the sum of the products would be.
template <int W>
void block(const float* a_row, const float* bt, float* d, int K, int N, bool accumulate, float sign) {
  float acc[W];
  for (int w = 0; w < W; ++w) acc[w] = accumulate ? d[w] : -0.0f;
  for (int k = 0; k < K; ++k) {
    const float av = sign * a_row[k];  // negation is exact, so (-a)b = -(ab)
    const float* b = bt + static_cast<std::size_t>(k) * N;
    for (int w = 0; w < W; ++w) acc[w] += av * b[w];
  }
  for (int w = 0; w < W; ++w) d[w] = acc[w];
}

}  // namespace

void mma_accumulate(const Operand& a, const Operand& b, float* d, bool accumulate, bool negate_a, bool negate_b) {
  if (a.k != b.k || a.k <= 0)
    fail("k", std::to_string(b.k), "expected A and B to have the same positive K (A has " + std::to_string(a.k) + ")");
  const int M = a.rows, N = b.rows, K = a.k;
  // B as K x N, so that one K row of B meets a run of adjacent d columns.
  std::vector<float> bt(static_cast<std::size_t>(K) * N);
  for (int n = 0; n < N; ++n)
    for (int k = 0; k < K; ++k) bt[static_cast<std::size_t>(k) * N + n] = b.values[static_cast<std::size_t>(n) * K + k];
  const float sign = negate_a != negate_b ? -1.0f : 1.0f;
  // One row of d at a time, 16 columns per block (then 8, then 1: N is a
  // multiple of 8 for every legal shape): one row keeps the accumulators in
  // registers, which a runtime K and N otherwise spill.
  for (int m = 0; m < M; ++m) {
    const float* a_row = &a.values[static_cast<std::size_t>(m) * K];
    float* d_row = d + static_cast<std::size_t>(m) * N;
    int n = 0;
    for (; n + 16 <= N; n += 16) block<16>(a_row, bt.data() + n, d_row + n, K, N, accumulate, sign);
    for (; n + 8 <= N; n += 8) block<8>(a_row, bt.data() + n, d_row + n, K, N, accumulate, sign);
    for (; n < N; ++n) block<1>(a_row, bt.data() + n, d_row + n, K, N, accumulate, sign);
  }
}

}  // namespace tcgen::model
