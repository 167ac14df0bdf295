#pragma once
// The operand fetch behind fetch_operand (operand_fetch.hpp), writing into
// storage the caller owns and with the caller's strides: element (row, kk)
// goes to out[row * row_stride + kk * k_stride]. The MMA of model::Cta uses
// it to decode A row-major and B transposed (K × N) into buffers it reuses,
// with no allocation per instruction. Same checks, errors and chunk list as
// fetch_operand.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "tcgen/core/element_type.hpp"
#include "tcgen/model/operand_fetch.hpp"

namespace tcgen::model::detail {

void fetch_operand_into(std::span<const std::uint8_t> image, std::uint32_t image_base, std::uint64_t desc, int rows,
                        int k, ElementType type, bool mn_major, Fp4Storage fp4, float* out, std::ptrdiff_t row_stride,
                        std::ptrdiff_t k_stride, std::vector<std::uint32_t>* chunks_read);

}  // namespace tcgen::model::detail
