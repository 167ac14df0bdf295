#include "tcgen/gemm/problem.hpp"

#include <string>

#include "tcgen/core/error.hpp"

namespace tcgen::gemm {

namespace {

Stored stored(layout::Major major, int rows, int k) {
  return major == layout::Major::K ? Stored{k, rows} : Stored{rows, k};
}

std::uint64_t span_bytes(Stored s, int ld, int element_bytes) {
  return (static_cast<std::uint64_t>(s.rows - 1) * ld + s.row_length) * element_bytes;
}

void check_operand(const char* name, const char* ld_name, const void* ptr, int ld, Stored s) {
  if (ptr == nullptr) fail(name, "null", "the operand's address");
  if (reinterpret_cast<std::uintptr_t>(ptr) % 16 != 0)
    fail(name, std::to_string(reinterpret_cast<std::uintptr_t>(ptr)),
         "a 16-byte aligned address (TMA: cuTensorMapEncodeTiled globalAddress)");
  if (ld < s.row_length)
    fail(ld_name, ld, ("at least " + std::to_string(s.row_length) + ", the stored row's length").c_str());
  if (ld % 8 != 0)
    fail(ld_name, ld,
         "a multiple of 8 elements: TMA's row stride must be a multiple of 16 bytes (cuTensorMapEncodeTiled "
         "globalStrides); pad the rows");
}

}  // namespace

Stored stored_a(const Problem& p, const Config& c) { return stored(c.a_major, p.m, p.k); }
Stored stored_b(const Problem& p, const Config& c) { return stored(c.b_major, p.n, p.k); }
std::uint64_t a_bytes(const Problem& p, const Config& c) { return span_bytes(stored_a(p, c), p.lda, 2); }
std::uint64_t b_bytes(const Problem& p, const Config& c) { return span_bytes(stored_b(p, c), p.ldb, 2); }

void check(const Problem& p, const Config& c) {
  if (p.m < 1) fail("m", p.m, "at least 1");
  if (p.n < 1) fail("n", p.n, "at least 1");
  if (p.k < 1) fail("k", p.k, "at least 1");
  check_operand("a", "lda", p.a, p.lda, stored_a(p, c));
  check_operand("b", "ldb", p.b, p.ldb, stored_b(p, c));
  if (p.d == nullptr) fail("d", "null", "the address of D");
  if (p.ldd < p.n) fail("ldd", p.ldd, "at least n");
  if (p.c != nullptr && p.ldc < p.n) fail("ldc", p.ldc, "at least n");
}

}  // namespace tcgen::gemm
