#pragma once
// The arithmetic of one tcgen05.mma on decoded operands (PTX #tcgen05-mma):
// D = A * B + D, or D = A * B when enable-input-d is false, with the negate
// bits of the instruction descriptor applied to A and B.
#include "tcgen/model/mma_types.hpp"

namespace tcgen::model {

// d: M x N, row-major, fp32, with M = a.rows, N = b.rows (B is given N x K,
// as fetch_operand returns it). d = (accumulate ? d : 0) + (±a)(±b)^T.
// Each product is computed in fp32, which is exact for two fp16, bf16, tf32
// or 8/6/4-bit float values (at most 11 x 11 significant bits) unless a bf16
// or tf32 product leaves fp32's exponent range. Each d[m][n] then adds its K
// products one at a time, k = 0, 1, ..., K-1, each sum rounded to fp32 (to
// nearest even); when accumulate is false the sum starts from -0, the
// identity of IEEE addition, so D is the sum of the products alone.
// That order and rounding are the model's choice: how the hardware adds the
// K products (one rounding per product, or a wider internal sum) is not
// documented (UNCONFIRMED). Throws tcgen::Error ("k") when a and b differ in K.
void mma_accumulate(const Operand& a, const Operand& b, float* d, bool accumulate, bool negate_a, bool negate_b);

}  // namespace tcgen::model
