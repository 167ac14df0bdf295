#pragma once
// Shared by the host model's tests (test_model_*.cpp): descriptors encoded by
// hand from the PTX tables (not by the mma library), operands placed with the
// tests' own address code (tcgen05-facts.md §2.1 "Byte-address form"), the
// start of every kernel (alloc, barrier, read back the address), and the
// check that an error is a ModelError naming its rule.
#include <doctest/doctest.h>

#include <cstdint>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/cta.hpp"

namespace model_test {

using namespace tcgen;
using namespace tcgen::model;

// PTX #tcgen05-shared-memory-descriptor, Table 40: start, LBO and SBO as
// (bytes & 0x3FFFF) >> 4 at bits 0, 16, 32; bit 46 = 1; layout code at 61-63
// (0 none, 2 128B, 4 64B, 6 32B).
inline std::uint64_t smem_desc(std::uint32_t start, std::uint32_t lbo, std::uint32_t sbo, int layout = 0) {
  auto enc = [](std::uint32_t x) { return std::uint64_t{(x & 0x3FFFFu) >> 4}; };
  return enc(start) | enc(lbo) << 16 | enc(sbo) << 32 | std::uint64_t{1} << 46 | std::uint64_t(layout) << 61;
}

// PTX #tcgen05-instruction-descriptor, Table 42, dense. Type codes: dtype F16
// 0, F32 1; f16 kind: F16 0, BF16 1; tf32: 2; f8f6f4: E4M3 0, E5M2 1.
struct Idesc {
  int m = 128, n = 128;
  int dtype = 1, atype = 1, btype = 1;
  bool negate_a = false, negate_b = false, a_mn = false, b_mn = false;
};
inline std::uint32_t idesc(const Idesc& d) {
  return std::uint32_t(d.dtype) << 4 | std::uint32_t(d.atype) << 7 | std::uint32_t(d.btype) << 10 |
         std::uint32_t(d.negate_a) << 13 | std::uint32_t(d.negate_b) << 14 | std::uint32_t(d.a_mn) << 15 |
         std::uint32_t(d.b_mn) << 16 | std::uint32_t(d.n >> 3) << 17 | std::uint32_t(d.m >> 4) << 24;
}

// PTX #tcgen05-instuction-desc-kind-mxf8f6f4 Table 43 and -mxf4-mxf4nvf4
// Table 44: B scale ID at bits 4-5, atype 7-9, btype 10-12 (10-11 for the
// 4-bit kinds), N >> 3 at 17, scale type at 23 (UE8M0 = 1, UE4M3 = 0),
// M >> 7 at 27, A scale ID at 29-30.
struct MxIdesc {
  int n = 128, atype = 0, btype = 0;
  bool ue8m0 = true;
  int a_sf_id = 0, b_sf_id = 0, m = 128;
};
inline std::uint32_t mx_idesc(const MxIdesc& d) {
  return std::uint32_t(d.b_sf_id) << 4 | std::uint32_t(d.atype) << 7 | std::uint32_t(d.btype) << 10 |
         std::uint32_t(d.n >> 3) << 17 | std::uint32_t(d.ue8m0) << 23 | std::uint32_t(d.m >> 7) << 27 |
         std::uint32_t(d.a_sf_id) << 29;
}

inline std::uint32_t taddr(int lane, int column) { return std::uint32_t(lane) << 16 | std::uint32_t(column); }

// A rows × K operand, K-major, in one of two canonical layouts:
//  none:  core matrices of 8 rows × 16 B, 8-row groups SBO = 128 B apart, 16-byte
//         K chunks LBO = rows·16 B apart (the user's layout);
//  sw128: 8-row × 128-byte atoms, SBO = 1024 B, swizzled on the absolute
//         address (Swizzle<3,4,3>); K·bytes ≤ 128, start 1024-aligned.
struct KMajor {
  std::uint32_t start;
  int rows, k;
  ElementType type;
  bool sw128 = false;

  int bytes_per() const { return bits(type) / 8; }
  std::uint32_t size() const {
    return sw128 ? std::uint32_t(rows + 7) / 8 * 1024 : std::uint32_t(rows) * k * bytes_per();
  }
  std::uint32_t addr(int r, int kk) const {
    const int e = bytes_per(), per_chunk = 16 / e;
    if (!sw128)
      return start + (r % 8) * 16 + (r / 8) * 128 + (kk % per_chunk) * e + (kk / per_chunk) * rows * 16;
    const std::uint32_t a = start + (r % 8) * 128 + (r / 8) * 1024 + kk * e;
    return a ^ ((a & 0x380) >> 3);
  }
  // The descriptor of the MMA whose K slice starts at element k0.
  std::uint64_t desc(int k0) const {
    if (!sw128) return smem_desc(start + std::uint32_t(k0 / (16 / bytes_per())) * rows * 16, rows * 16, 128, 0);
    return smem_desc(start + std::uint32_t(k0 * bytes_per()), 16, 1024, 2);
  }
};

// Bytes staged on the host, written into the CTA by one st.shared.
struct Staging {
  std::uint32_t base;
  std::vector<std::uint8_t> bytes;

  Staging(std::uint32_t b, std::uint32_t n) : base(b), bytes(n, 0) {}
  void put(std::uint32_t addr, ElementType t, float v) {
    const std::uint32_t bitsv = encode(t, v);
    for (int i = 0; i < bits(t) / 8; ++i) bytes.at(addr - base + i) = std::uint8_t(bitsv >> (8 * i));
  }
  void store(Cta& cta, int warp) const { cta.st_shared(warp, base, bytes); }
};

// rows × k values that every listed type holds exactly and whose products
// and sums fp32 keeps exact: multiples of 1/4 in [-2, 2].
inline std::vector<float> small_values(int rows, int k, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> q(-8, 8);
  std::vector<float> v(std::size_t(rows) * k);
  for (float& x : v) x = q(rng) / 4.0f;
  return v;
}

// Places a row-major rows × k matrix as the operand `op` and returns nothing:
// the caller stores the staging (values must be exact in op.type).
inline void place(Staging& s, const KMajor& op, const std::vector<float>& values) {
  for (int r = 0; r < op.rows; ++r)
    for (int kk = 0; kk < op.k; ++kk) s.put(op.addr(r, kk), op.type, values[std::size_t(r) * op.k + kk]);
}

// Writes `values` as operand `op` with st.shared by `warp`, then
// fence.proxy.async so the MMA (async proxy) sees them.
inline void stage(Cta& cta, const KMajor& op, const std::vector<float>& values, int warp) {
  Staging s(op.start, op.size());
  place(s, op, values);
  s.store(cta, warp);
  cta.fence_proxy_async(warp);
}

// D = (±A)·(±B)ᵀ in fp64: A is m × k, B is n × k, both row-major.
inline std::vector<double> reference(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k,
                                     bool negate_a = false, bool negate_b = false) {
  std::vector<double> d(std::size_t(m) * n, 0.0);
  const double sign = (negate_a ? -1.0 : 1.0) * (negate_b ? -1.0 : 1.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int kk = 0; kk < k; ++kk)
        d[std::size_t(i) * n + j] += sign * double(a[std::size_t(i) * k + kk]) * double(b[std::size_t(j) * k + kk]);
  return d;
}

// Elements where got differs from the reference (exact inputs: none may).
inline int mismatches(const std::vector<float>& got, const std::vector<double>& ref) {
  int n = 0;
  for (std::size_t i = 0; i < got.size(); ++i) n += double(got[i]) != ref[i];
  return n + int(got.size() != ref.size());
}

// The start of a kernel: warp 0 allocates, everyone syncs and reads the
// address; an mbarrier (count 1) for MMA completion is ready at kMbar.
struct Kernel {
  static constexpr std::uint32_t kTmemSlot = 0x0;
  static constexpr std::uint32_t kMbar = 0x8;
  Cta cta;
  std::uint32_t tmem = 0;
  std::uint32_t columns;

  // letters_as_errors: the PTX-letter rules throw instead of counting warnings.
  explicit Kernel(std::uint32_t ncols = 512, int warps = 4, bool letters_as_errors = false)
      : cta(CtaConfig{.warps = warps, .letters_as_errors = letters_as_errors}), columns(ncols) {
    cta.alloc(0, kTmemSlot, ncols);
    cta.mbarrier_init({0, 0}, kMbar, 1);
    cta.bar_sync();
    tmem = cta.ld_shared_u32(0, kTmemSlot);
  }
  // The canonical MMA → ld hand-off for `warp`: wait on the phase, then fence.
  void await(int warp, std::uint32_t parity) {
    REQUIRE(cta.mbarrier_try_wait(warp, kMbar, parity));
    cta.fence_after_thread_sync(warp);
  }
  // After warps 0-3 read D: the loads finish and are ordered before the next
  // MMA that thread (0, 0) issues into the same cells (PTX pattern ld → mma).
  void release_d() {
    for (int w = 0; w < 4; ++w) {
      cta.wait_ld(w);
      cta.fence_before_thread_sync(w);
    }
    cta.bar_sync();
    cta.fence_after_thread_sync(0);
  }
  void end() {
    cta.dealloc(0, tmem, columns);
    cta.finish();
  }
};

// Reads the accumulator D (M × N, cells of type dtype) as the epilogue warps would, after
// the caller made it visible to warps 0-3. M = 128 (Layout D): warp w reads
// rows 32w.. with 32x32b loads. M = 64 (Layout F at lane a): warp q reads rows
// 16q.. from lanes 32q+a.. with 16x32bx2.x1, immHalfSplitoff 1 (threads 16-31
// take the next column).
inline std::vector<float> read_d(Cta& cta, std::uint32_t d_tmem, int m, int n,
                                 ElementType dtype = ElementType::f32) {
  std::vector<float> d(std::size_t(m) * n);
  for (int w = 0; w < 4; ++w) {
    if (m == 128) {
      for (int c = 0, step = 1; c < n; c += step) {
        for (step = 1; step * 2 <= n - c && step * 2 <= 128;) step *= 2;
        const WarpRegisters r = cta.ld(w, {LdStShape::s32x32b, step}, d_tmem + taddr(32 * w, c));
        for (int t = 0; t < 32; ++t)
          for (int i = 0; i < step; ++i) d[std::size_t(32 * w + t) * n + c + i] = decode(dtype, r[t][i]);
      }
    } else {
      for (int c = 0; c < n; c += 2) {
        const WarpRegisters r = cta.ld(w, {LdStShape::s16x32bx2, 1, false, 1}, d_tmem + taddr(32 * w, c));
        for (int t = 0; t < 32; ++t)
          d[std::size_t(16 * w + t % 16) * n + c + t / 16] = decode(dtype, r[t][0]);
      }
    }
  }
  return d;
}

// f() breaks the PTX-letter rule `rule` once in a Cta without
// letters_as_errors: no throw, one more warning, whose first message names
// the rule's PTX section and contains each of `words`.
template <class F>
void expect_letter(const Cta& cta, F&& f, Rule rule, std::initializer_list<std::string> words = {}) {
  REQUIRE(severity(rule) == Severity::letter);
  const auto count = [&] { return cta.warnings().count(rule) ? cta.warnings().at(rule).count : 0; };
  const std::uint64_t before = count();
  f();
  CHECK_MESSAGE(count() == before + 1, "expected one warning for rule " << std::string(name(rule)));
  if (count() == 0) return;
  const std::string& what = cta.warnings().at(rule).first;
  CHECK_MESSAGE(what.find(std::string("#") + anchor(rule)) != std::string::npos, what);
  for (const std::string& w : words) CHECK_MESSAGE(what.find(w) != std::string::npos, "missing '" << w << "' in: " << what);
}

// f() must throw a ModelError for `rule` whose message names the rule's PTX
// section and contains each of `words`.
template <class F>
void expect_rule(F&& f, Rule rule, std::initializer_list<std::string> words = {}) {
  try {
    f();
  } catch (const ModelError& e) {
    const std::string what = e.what();
    CHECK_MESSAGE(e.rule() == rule, "got rule " << std::string(name(e.rule())) << ": " << what);
    if (rule != Rule::unsupported) CHECK_MESSAGE(what.find(std::string("#") + anchor(rule)) != std::string::npos, what);
    CHECK_MESSAGE(what.find(sentence(rule)) != std::string::npos, what);
    for (const std::string& w : words)
      CHECK_MESSAGE(what.find(w) != std::string::npos, "missing '" << w << "' in: " << what);
    return;
  }
  FAIL_CHECK("expected a ModelError for rule " << std::string(name(rule)));
}

}  // namespace model_test
