#pragma once
// Split-KV's second step: the splits of one query row's keys (the sparse
// decode kernel with splits > 1) each left O_s = their O / l and LSE_s; this
// kernel merges them, as FlashMLA's combine does:
//   LSE = ln Σ_s exp(LSE_s),  O = Σ_s exp(LSE_s − LSE) · O_s,
// then applies the sink (O · 1 / (1 + exp(sink − LSE))) and writes O in bf16
// and LSE (+inf for a row no split found a key for). One warp per row of
// (batch, s_q, head), each lane 16 dims; 4 rows a CTA; written once for both faces.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/dim3.hpp"
#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/sparse_decode/model1_cache.hpp"
#include "tcgen/tile/convert.hpp"

namespace tcgen::sparse_decode {

struct SparseDecodeCombine {
  static constexpr int kD = Model1Layout::kDim, kRowsPerCta = 4, kDimsPerLane = kD / 32;
  static constexpr unsigned kThreads = 32 * kRowsPerCta;
  static constexpr std::uint32_t kSmemBytes = 0;  // registers and shuffles only
  // The __global__ that runs it on a device (device_sparse_decode.hpp).
  static constexpr const char* kEntry = "tcgen::sparse_decode::sparse_decode_combine_kernel";

  struct Params {
    const float* o_split = nullptr;    // [splits, rows, 512]
    const float* lse_split = nullptr;  // [splits, rows]
    int splits = 1, heads = 64;
    std::size_t rows = 0;              // batch · s_q · heads
    const float* sink = nullptr;       // [heads] or null
    std::uint16_t* o = nullptr;        // [rows, 512] bf16
    float* lse = nullptr;              // [rows]
  };

  static exec::Dim3 grid(std::size_t rows) { return {static_cast<unsigned>((rows + kRowsPerCta - 1) / kRowsPerCta), 1, 1}; }

  template <exec::KernelArch Arch>
  static TCGEN_HD void run(Arch& a, const Params& p) {
    constexpr float kNone = -std::numeric_limits<float>::infinity();
    const std::size_t row = std::size_t{a.block_index().x} * kRowsPerCta + a.warp_index();
    if (row >= p.rows) return;
    const int d0 = kDimsPerLane * static_cast<int>(a.lane_index());
    float top = kNone;
    for (int s = 0; s < p.splits; ++s) top = std::fmax(top, p.lse_split[s * p.rows + row]);
    float o[kDimsPerLane] = {};
    float lse = std::numeric_limits<float>::infinity();  // no key in any split
    if (top != kNone) {
      float sum = 0.0f;
      for (int s = 0; s < p.splits; ++s) sum += std::exp(p.lse_split[s * p.rows + row] - top);
      lse = top + std::log(sum);
      for (int s = 0; s < p.splits; ++s) {
        const float weight = std::exp(p.lse_split[s * p.rows + row] - lse);  // 0 for a split without keys
        if (weight == 0.0f) continue;
        const float* part = p.o_split + (s * p.rows + row) * kD + d0;
        for (int k = 0; k < kDimsPerLane; ++k) o[k] += weight * part[k];
      }
      if (p.sink != nullptr) {
        const float keep = 1.0f / (1.0f + std::exp(p.sink[row % p.heads] - lse));
        for (float& x : o) x *= keep;
      }
    }
    for (int k = 0; k < kDimsPerLane; ++k) p.o[row * kD + d0 + k] = tile::from_f32<ElementType::bf16>(o[k]);
    if (d0 == 0) p.lse[row] = lse;
  }
};

}  // namespace tcgen::sparse_decode
