// The forms of tcgen05.mma beyond the plain kinds, in the host model:
// block scaling (kind::mxf8f6f4 1X, mxf4 2X, mxf4nvf4 2X and 4X with UE8M0
// or UE4M3 factors) with the factors brought into Tensor Memory as CUTLASS
// does (its "32_4_4" shared-memory layout, tcgen05.cp .32x128b.warpx4), .ws
// with Layouts D, E and G, scale-input-d, and each of their rules broken once.
// The inputs are random FP4/FP8 values and power-of-two (or 4-bit) scale
// factors whose products and sums fp32 holds exactly, so D must equal the
// fp64 reference bit for bit; a failure prints per-row ratio and cosine.
#include <array>
#include <cmath>
#include <initializer_list>

#include "test_model_support.hpp"

using namespace model_test;

namespace {

constexpr std::uint32_t kA = 0x400, kB = 0x8000, kSf = 0x10000;  // operands and scale-factor blocks in shared memory
constexpr std::uint32_t kD = 0, kSfa = 256, kSfb = 288;          // TMEM columns of D and of the factors

// A rows × K operand of 4-bit values packed 32 to a 16-byte chunk, K-major,
// no swizzle (tcgen05-facts.md §2.1 with T = 32): row r, element kk at byte
// (r%8)·16 + (r/8)·128 + (kk%32)/2 + (kk/32)·rows·16, low nibble first.
struct Packed4 {
  std::uint32_t start;
  int rows, k;
  std::uint32_t size() const { return std::uint32_t(rows) * k / 2; }
  std::uint32_t byte(int r, int kk) const {
    return start + (r % 8) * 16 + (r / 8) * 128 + (kk % 32) / 2 + (kk / 32) * rows * 16;
  }
  std::uint64_t desc(int k0) const { return smem_desc(start + std::uint32_t(k0 / 32) * rows * 16, rows * 16, 128); }
};

void stage_packed(Cta& cta, const Packed4& op, const std::vector<float>& v) {
  Staging s(op.start, op.size());
  for (int r = 0; r < op.rows; ++r)
    for (int kk = 0; kk < op.k; ++kk)
      s.bytes.at(op.byte(r, kk) - op.start) |=
          std::uint8_t(encode(ElementType::e2m1, v[std::size_t(r) * op.k + kk]) << (4 * (kk % 2)));
  s.store(cta, 0);
  cta.fence_proxy_async(0);
}

// Random nonzero values of e2m1 (±0.5 .. ±6) or, for 8-bit A/B, the same set in e4m3.
std::vector<float> fp4_values(int rows, int k, unsigned seed) {
  static constexpr float kMag[] = {0.5f, 1, 1.5f, 2, 3, 4, 6};
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pick(0, 13);
  std::vector<float> v(std::size_t(rows) * k);
  for (float& x : v) {
    const int i = pick(rng);
    x = (i % 2 ? -1.0f : 1.0f) * kMag[i / 2];
  }
  return v;
}

// Scale-factor bytes for rows × blocks: UE8M0 2^-1 .. 2^1, or UE4M3 1 .. 1.875
// (exponent 0, a random 3-bit significand). With them every sum of up to
// 160 products stays a multiple of 2^-8 below 2^16: exact in fp32.
std::vector<std::uint8_t> scale_bytes(int rows, int blocks, bool ue8m0, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> e(-1, 1), mant(0, 7);
  std::vector<std::uint8_t> v(std::size_t(rows) * blocks);
  for (auto& x : v) x = ue8m0 ? std::uint8_t(127 + e(rng)) : std::uint8_t(7 << 3 | mant(rng));
  return v;
}
double scale_value(std::uint8_t x, bool ue8m0) {
  if (ue8m0) return std::ldexp(1.0, int(x) - 127);
  const int e = x >> 3, m = x & 7;  // UE4M3: bias 7; these tests use normal values only
  return std::ldexp(1.0 + m / 8.0, e - 7);
}

// CUTLASS's scale-factor layout (tcgen05-facts-2.md §6, checked against
// nvmath's examples below): 512-byte blocks of 128 rows × 4 K-blocks,
// byte 16·(r%32) + 4·((r/32)%4) + kb%4 of block (r/128)·ceil(nKB/4) + kb/4.
std::uint32_t sf_offset(int r, int kb, int nkb) {
  return 512u * std::uint32_t((r / 128) * ((nkb + 3) / 4) + kb / 4) + 16u * (r % 32) + 4u * ((r / 32) % 4) + kb % 4;
}

// The factors of rows × nkb into shared memory at `at` in that layout.
void stage_scales(Cta& cta, std::uint32_t at, const std::vector<std::uint8_t>& sf, int rows, int nkb) {
  Staging s(at, 512u * std::uint32_t((rows + 127) / 128 * ((nkb + 3) / 4)));
  for (int r = 0; r < rows; ++r)
    for (int kb = 0; kb < nkb; ++kb) s.bytes.at(sf_offset(r, kb, nkb)) = sf[std::size_t(r) * nkb + kb];
  s.store(cta, 0);
  cta.fence_proxy_async(0);
}

// One 512-byte block (32 rows of 16 bytes, rows 16 B apart in 8-row groups
// 128 B apart) copied to lanes r + 32q, 4 columns from `column`.
void cp_block(Cta& cta, std::uint32_t tmem, std::uint32_t block_at, std::uint32_t column) {
  cta.cp({0, 0}, CpShape::s32x128b_warpx4, tmem + column, smem_desc(block_at, 0, 128));
}

// D = Σₖ (A·sfa)(B·sfb) in fp64, the factor of block k / block_k.
std::vector<double> scaled_reference(const std::vector<float>& a, const std::vector<float>& b,
                                     const std::vector<std::uint8_t>& sfa, const std::vector<std::uint8_t>& sfb,
                                     int m, int n, int k, int block_k, bool ue8m0) {
  const int nkb = k / block_k;
  std::vector<double> d(std::size_t(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int kk = 0; kk < k; ++kk)
        d[std::size_t(i) * n + j] += double(a[std::size_t(i) * k + kk]) *
                                     scale_value(sfa[std::size_t(i) * nkb + kk / block_k], ue8m0) *
                                     double(b[std::size_t(j) * k + kk]) *
                                     scale_value(sfb[std::size_t(j) * nkb + kk / block_k], ue8m0);
  return d;
}

// Exact comparison, with per-row ratio ‖got‖/‖ref‖ and cosine printed for the first rows that differ.
int compare(const std::vector<float>& got, const std::vector<double>& ref, int m, int n) {
  const int bad = mismatches(got, ref);
  for (int i = 0, shown = 0; bad && i < m && shown < 4; ++i) {
    double gg = 0, rr = 0, gr = 0;
    bool differs = false;
    for (int j = 0; j < n; ++j) {
      const double g = got[std::size_t(i) * n + j], r = ref[std::size_t(i) * n + j];
      gg += g * g, rr += r * r, gr += g * r, differs = differs || g != r;
    }
    if (!differs) continue;
    ++shown;
    MESSAGE("row " << i << ": ratio " << std::sqrt(gg / rr) << ", cosine " << gr / std::sqrt(gg * rr));
  }
  return bad;
}

// A and B are e4m3 for kind::mxf8f6f4, packed e2m1 for the 4-bit kinds.
// tcgen05.st of one word into 4 columns of warp `warp`'s lane quarter (its partition's copy of the factors).
void store_scale_word(Kernel& kn, int warp, std::uint32_t column, std::uint32_t word) {
  WarpRegisters r{};
  for (auto& t : r) t.assign(4, word);
  kn.cta.st(warp, {LdStShape::s32x32b, 4}, kn.tmem + taddr(32 * warp, int(column)), r);
  kn.cta.wait_st(warp);
}

// The PTX hand-off of what the warps stored to the MMA issuer, thread (0, 0): fence::before_thread_sync
// by each, a barrier, fence::after_thread_sync (PTX #tcgen05-memory-consistency-model).
void hand_to_issuer(Kernel& kn, std::initializer_list<int> warps = {0, 1, 2, 3}) {
  for (int w : warps) kn.cta.fence_before_thread_sync(w);
  kn.cta.bar_sync();
  kn.cta.fence_after_thread_sync(0);
}

struct Scaled {
  MmaKind kind;
  int n, vec, ksteps;
  bool ue8m0 = true;
};

// A block-scaled GEMM of ksteps MMAs (K = ksteps · K per instruction) as a
// CUTLASS mainloop does it: factors staged in the 32_4_4 layout, copied by
// tcgen05.cp .32x128b.warpx4 into columns per MMA, the scale IDs stepping
// through the bytes of a word; then D against fp64.
void run_scaled(const Scaled& c) {
  CAPTURE(name(c.kind));
  CAPTURE(c.n);
  CAPTURE(c.vec);
  const int kinst = k_per_instruction(c.kind), K = kinst * c.ksteps, block_k = kinst / c.vec, nkb = K / block_k;
  const auto a = fp4_values(128, K, 11), b = fp4_values(c.n, K, 12);
  const auto sfa = scale_bytes(128, nkb, c.ue8m0, 13), sfb = scale_bytes(c.n, nkb, c.ue8m0, 14);
  const bool fp4 = c.kind != MmaKind::mxf8f6f4;
  Kernel kn;
  const Packed4 A4{kA, 128, K}, B4{kB, c.n, K};
  const KMajor A8{kA, 128, K, ElementType::e4m3}, B8{kB, c.n, K, ElementType::e4m3};
  if (fp4) {
    stage_packed(kn.cta, A4, a);
    stage_packed(kn.cta, B4, b);
  } else {
    stage(kn.cta, A8, a, 0);
    stage(kn.cta, B8, b, 0);
  }
  const std::uint32_t sfb_at = kSf + 0x1000;
  stage_scales(kn.cta, kSf, sfa, 128, nkb);
  stage_scales(kn.cta, sfb_at, sfb, c.n, nkb);
  // Words hold 4 K-blocks; each group of 4 K-blocks gets its own columns:
  // SFA 4 columns per group, SFB 4 per 128 rows of B per group.
  const int groups = (nkb + 3) / 4, b_blocks = (c.n + 127) / 128;
  for (int g = 0; g < groups; ++g) {
    cp_block(kn.cta, kn.tmem, kSf + 512u * std::uint32_t(g), kSfa + 4u * std::uint32_t(g));
    for (int rb = 0; rb < b_blocks; ++rb)
      cp_block(kn.cta, kn.tmem, sfb_at + 512u * std::uint32_t(rb * groups + g),
               kSfb + 4u * std::uint32_t(b_blocks * g + rb));
  }
  const int type_code = fp4 ? 1 : 0;  // E2M1 = 1 in Table 44, E4M3 = 0 in Table 43
  const MxIdesc base{c.n, type_code, type_code, c.ue8m0};
  for (int ks = 0; ks < c.ksteps; ++ks) {
    const int first_block = ks * c.vec, group = first_block / 4, id = first_block % 4;
    MxIdesc d = base;
    d.a_sf_id = d.b_sf_id = id;
    const MmaVariant v{.scale_vec = c.vec,
                       .scale_a_tmem = kn.tmem + kSfa + 4u * std::uint32_t(group),
                       .scale_b_tmem = kn.tmem + kSfb + 4u * std::uint32_t(b_blocks * group)};
    kn.cta.mma_ss({0, 0}, c.kind, kn.tmem + kD, fp4 ? A4.desc(ks * kinst) : A8.desc(ks * kinst),
                  fp4 ? B4.desc(ks * kinst) : B8.desc(ks * kinst), mx_idesc(d), ks > 0, CtaGroup::one, v);
  }
  kn.cta.commit({0, 0}, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, 0);
  const auto ref = scaled_reference(a, b, sfa, sfb, 128, c.n, K, block_k, c.ue8m0);
  CHECK(compare(read_d(kn.cta, kn.tmem + kD, 128, c.n), ref, 128, c.n) == 0);
  kn.end();
}

}  // namespace

TEST_CASE("the 32_4_4 scale-factor layout reproduces nvmath's get_block_scale_offset examples") {
  // NVFP4 128 × 128 (16-element blocks: 8 K-blocks): (row 5, block 2) -> 82, (5, 5) -> 593.
  CHECK(sf_offset(5, 2, 8) == 82);
  CHECK(sf_offset(5, 5, 8) == 593);
}

TEST_CASE("block-scaled MMA: every kind and scale vector size, factors via tcgen05.cp .32x128b.warpx4") {
  run_scaled({MmaKind::mxf8f6f4, 256, 1, 4});        // e4m3, 1X: scale IDs 0-3 over four MMAs
  run_scaled({MmaKind::mxf8f6f4, 64, 1, 5});         // a fifth MMA moves to the next 4 columns
  run_scaled({MmaKind::mxf4, 128, 2, 3});            // e2m1 packed, 2X: IDs 0 and 2, then the next word
  run_scaled({MmaKind::mxf4nvf4, 96, 2, 2});         // NVFP4 with UE8M0, 2X
  run_scaled({MmaKind::mxf4nvf4, 256, 4, 2, false});  // NVFP4 with UE4M3, 4X: a whole word per MMA
}

TEST_CASE("a block-scaled pair MMA (M = 256): each CTA scales its own rows by the factors in its Tensor Memory") {
  // CUTLASS's 2-SM block-scaled GEMMs: tcgen05.cp.cta_group::2 copies each CTA's factors (SFA of its 128
  // rows, SFB of all N) from its shared memory into its Tensor Memory; the MMA_ScaleFactor of a 2-SM atom
  // is the 1-SM MMA of M/2 rows (mma_traits_sm100.hpp). CTA v holds rows [128v, 128v + 128) of A and D
  // and rows [64v, 64v + 64) of B.
  constexpr int M = 256, N = 128, K = 32;
  const auto a = fp4_values(M, K, 21), b = fp4_values(N, K, 22);
  const auto sfa = scale_bytes(M, 1, true, 23), sfb = scale_bytes(N, 1, true, 24);
  std::array<Cta, 2> cta{Cta(CtaConfig{.rank = 0}), Cta(CtaConfig{.rank = 1})};
  cta[0].pair_with(cta[1]);
  std::array<std::uint32_t, 2> tmem{};
  for (Cta& c : cta) {
    c.alloc(0, Kernel::kTmemSlot, 512, CtaGroup::two);
    c.mbarrier_init({0, 0}, Kernel::kMbar, 1);
    c.bar_sync();
  }
  const KMajor A{kA, M / 2, K, ElementType::e4m3}, B{kB, N / 2, K, ElementType::e4m3};
  for (int v = 0; v < 2; ++v) {
    tmem[std::size_t(v)] = cta[std::size_t(v)].ld_shared_u32(1, Kernel::kTmemSlot);
    Cta& c = cta[std::size_t(v)];
    stage(c, A, {a.begin() + std::ptrdiff_t(v) * (M / 2) * K, a.begin() + std::ptrdiff_t(v + 1) * (M / 2) * K}, 0);
    stage(c, B, {b.begin() + std::ptrdiff_t(v) * (N / 2) * K, b.begin() + std::ptrdiff_t(v + 1) * (N / 2) * K}, 0);
    stage_scales(c, kSf, {sfa.begin() + std::ptrdiff_t(v) * (M / 2), sfa.begin() + std::ptrdiff_t(v + 1) * (M / 2)},
                 M / 2, 1);
    stage_scales(c, kSf + 0x1000, sfb, N, 1);
  }
  cta[0].cp({0, 0}, CpShape::s32x128b_warpx4, tmem[0] + kSfa, smem_desc(kSf, 0, 128), CtaGroup::two);
  cta[0].cp({0, 0}, CpShape::s32x128b_warpx4, tmem[0] + kSfb, smem_desc(kSf + 0x1000, 0, 128), CtaGroup::two);
  const MmaVariant v{.scale_vec = 1, .scale_a_tmem = tmem[0] + kSfa, .scale_b_tmem = tmem[0] + kSfb};
  cta[0].mma_ss({0, 0}, MmaKind::mxf8f6f4, tmem[0] + kD, A.desc(0), B.desc(0), mx_idesc({.n = N, .m = M}), false,
                CtaGroup::two, v);
  for (Cta& c : cta) cta[0].commit({0, 0}, Kernel::kMbar, CtaGroup::two, &c);
  const auto ref = scaled_reference(a, b, sfa, sfb, M, N, K, K, true);
  for (int r = 0; r < 2; ++r) {
    Cta& c = cta[std::size_t(r)];
    for (int w = 0; w < 4; ++w) {
      REQUIRE(c.mbarrier_try_wait(w, Kernel::kMbar, 0));
      c.fence_after_thread_sync(w);
    }
    INFO("CTA of rank " << r);
    CHECK(compare(read_d(c, tmem[std::size_t(r)] + kD, 128, N),
                  {ref.begin() + std::ptrdiff_t(r) * 128 * N, ref.begin() + std::ptrdiff_t(r + 1) * 128 * N}, 128, N) == 0);
    for (int w = 0; w < 4; ++w) c.wait_ld(w);
  }
  for (int r = 0; r < 2; ++r) {
    cta[std::size_t(r)].dealloc(0, tmem[std::size_t(r)], 512, CtaGroup::two);
    cta[std::size_t(r)].finish();
  }
  // M = 128 pairs keep 64 rows a CTA; where their factors lie is not modelled, and said so.
  std::array<Cta, 2> small{Cta(CtaConfig{.rank = 0}), Cta(CtaConfig{.rank = 1})};
  small[0].pair_with(small[1]);
  for (Cta& c : small) c.alloc(0, Kernel::kTmemSlot, 512, CtaGroup::two);
  expect_rule([&] { small[0].mma_ss({0, 0}, MmaKind::mxf8f6f4, 0, A.desc(0), B.desc(0), mx_idesc({.n = N}), false,
                                    CtaGroup::two, v); },
              Rule::unsupported, {"idesc.m", "M = 256"});
}

TEST_CASE("block-scaled MMA rules: duplication, lane 0, scale IDs, scale types, bits 30-31 ignored") {
  Kernel kn;
  const Packed4 A{kA, 128, 64}, B{kB, 64, 64};
  stage_packed(kn.cta, A, fp4_values(128, 64, 1));
  stage_packed(kn.cta, B, fp4_values(64, 64, 2));
  // Factors stored by tcgen05.st: warp q writes partition q's copy, 1.0 (0x7F) everywhere.
  const auto store_sf = [&](int warp, std::uint32_t column, std::uint32_t word) { store_scale_word(kn, warp, column, word); };
  store_sf(0, kSfa, 0x7F7F7F7Fu);
  store_sf(0, kSfb, 0x7F7F7F7Fu);
  hand_to_issuer(kn);
  const Thread t{0, 0};
  const MxIdesc id{64, 1, 1};
  MmaVariant v{.scale_vec = 2, .scale_a_tmem = kn.tmem + kSfa, .scale_b_tmem = kn.tmem + kSfb};
  const auto mma = [&](const MxIdesc& d, const MmaVariant& var, MmaKind kind = MmaKind::mxf4) {
    kn.cta.mma_ss(t, kind, kn.tmem + kD, A.desc(0), B.desc(0), mx_idesc(d), false, CtaGroup::one, var);
  };
  // Only partition 0 holds the factors: lane 32 was never written.
  expect_rule([&] { mma(id, v); }, Rule::uninitialized_tmem, {"lane 32, column 256", "scale-A-tmem"});
  for (int w = 1; w < 4; ++w) {
    store_sf(w, kSfa, w == 2 ? 0x7F7F7F80u : 0x7F7F7F7Fu);  // partition 2 differs in byte 0
    store_sf(w, kSfb, 0x7F7F7F7Fu);
  }
  hand_to_issuer(kn);
  expect_rule([&] { mma(id, v); }, Rule::scale_factors, {"lane 64, column 256", "all four 32-lane partitions"});
  store_sf(2, kSfa, 0x7F7F7F7Fu);
  hand_to_issuer(kn, {2});
  MmaVariant lane1 = v;
  lane1.scale_a_tmem += taddr(1, 0);
  expect_rule([&] { mma(id, lane1); }, Rule::scale_factors, {"scale-A-tmem lane", "names lane 0"});
  MxIdesc odd = id;
  odd.b_sf_id = 1;
  expect_rule([&] { mma(odd, v); }, Rule::idesc_invalid, {"idesc.b_sf_id", "0 or 2"});
  MxIdesc ue4m3 = id;
  ue4m3.ue8m0 = false;
  expect_rule([&] { mma(ue4m3, v); }, Rule::idesc_invalid, {"idesc.scale_type", "kind::mxf4nvf4 only"});
  // kind::mxf4nvf4 takes UE4M3 with 4X (its byte 0x7F is a NaN, which breaks no rule).
  MmaVariant nvf4 = v;
  nvf4.scale_vec = 4;
  CHECK_NOTHROW(mma(ue4m3, nvf4, MmaKind::mxf4nvf4));
  MmaVariant wrong_vec = v;
  wrong_vec.scale_vec = 1;
  expect_rule([&] { mma(id, wrong_vec); }, Rule::idesc_invalid, {"scale_vec::1X", "mxf4 2X"});
  // CUTLASS leaves the scale ID in address bits 30-31; they are ignored. The
  // words hold 1.0 (0x7F) in bytes 0-1, which the idesc's ID 0 picks, and 2.0
  // (0x80) in bytes 2-3, which an ID of 2 taken from bits 30-31 would pick.
  for (int w = 0; w < 4; ++w) {
    store_sf(w, kSfa, 0x80807F7Fu);
    store_sf(w, kSfb, 0x80807F7Fu);
  }
  hand_to_issuer(kn);
  MmaVariant top = v;
  top.scale_a_tmem |= 2u << 30;
  top.scale_b_tmem |= 2u << 30;
  CHECK_NOTHROW(mma(id, top));
  kn.cta.commit(t, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, 0);
  // Factors 2^0 from bytes 0-1: D is the plain product.
  const auto a = fp4_values(128, 64, 1), b = fp4_values(64, 64, 2);
  CHECK(compare(read_d(kn.cta, kn.tmem + kD, 128, 64), reference(a, b, 128, 64, 64), 128, 64) == 0);
  kn.end();
}

TEST_CASE("the A and B scale IDs pick their own bytes: a_sf_id 1 and b_sf_id 3 with 1X") {
  Kernel kn;
  const KMajor A{kA, 128, 32, ElementType::e4m3}, B{kB, 64, 32, ElementType::e4m3};
  const auto a = fp4_values(128, 32, 5), b = fp4_values(64, 32, 6);
  stage(kn.cta, A, a, 0);
  stage(kn.cta, B, b, 0);
  // Every word: bytes 2^-1, 2^0, 2^1, 2^2 (UE8M0 0x7E, 0x7F, 0x80, 0x81): ID 1 is 1.0, ID 3 is 4.0.
  for (int w = 0; w < 4; ++w) {
    store_scale_word(kn, w, kSfa, 0x81807F7Eu);
    store_scale_word(kn, w, kSfb, 0x81807F7Eu);
  }
  hand_to_issuer(kn);
  MxIdesc d{64, 0, 0};
  d.a_sf_id = 1;
  d.b_sf_id = 3;
  kn.cta.mma_ss({0, 0}, MmaKind::mxf8f6f4, kn.tmem + kD, A.desc(0), B.desc(0), mx_idesc(d), false, CtaGroup::one,
                MmaVariant{.scale_vec = 1, .scale_a_tmem = kn.tmem + kSfa, .scale_b_tmem = kn.tmem + kSfb});
  kn.cta.commit({0, 0}, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, 0);
  std::vector<double> ref = reference(a, b, 128, 64, 32);
  for (double& x : ref) x *= 1.0 * 4.0;
  CHECK(compare(read_d(kn.cta, kn.tmem + kD, 128, 64), ref, 128, 64) == 0);
  kn.end();
}

TEST_CASE("a UE4M3 factor with bit 7 set is refused, naming the byte") {
  Kernel kn;
  const Packed4 A{kA, 128, 64}, B{kB, 64, 64};
  stage_packed(kn.cta, A, fp4_values(128, 64, 3));
  stage_packed(kn.cta, B, fp4_values(64, 64, 4));
  for (int w = 0; w < 4; ++w) {
    WarpRegisters r{};
    for (auto& t : r) t.assign(4, 0x38383838u);  // UE4M3 1.0 in every byte
    r[5][0] = 0x38B83838u;  // lane 32w + 5, column kSfa, in every partition: byte 2 has bit 7 set
    kn.cta.st(w, {LdStShape::s32x32b, 4}, kn.tmem + taddr(32 * w, int(kSfa)), r);
    kn.cta.wait_st(w);
  }
  hand_to_issuer(kn);
  const MmaVariant v{.scale_vec = 4, .scale_a_tmem = kn.tmem + kSfa, .scale_b_tmem = kn.tmem + kSfa};
  expect_rule([&] {
    kn.cta.mma_ss({0, 0}, MmaKind::mxf4nvf4, kn.tmem + kD, A.desc(0), B.desc(0), mx_idesc({64, 1, 1, false}), false,
                  CtaGroup::one, v);
  }, Rule::scale_factors, {"scale-A-tmem byte", "0xb8", "row or column 5, factor 2"});
  kn.end();
}

TEST_CASE(".ws: Layouts D (M = 128), E (M = 64) and G (M = 32) fold D's columns into lane segments") {
  struct Ws {
    int m, n;
  };
  for (const Ws c : {Ws{128, 64}, Ws{64, 128}, Ws{64, 256}, Ws{32, 256}, Ws{32, 64}}) {
    CAPTURE(c.m);
    CAPTURE(c.n);
    Kernel kn;
    const KMajor A{kA, c.m, 16, ElementType::bf16}, B{kB, c.n, 16, ElementType::bf16};
    const auto a = small_values(c.m, 16, unsigned(c.m + c.n)), b = small_values(c.n, 16, unsigned(c.n));
    stage(kn.cta, A, a, 0);
    stage(kn.cta, B, b, 0);
    Idesc id;
    id.m = c.m;
    id.n = c.n;
    kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem, A.desc(0), B.desc(0), idesc(id), false, CtaGroup::one,
                  MmaVariant{.ws = true});
    kn.cta.commit({0, 0}, Kernel::kMbar);
    for (int w = 0; w < 4; ++w) kn.await(w, 0);
    // PTX #tcgen05-data-path-layout-organization (tcgen05-facts.md §4): D[m][n]
    // at lane m + M·(n / W), column n % W, with W = N·M/128.
    const int W = c.n * c.m / 128;
    const std::vector<float> lanes = read_d(kn.cta, kn.tmem, 128, W);
    std::vector<float> d(std::size_t(c.m) * c.n);
    for (int m = 0; m < c.m; ++m)
      for (int n = 0; n < c.n; ++n) d[std::size_t(m) * c.n + n] = lanes[std::size_t(m + c.m * (n / W)) * W + n % W];
    CHECK(compare(d, reference(a, b, c.m, c.n, 16), c.m, c.n) == 0);
    kn.end();
  }
  Kernel kn;
  const KMajor A{kA, 64, 16, ElementType::bf16}, B{kB, 64, 16, ElementType::bf16};
  stage(kn.cta, A, small_values(64, 16, 1), 0);
  stage(kn.cta, B, small_values(64, 16, 2), 0);
  Idesc n48;
  n48.m = 64;
  n48.n = 48;
  expect_rule([&] {
    kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem, A.desc(0), B.desc(0), idesc(n48), false, CtaGroup::one,
                  MmaVariant{.ws = true});
  }, Rule::idesc_invalid, {"idesc.n", "64, 128 or 256"});
  Idesc m64;
  m64.m = 64;
  m64.n = 64;
  expect_rule([&] {
    kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem + taddr(16, 0), A.desc(0), B.desc(0), idesc(m64), false,
                  CtaGroup::one, MmaVariant{.ws = true});
  }, Rule::mma_lane_offset, {"d-tmem lane", "Layout D, E or G"});
  kn.end();
}

TEST_CASE("scale-input-d: D = A·B + D·2^-s for kind::f16, and only there") {
  Kernel kn;
  const KMajor A{kA, 128, 16, ElementType::bf16}, B{kB, 64, 16, ElementType::bf16};
  const auto a = small_values(128, 16, 5), b = small_values(64, 16, 6);
  stage(kn.cta, A, a, 0);
  stage(kn.cta, B, b, 0);
  Idesc id;
  id.n = 64;
  kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem, A.desc(0), B.desc(0), idesc(id), false);
  kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem, A.desc(0), B.desc(0), idesc(id), true, CtaGroup::one,
                MmaVariant{.scale_input_d = 3});
  kn.cta.commit({0, 0}, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, 0);
  std::vector<double> ref = reference(a, b, 128, 64, 16);
  for (double& x : ref) x += x / 8;
  CHECK(compare(read_d(kn.cta, kn.tmem, 128, 64), ref, 128, 64) == 0);
  kn.release_d();
  Idesc e4m3{128, 64, 1, 0, 0};
  const KMajor A8{kA, 128, 32, ElementType::e4m3}, B8{kB, 64, 32, ElementType::e4m3};
  expect_rule([&] {
    kn.cta.mma_ss({0, 0}, MmaKind::f8f6f4, kn.tmem, A8.desc(0), B8.desc(0), idesc(e4m3), true, CtaGroup::one,
                  MmaVariant{.scale_input_d = 1});
  }, Rule::idesc_invalid, {"scale-input-d", "kind::f16 and tf32 only"});
  kn.end();
}
