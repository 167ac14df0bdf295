// tcgen05.mma and tcgen05.cp in the host model: exact results for every
// legal N at M = 128 and 64, every kind, K chains and negation, Layout F at
// lane 16, A from Tensor Memory (TS) stored by tcgen05.st or copied by
// tcgen05.cp, the cp shapes' lanes, and each operand rule broken once.
// Inputs are multiples of 1/4 in [-2, 2], so every product and sum is exact
// and the fp64 reference must match bit for bit.
#include "test_model_support.hpp"

using namespace model_test;

namespace {

constexpr std::uint32_t kA = 0x400, kB = 0x8000;  // operand tiles, 1024-aligned

// One SS MMA D = A·Bᵀ (M × N × K of `kind`) from freshly staged operands,
// committed and awaited by warps 0-3; returns D.
struct Case {
  MmaKind kind = MmaKind::f16;
  ElementType ta = ElementType::bf16, tb = ElementType::bf16, td = ElementType::f32;
  Idesc id;
  int k = 16;
};

std::vector<float> run_case(Kernel& kn, const Case& c, const std::vector<float>& a, const std::vector<float>& b,
                            std::uint32_t& parity) {
  const KMajor A{kA, c.id.m, c.k, c.ta}, B{kB, c.id.n, c.k, c.tb};
  stage(kn.cta, A, a, 1);
  stage(kn.cta, B, b, 1);
  kn.cta.bar_sync();
  kn.cta.mma_ss({0, 0}, c.kind, kn.tmem, A.desc(0), B.desc(0), idesc(c.id), false);
  kn.cta.commit({0, 0}, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, parity);
  parity ^= 1;
  std::vector<float> d = read_d(kn.cta, kn.tmem, c.id.m, c.id.n, c.td);
  kn.release_d();
  return d;
}

// Rows m of M = 64 (Layout F, lane offset a) live in lanes a + 32(m/16) + m%16.
bool layout_f_lane(int lane, int a) { return lane % 32 >= a && lane % 32 < a + 16; }

}  // namespace

TEST_CASE("SS bf16 -> f32, M = 128 and 64, every legal N: D equals the fp64 product") {
  for (int m : {128, 64}) {
    Kernel kn;
    std::uint32_t parity = 0;
    for (int n = 8; n <= 256; n += 8) {
      CAPTURE(m);
      CAPTURE(n);
      Case c;
      c.id.m = m;
      c.id.n = n;
      const auto a = small_values(m, 16, unsigned(n)), b = small_values(n, 16, unsigned(n + 1000));
      CHECK(mismatches(run_case(kn, c, a, b, parity), reference(a, b, m, n, 16)) == 0);
    }
    kn.end();
  }
}

TEST_CASE("every kind: f16 (fp16 or bf16 in, f32 or f16 out), tf32, f8f6f4 e4m3 and e5m2") {
  using E = ElementType;
  Case f16_f32{MmaKind::f16, E::fp16, E::fp16, E::f32, {128, 64, 1, 0, 0}, 16};
  Case f16_f16{MmaKind::f16, E::fp16, E::fp16, E::fp16, {128, 64, 0, 0, 0}, 16};
  Case bf16{MmaKind::f16, E::bf16, E::bf16, E::f32, {128, 64, 1, 1, 1}, 16};
  Case tf32{MmaKind::tf32, E::tf32, E::tf32, E::f32, {128, 64, 1, 2, 2}, 8};
  Case e4m3{MmaKind::f8f6f4, E::e4m3, E::e4m3, E::f32, {128, 64, 1, 0, 0}, 32};
  Case e5m2{MmaKind::f8f6f4, E::e5m2, E::e5m2, E::fp16, {128, 64, 0, 1, 1}, 32};
  Case mixed{MmaKind::f8f6f4, E::e4m3, E::e5m2, E::f32, {128, 64, 1, 0, 1}, 32};
  Kernel kn;
  std::uint32_t parity = 0;
  unsigned seed = 7;
  for (const Case& c : {f16_f32, f16_f16, bf16, tf32, e4m3, e5m2, mixed}) {
    CAPTURE(name(c.ta));
    CAPTURE(name(c.td));
    const auto a = small_values(128, c.k, seed++), b = small_values(64, c.k, seed++);
    CHECK(mismatches(run_case(kn, c, a, b, parity), reference(a, b, 128, 64, c.k)) == 0);
  }
  kn.end();
}

TEST_CASE("enable-input-d chains K steps (no swizzle and 128B swizzle); the negate bits negate") {
  for (bool sw128 : {false, true}) {
    Kernel kn;
    const int K = 64;
    const KMajor A{kA, 128, K, ElementType::bf16, sw128}, B{kB, 128, K, ElementType::bf16, sw128};
    const auto a = small_values(128, K, 1), b = small_values(128, K, 2);
    stage(kn.cta, A, a, 0);
    stage(kn.cta, B, b, 0);
    for (int ks = 0; ks < K / 16; ++ks)
      kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem, A.desc(16 * ks), B.desc(16 * ks), idesc({}), ks > 0);
    // Negated A and B into columns 128 and 256, from the first K step alone.
    Idesc neg_a, neg_b, neg_ab;
    neg_a.negate_a = neg_ab.negate_a = neg_ab.negate_b = neg_b.negate_b = true;
    kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem + 128, A.desc(0), B.desc(0), idesc(neg_a), false);
    kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem + 256, A.desc(0), B.desc(0), idesc(neg_b), false);
    kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem + 384, A.desc(0), B.desc(0), idesc(neg_ab), false);
    kn.cta.commit({0, 0}, Kernel::kMbar);
    for (int w = 0; w < 4; ++w) kn.await(w, 0);
    CHECK(mismatches(read_d(kn.cta, kn.tmem, 128, 128), reference(a, b, 128, 128, K)) == 0);
    // The first K step's reference: A and B cut to their first 16 columns.
    std::vector<float> a16, b16;
    for (int r = 0; r < 128; ++r)
      for (int kk = 0; kk < 16; ++kk) {
        a16.push_back(a[std::size_t(r) * K + kk]);
        b16.push_back(b[std::size_t(r) * K + kk]);
      }
    CHECK(mismatches(read_d(kn.cta, kn.tmem + 128, 128, 128), reference(a16, b16, 128, 128, 16, true, false)) == 0);
    CHECK(mismatches(read_d(kn.cta, kn.tmem + 256, 128, 128), reference(a16, b16, 128, 128, 16, false, true)) == 0);
    CHECK(mismatches(read_d(kn.cta, kn.tmem + 384, 128, 128), reference(a16, b16, 128, 128, 16)) == 0);
    kn.end();
  }
}

TEST_CASE("M = 64 writes Layout F: 16 lanes of each quarter, from lane 0 or 16") {
  for (int a_off : {0, 16}) {
    Kernel kn;
    CAPTURE(a_off);
    const KMajor A{kA, 64, 16, ElementType::bf16}, B{kB, 32, 16, ElementType::bf16};
    const auto a = small_values(64, 16, 3), b = small_values(32, 16, 4);
    stage(kn.cta, A, a, 0);
    stage(kn.cta, B, b, 0);
    Idesc id;
    id.m = 64;
    id.n = 32;
    const std::uint32_t d = kn.tmem + taddr(a_off, 32);
    kn.cta.mma_ss({0, 0}, MmaKind::f16, d, A.desc(0), B.desc(0), idesc(id), false);
    for (int lane = 0; lane < 128; ++lane) CHECK(kn.cta.tmem_written(lane, 40) == layout_f_lane(lane, a_off));
    CHECK_FALSE(kn.cta.tmem_written(a_off, 31));
    CHECK_FALSE(kn.cta.tmem_written(a_off, 64));
    kn.cta.commit({0, 0}, Kernel::kMbar);
    for (int w = 0; w < 4; ++w) kn.await(w, 0);
    CHECK(mismatches(read_d(kn.cta, d, 64, 32), reference(a, b, 64, 32, 16)) == 0);
    kn.end();
  }
}

TEST_CASE("TS: A stored packed into Tensor Memory (two bf16 per cell) gives the SS result, M = 128 and 64") {
  for (int m : {128, 64}) {
    CAPTURE(m);
    Kernel kn;
    const int lane0 = m == 128 ? 0 : 16;
    const KMajor B{kB, 64, 16, ElementType::bf16};
    const auto a = small_values(m, 16, 5), b = small_values(64, 16, 6);
    stage(kn.cta, B, b, 0);
    // Row r of A: 16 bf16 in 8 cells of its lane, element 2j low, 2j+1 high
    // (tcgen05-facts-2.md §1.2). Each warp stores its rows with 16x256b.x1
    // (16 lanes × 8 columns): at lane 32w and, for M = 128, at lane 32w + 16.
    const LdStAccess s256{LdStShape::s16x256b, 1};
    for (int w = 0; w < 4; ++w) {
      for (int half = 0; half < (m == 128 ? 2 : 1); ++half) {
        const int base = 32 * w + (m == 128 ? 16 * half : lane0);
        WarpRegisters regs;
        for (int t = 0; t < 32; ++t)
          for (int i = 0; i < 4; ++i) {
            const CellOffset o = cell_offset(s256, t, i, 0);
            const int row = m == 128 ? base + o.lane : 16 * w + o.lane;
            const float lo = a[std::size_t(row) * 16 + 2 * o.column], hi = a[std::size_t(row) * 16 + 2 * o.column + 1];
            regs[t].push_back(encode(ElementType::bf16, lo) | encode(ElementType::bf16, hi) << 16);
          }
        kn.cta.st(w, s256, kn.tmem + taddr(base, 256), regs);
      }
      kn.cta.wait_st(w);
      kn.cta.fence_before_thread_sync(w);
    }
    kn.cta.bar_sync();
    kn.cta.fence_after_thread_sync(0);
    Idesc id;
    id.m = m;
    id.n = 64;
    const std::uint32_t d = kn.tmem + taddr(lane0, 0);
    kn.cta.mma_ts({0, 0}, MmaKind::f16, d, kn.tmem + taddr(lane0, 256), B.desc(0), idesc(id), false);
    kn.cta.commit({0, 0}, Kernel::kMbar);
    for (int w = 0; w < 4; ++w) kn.await(w, 0);
    CHECK(mismatches(read_d(kn.cta, d, m, 64), reference(a, b, m, 64, 16)) == 0);
    kn.end();
  }
}

TEST_CASE("tcgen05.cp.128x256b puts source row s in lane s; cp -> mma from one thread needs no wait") {
  Kernel kn;
  const KMajor A{kA, 128, 16, ElementType::bf16}, B{kB, 64, 16, ElementType::bf16};
  const auto a = small_values(128, 16, 8), b = small_values(64, 16, 9);
  stage(kn.cta, A, a, 0);
  stage(kn.cta, B, b, 0);
  // The same K-major rows as the MMA operand: chunks LBO = 128·16 B apart, 8-row groups SBO = 128 B apart.
  kn.cta.cp({0, 0}, CpShape::s128x256b, kn.tmem + 256, smem_desc(kA, 128 * 16, 128));
  CHECK(kn.cta.tmem_value(5, 256 + 3) == (encode(ElementType::bf16, a[5 * 16 + 6]) |
                                           encode(ElementType::bf16, a[5 * 16 + 7]) << 16));
  Idesc id;
  id.n = 64;
  kn.cta.mma_ts({0, 0}, MmaKind::f16, kn.tmem, kn.tmem + 256, B.desc(0), idesc(id), false);
  kn.cta.commit({0, 0}, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, 0);
  CHECK(mismatches(read_d(kn.cta, kn.tmem, 128, 64), reference(a, b, 128, 64, 16)) == 0);
  kn.end();
}

TEST_CASE(".ws TS with M = 64 (Layout E): each half of D's columns from the A rows in its own 64 lanes") {
  // FlashMLA's "dual GEMM" (csrc/sm100/decode/head64): A row m of the first
  // column half at lane m, of the second at lane 64 + m, so two K chunks of Q
  // go through one instruction. B's rows 0-63 meet lanes 0-63, rows 64-127
  // lanes 64-127. (UNCONFIRMED in PTX's text; FlashMLA is right on B200s.)
  Kernel kn;
  const KMajor A{kA, 128, 16, ElementType::bf16}, B{kB, 128, 16, ElementType::bf16};
  const auto a = small_values(128, 16, 21), b = small_values(128, 16, 22);
  stage(kn.cta, A, a, 0);
  stage(kn.cta, B, b, 0);
  kn.cta.cp({0, 0}, CpShape::s128x256b, kn.tmem + 256, smem_desc(kA, 128 * 16, 128));  // source row r to lane r
  Idesc id;
  id.m = 64;
  id.n = 128;
  kn.cta.mma_ts({0, 0}, MmaKind::f16, kn.tmem, kn.tmem + 256, B.desc(0), idesc(id), false, CtaGroup::one,
                MmaVariant{.ws = true});
  kn.cta.commit({0, 0}, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, 0);
  const std::vector<float> lanes = read_d(kn.cta, kn.tmem, 128, 64);  // 128 lanes × 64 columns
  for (int half = 0; half < 2; ++half) {
    CAPTURE(half);
    const std::vector<float> a_half(a.begin() + half * 64 * 16, a.begin() + (half + 1) * 64 * 16),
        b_half(b.begin() + half * 64 * 16, b.begin() + (half + 1) * 64 * 16),
        d_half(lanes.begin() + half * 64 * 64, lanes.begin() + (half + 1) * 64 * 64);
    CHECK(mismatches(d_half, reference(a_half, b_half, 64, 64, 16)) == 0);
  }
  kn.end();
}

TEST_CASE("tcgen05.cp shapes: source rows to lanes as tcgen05-facts-2.md §2 lists them") {
  Kernel kn;
  // 128 rows of 32 bytes, byte j of row s = s + j (mod 256), no swizzle, dense rows.
  Staging s(kA, 128 * 32);
  for (int row = 0; row < 128; ++row)
    for (int j = 0; j < 32; ++j) {
      const std::uint32_t addr = kA + (row % 8) * 16 + (row / 8) * 128 + (j / 16) * 2048 + j % 16;
      s.bytes[addr - kA] = std::uint8_t(row + j);
    }
  s.store(kn.cta, 0);
  kn.cta.fence_proxy_async(0);
  const std::uint64_t desc = smem_desc(kA, 2048, 128);
  // The first cell (bytes 0-3, little-endian) and the last of source row `row`.
  auto first = [](int row) { return std::uint32_t(row) * 0x01010101u + 0x03020100u; };
  struct Expect {
    CpShape shape;
    int column, row;
    std::vector<int> lanes;
  };
  const Expect cases[] = {{CpShape::s128x256b, 0, 77, {77}},
                          {CpShape::s4x256b, 8, 3, {96}},
                          {CpShape::s128x128b, 16, 100, {100}},
                          {CpShape::s32x128b_warpx4, 20, 5, {5, 37, 69, 101}},
                          {CpShape::s64x128b_warpx2_02_13, 24, 40, {40, 104}},
                          {CpShape::s64x128b_warpx2_01_23, 28, 40, {72, 104}}};
  for (const Expect& e : cases) {
    CAPTURE(name(e.shape));
    kn.cta.cp({0, 0}, e.shape, kn.tmem + e.column, desc);
    for (int lane : e.lanes) CHECK(kn.cta.tmem_value(lane, e.column) == first(e.row));
    CHECK(kn.cta.tmem_written(e.lanes[0], e.column + row_bytes(e.shape) / 4 - 1));
    CHECK_FALSE(kn.cta.tmem_written(e.lanes[0], e.column + row_bytes(e.shape) / 4));
  }
  CHECK_FALSE(kn.cta.tmem_written(1, 8));  // 4x256b: lanes 0, 32, 64, 96 only
  CHECK(kn.cta.tmem_value(96, 8 + 7) == first(3) + 0x1C1C1C1Cu);  // bytes 28-31 of row 3
  kn.end();
}

TEST_CASE("tcgen05.cp from a 128B-swizzled source (FlashMLA's Q): row s, byte j at Swz(start + (s%8)·128 + (s/8)·SBO + j)") {
  // Facts §2.1 K-major swizzled, §2.3 Swz_128B(a) = a ^ ((a & 0x380) >> 3), written here by hand.
  Kernel kn;
  Staging s(kA, 128 * 128);
  const auto at = [](int row, int j) {
    const std::uint32_t a = kA + (row % 8) * 128 + (row / 8) * 1024 + j;
    return a ^ ((a & 0x380) >> 3);
  };
  for (int row = 0; row < 128; ++row)
    for (int j = 0; j < 32; ++j) s.bytes[at(row, j) - kA] = std::uint8_t(3 * row + j);
  s.store(kn.cta, 0);
  kn.cta.fence_proxy_async(0);
  kn.cta.cp({0, 0}, CpShape::s128x256b, kn.tmem, smem_desc(kA, 16, 1024, 2));
  for (int row : {0, 1, 7, 9, 77, 127})
    for (int c = 0; c < 8; ++c) {
      const std::uint32_t b0 = std::uint8_t(3 * row + 4 * c);
      CHECK(kn.cta.tmem_value(row, c) == (b0 | (b0 + 1) % 256 << 8 | (b0 + 2) % 256 << 16 | (b0 + 3) % 256 << 24));
    }
  kn.end();
}

TEST_CASE("operand rules: proxy fence, image bounds, descriptor and idesc fields") {
  Kernel kn;
  const KMajor A{kA, 128, 16, ElementType::bf16}, B{kB, 64, 16, ElementType::bf16};
  Idesc id;
  id.n = 64;
  const auto a = small_values(128, 16, 1), b = small_values(64, 16, 2);
  Staging sa(A.start, A.size()), sb(B.start, B.size());
  place(sa, A, a);
  place(sb, B, b);
  sa.store(kn.cta, 1);
  sb.store(kn.cta, 2);
  kn.cta.fence_proxy_async(2);  // warp 1 forgets its fence
  auto mma = [&](std::uint64_t a_desc, std::uint64_t b_desc, std::uint32_t i) {
    kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem, a_desc, b_desc, i, false);
  };
  // A PTX letter (CuTe's tutorial 01 runs so on B200s): counted once, as if warp 1 had fenced.
  expect_letter(kn.cta, [&] { mma(A.desc(0), B.desc(0), idesc(id)); }, Rule::proxy_fence_missing,
                {"tcgen05.mma.cta_group::1.kind::f16", "(warp 0, lane 0)", "address = 0x400", "st.shared of warp 1"});
  kn.cta.fence_proxy_async(1);
  mma(A.desc(0), B.desc(0), idesc(id));
  CHECK(kn.cta.warnings().at(Rule::proxy_fence_missing).count == 1);
  {  // an error when letters are errors
    Kernel strict(512, 4, true);
    sa.store(strict.cta, 1);
    sb.store(strict.cta, 2);
    strict.cta.fence_proxy_async(2);
    expect_rule([&] { strict.cta.mma_ss({0, 0}, MmaKind::f16, strict.tmem, A.desc(0), B.desc(0), idesc(id), false); },
                Rule::proxy_fence_missing, {"st.shared of warp 1"});
  }

  // Bytes landed by TMA are in the async proxy already: no fence needed.
  kn.cta.tma_load_landed(kA, sa.bytes, Kernel::kMbar);
  kn.cta.tma_load_landed(kB, sb.bytes, Kernel::kMbar);
  mma(A.desc(0), B.desc(0), idesc(id));

  const std::uint32_t end = kn.cta.smem_image().size();
  expect_rule([&] { mma(KMajor{end - 1024, 128, 16, ElementType::bf16}.desc(0), B.desc(0), idesc(id)); },
              Rule::smem_outside_image, {"a-desc", "outside the shared memory image"});
  const std::uint64_t no_version = A.desc(0) & ~(std::uint64_t{1} << 46);
  expect_rule([&] { mma(no_version, B.desc(0), idesc(id)); }, Rule::descriptor_invalid, {"a-desc"});
  const std::uint64_t code3 = B.desc(0) | std::uint64_t{3} << 61;
  expect_rule([&] { mma(A.desc(0), code3, idesc(id)); }, Rule::descriptor_invalid, {"b-desc"});
  Idesc bad_m = id;
  bad_m.m = 96;
  const std::uint32_t n_zero = idesc(id) & ~(0x3Fu << 17);  // N = 0
  expect_rule([&] { mma(A.desc(0), B.desc(0), n_zero); }, Rule::idesc_invalid, {"idesc.n"});
  expect_rule([&] { mma(A.desc(0), B.desc(0), idesc(bad_m)); }, Rule::idesc_invalid, {"idesc"});
  expect_rule([&] { mma(A.desc(0), B.desc(0), idesc(id) | 1u << 23); }, Rule::idesc_invalid);
}

TEST_CASE("Tensor Memory rules of the MMA: lane offset, allocation, TS A, enable-input-d, unsupported forms") {
  Kernel kn(128);
  const KMajor A{kA, 128, 16, ElementType::bf16}, B{kB, 256, 16, ElementType::bf16};
  stage(kn.cta, A, small_values(128, 16, 1), 0);
  stage(kn.cta, B, small_values(256, 16, 2), 0);
  Idesc id, m64, n256;
  id.n = 64;
  m64.m = 64;
  m64.n = 64;
  n256.n = 256;
  const Thread t{0, 0};
  expect_rule([&] { kn.cta.mma_ss(t, MmaKind::f16, kn.tmem + taddr(16, 0), A.desc(0), B.desc(0), idesc(id), false); },
              Rule::mma_lane_offset, {"d-tmem lane = 16", "Layout D"});
  expect_rule([&] { kn.cta.mma_ss(t, MmaKind::f16, kn.tmem + taddr(8, 0), A.desc(0), B.desc(0), idesc(m64), false); },
              Rule::mma_lane_offset, {"Layout F"});
  expect_rule([&] { kn.cta.mma_ss(t, MmaKind::f16, kn.tmem, A.desc(0), B.desc(0), idesc(n256), false); },
              Rule::tmem_outside_allocation, {"column = 128", "[0, 128)"});
  // .ws mixes rows of A's copies: cells never written are refused at the MMA itself.
  const MmaVariant ws{.ws = true};
  expect_rule([&] { kn.cta.mma_ss(t, MmaKind::f16, kn.tmem, A.desc(0), B.desc(0), idesc(id), true, CtaGroup::one, ws); },
              Rule::uninitialized_tmem, {"enable-input-d"});
  Idesc a_mn = id;
  a_mn.a_mn = true;
  expect_rule([&] { kn.cta.mma_ts(t, MmaKind::f16, kn.tmem, kn.tmem + 64, B.desc(0), idesc(a_mn), false); },
              Rule::ts_a_major, {"[a-tmem]"});
  expect_rule(
      [&] { kn.cta.mma_ts(t, MmaKind::f16, kn.tmem, kn.tmem + 64, B.desc(0), idesc(id), false, CtaGroup::one, ws); },
      Rule::uninitialized_tmem, {"reads A"});
  expect_rule(
      [&] { kn.cta.mma_ts(t, MmaKind::f16, kn.tmem, kn.tmem + taddr(16, 64), B.desc(0), idesc(id), false); },
      Rule::mma_lane_offset, {"a-tmem lane = 16"});
  expect_rule([&] { kn.cta.mma_ss(t, MmaKind::i8, kn.tmem, A.desc(0), B.desc(0), idesc(id), false); },
              Rule::unsupported, {"kind::i8"});
  expect_rule([&] { kn.cta.cp(t, CpShape::s128x256b, kn.tmem, A.desc(0) | std::uint64_t{1} << 61); },
              Rule::unsupported, {"128B_base32B"});
  expect_rule([&] { kn.cta.cp(t, CpShape::s4x256b, kn.tmem + taddr(32, 0), A.desc(0)); }, Rule::unsupported,
              {"lane 0"});
}

TEST_CASE("Rows of D computed from cells never written are undefined: loading them faults, the others are exact") {
  // 77_blackwell_fmha_gen runs so on B200s: one softmax warp stores P in lanes 0-31 and the M = 64
  // TS-MMA reads Layout F rows 16-63 too; only the rows of the stored lanes are ever loaded.
  Kernel kn;
  const KMajor A{kA, 128, 16, ElementType::bf16}, B{kB, 64, 16, ElementType::bf16};
  const auto a = small_values(128, 16, 31), b = small_values(64, 16, 32);
  stage(kn.cta, A, a, 0);
  stage(kn.cta, B, b, 0);
  WarpRegisters regs;  // warp 0: rows 0-31 of A, two bf16 per cell, at column 256
  for (int t = 0; t < 32; ++t)
    for (int c = 0; c < 8; ++c)
      regs[t].push_back(encode(ElementType::bf16, a[std::size_t(t) * 16 + 2 * c]) |
                        encode(ElementType::bf16, a[std::size_t(t) * 16 + 2 * c + 1]) << 16);
  kn.cta.st(0, {LdStShape::s32x32b, 8}, kn.tmem + 256, regs);
  kn.cta.wait_st(0);
  kn.cta.fence_before_thread_sync(0);
  kn.cta.bar_sync();
  kn.cta.fence_after_thread_sync(0);
  Idesc id;
  id.n = 64;
  kn.cta.mma_ts({0, 0}, MmaKind::f16, kn.tmem, kn.tmem + 256, B.desc(0), idesc(id), false);  // rows 32-127 undefined
  // enable-input-d onto it: rows 32-127, written by the same MMA as rows 0-31 but undefined, stay
  // undefined; rows 0-31 add A's rows 0-31 (the TS operand's) · B once more.
  kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem, A.desc(0), B.desc(0), idesc(id), true);
  // enable-input-d on columns never written: every row undefined.
  kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem + 128, A.desc(0), B.desc(0), idesc(id), true);
  kn.cta.commit({0, 0}, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, 0);

  const WarpRegisters rows = kn.cta.ld(0, {LdStShape::s32x32b, 64}, kn.tmem);
  const std::vector<float> a_top(a.begin(), a.begin() + 32 * 16);
  std::vector<double> ref = reference(a_top, b, 32, 64, 16);
  for (double& r : ref) r *= 2;
  std::vector<float> got;
  for (int t = 0; t < 32; ++t)
    for (int n = 0; n < 64; ++n) got.push_back(decode(ElementType::f32, rows[t][n]));
  CHECK(mismatches(got, ref) == 0);
  expect_rule([&] { kn.cta.ld(1, {LdStShape::s32x32b, 1}, kn.tmem + taddr(32, 0)); }, Rule::uninitialized_tmem,
              {"lane 32", "undefined value", "tcgen05.mma.cta_group::1.kind::f16"});
  expect_rule([&] { kn.cta.ld(0, {LdStShape::s32x32b, 1}, kn.tmem + 128 + 63); }, Rule::uninitialized_tmem,
              {"undefined value", "enable-input-d"});

  // A write defines the cells again: a fresh chain over them loads clean.
  kn.release_d();
  kn.cta.mma_ss({0, 0}, MmaKind::f16, kn.tmem + 128, A.desc(0), B.desc(0), idesc(id), false);
  kn.cta.commit({0, 0}, Kernel::kMbar);
  for (int w = 0; w < 4; ++w) kn.await(w, 1);
  CHECK(mismatches(read_d(kn.cta, kn.tmem + 128, 128, 64), reference(a, b, 128, 64, 16)) == 0);
  kn.end();
}
