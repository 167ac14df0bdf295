#pragma once
// One MMA operand (a GEMM's A or B, an FMHA's Q, K or V, an expert's
// weights) as a kernel moves it: the rows × kStageK tile of one pipeline
// stage in shared memory, one 128-byte swizzle row of K (64 16-bit or 128
// 8-bit elements, or 128 4-bit ones padded to a byte: the .b4x16_p64 form of
// PTX #tcgen05-packing-formats, which TMA's 16U4_ALIGN16B type writes from
// packed global memory), a canonical 128-byte-swizzled SmemMatrix whose
// descriptors the MMA takes,
// the TMA tensor map of the whole matrix in global memory, and the loads that
// fill one stage.
//
// In global memory the operand is rows × k (M × K for A, N × K for B):
// Major::K stores it row by row, K contiguous; Major::MN stores it
// transposed, k rows of `rows` contiguous elements. `ld` is the stored
// row's length in elements (≥ its contiguous extent; TMA needs its bytes to
// be a multiple of 16). Loads past rows or k read zeros (TMA's
// out-of-bounds fill, PTX #tensor-tiled-mode-oob-access), which is how
// partial tiles and a K that is not a multiple of 64 come out right: the
// zeros add nothing to D.
#include <cstdint>

#include "tcgen/exec/kernel_arch.hpp"
#include "tcgen/core/element_type.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/exec/unroll.hpp"
#include "tcgen/tile/tma_boxes.hpp"
#include "tcgen/mma/smem_matrix.hpp"
#include "tcgen/tma/tensor_map.hpp"

namespace tcgen::tile {

constexpr int kBlockK = 64;  // K per stage of a 16-bit operand: one 128-byte swizzle row

// How an element is held in a stage: 16 or 8 bits, or 4 bits padded to a byte
// (layout::padded_element(4)); S.per_chunk elements fill 16 bytes.
template <ElementType E, layout::Major Major, int Rows, layout::SmemElement S = layout::dense_element(bits(E))>
struct Operand {
  static_assert(S.bits == bits(E), "the stage holds E's bits");
  static_assert(S.per_chunk == 8 || S.per_chunk == 16,
                "stage operands are 16-bit, 8-bit or padded 4-bit: 2 or 1 bytes an element in shared memory");
  static constexpr int kSmemBytesPerElement = 16 / S.per_chunk;
  static constexpr bool kPadded = S.bits == 4;
  static constexpr int kStageK = 128 / kSmemBytesPerElement;  // one 128-byte swizzle row of K
  static constexpr layout::SmemOperandSpec spec{S, Major, layout::SmemSwizzle::b128, Rows, kStageK};
  using Tile = mma::SmemMatrix<spec>;
  static constexpr std::uint32_t bytes = static_cast<std::uint32_t>(Tile::operand.size_bytes());
  // What a stage's loads count on its mbarrier: global bytes (a padded
  // operand's are half its shared-memory bytes; tma::TensorMapSpec::transaction_bytes).
  static constexpr std::uint32_t transaction_bytes = bytes * bits(E) / (8 * kSmemBytesPerElement);

  static constexpr TmaBoxes boxes = tma_boxes(Tile::operand);
  static_assert(boxes.ok, "no TMA box fills this operand tile in the SmemOperand layout");
  // Scalars: device code may read a static constexpr member only if it is a scalar.
  static constexpr int kInner = boxes.inner, kOuter = boxes.outer;
  static constexpr int kCountInner = boxes.count_inner, kCountOuter = boxes.count_outer;
  static constexpr std::uint32_t kStrideInner = static_cast<std::uint32_t>(boxes.stride_inner);
  static constexpr std::uint32_t kStrideOuter = static_cast<std::uint32_t>(boxes.stride_outer);
  static constexpr std::uint32_t kBoxBytes = static_cast<std::uint32_t>(kInner) * kOuter * kSmemBytesPerElement;
  static_assert(kBoxBytes * kCountInner * kCountOuter == bytes, "the boxes must fill the tile exactly");

  // The tensor map of a rows × k operand stored as above, one box per load:
  // the description both the host model (exec::HostTensorMap) and the
  // driver (cuTensorMapEncodeTiled) are built from. With a `stride`, `count`
  // operands of the same shape `stride` elements apart (the heads of an
  // attention batch) make a third dimension, so a tile of one never reads rows
  // of the next: past `rows` and `k` TMA fills zeros within each operand.
  // A padded operand is stored packed, two to a byte (low nibble first), and
  // read as TMA's 16U4_ALIGN16B type (CUtensorMapDataType 14), which pads
  // each 16 values to 16 bytes in shared memory.
  static tma::TensorMapSpec map(std::uint64_t rows, std::uint64_t k, std::uint64_t ld, std::uint64_t count = 1,
                                  std::uint64_t stride = 0) {
    tma::TensorMapSpec s;
    s.element_bytes = kPadded ? 1 : bits(E) / 8;
    if constexpr (kPadded) s.data_type = 14;
    s.rank = stride > 0 ? 3 : 2;
    s.global_dims = {Major == layout::Major::K ? k : rows, Major == layout::Major::K ? rows : k, count};
    s.global_strides = {ld * bits(E) / 8, stride * bits(E) / 8};
    s.box_dims = {static_cast<std::uint32_t>(kInner), static_cast<std::uint32_t>(kOuter), 1};
    s.swizzle = tma::TmaSwizzle::b128;
    return s;
  }

  // One thread: the tile of rows [row0, row0 + Rows) and K [k0, k0 + kStageK) to
  // shared address dst, its bytes completing on mbar (kBoxBytes per box,
  // out-of-bounds zeros included); `index...`: which of the `count` operands
  // (one index for a map made with a stride, none otherwise).
  template <exec::KernelArch Arch, class... Index>
  static TCGEN_HD void load(Arch& a, const typename Arch::TensorMap& map, std::uint32_t dst, std::uint32_t mbar,
                            int row0, int k0, Index... index) {
    for_each_box(dst, row0, k0, [&](std::uint32_t at, int c0, int c1) { a.tma_load(map, at, mbar, c0, c1, index...); });
  }
  // The same with TMA .cta_group::2 (a CTA pair's half of an operand), into
  // this CTA or (cta_mask) the CTAs of the mask: mbar is the pair's mbarrier
  // its bytes complete on (Arch::tma_load_pair).
  template <exec::KernelArch Arch>
  static TCGEN_HD void load_pair(Arch& a, const typename Arch::TensorMap& map, std::uint32_t dst, std::uint32_t mbar,
                                 int row0, int k0, std::uint16_t cta_mask = 0) {
    for_each_box(dst, row0, k0,
                 [&](std::uint32_t at, int c0, int c1) { a.tma_load_pair(map, at, mbar, cta_mask, c0, c1); });
  }

 private:
  // issue(at, c0, c1) for each box: its shared address and its first two coordinates (innermost first).
  template <class Issue>
  static TCGEN_HD void for_each_box(std::uint32_t dst, int row0, int k0, Issue&& issue) {
    TCGEN_UNROLL
    for (int i = 0; i < kCountInner; ++i) {
      TCGEN_UNROLL
      for (int j = 0; j < kCountOuter; ++j) {
        const std::uint32_t at = dst + static_cast<std::uint32_t>(i) * kStrideInner + static_cast<std::uint32_t>(j) * kStrideOuter;
        if constexpr (Major == layout::Major::K)
          issue(at, k0 + i * kInner, row0 + j * kOuter);
        else
          issue(at, row0 + i * kInner, k0 + j * kOuter);
      }
    }
  }
};

}  // namespace tcgen::tile
