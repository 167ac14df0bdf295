// tcgen's own .ws and block-scaled mma::Mma atoms on the host model through
// exec::HostArch: the atom's idesc and form (the mma library), its operand
// tiles' element placement (the layout library) and its accumulator's
// Tensor Memory layout as tmem::TileAccess walks it, all held against the
// model's independent reading. One CTA of four warps: thread 0 stages A, B
// (and the scale-factor blocks, copied by tcgen05.cp .32x128b.warpx4),
// issues the MMAs and commits; every warp reads its lane quarter of D. The
// inputs are fresh random values whose products and sums fp32 holds exactly,
// so D must equal fp64.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "fresh_seed.hpp"
#include "tcgen/core/compare.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/exec/ld_st.hpp"
#include "tcgen/exec/tmem_lifetime.hpp"
#include "tcgen/mma/mma_atom.hpp"
#include "tcgen/tmem/plan.hpp"
#include "tcgen/tmem/tile_access.hpp"

using namespace tcgen;
using layout::Major;
using layout::SmemSwizzle;
using T = ElementType;

namespace {

// A scale-factor block: 128 rows × 4 bytes in 512 (tcgen05-facts-2.md §6); byte j of row r.
std::size_t sf_offset(int r, int j) { return 16u * (r % 32) + 4u * (r / 32) + j; }
// PTX Table 40: a no-swizzle descriptor, 16-byte rows in 8-row groups SBO = 128 B apart.
std::uint64_t sf_desc(std::uint32_t addr) {
  return (addr & 0x3FFFF) >> 4 | std::uint64_t{128 >> 4} << 32 | std::uint64_t{1} << 46;
}

// Nonzero values every operand type here holds exactly: ±0.5 .. ±6 (e2m1's set), or quarters in [-2, 2] for bf16.
std::vector<float> values(int rows, int k, T type, std::mt19937& rng) {
  static constexpr float kMag[] = {0.5f, 1, 1.5f, 2, 3, 4, 6};
  std::uniform_int_distribution<int> pick(0, 13), quarter(1, 8), sign(0, 1);
  std::vector<float> v(std::size_t(rows) * k);
  for (float& x : v)
    x = type == T::bf16 ? (sign(rng) ? -1.0f : 1.0f) * quarter(rng) / 4.0f
                        : ([&] { const int i = pick(rng); return (i % 2 ? -1.0f : 1.0f) * kMag[i / 2]; })();
  return v;
}

// A rows × k tile's bytes where the layout library puts each element (its shared-memory image at address 0).
template <class Tile>
std::vector<std::uint8_t> image(const std::vector<float>& v, T type) {
  constexpr auto op = Tile::operand;
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(op.size_bytes()), 0);
  for (int r = 0; r < Tile::spec.rows; ++r)
    for (int c = 0; c < Tile::spec.cols; ++c) {
      const std::uint32_t code = encode(type, v[std::size_t(r) * Tile::spec.cols + c]);
      const auto at = static_cast<std::size_t>(op.address(0, r, c));
      const int bit = op.bit(op.layout()(r, c));
      for (int j = 0; j < bits(type); j += 8) bytes.at(at + (bit + j) / 8) |= std::uint8_t((code >> j) << bit);
    }
  return bytes;
}

struct Problem {
  std::vector<float> a, b;
  std::vector<std::uint8_t> sfa, sfb;  // rows × blocks factor bytes, UE8M0 2^-1 .. 2^1 or UE4M3 1 .. 1.875
  int blocks = 0;
};

// D (M × N) of Atom over ksteps K steps, read back through TileAccess.
template <class Atom, class ATile, class BTile>
std::vector<float> run(const Problem& p, T type) {
  constexpr int M = Atom::spec.m, N = Atom::spec.n;
  // The atom's scale IDs are fixed (0), so K step k has its own word: a
  // group of columns, SFA in 4, then SFB in 4 per 128 rows of B, its V
  // factors in bytes 0 .. V-1.
  constexpr int b_blocks = (N + 127) / 128, group = 4 + 4 * b_blocks;
  using Plan = tmem::Plan<tmem::accumulator("D", {M, N, 1, Atom::spec.ws}),
                          tmem::scratch("SF", 128, BTile::ksteps * group, ElementType::u8)>;
  using Ld = exec::LdSt<layout::TmemAccess{layout::TmemShape::s32x32b, 16}>;
  using Walk = tmem::TileAccess<typename Plan::template Tile<"D">, Ld::access>;
  const std::vector<std::uint8_t> a = image<ATile>(p.a, type), b = image<BTile>(p.b, type);
  // cp sources: block k of SFA at 512·k, blocks k of SFB at 4096 + 512·(b_blocks·k + rb).
  std::vector<std::uint8_t> sf(4096 + 512u * BTile::ksteps * b_blocks, 0);
  const int vec = Atom::scaled ? Atom::scale_vec : 1;
  for (int kb = 0; kb < p.blocks; ++kb) {
    const int k = kb / vec, j = kb % vec;
    for (int r = 0; r < M; ++r) sf.at(512u * k + sf_offset(r, j)) = p.sfa[std::size_t(r) * p.blocks + kb];
    for (int r = 0; r < N; ++r)
      sf.at(4096 + 512u * (b_blocks * k + r / 128) + sf_offset(r % 128, j)) = p.sfb[std::size_t(r) * p.blocks + kb];
  }
  const std::uint32_t kA = 0, kB = 65536, kSf = 131072, kDone = kSf + std::uint32_t(sf.size()), kSlot = kDone + 8;
  std::vector<float> d(std::size_t(M) * N, -1.0f);
  exec::host::launch({1, 1, 1}, 128, kSlot + 8, [&](exec::HostArch& arch) {
    const std::uint32_t smem = arch.smem_base();
    exec::allocate_tmem<Plan>(arch, 0, smem + kSlot);
    if (arch.thread_index() == 0) {
      for (const auto& [at, bytes] : {std::pair{kA, &a}, std::pair{kB, &b}, std::pair{kSf, static_cast<const std::vector<std::uint8_t>*>(&sf)}})
        for (std::size_t i = 0; i < bytes->size(); i += 16)
          arch.smem_store(smem + at + std::uint32_t(i), std::span(bytes->data() + i, 16), "st.shared.v4.b32");
      arch.fence_proxy_async();
      arch.mbarrier_init(smem + kDone, 1);
    }
    const tmem::TmemAddress base = exec::publish_tmem(arch, smem + kSlot);
    const auto dt = Plan::template tile<"D">(base);
    const tmem::TmemAddress sf_tmem = Plan::template tile<"SF">(base).address;
    if (arch.thread_index() == 0) {
      const ATile at(smem + kA);
      const BTile bt(smem + kB);
      if constexpr (Atom::scaled) {
        for (int k = 0; k < BTile::ksteps; ++k) {
          const std::uint32_t column = std::uint32_t(group * k);
          arch.cp(model::CpShape::s32x128b_warpx4, sf_tmem.col_offset(column).raw(), sf_desc(smem + kSf + 512u * k), 1);
          for (int rb = 0; rb < b_blocks; ++rb)
            arch.cp(model::CpShape::s32x128b_warpx4, sf_tmem.col_offset(column + 4u + 4u * rb).raw(),
                    sf_desc(smem + kSf + 4096 + 512u * (b_blocks * k + rb)), 1);
        }
        for (int k = 0; k < BTile::ksteps; ++k)
          arch.mma(Atom{}, dt, at, bt, k, k > 0, sf_tmem.col_offset(std::uint32_t(group * k)),
                   sf_tmem.col_offset(std::uint32_t(group * k) + 4u));
      } else {
        for (int k = 0; k < BTile::ksteps; ++k) arch.mma(Atom{}, dt, at, bt, k, k > 0);
      }
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
        d[std::size_t(e.row) * N + e.col] = std::bit_cast<float>(r[i]);
      }
    }
    exec::free_tmem<Plan>(arch, 0, base);
  });
  return d;
}

double scale(std::uint8_t x, bool ue8m0) {
  return ue8m0 ? std::ldexp(1.0, int(x) - 127) : std::ldexp(1.0 + (x & 7) / 8.0, (x >> 3) - 7);
}

std::vector<double> reference(const Problem& p, int m, int n, int k, bool ue8m0) {
  const int block = p.blocks ? k / p.blocks : k;
  std::vector<double> d(std::size_t(m) * n, 0.0);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      for (int kk = 0; kk < k; ++kk) {
        const double sa = p.blocks ? scale(p.sfa[std::size_t(i) * p.blocks + kk / block], ue8m0) : 1.0;
        const double sb = p.blocks ? scale(p.sfb[std::size_t(j) * p.blocks + kk / block], ue8m0) : 1.0;
        d[std::size_t(i) * n + j] += double(p.a[std::size_t(i) * k + kk]) * sa * double(p.b[std::size_t(j) * k + kk]) * sb;
      }
  return d;
}

template <class Atom, class ATile, class BTile>
void check_atom(T type) {
  constexpr int M = Atom::spec.m, N = Atom::spec.n, K = ATile::spec.cols;
  const bool ue8m0 = !Atom::scaled || Atom::spec.scale_type == mma::ScaleType::ue8m0;
  CAPTURE(mma::describe(Atom::spec));
  const std::uint32_t seed = fresh_seed();
  INFO("seed " << seed);
  std::mt19937 rng(seed);
  Problem p;
  p.a = values(M, K, type, rng);
  p.b = values(N, K, type, rng);
  if (Atom::scaled) {
    p.blocks = K / (Atom::k / Atom::scale_vec);
    std::uniform_int_distribution<int> e(-1, 1), mant(0, 7);
    for (auto* s : {&p.sfa, &p.sfb})
      for (int i = 0; i < (s == &p.sfa ? M : N) * p.blocks; ++i)
        s->push_back(ue8m0 ? std::uint8_t(127 + e(rng)) : std::uint8_t(7 << 3 | mant(rng)));
  }
  const CompareReport r = compare(run<Atom, ATile, BTile>(p, type), reference(p, M, N, K, ue8m0), M, N, 0.0);
  CHECK_MESSAGE(r.ok, r.text());
}

template <int Bits, int Rows, int Cols>
using Dense = mma::SmemMatrix<layout::SmemOperandSpec{layout::dense_element(Bits), Major::K, SmemSwizzle::b128, Rows, Cols}>;

}  // namespace

TEST_CASE(".ws atoms: M = 128, 64 (Layout E) and 32 (Layout G) through HostArch equal fp64") {
  check_atom<mma::Mma<mma::InstrDescriptorSpec{.m = 128, .n = 64, .ws = true}>, Dense<16, 128, 64>, Dense<16, 64, 64>>(T::bf16);
  check_atom<mma::Mma<mma::InstrDescriptorSpec{.m = 64, .n = 128, .ws = true}>, Dense<16, 64, 64>, Dense<16, 128, 64>>(T::bf16);
  check_atom<mma::Mma<mma::InstrDescriptorSpec{.m = 32, .n = 256, .ws = true}>, Dense<16, 32, 64>, Dense<16, 256, 64>>(T::bf16);
}

TEST_CASE("block-scaled atoms: MXFP8 (1X), MXFP4 (2X) and NVFP4 (4X, UE4M3) through HostArch equal fp64") {
  using S = mma::InstrDescriptorSpec;
  using mma::MmaKind;
  check_atom<mma::Mma<S{.kind = MmaKind::mxf8f6f4, .a = T::e4m3, .b = T::e4m3, .n = 128}>, Dense<8, 128, 128>,
             Dense<8, 128, 128>>(T::e4m3);
  check_atom<mma::Mma<S{.kind = MmaKind::mxf4, .a = T::e2m1, .b = T::e2m1, .n = 64}>, Dense<4, 128, 256>,
             Dense<4, 64, 256>>(T::e2m1);
  check_atom<mma::Mma<S{.kind = MmaKind::mxf4nvf4, .a = T::e2m1, .b = T::e2m1, .n = 256, .scale_type = mma::ScaleType::ue4m3}>,
             Dense<4, 128, 256>, Dense<4, 256, 256>>(T::e2m1);
}
