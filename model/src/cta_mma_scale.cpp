// The scale factors of a block-scaled tcgen05.mma, read from Tensor Memory
// (PTX #tcgen05-block-scaling, #tcgen05-mma-scale-factor-a, -b;
// tcgen05-facts-2.md §6). Row r of A (or column r of B) keeps its factors in
// the word at lane r % 32, column base + r / 32, and that word is duplicated
// in each of the four 32-lane partitions (lanes r % 32 + 32q): the PTX asks
// for the copies, because each partition's datapath reads its own. The
// instruction's V factors of the row are bytes ID .. ID + V - 1 of the word
// (the idesc's scale-factor ID picks the sub-column).
#include <cmath>
#include <limits>
#include <string>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/cta.hpp"
#include "tcgen/core/hex.hpp"

namespace tcgen::model {

namespace {

// UE8M0: 2^(x - 127), 0xFF is NaN (OCP MX v1.0 §5.4.1). UE4M3: E4M3 without
// its sign bit (bias 7, 0x7F NaN).
float scale_value(std::uint32_t byte, bool ue8m0) {
  if (ue8m0) return byte == 0xFF ? std::numeric_limits<float>::quiet_NaN() : std::ldexp(1.0f, static_cast<int>(byte) - 127);
  return decode(ElementType::e4m3, byte);
}

}  // namespace

void Cta::read_scale_factors(const Issue& issue, int warp, int issuer, const char* which, std::uint32_t tmem, int rows,
                             int vec, int id, bool ue8m0, const MmaShape& now, float* out) {
  // Bits 30-31 of the address are outside any lane; CUTLASS leaves the
  // scale-factor ID there (its tmem_ptr<uint8> keeps the byte index in the
  // top bits) and runs on B200s, so the model ignores them as the hardware
  // must (tcgen05-facts-2.md §6, UNCONFIRMED in the PTX text).
  const int lane0 = static_cast<int>((tmem >> 16) & 0x3FFF), col0 = static_cast<int>(tmem & 0xFFFF);
  const std::string w = which;
  if (lane0 != 0)
    raise(ModelError(issue, Rule::scale_factors, w + " lane", std::to_string(lane0),
                     "the scale factors fill lanes 0-31 of every 32-lane partition, so [" + w +
                         "] names lane 0 (its address is " + hex(tmem) + ")."));
  const int columns = (rows + 31) / 32;
  const std::string why = ", and the MMA reads scale factors from it through [" + w + "]";
  for (int r = 0; r < rows; ++r) {
    const int column = col0 + r / 32;
    check_column(issue, column, col0, col0 + columns - 1);
    std::uint32_t first = 0;
    for (int q = 0; q < 4; ++q) {
      const int lane = r % 32 + 32 * q;
      check_order(issue, Touch::mma_read, warp, issuer, lane, column, &now);
      check_written(issue, lane, column, why.c_str());
      const std::uint32_t word = tmem_.value(lane, column) >> (8 * id);
      const std::uint32_t used = vec == 4 ? word : word & ((1u << (8 * vec)) - 1);
      if (q == 0) first = used;
      else if (used != first)
        raise(ModelError(issue, Rule::scale_factors, "cell", "lane " + std::to_string(lane) + ", column " +
                                                                 std::to_string(column),
                         "it holds scale bytes " + hex(used) + " where lane " + std::to_string(r % 32) +
                             " holds " + hex(first) + ": the scale factors of " + (w == "scale-A-tmem" ? "row " : "column ") +
                             std::to_string(r) + " must be the same in all four 32-lane partitions "
                             "(tcgen05.cp .32x128b.warpx4 copies them so)."));
    }
    for (int j = 0; j < vec; ++j) {
      const std::uint32_t byte = (first >> (8 * j)) & 0xFF;
      if (!ue8m0 && (byte & 0x80))
        raise(ModelError(issue, Rule::scale_factors, w + " byte", hex(byte),
                         "a UE4M3 scale factor has no sign bit: bit 7 must be 0 (row or column " + std::to_string(r) +
                             ", factor " + std::to_string(j) + ")."));
      out[r * vec + j] = scale_value(byte, ue8m0);
    }
  }
}

// A power of two (UE8M0) or a 4-bit-significand UE4M3 times an element of at most 4 significant bits
// is exact in fp32 while it stays in fp32's range.
void Cta::apply_scale_factors(const Issue& issue, int warp, int issuer, const InstrDescriptorFields& f,
                              const MmaVariant& variant, const MmaShape& now, int rows, int n, int k, float* a,
                              float* bt) {
  const int V = variant.scale_vec, block = k / V;
  mma_scale_a_.resize(static_cast<std::size_t>(rows) * V);
  mma_scale_b_.resize(static_cast<std::size_t>(n) * V);
  read_scale_factors(issue, warp, issuer, "scale-A-tmem", variant.scale_a_tmem, rows, V, f.a_sf_id, f.ue8m0, now,
                     mma_scale_a_.data());
  read_scale_factors(issue, warp, issuer, "scale-B-tmem", variant.scale_b_tmem, n, V, f.b_sf_id, f.ue8m0, now,
                     mma_scale_b_.data());
  for (int m = 0; m < rows; ++m)
    for (int j = 0; j < k; ++j) a[static_cast<std::size_t>(m) * k + j] *= mma_scale_a_[m * V + j / block];
  for (int j = 0; j < k; ++j)
    for (int c = 0; c < n; ++c) bt[static_cast<std::size_t>(j) * n + c] *= mma_scale_b_[c * V + j / block];
}

}  // namespace tcgen::model
