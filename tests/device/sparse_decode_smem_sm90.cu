// The sparse decode kernel's shared-memory half on a real GPU. No B200 exists
// here, so sparse_decode::SparseDecode has run only on the host model; Hopper has
// the e4m3 conversion (cvt.rn.f16x2.e4m3x2, sm_89 and up) and shares with
// tcgen05 the SMEM matrix descriptors, canonical layouts and swizzles (wgmma).
// This program takes the kernel's pieces, never its run() (tcgen05):
//
//  1. The dequantisation: 128 threads run SparseDecode::fill_key, as the
//     kernel's warps 0-3 do, for a block of 64 keys gathered from a MODEL1
//     cache of two 64-token blocks (every 7th index −1), with exec::DeviceArch.
//     The keys tile is held byte for byte against (a) the same fill_key on the
//     host model (exec::HostArch) and (b) tcgen's dequantize_model1 (written
//     from FlashMLA's quant.py, apart from the kernel) placed by the layout
//     library: element (t, d) at the K-major SW128 tile's address holds the
//     bf16 of key t's dim d, zero for an index of −1.
//  2. wgmma on that image: S = Q·Kᵀ (m64n64k16, 8 chunks × 4 K steps, the
//     Chunk descriptors the kernel's S MMA takes), and O = P·V with V the same
//     keys tile read MN-major through SparseDecode::VHalf's descriptors
//     (layout::AtomOrder::k_first: LBO = 8 KB, SBO = 1 KB), m64n256k16 for
//     each half of the 512 dims, with a random P as the kernel's K-major P tile.
//     Both against fp64: |gpu − ref| ≤ 1e-5 · Σ|a||b| per element.
//  3. Negative cases: V read with the descriptors of CuTe's M/N-first atom
//     order (LBO 1 KB), and with LBO and SBO swapped, must fail; fill_key
//     given a block stride one 576-byte row short must give another tile.
// Exit 0: every case passes and every negative case is caught; 1: a failure;
// 77: no sm_90 GPU.
// fill_key is a __host__ __device__ template, here also instantiated with
// exec::HostArch (host only); nvcc warns (#20011) for that instantiation.
#pragma nv_diag_suppress 20011

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "device_check.hpp"
#include "wgmma.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/exec/device_arch.hpp"
#include "tcgen/exec/device_buffer.hpp"
#include "tcgen/exec/launch.hpp"
#include "tcgen/mma/smem_descriptor.hpp"
#include "tcgen/sparse_decode/kernel.hpp"
#include "tcgen/sparse_decode/model1_cache.hpp"

using namespace tcgen;
using sparse_decode::Model1Layout;
using sparse_decode::SparseDecode;
using layout::Major;
using mma::DescriptorArch;

namespace {

constexpr int kKeys = 64, kHeads = 64, kD = Model1Layout::kDim, kSteps = 4, kChunks = SparseDecode::kChunks;
constexpr std::uint32_t kTile = SparseDecode::kTileBytes, kChunk = SparseDecode::kChunkBytes;
constexpr std::uint32_t kKeysOff = 0, kQOff = kTile, kPOff = 2 * kTile, kEnd = kPOff + kChunk;
constexpr std::uint32_t kDynamicSmem = kEnd + 1024;  // slack: smem_base() rounds up to 1024
constexpr double kBound = 1e-5;
using Chunk = SparseDecode::Chunk::Tile;
using VHalf = SparseDecode::VHalf;
// CuTe's order for the same MN-major operand: the 64-dim blocks 1 KB apart (the negative case).
using VStacked = mma::SmemMatrix<layout::SmemOperandSpec{layout::dense_element(16), Major::MN, layout::SmemSwizzle::b128,
                                                         256, kKeys}>;

// Descriptors relative to the shared base, SM90 form (the device adds base >> 4).
struct Descs {
  std::uint64_t q[kChunks][kSteps], k[kChunks][kSteps], p[kSteps], v[2][kSteps];
};

__global__ void __launch_bounds__(128, 1)
    sparse_smem(sparse_decode::SparseKeyList list, const std::int32_t* indices, const std::uint8_t* qp_image,
                const Descs* descs, std::uint8_t* keys_image, float* s_out, float* o_out) {
  exec::DeviceArch a;
  const std::uint32_t smem = a.smem_base();
  auto* base = static_cast<std::uint8_t*>(__cvta_shared_to_generic(smem));
  const int t = static_cast<int>(threadIdx.x);
  for (std::uint32_t i = t; i < kEnd - kQOff; i += 128) base[kQOff + i] = qp_image[i];
  SparseDecode::fill_key(a, smem + kKeysOff, list, indices[t / 2], t / 2, t % 2);
  a.fence_proxy_async();  // the generic stores, before wgmma reads them (async proxy)
  __syncthreads();
  for (std::uint32_t i = t; i < kTile; i += 128) keys_image[i] = base[kKeysOff + i];
  const std::uint64_t at = smem >> 4;
  {  // S = Q·Kᵀ, chunks and K steps in SparseDecode::multiply's order
    float d[32];
    for (float& x : d) x = 0.0f;
    wgmma::fence();
    for (int c = 0; c < kChunks; ++c)
      for (int k = 0; k < kSteps; ++k)
        wgmma::mma_async<ElementType::bf16, 64, Major::K, Major::K>(d, descs->q[c][k] + at, descs->k[c][k] + at, c > 0 || k > 0);
    wgmma::commit_group();
    wgmma::wait_group<0>();
    for (int i = 0; i < 32; ++i) {
      const wgmma::DElement e = wgmma::d_element(t, i);
      s_out[e.row * kKeys + e.col] = d[i];
    }
  }
  for (int h = 0; h < 2; ++h) {  // O[:, 256h .. 256h + 255] = P·V_h
    float d[128];
    for (float& x : d) x = 0.0f;
    wgmma::fence();
    for (int k = 0; k < kSteps; ++k)
      wgmma::mma_async<ElementType::bf16, 256, Major::K, Major::MN>(d, descs->p[k] + at, descs->v[h][k] + at, k > 0);
    wgmma::commit_group();
    wgmma::wait_group<0>();
    for (int i = 0; i < 128; ++i) {
      const wgmma::DElement e = wgmma::d_element(t, i);
      o_out[e.row * kD + 256 * h + e.col] = d[i];
    }
  }
}

std::uint64_t to_sm90(std::uint64_t sm100) { return mma::encode(mma::decode(sm100, DescriptorArch::sm100), DescriptorArch::sm90); }

template <class VTile>
Descs descriptors() {
  Descs d{};
  for (int k = 0; k < kSteps; ++k) {
    for (int c = 0; c < kChunks; ++c) {
      d.q[c][k] = to_sm90(Chunk(kQOff + c * kChunk).kstep(k));
      d.k[c][k] = to_sm90(Chunk(kKeysOff + c * kChunk).kstep(k));
    }
    d.p[k] = to_sm90(Chunk(kPOff).kstep(k));
    for (int h = 0; h < 2; ++h) d.v[h][k] = to_sm90(VTile(kKeysOff + h * 4 * kChunk).kstep(k));
  }
  return d;
}

void put(std::vector<std::uint8_t>& image, layout::Int address, std::uint16_t bits) {
  image.at(static_cast<std::size_t>(address)) = static_cast<std::uint8_t>(bits);
  image.at(static_cast<std::size_t>(address) + 1) = static_cast<std::uint8_t>(bits >> 8);
}

std::string first_difference(const std::vector<std::uint8_t>& a, const std::vector<std::uint8_t>& b) {
  const auto m = std::mismatch(a.begin(), a.end(), b.begin());
  if (m.first == a.end()) return "equal";
  const long at = static_cast<long>(m.first - a.begin());
  char s[96];
  std::snprintf(s, sizeof s, "differs first at +%ld (0x%02x against 0x%02x)", at, *m.first, *m.second);
  return s;
}

// max |got − ref| / Σ|a||b| over a product (a Σ of 0 must give exactly 0).
double worst(const std::vector<float>& got, const std::vector<double>& ref, const std::vector<double>& mag) {
  double w = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) return INFINITY;
    const double err = std::abs(double(got[i]) - ref[i]);
    w = std::max(w, mag[i] == 0 ? (err == 0 ? 0.0 : INFINITY) : err / mag[i]);
  }
  return w;
}

}  // namespace

int main() {
  require_gpu(9, -1);  // wgmma and this build are sm_90a only
  std::mt19937 rng(20261201);
  Counts counts;
  // The cache: two blocks of 64 tokens, nope tiles of magnitudes 2^-3 .. 2^3 so the scales differ.
  const Model1Layout layout{64};
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> octave(-3, 3), token(0, 127);
  std::vector<float> latent(128 * kD);
  for (int t = 0; t < 128; ++t)
    for (int d = 0; d < kD; ++d) {
      const float m = d < Model1Layout::kNope ? std::ldexp(1.0f, (t * 7 + d / 64) % 7 - 3) : 1.0f;
      latent[t * kD + d] = d < Model1Layout::kNope ? m * unit(rng) : decode(ElementType::bf16, encode(ElementType::bf16, unit(rng)));
    }
  const std::vector<std::uint8_t> cache = sparse_decode::quantize_model1(layout, latent);
  std::vector<std::int32_t> indices(kKeys);
  for (int j = 0; j < kKeys; ++j) indices[j] = j % 7 == 3 ? -1 : token(rng);

  // The keys as tcgen's dequantiser gives them, placed by the layout library: the expected image.
  const layout::SmemOperand keys_layout = layout::make_smem_operand(
      {layout::dense_element(16), Major::K, layout::SmemSwizzle::b128, kKeys, kD});
  std::vector<float> keys(kKeys * kD, 0.0f);
  std::vector<std::uint8_t> expected(kTile, 0);
  for (int j = 0; j < kKeys; ++j) {
    if (indices[j] >= 0) sparse_decode::dequantize_model1(layout, cache, indices[j], std::span<float, kD>(&keys[j * kD], kD));
    for (int d = 0; d < kD; ++d) put(expected, keys_layout.address(0, j, d), static_cast<std::uint16_t>(encode(ElementType::bf16, keys[j * kD + d])));
  }
  // Q (64 heads × 512) and P (64 heads × 64 keys) in the kernel's K-major SW128 layouts, from kQOff on.
  std::vector<std::uint16_t> q(kHeads * kD), p(kHeads * kKeys);
  for (auto& x : q) x = static_cast<std::uint16_t>(encode(ElementType::bf16, unit(rng)));
  std::uniform_real_distribution<float> prob(1.0f / 64, 1.0f);
  for (auto& x : p) x = static_cast<std::uint16_t>(encode(ElementType::bf16, prob(rng)));
  std::vector<std::uint8_t> qp_image(kEnd - kQOff, 0);
  for (int h = 0; h < kHeads; ++h) {
    for (int d = 0; d < kD; ++d) put(qp_image, keys_layout.address(0, h, d), q[h * kD + d]);
    for (int j = 0; j < kKeys; ++j) put(qp_image, kPOff - kQOff + Chunk::operand.address(0, h, j), p[h * kKeys + j]);
  }

  // 1. fill_key on the host model.
  std::vector<std::uint8_t> by_model(kTile);
  const sparse_decode::SparseKeyList host_list{cache.data(), nullptr, 0, 64, static_cast<std::uint32_t>(layout.block_bytes())};
  exec::host::launch({1, 1, 1}, 128, kTile, [&](exec::HostArch& a) {
    const int t = static_cast<int>(a.thread_index());
    SparseDecode::fill_key(a, a.smem_base(), host_list, indices[t / 2], t / 2, t % 2);
    a.sync_threads();
    if (t != 0) return;
    for (std::uint32_t i = 0; i < kTile; i += 16) {
      tile::Vec16 v;
      a.smem_load(a.smem_base() + i, v);
      std::memcpy(&by_model[i], &v, 16);
    }
  });

  // On the GPU.
  const exec::DeviceBuffer cache_buf(cache.size()), index_buf(kKeys * 4), qp_buf(qp_image.size()), descs_buf(sizeof(Descs)),
      keys_buf(kTile), s_buf(kHeads * kKeys * 4), o_buf(kHeads * kD * 4);
  CUDA_CHECK(cudaMemcpy(cache_buf.ptr, cache.data(), cache.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(index_buf.ptr, indices.data(), kKeys * 4, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemcpy(qp_buf.ptr, qp_image.data(), qp_image.size(), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaFuncSetAttribute(sparse_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, kDynamicSmem));
  sparse_decode::SparseKeyList device_list = host_list;
  device_list.cache = static_cast<const std::uint8_t*>(cache_buf.ptr);
  struct Gpu {
    std::vector<std::uint8_t> keys;
    std::vector<float> s, o;
  };
  const auto launch = [&](const Descs& d, const sparse_decode::SparseKeyList& list) {
    CUDA_CHECK(cudaMemcpy(descs_buf.ptr, &d, sizeof d, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(s_buf.ptr, 0xFF, kHeads * kKeys * 4));  // NaN: an element never written fails
    CUDA_CHECK(cudaMemset(o_buf.ptr, 0xFF, kHeads * kD * 4));
    sparse_smem<<<1, 128, kDynamicSmem>>>(list, static_cast<const std::int32_t*>(index_buf.ptr),
                                          static_cast<const std::uint8_t*>(qp_buf.ptr), static_cast<const Descs*>(descs_buf.ptr),
                                          static_cast<std::uint8_t*>(keys_buf.ptr), static_cast<float*>(s_buf.ptr),
                                          static_cast<float*>(o_buf.ptr));
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());
    Gpu g{std::vector<std::uint8_t>(kTile), std::vector<float>(kHeads * kKeys), std::vector<float>(kHeads * kD)};
    CUDA_CHECK(cudaMemcpy(g.keys.data(), keys_buf.ptr, kTile, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(g.s.data(), s_buf.ptr, g.s.size() * 4, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(g.o.data(), o_buf.ptr, g.o.size() * 4, cudaMemcpyDeviceToHost));
    return g;
  };
  const Descs good = descriptors<VHalf>();
  const Gpu g = launch(good, device_list);
  const std::string vs_model = first_difference(g.keys, by_model), vs_layout = first_difference(g.keys, expected);
  counts.report(vs_model == "equal" && vs_layout == "equal",
                "fill_key: 64 keys (every 7th index -1) of a MODEL1 cache, dequantised into the K-major SW128 keys tile "
                "(65536 bytes): against the host model " + vs_model + "; against dequantize_model1 by the layout " + vs_layout);
  {
    sparse_decode::SparseKeyList short_stride = device_list;
    short_stride.block_bytes -= 576;  // block 1's tokens read one row early, their scales from the wrong bytes
    const std::string d = first_difference(launch(good, short_stride).keys, expected);
    counts.report(d != "equal", "negative: fill_key with the block stride 576 bytes short must give another tile: " + d);
  }

  // 2. wgmma against fp64.
  std::vector<double> s_ref(kHeads * kKeys, 0), s_mag(kHeads * kKeys, 0), o_ref(kHeads * kD, 0), o_mag(kHeads * kD, 0);
  for (int h = 0; h < kHeads; ++h)
    for (int j = 0; j < kKeys; ++j)
      for (int d = 0; d < kD; ++d) {
        const double qk = double(decode(ElementType::bf16, q[h * kD + d])) * keys[j * kD + d];
        s_ref[h * kKeys + j] += qk;
        s_mag[h * kKeys + j] += std::abs(qk);
        const double pv = double(decode(ElementType::bf16, p[h * kKeys + j])) * keys[j * kD + d];
        o_ref[h * kD + d] += pv;
        o_mag[h * kD + d] += std::abs(pv);
      }
  const mma::SmemDescriptorFields vf = mma::decode(good.v[0][0], DescriptorArch::sm90);
  char line[512];
  const double ws = worst(g.s, s_ref, s_mag), wo = worst(g.o, o_ref, o_mag);
  std::snprintf(line, sizeof line,
                "wgmma S = Q·Kᵀ (m64n64k16, %d chunks × %d K steps): max |err|/Σ|q||k| %.3g; O = P·V (m64n256k16 × 2, "
                "V = the keys tile MN-major, LBO %lld SBO %lld): max |err|/Σ|p||v| %.3g",
                kChunks, kSteps, ws, (long long)vf.lbo, (long long)vf.sbo, wo);
  counts.report(ws <= kBound && wo <= kBound && vf.lbo == 8192 && vf.sbo == 1024, line);

  // 3. Negative cases: V read through other descriptors.
  {
    Descs bad = good;
    const Descs stacked = descriptors<VStacked>();
    std::memcpy(bad.v, stacked.v, sizeof bad.v);
    const double w = worst(launch(bad, device_list).o, o_ref, o_mag);
    std::snprintf(line, sizeof line, "negative: O with V in CuTe's M/N-first atom order (LBO 1024): ratio %.3g (must fail)", w);
    counts.report(w > kBound, line);
  }
  {
    Descs bad = good;
    for (auto& half : bad.v)
      for (auto& d : half) {
        mma::SmemDescriptorFields f = mma::decode(d, DescriptorArch::sm90);
        std::swap(f.lbo, f.sbo);
        d = mma::encode(f, DescriptorArch::sm90);
      }
    const double w = worst(launch(bad, device_list).o, o_ref, o_mag);
    std::snprintf(line, sizeof line, "negative: O with V's LBO and SBO swapped: ratio %.3g (must fail)", w);
    counts.report(w > kBound, line);
  }
  std::printf("%s: %d cases, %d failed\n", counts.failures ? "FAILED" : "PASSED", counts.cases, counts.failures);
  return counts.failures ? 1 : 0;
}
