#pragma once
// TCGEN_UNROLL before a loop with a compile-time trip count asks nvcc to
// unroll it (#pragma unroll), so that what the loop index feeds — a
// TileAccess element, a register index — folds into constants instead of a
// walk over arrays in local memory. TCGEN_KEEP_ROLLED asks for the opposite
// (#pragma unroll 1) on an outer loop whose unrolled bodies would each keep a
// tcgen05.ld's 32 registers live at once: the FMHA softmax's chunk loop spilled
// at 128 registers unrolled and needs 88 rolled. Host compilers get nothing
// (GCC would warn about the unknown pragma).
#if defined(__CUDACC__)
#define TCGEN_UNROLL _Pragma("unroll")
#define TCGEN_KEEP_ROLLED _Pragma("unroll 1")
#else
#define TCGEN_UNROLL
#define TCGEN_KEEP_ROLLED
#endif
