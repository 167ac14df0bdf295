// Block-scaled tcgen05.mma from a user's raw CUDA + inline PTX
// (tests/ptx_programs/block_scaled_kernels.cu), built by nvcc for sm_100a and
// run through the PTX interpreter: an NVFP4 tile (kind::mxf4nvf4, 4X, UE4M3)
// and an MXFP8 tile (kind::mxf8f6f4 e4m3, .block32, UE8M0) against fp64,
// with fresh random values whose products and sums fp32 holds exactly (so
// the bound is equality); and the tile whose factors are copied without
// duplication, reported at its .cu line.
#include <doctest/doctest.h>

#if defined(TCGEN_BLOCK_SCALED_PTX)

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "fresh_seed.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/launch.hpp"

using namespace tcgen;

namespace {

const ptx::Module& kernels() {
  static const ptx::Module m = ptx::Module::load(TCGEN_BLOCK_SCALED_PTX);
  return m;
}

constexpr int kM = 128, kN = 128, kK = 128;
constexpr std::uint32_t kSmem = 34828;  // block_scaled_kernels.cu: operands, factors, mbarrier, TMEM slot

// The factor layout of cuBLAS and CUTLASS for 128 rows (tcgen05-facts-2.md §6; nvmath's
// get_block_scale_offset): byte 16·(r%32) + 4·(r/32) + kb%4 of 512-byte block kb/4.
std::size_t sf_offset(int r, int kb) { return 512u * (kb / 4) + 16u * (r % 32) + 4u * (r / 32) + kb % 4; }

struct Tile {
  bool fp4;
  int block;  // K elements per scale factor: 16 (NVFP4) or 32 (MXFP8)
  std::vector<float> a, b;               // row-major 128 × K values
  std::vector<std::uint8_t> sfa, sfb;    // rows × K/block factor bytes
  std::vector<std::uint8_t> a_bytes, b_bytes, sfa_bytes, sfb_bytes;
  std::vector<float> d = std::vector<float>(kM * kN, -1.0f);

  Tile(bool nvfp4, std::uint32_t seed) : fp4(nvfp4), block(nvfp4 ? 16 : 32) {
    std::mt19937 rng(seed);
    static constexpr float kMag[] = {0.5f, 1, 1.5f, 2, 3, 4, 6};  // e2m1's nonzero magnitudes, exact in e4m3 too
    std::uniform_int_distribution<int> pick(0, 13), e(-1, 1), mant(0, 7);
    const ElementType t = fp4 ? ElementType::e2m1 : ElementType::e4m3;
    const int row_bytes = fp4 ? kK / 2 : kK, nkb = kK / block;
    for (auto* m : {&a, &b}) {
      auto& bytes = m == &a ? a_bytes : b_bytes;
      bytes.assign(std::size_t(128) * row_bytes, 0);
      for (int r = 0; r < 128; ++r)
        for (int k = 0; k < kK; ++k) {
          const int i = pick(rng);
          const float v = (i % 2 ? -1.0f : 1.0f) * kMag[i / 2];
          m->push_back(v);
          const std::uint32_t code = encode(t, v);
          if (fp4) bytes[std::size_t(r) * row_bytes + k / 2] |= std::uint8_t(code << (4 * (k % 2)));
          else bytes[std::size_t(r) * row_bytes + k] = std::uint8_t(code);
        }
    }
    // UE4M3 1 .. 1.875 (exponent field 7) or UE8M0 2^-1 .. 2^1: every sum stays exact in fp32.
    for (auto* s : {&sfa, &sfb}) {
      auto& bytes = s == &sfa ? sfa_bytes : sfb_bytes;
      bytes.assign(512u * ((nkb + 3) / 4), 0);
      for (int r = 0; r < 128; ++r)
        for (int kb = 0; kb < nkb; ++kb) {
          const std::uint8_t x = fp4 ? std::uint8_t(7 << 3 | mant(rng)) : std::uint8_t(127 + e(rng));
          s->push_back(x);
          bytes[sf_offset(r, kb)] = x;
        }
    }
  }
  double scale(std::uint8_t x) const {
    return fp4 ? std::ldexp(1.0 + (x & 7) / 8.0, (x >> 3) - 7) : std::ldexp(1.0, int(x) - 127);
  }
  std::vector<double> reference() const {
    const int nkb = kK / block;
    std::vector<double> r(std::size_t(kM) * kN, 0.0);
    for (int i = 0; i < kM; ++i)
      for (int j = 0; j < kN; ++j)
        for (int k = 0; k < kK; ++k)
          r[std::size_t(i) * kN + j] += double(a[std::size_t(i) * kK + k]) * scale(sfa[std::size_t(i) * nkb + k / block]) *
                                        double(b[std::size_t(j) * kK + k]) * scale(sfb[std::size_t(j) * nkb + k / block]);
    return r;
  }
  void run(const std::string& kernel, std::uint32_t smem = kSmem) {
    const std::uint8_t *ap = a_bytes.data(), *bp = b_bytes.data(), *sap = sfa_bytes.data(), *sbp = sfb_bytes.data();
    float* dp = d.data();
    const ptx::Argument args[] = {ptx::argument(ap), ptx::argument(bp), ptx::argument(sap), ptx::argument(sbp),
                                  ptx::argument(dp)};
    const ptx::Allocation memory[] = {{ap, a_bytes.size(), "A"},        {bp, b_bytes.size(), "B"},
                                      {sap, sfa_bytes.size(), "SFA"},   {sbp, sfb_bytes.size(), "SFB"},
                                      {dp, d.size() * 4, "D", true}};
    ptx::launch(kernels(), kernels().entry(kernel), {.block = {128, 1, 1}, .dynamic_smem = smem}, args, memory);
  }
};

}  // namespace

TEST_CASE("a raw-PTX NVFP4 tile (mxf4nvf4, 4X, UE4M3) and MXFP8 tile (mxf8f6f4, block32) equal fp64") {
  for (bool nvfp4 : {true, false}) {
    CAPTURE(nvfp4);
    const std::uint32_t seed = fresh_seed() + (nvfp4 ? 0 : 1);
    INFO("seed " << seed);
    Tile t(nvfp4, seed);
    t.run(nvfp4 ? "nvfp4_tile" : "mxfp8_tile");
    const CompareReport r = compare(t.d, t.reference(), kM, kN, 0.0);
    CHECK_MESSAGE(r.ok, r.text());
  }
}

TEST_CASE("factors copied by tcgen05.cp.128x128b are not duplicated: the MMA names the cell and the .cu line") {
  Tile t(true, fresh_seed() + 2);
  std::string e = "(no error)";
  try {
    t.run("nvfp4_tile_sf_not_duplicated", kSmem + 4096);  // room for the 2 KiB that 128x128b reads
  } catch (const ptx::ExecutionError& x) {
    e = x.what();
  }
  MESSAGE(e);
  CHECK(e.find("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X") != std::string::npos);
  CHECK(e.find("from block_scaled_kernels.cu:") != std::string::npos);
  CHECK(e.find("#tcgen05-block-scaling") != std::string::npos);
  CHECK(e.find("must be the same in all four 32-lane partitions") != std::string::npos);
}

#else
TEST_CASE("the block-scaled kernels need nvcc to be built as PTX" * doctest::skip()) {}
#endif
