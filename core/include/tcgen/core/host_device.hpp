#pragma once
// TCGEN_HD marks functions that are callable from host and device code alike.
#if defined(__CUDACC__)
#define TCGEN_HD __host__ __device__
#else
#define TCGEN_HD
#endif
