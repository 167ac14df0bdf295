// moe/scale_layout.hpp against two independent sources: CUTLASS's
// definition of the blocked scale-factor layout, worked out by hand here,
// and the host model, which must find factor (row, sf_col) where
// scale_offset puts it when a block-scaled MMA reads it from Tensor Memory
// after tcgen05.cp .32x128b.warpx4 (HostArch::cp, the call a kernel makes).
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "expect_error.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/exec/tmem_lifetime.hpp"
#include "tcgen/layout/layout.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/moe/scale_layout.hpp"
#include "tcgen/tmem/plan.hpp"
#include "tcgen/tmem/tile_access.hpp"

using namespace tcgen;
using moe::scale_bytes;
using moe::scale_offset;

// CUTLASS include/cutlass/detail/sm100_blockscaled_layout.hpp: the K-major
// atom Shape<Shape<_32,_4>, Shape<SFVec,_4>> : Stride<Stride<_16,_4>, Stride<_0,_1>>
// puts row r = r0 + 32·r1 (r0 < 32, r1 < 4) and factor j < 4 at
// 16·r0 + 4·r1 + j; tile_to_shape(..., Step<_2,_1,_3>) places the 512-byte
// atoms K-block fastest. Worked by hand:
TEST_CASE("scale_offset: CUTLASS's 32_4_4 atom and its tiling, points worked by hand") {
  CHECK(layout::to_string(moe::kScaleAtom) == "((32,4),4):((16,4),1)");
  CHECK(scale_offset(0, 0, 4) == 0);
  CHECK(scale_offset(0, 1, 4) == 1);     // r0 = 0, r1 = 0, j = 1
  CHECK(scale_offset(1, 0, 4) == 16);    // r0 = 1
  CHECK(scale_offset(32, 0, 4) == 4);    // r0 = 0, r1 = 1
  CHECK(scale_offset(33, 2, 4) == 22);   // 16 + 4 + 2
  CHECK(scale_offset(127, 3, 4) == 511); // 16·31 + 4·3 + 3: the atom's last byte
  CHECK(scale_offset(128, 0, 4) == 512); // one K block per row: the next 128 rows are the next atom
  CHECK(scale_offset(0, 4, 8) == 512);   // two K blocks: K block 1 comes before row block 1
  CHECK(scale_offset(128, 0, 8) == 1024);
  CHECK(scale_offset(130, 5, 8) == 3 * 512 + 16 * 2 + 1);  // atom (1, 1): row 2, factor 1
  CHECK(scale_offset(100, 6, 7) == 512 + 16 * 4 + 4 * 3 + 2);  // sf_cols 7 pads to 8
  CHECK(scale_bytes(1, 1) == 512);
  CHECK(scale_bytes(128, 4) == 512);
  CHECK(scale_bytes(129, 5) == 4 * 512);
  CHECK(scale_bytes(300, 16) == 3 * 4 * 512);
}

TEST_CASE("scale_offset: every factor of a padded matrix has its own byte inside scale_bytes") {
  for (const auto& [rows, sf_cols] : {std::pair{128, 4}, std::pair{200, 7}, std::pair{384, 16}}) {
    CAPTURE(rows);
    CAPTURE(sf_cols);
    std::set<std::uint64_t> seen;
    for (int r = 0; r < rows; ++r)
      for (int j = 0; j < sf_cols; ++j) {
        const std::uint64_t at = scale_offset(r, j, sf_cols);
        CHECK(at < scale_bytes(rows, sf_cols));
        seen.insert(at);
      }
    CHECK(seen.size() == std::size_t(rows) * sf_cols);
  }
}

TEST_CASE("scale_offset: bad coordinates name the field") {
  expect_error([] { (void)scale_offset(-1, 0, 4); }, "row");
  expect_error([] { (void)scale_offset(0, 4, 4); }, "sf_col");
  expect_error([] { (void)scale_bytes(0, 4); }, "rows");
  expect_error([] { (void)scale_bytes(1, 0); }, "sf_cols");
}

namespace {

using T = ElementType;
constexpr int kM = 128, kN = 128, kK = 256, kSfCols = kK / 16;

// PTX Table 40: a no-swizzle descriptor, 16-byte rows in 8-row groups SBO = 128 B apart.
std::uint64_t sf_desc(std::uint32_t addr) {
  return (addr & 0x3FFFF) >> 4 | std::uint64_t{128 >> 4} << 32 | std::uint64_t{1} << 46;
}

template <int Rows>
using Fp4Tile = mma::SmemMatrix<layout::SmemOperandSpec{layout::dense_element(4), layout::Major::K,
                                                        layout::SmemSwizzle::b128, Rows, kK}>;

// The shared-memory image of a tile of e2m1 values f(r, c), where the layout library puts them.
template <class Tile, class F>
std::vector<std::uint8_t> image(F f) {
  constexpr auto op = Tile::operand;
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(op.size_bytes()), 0);
  for (int r = 0; r < Tile::spec.rows; ++r)
    for (int c = 0; c < Tile::spec.cols; ++c) {
      const std::uint32_t code = encode(T::e2m1, f(r, c));
      bytes.at(static_cast<std::size_t>(op.address(0, r, c))) |= std::uint8_t(code << op.bit(op.layout()(r, c)));
    }
  return bytes;
}

// A distinct UE4M3 factor for every (row, sf_col): normal encodings 0x08 .. 0x77.
std::uint8_t factor(int r, int j) { return std::uint8_t(0x08 + (r * kSfCols + j) % 0x70); }

}  // namespace

// NVFP4 (mxf4nvf4, 4X, UE4M3): one MMA K step of 64 covers four 16-element
// K blocks, the four bytes of one Tensor Memory word. A is all ones and B's
// column n is one on K block n % 16 only, so D[r][n] = 16 · SFA(r, n % 16)
// · SFB(n, n % 16), with SFB all 1: each column shows the factor the MMA took
// for row r and K block n % 16. SFA is laid out by scale_offset, and K step k
// copies its 512 bytes from block k, as a kernel would.
TEST_CASE("scale_offset: the host model's block-scaled MMA reads factor (row, sf_col) where scale_offset puts it") {
  using Atom = mma::Mma<mma::InstrDescriptorSpec{.kind = mma::MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1, .n = kN,
                                                 .scale_type = mma::ScaleType::ue4m3}>;
  using ATile = Fp4Tile<kM>;
  using BTile = Fp4Tile<kN>;
  constexpr int ksteps = BTile::ksteps;
  static_assert(ksteps == kSfCols / 4);
  using Plan = tmem::Plan<tmem::accumulator("D", {kM, kN}), tmem::scratch("SF", 128, 8 * ksteps, T::u8)>;
  using Ld = exec::LdSt<layout::TmemAccess{layout::TmemShape::s32x32b, 16}>;
  using Walk = tmem::TileAccess<typename Plan::template Tile<"D">, Ld::access>;

  const std::vector<std::uint8_t> a = image<ATile>([](int, int) { return 1.0f; });
  const std::vector<std::uint8_t> b = image<BTile>([](int n, int c) { return c / 16 == n % 16 ? 1.0f : 0.0f; });
  REQUIRE(scale_bytes(kM, kSfCols) == 512u * ksteps);
  std::vector<std::uint8_t> sf(2 * scale_bytes(kM, kSfCols), 0x38);  // SFA, then SFB: UE4M3 1.0
  for (int r = 0; r < kM; ++r)
    for (int j = 0; j < kSfCols; ++j) sf[scale_offset(r, j, kSfCols)] = factor(r, j);
  const std::uint32_t kA = 0, kB = 32768, kSf = 65536, kSfb = kSf + std::uint32_t(scale_bytes(kM, kSfCols)),
                      kDone = kSf + std::uint32_t(sf.size()), kSlot = kDone + 8;
  std::vector<float> d(std::size_t(kM) * kN, -1.0f);
  exec::host::launch({1, 1, 1}, 128, kSlot + 8, [&](exec::HostArch& arch) {
    const std::uint32_t smem = arch.smem_base();
    exec::allocate_tmem<Plan>(arch, 0, smem + kSlot);
    if (arch.thread_index() == 0) {
      for (const auto& [at, bytes] : {std::pair{kA, &a}, std::pair{kB, &b}, std::pair{kSf, &std::as_const(sf)}})
        for (std::size_t i = 0; i < bytes->size(); i += 16)
          arch.smem_store(smem + at + std::uint32_t(i), std::span(bytes->data() + i, 16), "st.shared.v4.b32");
      arch.fence_proxy_async();
      arch.mbarrier_init(smem + kDone, 1);
    }
    const tmem::TmemAddress base = exec::publish_tmem(arch, smem + kSlot);
    const auto dt = Plan::template tile<"D">(base);
    const tmem::TmemAddress sf_tmem = Plan::template tile<"SF">(base).address;
    if (arch.thread_index() == 0) {
      for (int k = 0; k < ksteps; ++k) {
        const std::uint32_t column = 8u * k, block = 512u * k;
        arch.cp(tmem::CopyShape::s32x128b_warpx4, sf_tmem.col_offset(column), sf_desc(smem + kSf + block), 1);
        arch.cp(tmem::CopyShape::s32x128b_warpx4, sf_tmem.col_offset(column + 4), sf_desc(smem + kSfb + block), 1);
      }
      for (int k = 0; k < ksteps; ++k)
        arch.mma(Atom{}, dt, ATile(smem + kA), BTile(smem + kB), k, k > 0, sf_tmem.col_offset(8u * k),
                 sf_tmem.col_offset(8u * k + 4));
      arch.commit(Atom{}, smem + kDone);
    }
    arch.mbarrier_wait(smem + kDone, 0);
    arch.fence_after_thread_sync();
    const int quarter = static_cast<int>(arch.warp_index() % 4);
    for (int s = 0; s < Walk::accesses; ++s) {
      const Ld::Registers r = arch.ld(Ld{}, Walk::address(dt, quarter, s));
      arch.wait_ld();
      for (int i = 0; i < Ld::registers; ++i) {
        const tmem::Element e = Walk::element(quarter, s, static_cast<int>(arch.lane_index()), i);
        d[std::size_t(e.row) * kN + e.col] = std::bit_cast<float>(r[i]);
      }
    }
    exec::free_tmem<Plan>(arch, 0, base);
  });
  int wrong = 0;
  for (int r = 0; r < kM; ++r)
    for (int n = 0; n < kN; ++n) {
      const float want = 16.0f * decode(T::e4m3, factor(r, n % 16));
      if (d[std::size_t(r) * kN + n] != want && ++wrong <= 5)
        FAIL_CHECK("D[" << r << "][" << n << "] = " << d[std::size_t(r) * kN + n] << ", expected 16 · factor(" << r
                        << ", " << n % 16 << ") = " << want);
    }
  CHECK(wrong == 0);
}
