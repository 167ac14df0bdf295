#pragma once
// TCGEN_UNROLL before a loop with a compile-time trip count asks nvcc to
// unroll it (#pragma unroll), so that what the loop index feeds — a
// TileAccess element, a register index — folds into constants instead of a
// walk over arrays in local memory. Host compilers get nothing (GCC would
// warn about the unknown pragma).
#if defined(__CUDACC__)
#define TCGEN_UNROLL _Pragma("unroll")
#else
#define TCGEN_UNROLL
#endif
