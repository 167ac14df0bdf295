// The FMHA kernel's shared-memory half on a real GPU. No B200 exists here, so
// fmha::Fmha<E, D> has run only on the host model; Hopper shares with
// tcgen05 the TMA engine and the SMEM matrix descriptors, canonical layouts
// and swizzles (wgmma). For Fmha<bf16,64>, <bf16,128>, <fp16,128>, <bf16,256>
// this program takes the kernel's pieces, never its run() (tcgen05):
//
//  1. TMA: with the problem batch 2, heads 3, heads_kv 1 (GQA), seq_q 77,
//     seq_k 200, the Q tiles of CTA 0 (rows 0..127, the tail past 77, and
//     for head_dim 64/128 the second tile, rows 128..255, all past seq_q), K
//     block 1 and V block 1 (keys 128..255, past seq_k from 200) of a (batch,
//     head), loaded exactly as Fmha::load does (Fmha::Q/K/V::load with the
//     maps of Fmha::q_map/k_map/v_map, exec::DeviceArch's tma_load and
//     mbarriers), byte for byte against (a) the same loads on the host model
//     (exec::HostArch over exec::host_tensor_map) and (b) the layout library:
//     element (r, c) of each tile, at Tile::operand.address(r, c), holds
//     Q[b][h][m0 + r][c0 + c] (K, V alike), zero past seq_q / seq_k and never
//     the next head's rows.
//  2. wgmma on those TMA images: S = Q·Kᵀ for the 128 × 128 block (two m64
//     halves, m64n128k16, every 64-element chunk and K step as
//     Fmha::multiply issues them), with the SM90 form of the descriptors
//     Q::Tile / K::Tile give the FMHA's tcgen05.mma; and O = P·V (the PV
//     MMA: B = V, MN-major, N = head_dim, V::Tile's descriptors over the
//     kVChunks = 2 tiles of 64 keys) with a random P placed as a K-major
//     128B-swizzled tile::Operand<E, K, 128> tile (the FMHA's P comes from
//     TMEM, which Hopper lacks). Both against fp64: |gpu − ref| ≤ 1e-5 ·
//     Σ|a||b| per element (f32 accumulation up to rounding order). The host
//     model's MMA (tcgen::model), fed the same bytes and the SM100
//     descriptors themselves (M = 128 in one instruction), must meet the
//     same bound; its distance from the GPU is printed.
//  3. Negative cases: the comparisons can fail (a wrong SBO on K, K tiles one
//     chunk off, V's LBO and SBO swapped, the layout view read across the head
//     boundary).
// Exit 0: every case passes and every negative case is caught; 1: a failure;
// 77: no sm_90 GPU.
// Operand::load and load_tiles are __host__ __device__ templates, here also
// instantiated with exec::HostArch (host only) for the host model; nvcc warns
// (#20011) for that instantiation, which never runs on the GPU.
#pragma nv_diag_suppress 20011

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "device_check.hpp"
#include "wgmma.hpp"
#include "tcgen/fmha/kernel.hpp"
#include "tcgen/fmha/problem.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/device_buffer.hpp"
#include "tcgen/exec/device_tensor_map.hpp"
#include "tcgen/exec/host_tensor_map.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/tile/operand.hpp"
#include "tcgen/mma/descriptor_iterator.hpp"
#include "tcgen/model/mma_math.hpp"
#include "tcgen/model/operand_fetch.hpp"


using namespace tcgen;
using layout::Int;
using layout::Major;
using mma::DescriptorArch;

namespace {

constexpr int kThreads = 256;  // two warpgroups: rows 0..63 and 64..127 of each 128-row MMA
constexpr std::uint8_t kUntouched = 0xA5;
constexpr long long kWaitCycles = 2'000'000'000;  // about 1 s: a phase that never completes is a failure
constexpr int kSteps = 4;                         // MMA K steps in a 64-element (128-byte) tile row
constexpr int kMaxChunks = 4;                     // head_dim 256 / 64
constexpr int kKeyBlock = 1;                      // K and V block 1: keys 128..255
constexpr double kBound = 1e-5;                   // |gpu − ref| ≤ kBound · Σ|a||b|

// ---- The pieces of Fmha<E, D> under test, and this program's shared memory:
// the Q tiles, one K stage and one V stage as Fmha lays them out, three
// mbarriers (Q, K, V full), then P for the PV MMA (two 128 × 64 K-major tiles).
template <ElementType E, int D>
struct Case {
  using F = fmha::Fmha<E, D>;
  using Q = typename F::Q;
  using K = typename F::K;
  using V = typename F::V;
  using P = tile::Operand<E, Major::K, F::kM>;  // the PV MMA's A: 128 queries × 64 keys per V tile
  static constexpr int kQTiles = F::kQTiles, kChunks = F::kChunks, kVChunks = F::kVChunks, kM = F::kM, kN = F::kN;
  static constexpr std::uint32_t kQOff = 0, kKOff = kQOff + kQTiles * F::kQBytes, kVOff = kKOff + F::kKBytes,
                                 kLoaded = kVOff + F::kVBytes, kBars = kLoaded, kPOff = kLoaded + 1024,
                                 kEnd = kPOff + kVChunks * P::bytes;
  static constexpr std::uint32_t kDynamicSmem = kEnd + 1024;  // slack: smem_base() rounds up to 1024
  static constexpr const char* name = E == ElementType::bf16 ? "bf16" : "fp16";
  static_assert(Q::Tile::ksteps == kSteps && K::Tile::ksteps == kSteps && V::Tile::ksteps == kSteps &&
                P::Tile::ksteps == kSteps && kChunks <= kMaxChunks && kVChunks == 2);
};

template <class Arch>
struct Maps {
  typename Arch::TensorMap q, k, v;
};

// CTA 0's loads of Fmha::load for one (batch, head): both Q tiles (m0 = 0),
// then K and V of block kKeyBlock into stage 0. One thread; the barriers are initialised.
template <ElementType E, int D, class Arch>
TCGEN_HD void load_tiles(Arch& a, const Maps<Arch>& m, std::uint32_t smem, int head, int kv_head) {
  using C = Case<E, D>;
  const std::uint32_t q_full = smem + C::kBars, k_full = q_full + 8, v_full = q_full + 16;
  const int key0 = kKeyBlock * C::kN;
  a.mbarrier_arrive_expect_tx(q_full, C::kQTiles * C::F::kQBytes);
  for (int t = 0; t < C::kQTiles; ++t)
    for (int c = 0; c < C::kChunks; ++c)
      C::Q::load(a, m.q, smem + C::kQOff + (t * C::kChunks + c) * C::Q::bytes, q_full, t * C::kM, c * tile::kBlockK,
                 head);
  a.mbarrier_arrive_expect_tx(k_full, C::F::kKBytes);
  for (int c = 0; c < C::kChunks; ++c)
    C::K::load(a, m.k, smem + C::kKOff + c * C::K::bytes, k_full, key0, c * tile::kBlockK, kv_head);
  a.mbarrier_arrive_expect_tx(v_full, C::F::kVBytes);
  for (int c = 0; c < C::kVChunks; ++c)
    C::V::load(a, m.v, smem + C::kVOff + c * C::V::bytes, v_full, 0, key0 + c * tile::kBlockK, kv_head);
}

// Descriptors relative to the 1024-aligned shared base, SM90 form (the
// device adds base >> 4): per warpgroup half for A.
struct Descs {
  std::uint64_t q[2][kMaxChunks][kSteps], k[kMaxChunks][kSteps], p[2][2][kSteps], v[2][kSteps];
};
// What the device's own SmemMatrix objects give (SM100 form, absolute addresses).
struct DeviceDescs {
  std::uint64_t q[kMaxChunks][kSteps], k[kMaxChunks][kSteps], p[2][kSteps], v[2][kSteps];
};

struct Out {
  std::uint8_t* image;  // Q, K, V after the loads: Case::kLoaded bytes
  float* s;             // 128 × 128
  float* o;             // 128 × D
  DeviceDescs* descs;
  unsigned* info;  // [0] shared base, [1] 1 if a phase never completed
};

template <ElementType E, int D>
__global__ void __launch_bounds__(kThreads, 1)
    fmha_smem(const __grid_constant__ Maps<exec::DeviceArch> maps, int head, int kv_head, const std::uint8_t* p_image,
              const Descs* descs, Out out) {
  using C = Case<E, D>;
  exec::DeviceArch a;
  const std::uint32_t smem = a.smem_base();
  auto* base = static_cast<std::uint8_t*>(__cvta_shared_to_generic(smem));
  const unsigned tid = threadIdx.x;
  for (unsigned i = tid; i < C::kLoaded; i += kThreads) base[i] = kUntouched;
  for (unsigned i = tid; i < C::kEnd - C::kPOff; i += kThreads) base[C::kPOff + i] = p_image[i];
  a.fence_proxy_async();  // generic writes before the async proxy's (TMA, wgmma)
  if (tid == 0) {
    for (std::uint32_t b = 0; b < 3; ++b) a.mbarrier_init(smem + C::kBars + 8 * b, 1);
    a.fence_mbarrier_init();
  }
  __syncthreads();
  if (tid == 0) load_tiles<E, D>(a, maps, smem, head, kv_head);
  const long long start = clock64();
  bool late = false;
  for (std::uint32_t b = 0; b < 3 && !late; ++b)
    while (!a.mbarrier_try_wait(smem + C::kBars + 8 * b, 0))
      if (clock64() - start > kWaitCycles) {
        late = true;
        break;
      }
  if (__syncthreads_or(late)) {  // all threads leave together: the wgmma below are warpgroup-wide
    if (tid == 0) out.info[1] = 1;
    return;
  }
  for (unsigned i = tid; i < C::kLoaded; i += kThreads) out.image[i] = base[i];
  if (tid == 0) {
    out.info[0] = smem;
    for (int k = 0; k < kSteps; ++k) {
      for (int c = 0; c < C::kChunks; ++c) {
        out.descs->q[c][k] = typename C::Q::Tile(smem + C::kQOff + c * C::Q::bytes).kstep(k);
        out.descs->k[c][k] = typename C::K::Tile(smem + C::kKOff + c * C::K::bytes).kstep(k);
      }
      for (int c = 0; c < C::kVChunks; ++c) {
        out.descs->p[c][k] = typename C::P::Tile(smem + C::kPOff + c * C::P::bytes).kstep(k);
        out.descs->v[c][k] = typename C::V::Tile(smem + C::kVOff + c * C::V::bytes).kstep(k);
      }
    }
  }

  // Warpgroup wg computes rows 64·wg.. of each 128-row product (wgmma::d_element within its m64 half).
  const int wg = static_cast<int>(tid / 128), t = static_cast<int>(tid % 128);
  const std::uint64_t at = smem >> 4;
  {  // S = Q_0·Kᵀ: chunks and K steps in Fmha::multiply's order
    float d[64];
    for (float& x : d) x = 0.0f;
    wgmma::fence();
    for (int c = 0; c < C::kChunks; ++c)
      for (int k = 0; k < kSteps; ++k)
        wgmma::mma_async<E, 128, Major::K, Major::K>(d, descs->q[wg][c][k] + at, descs->k[c][k] + at, c > 0 || k > 0);
    wgmma::commit_group();
    wgmma::wait_group<0>();
    for (int i = 0; i < 64; ++i) {
      const wgmma::DElement e = wgmma::d_element(t, i);
      out.s[(64 * wg + e.row) * 128 + e.col] = d[i];
    }
  }
  {  // O = P·V: V tiles and K steps in Fmha::multiply_pv's order
    float d[D / 2];
    for (float& x : d) x = 0.0f;
    wgmma::fence();
    for (int c = 0; c < C::kVChunks; ++c)
      for (int k = 0; k < kSteps; ++k)
        wgmma::mma_async<E, D, Major::K, Major::MN>(d, descs->p[wg][c][k] + at, descs->v[c][k] + at, c > 0 || k > 0);
    wgmma::commit_group();
    wgmma::wait_group<0>();
    for (int i = 0; i < D / 2; ++i) {
      const wgmma::DElement e = wgmma::d_element(t, i);
      out.o[(64 * wg + e.row) * D + e.col] = d[i];
    }
  }
}

// ---- Host side

fmha::FmhaProblem make_problem(ElementType e, int d) {
  const fmha::FmhaProblem p = fmha::FmhaProblem::make(2, 3, 1, 77, 200, d, fmha::FmhaMask::none(), e);
  p.validate();
  return p;
}

// Bits of random values ±[1/4, 2) in type e: never zero, so a zero fill stands out.
std::vector<std::uint16_t> random_bits(std::size_t n, ElementType e, std::mt19937& rng) {
  std::uniform_real_distribution<float> u(0.25f, 2.0f);
  std::vector<std::uint16_t> b(n);
  for (auto& x : b) x = static_cast<std::uint16_t>(encode(e, (rng() & 1) ? u(rng) : -u(rng)));
  return b;
}

std::span<const std::uint8_t> as_bytes(const std::vector<std::uint16_t>& v) {
  return {reinterpret_cast<const std::uint8_t*>(v.data()), v.size() * 2};
}

void put(std::vector<std::uint8_t>& image, Int address, std::uint16_t bits) {
  image.at(static_cast<std::size_t>(address)) = static_cast<std::uint8_t>(bits);
  image.at(static_cast<std::size_t>(address) + 1) = static_cast<std::uint8_t>(bits >> 8);
}

std::uint64_t to_sm90(std::uint64_t sm100) { return mma::encode(mma::decode(sm100, DescriptorArch::sm100), DescriptorArch::sm90); }

// The FMHA's descriptors (SmemMatrix, SM100 form, as Fmha::multiply and
// multiply_pv build them) in their SM90 form; the second m64 half of a
// 128-row A tile starts at row 64. `agrees`: they equal the SM90 descriptors
// of mma::KStepDescriptors over the same tiles.
template <ElementType E, int D>
Descs fmha_descriptors(bool& agrees) {
  using C = Case<E, D>;
  Descs good{};
  const Int q_half = C::Q::Tile::operand.offset(64, 0), p_half = C::P::Tile::operand.offset(64, 0);
  agrees = true;
  for (int s = 0; s < kSteps; ++s) {
    for (int c = 0; c < C::kChunks; ++c) {
      const Int qa = C::kQOff + c * C::Q::bytes, ka = C::kKOff + c * C::K::bytes;
      for (int h = 0; h < 2; ++h) good.q[h][c][s] = mma::advance(to_sm90(typename C::Q::Tile(qa).kstep(s)), h * q_half);
      good.k[c][s] = to_sm90(typename C::K::Tile(ka).kstep(s));
      agrees &= good.q[0][c][s] == mma::KStepDescriptors(C::Q::Tile::operand, qa, DescriptorArch::sm90)[s] &&
                good.k[c][s] == mma::KStepDescriptors(C::K::Tile::operand, ka, DescriptorArch::sm90)[s];
    }
    for (int c = 0; c < C::kVChunks; ++c) {
      const Int pa = C::kPOff + c * C::P::bytes, va = C::kVOff + c * C::V::bytes;
      for (int h = 0; h < 2; ++h) good.p[h][c][s] = mma::advance(to_sm90(typename C::P::Tile(pa).kstep(s)), h * p_half);
      good.v[c][s] = to_sm90(typename C::V::Tile(va).kstep(s));
      agrees &= good.v[c][s] == mma::KStepDescriptors(C::V::Tile::operand, va, DescriptorArch::sm90)[s];
    }
  }
  return good;
}

// The image the layout library says the loads must produce. With `flat`, the
// rows past seq_q / seq_k come from the next head's rows (what a 2-D map over
// all heads would load): a negative case, it must differ.
template <ElementType E, int D>
std::vector<std::uint8_t> layout_image(const fmha::FmhaProblem& p, const std::vector<std::uint16_t>& q,
                                       const std::vector<std::uint16_t>& k, const std::vector<std::uint16_t>& v,
                                       int head, int kv_head, bool flat) {
  using C = Case<E, D>;
  std::vector<std::uint8_t> image(C::kLoaded, kUntouched);
  const auto element = [&](const std::vector<std::uint16_t>& x, int index, int rows, int row, int col) -> std::uint16_t {
    const std::size_t i = (static_cast<std::size_t>(index) * rows + row) * D + col;
    return row < rows || (flat && i < x.size()) ? x[i] : 0;
  };
  for (int t = 0; t < C::kQTiles; ++t)
    for (int c = 0; c < C::kChunks; ++c)
      for (int r = 0; r < C::kM; ++r)
        for (int j = 0; j < tile::kBlockK; ++j)
          put(image, C::Q::Tile::operand.address(C::kQOff + (t * C::kChunks + c) * C::Q::bytes, r, j),
              element(q, head, p.seq_q, t * C::kM + r, c * tile::kBlockK + j));
  const int key0 = kKeyBlock * C::kN;
  for (int c = 0; c < C::kChunks; ++c)
    for (int n = 0; n < C::kN; ++n)
      for (int j = 0; j < tile::kBlockK; ++j)
        put(image, C::K::Tile::operand.address(C::kKOff + c * C::K::bytes, n, j),
            element(k, kv_head, p.seq_k, key0 + n, c * tile::kBlockK + j));
  for (int c = 0; c < C::kVChunks; ++c)  // V tile c: (row = head_dim index, col = key)
    for (int n = 0; n < D; ++n)
      for (int j = 0; j < tile::kBlockK; ++j)
        put(image, C::V::Tile::operand.address(C::kVOff + c * C::V::bytes, n, j),
            element(v, kv_head, p.seq_k, key0 + c * tile::kBlockK + j, n));
  return image;
}

// The same loads on the host model: exec::HostArch, host tensor maps from the same specs.
template <ElementType E, int D>
std::vector<std::uint8_t> model_image(const Maps<exec::HostArch>& maps, int head, int kv_head) {
  using C = Case<E, D>;
  std::vector<std::uint8_t> image(C::kLoaded);
  exec::host::launch({1, 1, 1}, 32, C::kBars + 64, [&](exec::HostArch& a) {
    if (a.lane_index() != 0) return;
    const std::uint32_t smem = a.smem_base();
    for (std::uint32_t i = 0; i < C::kLoaded; i += 4) a.smem_store(smem + i, 0x01010101u * kUntouched);
    a.fence_proxy_async();
    for (std::uint32_t b = 0; b < 3; ++b) a.mbarrier_init(smem + C::kBars + 8 * b, 1);
    a.fence_mbarrier_init();
    load_tiles<E, D>(a, maps, smem, head, kv_head);
    for (std::uint32_t b = 0; b < 3; ++b) a.mbarrier_wait(smem + C::kBars + 8 * b, 0);
    for (std::uint32_t i = 0; i < C::kLoaded; i += 4) {
      std::uint32_t w = 0;
      a.smem_load(smem + i, w);
      std::memcpy(&image[i], &w, 4);
    }
  });
  return image;
}

// "equal" or the first difference, with the tile it falls in.
template <ElementType E, int D>
std::string compare(const std::vector<std::uint8_t>& gpu, const std::vector<std::uint8_t>& expected) {
  using C = Case<E, D>;
  if (gpu.size() != expected.size()) return "sizes differ";
  const auto m = std::mismatch(gpu.begin(), gpu.end(), expected.begin());
  if (m.first == gpu.end()) return "equal";
  const long at = static_cast<long>(m.first - gpu.begin());
  const char* where = at < long(C::kKOff) ? "Q" : at < long(C::kVOff) ? "K" : "V";
  char s[128];
  std::snprintf(s, sizeof s, "differs at +%ld (%s; gpu 0x%02x, expected 0x%02x), %ld bytes differ", at, where,
                *m.first, *m.second,
                static_cast<long>(gpu.size()) - static_cast<long>(std::inner_product(
                    gpu.begin(), gpu.end(), expected.begin(), 0L, std::plus<>(), std::equal_to<>())));
  return s;
}

// The worst element of a product against fp64: max |gpu − ref| / Σ|a||b|
// (an element with Σ|a||b| = 0 must be exactly 0).
struct Accuracy {
  double worst_ratio = 0, max_abs = 0;
  bool exact_zeros = true, finite = true;  // NaN: an element never written
  bool ok() const { return finite && exact_zeros && worst_ratio <= kBound; }
};
struct Products {  // fp64 references of S (128 × 128) and O (128 × D): the sums and Σ|a||b|
  std::vector<double> s, s_mag, o, o_mag;
};
struct ModelProducts {
  std::vector<float> s, o;
};
Accuracy accuracy(const std::vector<float>& gpu, const Products& p, bool o = false) {
  const std::vector<double>&ref = o ? p.o : p.s, &mag = o ? p.o_mag : p.s_mag;
  Accuracy a;
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    if (!std::isfinite(gpu[i])) {
      a.finite = false;
      continue;
    }
    const double err = std::abs(double(gpu[i]) - ref[i]);
    a.max_abs = std::max(a.max_abs, err);
    if (mag[i] == 0) a.exact_zeros = a.exact_zeros && gpu[i] == 0.0f;
    else a.worst_ratio = std::max(a.worst_ratio, err / mag[i]);
  }
  return a;
}

// S = Q_0·Kᵀ of block kKeyBlock and O = P·V in fp64: zeros past seq_q and seq_k.
template <ElementType E, int D>
Products references(const fmha::FmhaProblem& p, const std::vector<std::uint16_t>& q,
                    const std::vector<std::uint16_t>& k, const std::vector<std::uint16_t>& v,
                    const std::vector<std::uint16_t>& pv, int head, int kv_head) {
  const int key0 = kKeyBlock * Case<E, D>::kN;
  const auto qv = [&](int r, int d) {
    return r < p.seq_q ? double(decode(E, q[(std::size_t(head) * p.seq_q + r) * D + d])) : 0.0;
  };
  const auto kvv = [&](const std::vector<std::uint16_t>& x, int key, int d) {
    return key < p.seq_k ? double(decode(E, x[(std::size_t(kv_head) * p.seq_k + key) * D + d])) : 0.0;
  };
  Products r{std::vector<double>(128 * 128), std::vector<double>(128 * 128), std::vector<double>(128 * D),
             std::vector<double>(128 * D)};
  for (int m = 0; m < 128; ++m)
    for (int n = 0; n < 128; ++n)
      for (int d = 0; d < D; ++d) {
        const double x = qv(m, d) * kvv(k, key0 + n, d);
        r.s[m * 128 + n] += x;
        r.s_mag[m * 128 + n] += std::abs(x);
      }
  for (int m = 0; m < 128; ++m)
    for (int d = 0; d < D; ++d)
      for (int j = 0; j < 128; ++j) {
        const double x = double(decode(E, pv[m * 128 + j])) * kvv(v, key0 + j, d);
        r.o[m * D + d] += x;
        r.o_mag[m * D + d] += std::abs(x);
      }
  return r;
}

// The same products on the host model (tcgen::model: operand fetch by the PTX
// address rules, written apart from the layout library), from the loaded
// bytes and P, with the SM100 descriptors the FMHA's tcgen05.mma takes
// (M = 128 in one instruction), image base 0.
template <ElementType E, int D>
ModelProducts model_products(const std::vector<std::uint8_t>& loaded, const std::vector<std::uint8_t>& p_image) {
  using C = Case<E, D>;
  std::vector<std::uint8_t> image(C::kEnd, 0);
  std::copy(loaded.begin(), loaded.end(), image.begin());
  std::copy(p_image.begin(), p_image.end(), image.begin() + C::kPOff);
  ModelProducts r{std::vector<float>(128 * 128), std::vector<float>(128 * D)};
  for (int c = 0; c < C::kChunks; ++c)
    for (int s = 0; s < kSteps; ++s) {
      const auto a = model::fetch_operand(image, 0, typename C::Q::Tile(C::kQOff + c * C::Q::bytes).kstep(s), 128, 16, E, false);
      const auto b = model::fetch_operand(image, 0, typename C::K::Tile(C::kKOff + c * C::K::bytes).kstep(s), 128, 16, E, false);
      model::mma_accumulate(a, b, r.s.data(), c > 0 || s > 0, false, false);
    }
  for (int c = 0; c < C::kVChunks; ++c)
    for (int s = 0; s < kSteps; ++s) {
      const auto a = model::fetch_operand(image, 0, typename C::P::Tile(C::kPOff + c * C::P::bytes).kstep(s), 128, 16, E, false);
      const auto b = model::fetch_operand(image, 0, typename C::V::Tile(C::kVOff + c * C::V::bytes).kstep(s), D, 16, E, true);
      model::mma_accumulate(a, b, r.o.data(), c > 0 || s > 0, false, false);
    }
  return r;
}

template <class T>
std::size_t bytes_of(const std::vector<T>& h) {
  return h.size() * sizeof(T);
}
// Copies h into d (bytes_of(h) long); returns d's memory as T*.
template <class T>
T* upload(const exec::DeviceBuffer& d, const std::vector<T>& h) {
  CUDA_CHECK(cudaMemcpy(d.ptr, h.data(), bytes_of(h), cudaMemcpyHostToDevice));
  return static_cast<T*>(d.ptr);
}

template <ElementType E, int D>
void run_case(Counts& counts, std::mt19937& rng) {
  using C = Case<E, D>;
  using F = typename C::F;
  const fmha::FmhaProblem p = make_problem(E, D);
  const std::vector<std::uint16_t> q = random_bits(p.q_elements(), E, rng), k = random_bits(p.kv_elements(), E, rng),
                                   v = random_bits(p.kv_elements(), E, rng);
  const exec::DeviceBuffer q_buf(bytes_of(q)), k_buf(bytes_of(k)), v_buf(bytes_of(v));
  std::uint16_t *dq = upload(q_buf, q), *dk = upload(k_buf, k), *dv = upload(v_buf, v);
  const Maps<exec::DeviceArch> dmaps{exec::device_tensor_map(F::q_map(p), dq), exec::device_tensor_map(F::k_map(p), dk),
                                     exec::device_tensor_map(F::v_map(p), dv)};
  const Maps<exec::HostArch> hmaps{exec::host_tensor_map(F::q_map(p), as_bytes(q)),
                                   exec::host_tensor_map(F::k_map(p), as_bytes(k)),
                                   exec::host_tensor_map(F::v_map(p), as_bytes(v))};

  // P: 128 queries × 128 keys of probabilities in [1/64, 1), as two K-major tiles of 64 keys.
  std::vector<std::uint16_t> pv(C::kM * C::kN);
  std::uniform_real_distribution<float> up(1.0f / 64, 1.0f);
  for (auto& x : pv) x = static_cast<std::uint16_t>(encode(E, up(rng)));
  std::vector<std::uint8_t> p_image(C::kEnd - C::kPOff, 0);
  for (int c = 0; c < C::kVChunks; ++c)
    for (int r = 0; r < C::kM; ++r)
      for (int j = 0; j < tile::kBlockK; ++j)
        put(p_image, C::P::Tile::operand.address(c * C::P::bytes, r, j), pv[r * C::kN + c * tile::kBlockK + j]);
  const exec::DeviceBuffer p_buf(bytes_of(p_image));
  const std::uint8_t* dp = upload(p_buf, p_image);

  bool iterator_agrees = false;
  const Descs good = fmha_descriptors<E, D>(iterator_agrees);
  const mma::SmemDescriptorFields vf = mma::decode(good.v[0][0], DescriptorArch::sm90),
                                  kf = mma::decode(good.k[0][0], DescriptorArch::sm90);

  const exec::DeviceBuffer descs_buf(sizeof(Descs)), image_buf(C::kLoaded), s_buf(sizeof(float) * 128 * 128),
      o_buf(sizeof(float) * 128 * D), device_descs_buf(sizeof(DeviceDescs)), info_buf(2 * sizeof(unsigned));
  auto* ddescs = static_cast<Descs*>(descs_buf.ptr);
  const Out out{static_cast<std::uint8_t*>(image_buf.ptr), static_cast<float*>(s_buf.ptr),
                static_cast<float*>(o_buf.ptr), static_cast<DeviceDescs*>(device_descs_buf.ptr),
                static_cast<unsigned*>(info_buf.ptr)};
  CUDA_CHECK(cudaFuncSetAttribute(fmha_smem<E, D>, cudaFuncAttributeMaxDynamicSharedMemorySize, C::kDynamicSmem));

  struct Gpu {
    bool timed_out = false;
    std::uint32_t base = 0;
    std::vector<std::uint8_t> image;
    std::vector<float> s, o;
    DeviceDescs descs{};
  };
  const auto launch = [&](int head, int kv_head, const Descs& descs) {
    CUDA_CHECK(cudaMemcpy(ddescs, &descs, sizeof descs, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(out.info, 0, 2 * sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(out.s, 0xFF, sizeof(float) * 128 * 128));  // NaN: an element never written fails
    CUDA_CHECK(cudaMemset(out.o, 0xFF, sizeof(float) * 128 * D));
    fmha_smem<E, D><<<1, kThreads, C::kDynamicSmem>>>(dmaps, head, kv_head, dp, ddescs, out);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    Gpu g;
    unsigned info[2];
    CUDA_CHECK(cudaMemcpy(info, out.info, sizeof info, cudaMemcpyDeviceToHost));
    g.base = info[0];
    g.timed_out = info[1] != 0;
    g.image.resize(C::kLoaded);
    g.s.resize(128 * 128);
    g.o.resize(128 * D);
    CUDA_CHECK(cudaMemcpy(g.image.data(), out.image, C::kLoaded, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(g.s.data(), out.s, sizeof(float) * g.s.size(), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(g.o.data(), out.o, sizeof(float) * g.o.size(), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(&g.descs, out.descs, sizeof g.descs, cudaMemcpyDeviceToHost));
    return g;
  };

  const int key0 = kKeyBlock * C::kN;
  struct Select {
    int batch, head;
  };
  // (0, 1): the next Q head and the next K/V head (batch 1's) follow in memory; (1, 2): the last of both.
  for (const Select sel : {Select{0, 1}, Select{1, 2}}) {
    const int head = sel.batch * p.heads + sel.head, kv_head = sel.batch * p.heads_kv + p.kv_head(sel.head);
    char tag[96];
    std::snprintf(tag, sizeof tag, "Fmha<%s,%d> batch %d head %d (kv head %d):", C::name, D, sel.batch, sel.head,
                  kv_head);
    const Gpu g = launch(head, kv_head, good);
    if (g.timed_out) {
      counts.report(false, std::string(tag) + " an mbarrier phase never completed");
      continue;
    }

    // 1. TMA: the images.
    const std::vector<std::uint8_t> by_model = model_image<E, D>(hmaps, head, kv_head);
    const std::vector<std::uint8_t> by_layout = layout_image<E, D>(p, q, k, v, head, kv_head, false);
    const std::string vs_model = compare<E, D>(g.image, by_model), vs_layout = compare<E, D>(g.image, by_layout);
    char line[768];
    std::snprintf(line, sizeof line,
                  "%s TMA Q %d tile(s) × %d chunk(s) (rows 0..%d, seq_q %d), K block %d × %d chunk(s), V block %d × %d "
                  "tiles (keys %d..%d, seq_k %d), %u bytes at shared 0x%x: model %s; layout %s",
                  tag, C::kQTiles, C::kChunks, C::kQTiles * C::kM - 1, p.seq_q, kKeyBlock, C::kChunks, kKeyBlock,
                  C::kVChunks, key0, key0 + C::kN - 1, p.seq_k, C::kLoaded, g.base, vs_model.c_str(), vs_layout.c_str());
    counts.report(vs_model == "equal" && vs_layout == "equal", line);
    const std::string vs_flat = compare<E, D>(g.image, layout_image<E, D>(p, q, k, v, head, kv_head, true));
    if (sel.batch == 0)
      counts.report(vs_flat != "equal", std::string(tag) +
                                            " negative: the layout view with rows past seq_q / seq_k taken from the "
                                            "next head must differ: " + vs_flat);

    // The descriptors: the device's SmemMatrix equals the host's (SM100 form, + base >> 4).
    bool device_descs = true;
    const std::uint64_t at = g.base >> 4;
    for (int s = 0; s < kSteps; ++s) {
      for (int c = 0; c < C::kChunks; ++c)
        device_descs &= g.descs.q[c][s] == typename C::Q::Tile(C::kQOff + c * C::Q::bytes).kstep(s) + at &&
                        g.descs.k[c][s] == typename C::K::Tile(C::kKOff + c * C::K::bytes).kstep(s) + at;
      for (int c = 0; c < C::kVChunks; ++c)
        device_descs &= g.descs.p[c][s] == typename C::P::Tile(C::kPOff + c * C::P::bytes).kstep(s) + at &&
                        g.descs.v[c][s] == typename C::V::Tile(C::kVOff + c * C::V::bytes).kstep(s) + at;
    }
    std::snprintf(line, sizeof line,
                  "%s descriptors: SmemMatrix on the device = on the host %s; SM90 form = KStepDescriptors(sm90) %s; "
                  "K tile LBO %lld SBO %lld, V tile LBO %lld SBO %lld",
                  tag, device_descs ? "yes" : "NO", iterator_agrees ? "yes" : "NO", (long long)kf.lbo,
                  (long long)kf.sbo, (long long)vf.lbo, (long long)vf.sbo);
    counts.report(device_descs && iterator_agrees, line);

    // 2. wgmma against fp64.
    const Products ref = references<E, D>(p, q, k, v, pv, head, kv_head);
    const ModelProducts model_mma = model_products<E, D>(g.image, p_image);
    const Accuracy sa = accuracy(g.s, ref), oa = accuracy(g.o, ref, true);
    std::snprintf(line, sizeof line,
                  "%s wgmma S = Q·Kᵀ (m64n128k16 × 2 halves, %d chunk(s) × %d K steps): max |err| %.3g, max "
                  "|err|/Σ|q||k| %.3g%s; O = P·V (m64n%dk16, B MN-major, 2 V tiles × %d K steps): max |err| %.3g, "
                  "max |err|/Σ|p||v| %.3g%s",
                  tag, C::kChunks, kSteps, sa.max_abs, sa.worst_ratio, !sa.finite ? " (NOT FINITE)" : sa.exact_zeros ? "" : " (a zero row is NOT zero)",
                  D, kSteps, oa.max_abs, oa.worst_ratio, !oa.finite ? " (NOT FINITE)" : oa.exact_zeros ? "" : " (a zero row is NOT zero)");
    counts.report(sa.ok() && oa.ok(), line);
    // The host model, fed the GPU's bytes and the SM100 descriptors the FMHA's tcgen05.mma takes.
    const Accuracy ms = accuracy(model_mma.s, ref), mo = accuracy(model_mma.o, ref, true);
    double model_vs_gpu = 0;
    for (std::size_t i = 0; i < g.s.size(); ++i) model_vs_gpu = std::max(model_vs_gpu, double(std::abs(g.s[i] - model_mma.s[i])));
    for (std::size_t i = 0; i < g.o.size(); ++i) model_vs_gpu = std::max(model_vs_gpu, double(std::abs(g.o[i] - model_mma.o[i])));
    std::snprintf(line, sizeof line,
                  "%s host model (SM100 descriptors, tcgen05 M = 128): S max |err|/Σ|q||k| %.3g, O max |err|/Σ|p||v| "
                  "%.3g; max |gpu − model| %.3g",
                  tag, ms.worst_ratio, mo.worst_ratio, model_vs_gpu);
    counts.report(ms.ok() && mo.ok(), line);

    // 3. Negative cases: wrong descriptors must be seen.
    if (sel.batch != 0) continue;
    {
      Descs bad = good;
      for (auto& chunk : bad.k)
        for (auto& d : chunk) d += std::uint64_t{64} << 32;  // SBO + 1024 B
      const Accuracy w = accuracy(launch(head, kv_head, bad).s, ref);
      std::snprintf(line, sizeof line, "%s negative: S with K's SBO + 1024 B: max |err| %.3g, ratio %.3g (must fail)",
                    tag, w.max_abs, w.worst_ratio);
      counts.report(!w.ok(), line);
    }
    if (C::kChunks > 1) {
      Descs bad = good;
      for (int c = 0; c < C::kChunks; ++c)
        for (int s = 0; s < kSteps; ++s) bad.k[c][s] = good.k[(c + 1) % C::kChunks][s];
      const Accuracy w = accuracy(launch(head, kv_head, bad).s, ref);
      std::snprintf(line, sizeof line, "%s negative: S with the K tiles one chunk off: max |err| %.3g, ratio %.3g (must fail)",
                    tag, w.max_abs, w.worst_ratio);
      counts.report(!w.ok(), line);
    }
    if (vf.lbo != vf.sbo) {
      Descs bad = good;
      for (auto& tile : bad.v)
        for (auto& d : tile) {
          mma::SmemDescriptorFields f = mma::decode(d, DescriptorArch::sm90);
          std::swap(f.lbo, f.sbo);
          d = mma::encode(f, DescriptorArch::sm90);
        }
      const Accuracy w = accuracy(launch(head, kv_head, bad).o, ref, true);
      std::snprintf(line, sizeof line, "%s negative: O with V's LBO and SBO swapped: max |err| %.3g, ratio %.3g (must fail)",
                    tag, w.max_abs, w.worst_ratio);
      counts.report(!w.ok(), line);
    }
  }
}

}  // namespace

int main() {
  require_gpu(9, -1);  // wgmma and this build are sm_90a only
  std::mt19937 rng(20261201);
  Counts counts;
  try {
    run_case<ElementType::bf16, 64>(counts, rng);
    run_case<ElementType::bf16, 128>(counts, rng);
    run_case<ElementType::fp16, 128>(counts, rng);
    run_case<ElementType::bf16, 256>(counts, rng);
  } catch (const std::exception& e) {
    std::printf("FAILED: %s\n", e.what());
    return 1;
  }
  std::printf("%s: %d cases, %d failed\n", counts.failures ? "FAILED" : "PASSED", counts.cases, counts.failures);
  return counts.failures ? 1 : 0;
}
