#pragma once
// The loop nest behind mma_accumulate (mma_math.hpp), on storage the caller
// owns: A row-major M × K, B already transposed to K × N (row k of B at
// bt + k * N), and D given as one pointer per row, so that model::Cta can
// accumulate f32 D in place in its Tensor Memory rows (Layout D or F).
//   d_rows[m][n] = (accumulate ? d_rows[m][n] : -0) + Σₖ (sign · a[m][k]) · bt[k][n],
// the K products added one at a time in K order, each sum rounded to fp32:
// exactly mma_accumulate's arithmetic (see there).
namespace tcgen::model::detail {

void mma_rows(const float* a, const float* bt, int M, int N, int K, float* const* d_rows, bool accumulate, float sign);

}  // namespace tcgen::model::detail
