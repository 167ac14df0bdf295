#pragma once
// One GEMM's run-time half: sizes, where the matrices are, their leading
// dimensions (elements between stored rows). D = A·Bᵀ (+ C):
//
//   A  M × K; Config::a_major K: stored M rows of K, lda ≥ K; MN: K rows of M, lda ≥ M
//   B  N × K; Config::b_major K: stored N rows of K, ldb ≥ K; MN: K rows of N, ldb ≥ N
//   C  M × N row-major of D's type, ldc ≥ N, or null
//   D  M × N row-major, ldd ≥ N
//
// TMA reads A and B, so their base addresses must be 16-byte aligned and
// lda · 2, ldb · 2 multiples of 16 bytes (cuTensorMapEncodeTiled's
// globalAddress and globalStrides rules): a K that is not a multiple of 8
// is stored with a padded row (make_operand in matrix.hpp does that); the
// padding is never read. Any M, N, K ≥ 1.
#include <cstdint>

#include "tcgen/gemm/config.hpp"
#include "tcgen/tile/epilogue.hpp"

namespace tcgen::gemm {

using tile::Output;

struct Problem {
  int m = 0, n = 0, k = 0;
  const void* a = nullptr;
  const void* b = nullptr;
  const void* c = nullptr;  // optional
  void* d = nullptr;
  int lda = 0, ldb = 0, ldc = 0, ldd = 0;
};

// Elements in the contiguous dimension of A's (B's) stored rows, and the number of stored rows.
struct Stored {
  int row_length = 0, rows = 0;
};
Stored stored_a(const Problem& p, const Config& c);
Stored stored_b(const Problem& p, const Config& c);
// Bytes the storage of A (B) spans: (rows − 1) · ld + row_length elements.
std::uint64_t a_bytes(const Problem& p, const Config& c);
std::uint64_t b_bytes(const Problem& p, const Config& c);

// Throws tcgen::Error naming the field ("m", "lda", "a", ...) of a problem
// config c cannot run, with what is allowed.
void check(const Problem& p, const Config& c);

// The epilogue's view of D and C: pointers, leading dimensions, and whether
// 16-byte moves are aligned.
template <ElementType D>
Output<D> output(const Problem& p) {
  const auto aligned = [](const void* ptr, int ld) {
    return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0 && static_cast<std::uint64_t>(ld) * sizeof(tile::Storage<D>) % 16 == 0;
  };
  Output<D> o;
  o.d = static_cast<tile::Storage<D>*>(p.d);
  o.c = static_cast<const tile::Storage<D>*>(p.c);
  o.ldd = p.ldd;
  o.ldc = p.ldc;
  o.m = p.m;
  o.n = p.n;
  o.vector_d = aligned(p.d, p.ldd);
  o.vector_c = p.c != nullptr && aligned(p.c, p.ldc);
  return o;
}

}  // namespace tcgen::gemm
