// The PTX interpreter (tcgen::ptx) against a real GPU, instruction by
// instruction, for what is not tcgen05: integer and bit arithmetic, shifts,
// setp/selp, every common cvt form, f32/f64/f16/bf16 arithmetic with its
// rounding modes, the .approx functions, shfl.sync, vote/elect.sync, global
// and shared atomics, loads/stores, cvta/isspacep and special registers
// (tcgen05 is checked elsewhere). One kernel (ptx_semantics) evaluates ~460 results per thread
// on fresh random inputs (seed printed; --seed N repeats a run) and writes
// them all out. It runs on the GPU (sm_90a SASS), and its PTX (the same
// source compiled for compute_90a, TCGEN_PTX_SEMANTICS_PTX) runs through
// ptx::launch with the same inputs; every result is compared: bit for bit,
// within a tolerance for .approx, and the shared atomic counters by the
// chain of old values each side returned. Every result has an enable byte:
// where the launch with all on stops at an instruction the interpreter cannot
// run, the groups and then the results are run one by one, so the rest is
// still compared and what cannot run is named.
//
// Exit 0: all agree; 1: a disagreement (the first ones printed with thread,
// instruction, inputs, GPU and interpreter bits; "NaN" marks results where
// both are NaN with different bits) or an instruction the interpreter cannot
// run; 77: no sm_90 GPU.
//   --save-gpu FILE   also writes the GPU's results (and seed) to FILE
//   --load-gpu FILE   compares against results saved so, without a GPU: an
//                     interpreter fix can be checked against H200 bits anywhere
//   --interpreter-only  runs the PTX half alone, nothing compared (with
//                     --save-gpu: saves the interpreter's results, a baseline)
//   --examples N      mismatches printed per instruction (default 3)
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "device_check.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/ptx/execution_error.hpp"
#include "tcgen/ptx/launch.hpp"
#include "tcgen/ptx/module.hpp"

#ifndef TCGEN_PTX_SEMANTICS_PTX
#define TCGEN_PTX_SEMANTICS_PTX ""  // the PTX-only compile of this file needs no path
#endif

namespace {

using u16 = unsigned short;
using u32 = std::uint32_t;
using u64 = unsigned long long;

constexpr int kBlocks = 32;
constexpr int kThreadsPerBlock = 128;
constexpr int kThreads = kBlocks * kThreadsPerBlock;
constexpr int kIn = 52;       // input words per thread (208 bytes: ld.v4 stays 16-byte aligned)
constexpr int kScratch = 40;  // scratch words per thread (160 bytes): atomics, then stores
constexpr int kCounters = 8;  // shared counters: [0] atom.add.u32, [1] red.add.u32, [2..3] atom.add.u64

// Input words of a thread: where each operand letter of a result's spec starts.
constexpr int kI = 0;   // i0..i7: 32-bit integers
constexpr int kS = 8;   // s0..s3: shift amounts, bit positions and lengths
constexpr int kF = 12;  // f0..f7: f32
constexpr int kD = 20;  // d0..d3: f64 (two words each)
constexpr int kL = 28;  // l0..l2: 64-bit integers (two words each)
constexpr int kX = 34;  // x0..x3: f32 in the .approx functions' ranges
constexpr int kH = 38;  // h0..h3: two f16/bf16 each
constexpr int kU = 42;  // u0..u3: the same in all lanes of a warp
constexpr int kV = 46;  // v0..v3: per lane, for the warp collectives

enum Group { G_INT, G_INT64, G_BITS, G_MINMAX, G_SETP, G_CVTI, G_CVTF, G_F32, G_F64, G_HALF, G_APPROX,
             G_SHFL, G_VOTE, G_ATOM, G_MEM, G_SHARED, G_SREG, kGroups };
constexpr const char* kGroupNames[kGroups] = {
    "int32", "int64", "bits/shift", "min/max", "setp/selp", "cvt float<->int", "cvt float<->float", "f32",
    "f64", "f16/bf16", "approx", "shfl.sync", "vote/elect.sync", "atom/red", "ld/st", "shared memory",
    "special registers"};

// How a result is compared. T_EXACT: bit for bit. The others are .approx
// results within a tolerance of the interpreter's exact function (judge()
// below: f32 2 ulps or 2^-21 relative; lg2 also 2^-21 absolute; sin/cos
// 2^-20 + |x| 2^-22 absolute; tanh 2^-10 relative; f16 2 ulps, bf16 1 ulp;
// f64 2^-19 relative), and the shared counters' old values, checked as a
// chain on each side.
enum Tol { T_EXACT, T_ULP2, T_LG2, T_SINCOS, T_TANH, T_F16, T_BF16, T_F64, T_CHAIN32, T_CHAIN64 };

// X(id, group, tolerance, operands): one result per thread. The instruction
// is the id with '_' read as '.'; operands name the input words it reads
// (letters as above, m = the scratch word's initial value).
#define RESULTS(X)                                                     \
  X(add_s32, G_INT, T_EXACT, "i0 i1")                                  \
  X(sub_s32, G_INT, T_EXACT, "i0 i1")                                  \
  X(add_sat_s32, G_INT, T_EXACT, "i0 i1")                              \
  X(sub_sat_s32, G_INT, T_EXACT, "i0 i1")                              \
  X(mul_lo_s32, G_INT, T_EXACT, "i0 i1")                               \
  X(mul_hi_s32, G_INT, T_EXACT, "i0 i1")                               \
  X(mul_hi_u32, G_INT, T_EXACT, "i0 i1")                               \
  X(mul_wide_s32, G_INT, T_EXACT, "i0 i1")                             \
  X(mul_wide_u32, G_INT, T_EXACT, "i0 i1")                             \
  X(mad_lo_s32, G_INT, T_EXACT, "i0 i1 i2")                            \
  X(mad_hi_s32, G_INT, T_EXACT, "i0 i1 i2")                            \
  X(mad_hi_u32, G_INT, T_EXACT, "i0 i1 i2")                            \
  X(mad_wide_s32, G_INT, T_EXACT, "i0 i1 l0")                          \
  X(mad_wide_u32, G_INT, T_EXACT, "i0 i1 l0")                          \
  X(div_s32, G_INT, T_EXACT, "i0 i1")                                  \
  X(div_u32, G_INT, T_EXACT, "i0 i1")                                  \
  X(rem_s32, G_INT, T_EXACT, "i0 i1")                                  \
  X(rem_u32, G_INT, T_EXACT, "i0 i1")                                  \
  X(abs_s32, G_INT, T_EXACT, "i0")                                     \
  X(neg_s32, G_INT, T_EXACT, "i0")                                     \
  X(add_s32_imm_m7, G_INT, T_EXACT, "i0")                              \
  X(mul_lo_u32_imm_0x9e3779b9, G_INT, T_EXACT, "i0")                   \
  X(add_s64, G_INT64, T_EXACT, "l0 l1")                                \
  X(sub_s64, G_INT64, T_EXACT, "l0 l1")                                \
  X(mul_lo_s64, G_INT64, T_EXACT, "l0 l1")                             \
  X(mul_hi_s64, G_INT64, T_EXACT, "l0 l1")                             \
  X(mul_hi_u64, G_INT64, T_EXACT, "l0 l1")                             \
  X(mad_lo_s64, G_INT64, T_EXACT, "l0 l1 l2")                          \
  X(mad_hi_u64, G_INT64, T_EXACT, "l0 l1 l2")                          \
  X(div_s64, G_INT64, T_EXACT, "l0 l1")                                \
  X(div_u64, G_INT64, T_EXACT, "l0 l1")                                \
  X(rem_s64, G_INT64, T_EXACT, "l0 l1")                                \
  X(rem_u64, G_INT64, T_EXACT, "l0 l1")                                \
  X(abs_s64, G_INT64, T_EXACT, "l0")                                   \
  X(neg_s64, G_INT64, T_EXACT, "l0")                                   \
  X(and_b32, G_BITS, T_EXACT, "i0 i1")                                 \
  X(or_b32, G_BITS, T_EXACT, "i0 i1")                                  \
  X(xor_b32, G_BITS, T_EXACT, "i0 i1")                                 \
  X(not_b32, G_BITS, T_EXACT, "i0")                                    \
  X(cnot_b32, G_BITS, T_EXACT, "i0")                                   \
  X(xor_b64, G_BITS, T_EXACT, "l0 l1")                                 \
  X(lop3_b32_0x96, G_BITS, T_EXACT, "i0 i1 i2")                        \
  X(lop3_b32_0xe8, G_BITS, T_EXACT, "i0 i1 i2")                        \
  X(lop3_b32_0xca, G_BITS, T_EXACT, "i0 i1 i2")                        \
  X(lop3_b32_0x1e, G_BITS, T_EXACT, "i0 i1 i2")                        \
  X(lop3_b32_0x80, G_BITS, T_EXACT, "i0 i1 i2")                        \
  X(lop3_b32_0xfe, G_BITS, T_EXACT, "i0 i1 i2")                        \
  X(lop3_b32_0x3c, G_BITS, T_EXACT, "i0 i1 i2")                        \
  X(lop3_b32_0x01, G_BITS, T_EXACT, "i0 i1 i2")                        \
  X(popc_b32, G_BITS, T_EXACT, "i0")                                   \
  X(popc_b64, G_BITS, T_EXACT, "l0")                                   \
  X(clz_b32, G_BITS, T_EXACT, "i0")                                    \
  X(clz_b64, G_BITS, T_EXACT, "l0")                                    \
  X(brev_b32, G_BITS, T_EXACT, "i0")                                   \
  X(brev_b64, G_BITS, T_EXACT, "l0")                                   \
  X(bfind_u32, G_BITS, T_EXACT, "i0")                                  \
  X(bfind_s32, G_BITS, T_EXACT, "i0")                                  \
  X(bfind_shiftamt_u32, G_BITS, T_EXACT, "i0")                         \
  X(bfind_shiftamt_s32, G_BITS, T_EXACT, "i0")                         \
  X(bfind_u64, G_BITS, T_EXACT, "l0")                                  \
  X(bfind_s64, G_BITS, T_EXACT, "l0")                                  \
  X(bfe_u32, G_BITS, T_EXACT, "i0 s0 s1")                              \
  X(bfe_s32, G_BITS, T_EXACT, "i0 s0 s1")                              \
  X(bfe_u64, G_BITS, T_EXACT, "l0 s0 s1 (& 0xff)")                     \
  X(bfe_s64, G_BITS, T_EXACT, "l0 s0 s1 (& 0xff)")                     \
  X(bfi_b32, G_BITS, T_EXACT, "i0 i1 s0 s1")                           \
  X(bfi_b64, G_BITS, T_EXACT, "l0 l1 s0 s1 (& 0xff)")                  \
  X(prmt_b32, G_BITS, T_EXACT, "i0 i1 i3")                             \
  X(prmt_b32_f4e, G_BITS, T_EXACT, "i0 i1 i3")                         \
  X(prmt_b32_b4e, G_BITS, T_EXACT, "i0 i1 i3")                         \
  X(prmt_b32_rc8, G_BITS, T_EXACT, "i0 i1 i3")                         \
  X(prmt_b32_ecl, G_BITS, T_EXACT, "i0 i1 i3")                         \
  X(prmt_b32_ecr, G_BITS, T_EXACT, "i0 i1 i3")                         \
  X(prmt_b32_rc16, G_BITS, T_EXACT, "i0 i1 i3")                        \
  X(shl_b32, G_BITS, T_EXACT, "i0 s0")                                 \
  X(shr_u32, G_BITS, T_EXACT, "i0 s0")                                 \
  X(shr_s32, G_BITS, T_EXACT, "i0 s0")                                 \
  X(shl_b64, G_BITS, T_EXACT, "l0 s2")                                 \
  X(shr_u64, G_BITS, T_EXACT, "l0 s2")                                 \
  X(shr_s64, G_BITS, T_EXACT, "l0 s2")                                 \
  X(shl_b16, G_BITS, T_EXACT, "h0 s0")                                 \
  X(shr_s16, G_BITS, T_EXACT, "h0 s0")                                 \
  X(shl_b32_imm_33, G_BITS, T_EXACT, "i0")                             \
  X(shf_l_wrap_b32, G_BITS, T_EXACT, "i0 i1 s0")                       \
  X(shf_l_clamp_b32, G_BITS, T_EXACT, "i0 i1 s0")                      \
  X(shf_r_wrap_b32, G_BITS, T_EXACT, "i0 i1 s0")                       \
  X(shf_r_clamp_b32, G_BITS, T_EXACT, "i0 i1 s0")                      \
  X(min_s32, G_MINMAX, T_EXACT, "i0 i1")                               \
  X(max_s32, G_MINMAX, T_EXACT, "i0 i1")                               \
  X(min_u32, G_MINMAX, T_EXACT, "i0 i1")                               \
  X(max_u32, G_MINMAX, T_EXACT, "i0 i1")                               \
  X(min_s64, G_MINMAX, T_EXACT, "l0 l1")                               \
  X(max_u64, G_MINMAX, T_EXACT, "l0 l1")                               \
  X(min_f32, G_MINMAX, T_EXACT, "f0 f1")                               \
  X(max_f32, G_MINMAX, T_EXACT, "f0 f1")                               \
  X(min_ftz_f32, G_MINMAX, T_EXACT, "f0 f1")                           \
  X(min_NaN_f32, G_MINMAX, T_EXACT, "f0 f1")                           \
  X(max_NaN_f32, G_MINMAX, T_EXACT, "f0 f1")                           \
  X(min_f64, G_MINMAX, T_EXACT, "d0 d1")                               \
  X(max_f64, G_MINMAX, T_EXACT, "d0 d1")                               \
  X(setp_eq_s32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_ne_s32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_lt_s32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_le_s32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_gt_s32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_ge_s32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_lt_u32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_lo_u32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_ls_u32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_hi_u32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_hs_u32, G_SETP, T_EXACT, "i0 i1")                             \
  X(setp_lt_s64, G_SETP, T_EXACT, "l0 l1")                             \
  X(setp_gt_u64, G_SETP, T_EXACT, "l0 l1")                             \
  X(setp_eq_f32, G_SETP, T_EXACT, "f0 f1")                             \
  X(setp_ne_f32, G_SETP, T_EXACT, "f0 f1")                             \
  X(setp_lt_f32, G_SETP, T_EXACT, "f0 f1")                             \
  X(setp_le_f32, G_SETP, T_EXACT, "f0 f1")                             \
  X(setp_gt_f32, G_SETP, T_EXACT, "f0 f1")                             \
  X(setp_ge_f32, G_SETP, T_EXACT, "f0 f1")                             \
  X(setp_equ_f32, G_SETP, T_EXACT, "f0 f1")                            \
  X(setp_neu_f32, G_SETP, T_EXACT, "f0 f1")                            \
  X(setp_ltu_f32, G_SETP, T_EXACT, "f0 f1")                            \
  X(setp_leu_f32, G_SETP, T_EXACT, "f0 f1")                            \
  X(setp_gtu_f32, G_SETP, T_EXACT, "f0 f1")                            \
  X(setp_geu_f32, G_SETP, T_EXACT, "f0 f1")                            \
  X(setp_num_f32, G_SETP, T_EXACT, "f0 f1")                            \
  X(setp_nan_f32, G_SETP, T_EXACT, "f0 f1")                            \
  X(setp_lt_ftz_f32, G_SETP, T_EXACT, "f0 f1")                         \
  X(setp_eq_f64, G_SETP, T_EXACT, "d0 d1")                             \
  X(setp_lt_f64, G_SETP, T_EXACT, "d0 d1")                             \
  X(setp_geu_f64, G_SETP, T_EXACT, "d0 d1")                            \
  X(setp_nan_f64, G_SETP, T_EXACT, "d0 d1")                            \
  X(setp_lt_f16, G_SETP, T_EXACT, "h0 h1")                             \
  X(setp_gtu_bf16, G_SETP, T_EXACT, "h0 h1")                           \
  X(setp_lt_and_s32_pq, G_SETP, T_EXACT, "i0 i1 i2")                   \
  X(setp_ge_or_f32_pq, G_SETP, T_EXACT, "f0 f1 i2")                    \
  X(setp_neu_xor_f32_not_c_pq, G_SETP, T_EXACT, "f0 f1 i2")            \
  X(selp_b32, G_SETP, T_EXACT, "i0 i1 i2")                             \
  X(selp_f32, G_SETP, T_EXACT, "f0 f1 i2")                             \
  X(selp_b64, G_SETP, T_EXACT, "l0 l1 i2")                             \
  X(cvt_rni_s32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rzi_s32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rmi_s32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rpi_s32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rni_u32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rzi_u32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rmi_u32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rpi_u32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rzi_sat_s32_f32, G_CVTI, T_EXACT, "f3")                        \
  X(cvt_rni_s64_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rzi_u64_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rmi_s64_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rni_s16_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rzi_u16_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rni_s8_f32, G_CVTI, T_EXACT, "f3")                             \
  X(cvt_rzi_u8_f32, G_CVTI, T_EXACT, "f3")                             \
  X(cvt_rzi_s32_f64, G_CVTI, T_EXACT, "d3")                            \
  X(cvt_rni_s32_f64, G_CVTI, T_EXACT, "d3")                            \
  X(cvt_rpi_u32_f64, G_CVTI, T_EXACT, "d3")                            \
  X(cvt_rmi_s64_f64, G_CVTI, T_EXACT, "d3")                            \
  X(cvt_rzi_u64_f64, G_CVTI, T_EXACT, "d3")                            \
  X(cvt_rni_u64_f64, G_CVTI, T_EXACT, "d3")                            \
  X(cvt_rni_s32_f16, G_CVTI, T_EXACT, "h0")                            \
  X(cvt_rn_f32_s32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_rz_f32_s32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_rm_f32_s32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_rp_f32_s32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_rn_f32_u32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_rz_f32_u32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_rp_f32_u32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_rn_f32_s64, G_CVTI, T_EXACT, "l0")                             \
  X(cvt_rz_f32_s64, G_CVTI, T_EXACT, "l0")                             \
  X(cvt_rn_f32_u64, G_CVTI, T_EXACT, "l0")                             \
  X(cvt_rm_f32_u64, G_CVTI, T_EXACT, "l0")                             \
  X(cvt_rn_f64_s64, G_CVTI, T_EXACT, "l0")                             \
  X(cvt_rz_f64_u64, G_CVTI, T_EXACT, "l0")                             \
  X(cvt_rp_f64_s64, G_CVTI, T_EXACT, "l0")                             \
  X(cvt_rn_f64_s32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_rn_f64_u32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_rn_f16_s32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_rni_f32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rzi_f32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rmi_f32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rpi_f32_f32, G_CVTI, T_EXACT, "f3")                            \
  X(cvt_rni_f64_f64, G_CVTI, T_EXACT, "d3")                            \
  X(cvt_rzi_f64_f64, G_CVTI, T_EXACT, "d3")                            \
  X(cvt_s32_s8, G_CVTI, T_EXACT, "i0")                                 \
  X(cvt_s32_s16, G_CVTI, T_EXACT, "i0")                                \
  X(cvt_u32_u8, G_CVTI, T_EXACT, "i0")                                 \
  X(cvt_u32_u16, G_CVTI, T_EXACT, "i0")                                \
  X(cvt_s64_s32, G_CVTI, T_EXACT, "i0")                                \
  X(cvt_u64_u32, G_CVTI, T_EXACT, "i0")                                \
  X(cvt_u32_u64, G_CVTI, T_EXACT, "l0")                                \
  X(cvt_s32_s64, G_CVTI, T_EXACT, "l0")                                \
  X(cvt_s8_s32, G_CVTI, T_EXACT, "i0")                                 \
  X(cvt_u16_u32, G_CVTI, T_EXACT, "i0")                                \
  X(cvt_sat_s8_s32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_sat_u8_s32, G_CVTI, T_EXACT, "i0")                             \
  X(cvt_sat_s16_s32, G_CVTI, T_EXACT, "i0")                            \
  X(cvt_sat_u16_s32, G_CVTI, T_EXACT, "i0")                            \
  X(cvt_sat_u32_s32, G_CVTI, T_EXACT, "i0")                            \
  X(cvt_sat_s32_u32, G_CVTI, T_EXACT, "i0")                            \
  X(cvt_sat_s32_s64, G_CVTI, T_EXACT, "l0")                            \
  X(cvt_sat_u32_s64, G_CVTI, T_EXACT, "l0")                            \
  X(cvt_sat_u64_s64, G_CVTI, T_EXACT, "l0")                            \
  X(cvt_sat_s64_u64, G_CVTI, T_EXACT, "l0")                            \
  X(cvt_rn_f16_f32, G_CVTF, T_EXACT, "f4")                             \
  X(cvt_rz_f16_f32, G_CVTF, T_EXACT, "f4")                             \
  X(cvt_rm_f16_f32, G_CVTF, T_EXACT, "f4")                             \
  X(cvt_rp_f16_f32, G_CVTF, T_EXACT, "f4")                             \
  X(cvt_rn_relu_f16_f32, G_CVTF, T_EXACT, "f4")                        \
  X(cvt_rn_bf16_f32, G_CVTF, T_EXACT, "f4")                            \
  X(cvt_rz_bf16_f32, G_CVTF, T_EXACT, "f4")                            \
  X(cvt_rn_relu_bf16_f32, G_CVTF, T_EXACT, "f4")                       \
  X(cvt_rn_f16x2_f32, G_CVTF, T_EXACT, "f4 f5")                        \
  X(cvt_rn_bf16x2_f32, G_CVTF, T_EXACT, "f4 f5")                       \
  X(cvt_rn_relu_f16x2_f32, G_CVTF, T_EXACT, "f4 f5")                   \
  X(cvt_rn_relu_bf16x2_f32, G_CVTF, T_EXACT, "f4 f5")                  \
  X(cvt_f32_f16, G_CVTF, T_EXACT, "h0")                                \
  X(cvt_f32_bf16, G_CVTF, T_EXACT, "h0")                               \
  X(cvt_f64_f16, G_CVTF, T_EXACT, "h0")                                \
  X(cvt_rn_f16_f64, G_CVTF, T_EXACT, "d0")                             \
  X(cvt_rn_f32_f64, G_CVTF, T_EXACT, "d0")                             \
  X(cvt_rz_f32_f64, G_CVTF, T_EXACT, "d0")                             \
  X(cvt_rm_f32_f64, G_CVTF, T_EXACT, "d0")                             \
  X(cvt_rp_f32_f64, G_CVTF, T_EXACT, "d0")                             \
  X(cvt_rn_ftz_f32_f64, G_CVTF, T_EXACT, "d0")                         \
  X(cvt_f64_f32, G_CVTF, T_EXACT, "f0")                                \
  X(cvt_ftz_f64_f32, G_CVTF, T_EXACT, "f0")                            \
  X(cvt_ftz_f32_f32, G_CVTF, T_EXACT, "f0")                            \
  X(cvt_sat_f32_f32, G_CVTF, T_EXACT, "f0")                            \
  X(cvt_rna_tf32_f32, G_CVTF, T_EXACT, "f4")                           \
  X(cvt_rn_tf32_f32, G_CVTF, T_EXACT, "f4")                            \
  X(cvt_rn_satfinite_e4m3x2_f32, G_CVTF, T_EXACT, "f4 f5")             \
  X(cvt_rn_satfinite_e5m2x2_f32, G_CVTF, T_EXACT, "f4 f5")             \
  X(cvt_rn_satfinite_relu_e4m3x2_f32, G_CVTF, T_EXACT, "f4 f5")        \
  X(cvt_rn_f16x2_e4m3x2, G_CVTF, T_EXACT, "h0")                        \
  X(cvt_rn_f16x2_e5m2x2, G_CVTF, T_EXACT, "h0")                        \
  X(cvt_rn_satfinite_e4m3x2_f16x2, G_CVTF, T_EXACT, "h1")              \
  X(add_rn_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(sub_rn_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(mul_rn_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(fma_rn_f32, G_F32, T_EXACT, "f0 f1 f2")                            \
  X(add_rz_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(add_rm_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(add_rp_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(mul_rz_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(mul_rm_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(mul_rp_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(fma_rz_f32, G_F32, T_EXACT, "f0 f1 f2")                            \
  X(fma_rm_f32, G_F32, T_EXACT, "f0 f1 f2")                            \
  X(fma_rp_f32, G_F32, T_EXACT, "f0 f1 f2")                            \
  X(add_rn_ftz_f32, G_F32, T_EXACT, "f0 f1")                           \
  X(mul_rn_ftz_f32, G_F32, T_EXACT, "f0 f1")                           \
  X(fma_rn_ftz_f32, G_F32, T_EXACT, "f0 f1 f2")                        \
  X(add_rn_sat_f32, G_F32, T_EXACT, "f0 f1")                           \
  X(fma_rn_sat_f32, G_F32, T_EXACT, "f0 f1 f2")                        \
  X(neg_f32, G_F32, T_EXACT, "f0")                                     \
  X(abs_f32, G_F32, T_EXACT, "f0")                                     \
  X(copysign_f32, G_F32, T_EXACT, "f0 f1")                             \
  X(rcp_rn_f32, G_F32, T_EXACT, "f0")                                  \
  X(rcp_rz_f32, G_F32, T_EXACT, "f0")                                  \
  X(rcp_rm_f32, G_F32, T_EXACT, "f0")                                  \
  X(rcp_rp_f32, G_F32, T_EXACT, "f0")                                  \
  X(rcp_rn_ftz_f32, G_F32, T_EXACT, "f0")                              \
  X(sqrt_rn_f32, G_F32, T_EXACT, "f0")                                 \
  X(sqrt_rz_f32, G_F32, T_EXACT, "f0")                                 \
  X(sqrt_rn_ftz_f32, G_F32, T_EXACT, "f0")                             \
  X(div_rn_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(div_rz_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(div_rm_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(div_rp_f32, G_F32, T_EXACT, "f0 f1")                               \
  X(div_rn_ftz_f32, G_F32, T_EXACT, "f0 f1")                           \
  X(add_rn_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(sub_rn_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(mul_rn_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(fma_rn_f64, G_F64, T_EXACT, "d0 d1 d2")                            \
  X(add_rz_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(add_rm_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(add_rp_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(mul_rz_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(mul_rp_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(fma_rz_f64, G_F64, T_EXACT, "d0 d1 d2")                            \
  X(fma_rm_f64, G_F64, T_EXACT, "d0 d1 d2")                            \
  X(fma_rp_f64, G_F64, T_EXACT, "d0 d1 d2")                            \
  X(div_rn_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(div_rz_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(div_rm_f64, G_F64, T_EXACT, "d0 d1")                               \
  X(rcp_rn_f64, G_F64, T_EXACT, "d0")                                  \
  X(rcp_rp_f64, G_F64, T_EXACT, "d0")                                  \
  X(sqrt_rn_f64, G_F64, T_EXACT, "d0")                                 \
  X(sqrt_rm_f64, G_F64, T_EXACT, "d0")                                 \
  X(neg_f64, G_F64, T_EXACT, "d0")                                     \
  X(abs_f64, G_F64, T_EXACT, "d0")                                     \
  X(add_rn_f16, G_HALF, T_EXACT, "h0 h1")                              \
  X(sub_rn_f16, G_HALF, T_EXACT, "h0 h1")                              \
  X(mul_rn_f16, G_HALF, T_EXACT, "h0 h1")                              \
  X(fma_rn_f16, G_HALF, T_EXACT, "h0 h1 h2")                           \
  X(fma_rn_sat_f16, G_HALF, T_EXACT, "h0 h1 h2")                       \
  X(fma_rn_relu_f16, G_HALF, T_EXACT, "h0 h1 h2")                      \
  X(add_rn_f16x2, G_HALF, T_EXACT, "h0 h1")                            \
  X(mul_rn_f16x2, G_HALF, T_EXACT, "h0 h1")                            \
  X(fma_rn_f16x2, G_HALF, T_EXACT, "h0 h1 h2")                         \
  X(neg_f16, G_HALF, T_EXACT, "h0")                                    \
  X(abs_f16, G_HALF, T_EXACT, "h0")                                    \
  X(min_f16, G_HALF, T_EXACT, "h0 h1")                                 \
  X(max_f16, G_HALF, T_EXACT, "h0 h1")                                 \
  X(min_NaN_f16, G_HALF, T_EXACT, "h0 h1")                             \
  X(max_f16x2, G_HALF, T_EXACT, "h0 h1")                               \
  X(add_rn_bf16, G_HALF, T_EXACT, "h0 h1")                             \
  X(sub_rn_bf16, G_HALF, T_EXACT, "h0 h1")                             \
  X(mul_rn_bf16, G_HALF, T_EXACT, "h0 h1")                             \
  X(fma_rn_bf16, G_HALF, T_EXACT, "h0 h1 h2")                          \
  X(fma_rn_relu_bf16, G_HALF, T_EXACT, "h0 h1 h2")                     \
  X(fma_rn_bf16x2, G_HALF, T_EXACT, "h0 h1 h2")                        \
  X(neg_bf16, G_HALF, T_EXACT, "h0")                                   \
  X(abs_bf16, G_HALF, T_EXACT, "h0")                                   \
  X(min_bf16, G_HALF, T_EXACT, "h0 h1")                                \
  X(max_bf16, G_HALF, T_EXACT, "h0 h1")                                \
  X(max_NaN_bf16x2, G_HALF, T_EXACT, "h0 h1")                          \
  X(ex2_approx_f32, G_APPROX, T_ULP2, "x0")                            \
  X(ex2_approx_ftz_f32, G_APPROX, T_ULP2, "x0")                        \
  X(lg2_approx_f32, G_APPROX, T_LG2, "x1")                             \
  X(lg2_approx_ftz_f32, G_APPROX, T_LG2, "x1")                         \
  X(rcp_approx_f32, G_APPROX, T_ULP2, "x1")                            \
  X(rcp_approx_ftz_f32, G_APPROX, T_ULP2, "x1")                        \
  X(rsqrt_approx_f32, G_APPROX, T_ULP2, "x1")                          \
  X(rsqrt_approx_ftz_f32, G_APPROX, T_ULP2, "x1")                      \
  X(sqrt_approx_f32, G_APPROX, T_ULP2, "x1")                           \
  X(sin_approx_f32, G_APPROX, T_SINCOS, "x2")                          \
  X(cos_approx_f32, G_APPROX, T_SINCOS, "x2")                          \
  X(tanh_approx_f32, G_APPROX, T_TANH, "x3")                           \
  X(div_approx_f32, G_APPROX, T_ULP2, "x2 x3")                         \
  X(div_full_f32, G_APPROX, T_ULP2, "x2 x3")                           \
  X(ex2_approx_f16, G_APPROX, T_F16, "h0")                             \
  X(tanh_approx_f16, G_APPROX, T_F16, "h0")                            \
  X(ex2_approx_ftz_bf16, G_APPROX, T_BF16, "h0")                       \
  X(rcp_approx_ftz_f64, G_APPROX, T_F64, "x1")                         \
  X(rsqrt_approx_f64, G_APPROX, T_F64, "x1")                           \
  X(shfl_sync_up_width, G_SHFL, T_EXACT, "v0 u0 u1")                   \
  X(shfl_sync_down_width, G_SHFL, T_EXACT, "v0 u0 u1")                 \
  X(shfl_sync_bfly_width, G_SHFL, T_EXACT, "v0 u0 u1")                 \
  X(shfl_sync_idx_width, G_SHFL, T_EXACT, "v0 v1 u1")                  \
  X(shfl_sync_up_c, G_SHFL, T_EXACT, "v0 u0 u2")                       \
  X(shfl_sync_down_c, G_SHFL, T_EXACT, "v0 u0 u2")                     \
  X(shfl_sync_bfly_c, G_SHFL, T_EXACT, "v0 u0 u2")                     \
  X(shfl_sync_idx_c, G_SHFL, T_EXACT, "v0 v1 u2")                      \
  X(shfl_sync_idx_lane_b_c, G_SHFL, T_EXACT, "v0 v1 v2")               \
  X(shfl_sync_down_lane_b_c, G_SHFL, T_EXACT, "v0 v1 v2")              \
  X(shfl_sync_bfly_imm, G_SHFL, T_EXACT, "v0")                         \
  X(shfl_sync_idx_halves, G_SHFL, T_EXACT, "v0 v1")                    \
  X(shfl_sync_up_halves, G_SHFL, T_EXACT, "v0 u0")                     \
  X(vote_sync_ballot_b32, G_VOTE, T_EXACT, "v3 u3")                    \
  X(vote_sync_any_pred, G_VOTE, T_EXACT, "v3 u3")                      \
  X(vote_sync_all_pred, G_VOTE, T_EXACT, "v3 u3")                      \
  X(vote_sync_uni_pred, G_VOTE, T_EXACT, "v3 u3")                      \
  X(redux_sync_add_u32, G_VOTE, T_EXACT, "v0")                         \
  X(redux_sync_min_s32, G_VOTE, T_EXACT, "v0")                         \
  X(redux_sync_max_u32, G_VOTE, T_EXACT, "v0")                         \
  X(redux_sync_and_b32, G_VOTE, T_EXACT, "v0")                         \
  X(redux_sync_or_b32, G_VOTE, T_EXACT, "v0")                          \
  X(redux_sync_xor_b32, G_VOTE, T_EXACT, "v0")                         \
  X(vote_sync_any_pred_not_p, G_VOTE, T_EXACT, "v3 u3")                \
  X(vote_sync_ballot_b32_halves, G_VOTE, T_EXACT, "v3 u3")             \
  X(vote_sync_all_pred_halves, G_VOTE, T_EXACT, "v3 u3")               \
  X(activemask_b32, G_VOTE, T_EXACT, "")                               \
  X(elect_sync, G_VOTE, T_EXACT, "")                                   \
  X(elect_sync_halves, G_VOTE, T_EXACT, "")                            \
  X(atom_global_add_u32, G_ATOM, T_EXACT, "m0 i4")                     \
  X(atom_global_add_u32_mem, G_ATOM, T_EXACT, "m0 i4")                 \
  X(atom_global_exch_b32, G_ATOM, T_EXACT, "m1 i5")                    \
  X(atom_global_exch_b32_mem, G_ATOM, T_EXACT, "m1 i5")                \
  X(atom_global_cas_b32_hit, G_ATOM, T_EXACT, "m2 i4")                 \
  X(atom_global_cas_b32_hit_mem, G_ATOM, T_EXACT, "m2 i4")             \
  X(atom_global_cas_b32_miss, G_ATOM, T_EXACT, "m3 i4")                \
  X(atom_global_cas_b32_miss_mem, G_ATOM, T_EXACT, "m3 i4")            \
  X(atom_global_min_s32, G_ATOM, T_EXACT, "m4 i5")                     \
  X(atom_global_min_s32_mem, G_ATOM, T_EXACT, "m4 i5")                 \
  X(atom_global_max_u32, G_ATOM, T_EXACT, "m5 i5")                     \
  X(atom_global_max_u32_mem, G_ATOM, T_EXACT, "m5 i5")                 \
  X(atom_global_and_b32, G_ATOM, T_EXACT, "m6 i5")                     \
  X(atom_global_and_b32_mem, G_ATOM, T_EXACT, "m6 i5")                 \
  X(atom_global_or_b32, G_ATOM, T_EXACT, "m7 i5")                      \
  X(atom_global_or_b32_mem, G_ATOM, T_EXACT, "m7 i5")                  \
  X(atom_global_xor_b32, G_ATOM, T_EXACT, "m8 i5")                     \
  X(atom_global_xor_b32_mem, G_ATOM, T_EXACT, "m8 i5")                 \
  X(atom_global_inc_u32, G_ATOM, T_EXACT, "m9 s3")                     \
  X(atom_global_inc_u32_mem, G_ATOM, T_EXACT, "m9 s3")                 \
  X(atom_global_dec_u32, G_ATOM, T_EXACT, "m10 s3")                    \
  X(atom_global_dec_u32_mem, G_ATOM, T_EXACT, "m10 s3")                \
  X(atom_global_add_f32, G_ATOM, T_EXACT, "m11 f0")                    \
  X(atom_global_add_f32_mem, G_ATOM, T_EXACT, "m11 f0")                \
  X(red_global_add_u32_mem, G_ATOM, T_EXACT, "m12 i6")                 \
  X(atom_global_max_s32, G_ATOM, T_EXACT, "m13 i6")                    \
  X(atom_global_max_s32_mem, G_ATOM, T_EXACT, "m13 i6")                \
  X(atom_add_u32_generic, G_ATOM, T_EXACT, "m14 i6")                   \
  X(atom_add_u32_generic_mem, G_ATOM, T_EXACT, "m14 i6")               \
  X(atom_global_add_u64, G_ATOM, T_EXACT, "m16 l0")                    \
  X(atom_global_add_u64_mem, G_ATOM, T_EXACT, "m16 l0")                \
  X(atom_global_exch_b64, G_ATOM, T_EXACT, "m18 l1")                   \
  X(atom_global_exch_b64_mem, G_ATOM, T_EXACT, "m18 l1")               \
  X(atom_global_cas_b64_hit, G_ATOM, T_EXACT, "m20 l1")                \
  X(atom_global_cas_b64_hit_mem, G_ATOM, T_EXACT, "m20 l1")            \
  X(atom_global_add_f64, G_ATOM, T_EXACT, "m22 d0")                    \
  X(atom_global_add_f64_mem, G_ATOM, T_EXACT, "m22 d0")                \
  X(atom_global_min_s64, G_ATOM, T_EXACT, "m24 l1")                    \
  X(atom_global_min_s64_mem, G_ATOM, T_EXACT, "m24 l1")                \
  X(atom_global_max_u64, G_ATOM, T_EXACT, "m26 l1")                    \
  X(atom_global_max_u64_mem, G_ATOM, T_EXACT, "m26 l1")                \
  X(atom_global_and_b64, G_ATOM, T_EXACT, "m28 l1")                    \
  X(atom_global_and_b64_mem, G_ATOM, T_EXACT, "m28 l1")                \
  X(red_global_add_u64_mem, G_ATOM, T_EXACT, "m30 l2")                 \
  X(atom_global_add_u32_counter, G_ATOM, T_CHAIN32, "v3")              \
  X(atom_global_add_u64_counter, G_ATOM, T_CHAIN64, "")                \
  X(ld_global_s8, G_MEM, T_EXACT, "i7")                                \
  X(ld_global_u8, G_MEM, T_EXACT, "i7")                                \
  X(ld_global_s16, G_MEM, T_EXACT, "i7")                               \
  X(ld_global_u16, G_MEM, T_EXACT, "i7")                               \
  X(ld_global_u32, G_MEM, T_EXACT, "i7")                               \
  X(ld_global_nc_u32, G_MEM, T_EXACT, "")                              \
  X(ld_global_v2_u32_x, G_MEM, T_EXACT, "")                            \
  X(ld_global_v2_u32_y, G_MEM, T_EXACT, "")                            \
  X(ld_global_v4_u32_x, G_MEM, T_EXACT, "")                            \
  X(ld_global_v4_u32_w, G_MEM, T_EXACT, "")                            \
  X(ld_global_u64, G_MEM, T_EXACT, "")                                 \
  X(st_global_u8, G_MEM, T_EXACT, "m32 i0 i7")                         \
  X(st_global_u16, G_MEM, T_EXACT, "m33 i1 i7")                        \
  X(st_global_v2_u32, G_MEM, T_EXACT, "m34 i2 i3")                     \
  X(st_global_v4_u32_x, G_MEM, T_EXACT, "i4")                          \
  X(st_global_v4_u32_w, G_MEM, T_EXACT, "i7")                          \
  X(st_ld_shared_u8, G_SHARED, T_EXACT, "i0 i1 i7")                    \
  X(st_ld_shared_v2_u32, G_SHARED, T_EXACT, "i2 i3")                   \
  X(atom_shared_add_u32, G_SHARED, T_EXACT, "i0 i1")                   \
  X(atom_shared_add_u32_mem, G_SHARED, T_EXACT, "i0 i1")               \
  X(atom_shared_cas_b32, G_SHARED, T_EXACT, "i2 i3")                   \
  X(atom_shared_cas_b32_mem, G_SHARED, T_EXACT, "i2 i3")               \
  X(atom_shared_exch_b32, G_SHARED, T_EXACT, "i4 i5")                  \
  X(atom_shared_exch_b32_mem, G_SHARED, T_EXACT, "i4 i5")              \
  X(atom_shared_inc_u32, G_SHARED, T_EXACT, "s0 s3")                   \
  X(atom_shared_inc_u32_mem, G_SHARED, T_EXACT, "s0 s3")               \
  X(atom_shared_dec_u32, G_SHARED, T_EXACT, "s1 s3")                   \
  X(atom_shared_dec_u32_mem, G_SHARED, T_EXACT, "s1 s3")               \
  X(atom_shared_min_s32, G_SHARED, T_EXACT, "i6 i7")                   \
  X(atom_shared_min_s32_mem, G_SHARED, T_EXACT, "i6 i7")               \
  X(atom_shared_add_f32, G_SHARED, T_EXACT, "f1 f0")                   \
  X(atom_shared_add_f32_mem, G_SHARED, T_EXACT, "f1 f0")               \
  X(atom_shared_add_f64, G_SHARED, T_EXACT, "d1 d0")                   \
  X(atom_shared_add_f64_mem, G_SHARED, T_EXACT, "d1 d0")               \
  X(atom_add_u32_generic_shared, G_SHARED, T_EXACT, "i0 i6")           \
  X(atom_add_u32_generic_shared_mem, G_SHARED, T_EXACT, "i0 i6")       \
  X(cp_async_ca_4_src_size_2, G_SHARED, T_EXACT, "i0")                 \
  X(isspacep_shared_of_shared, G_SHARED, T_EXACT, "")                  \
  X(isspacep_global_of_shared, G_SHARED, T_EXACT, "")                  \
  X(isspacep_global_of_global, G_SHARED, T_EXACT, "")                  \
  X(isspacep_shared_of_global, G_SHARED, T_EXACT, "")                  \
  X(cvta_to_shared_round_trip, G_SHARED, T_EXACT, "")                  \
  X(mov_laneid, G_SREG, T_EXACT, "")                                   \
  X(mov_lanemask_eq, G_SREG, T_EXACT, "")                              \
  X(mov_lanemask_lt, G_SREG, T_EXACT, "")                              \
  X(mov_lanemask_le, G_SREG, T_EXACT, "")                              \
  X(mov_lanemask_gt, G_SREG, T_EXACT, "")                              \
  X(mov_lanemask_ge, G_SREG, T_EXACT, "")                              \
  X(mov_tid_x, G_SREG, T_EXACT, "")                                    \
  X(mov_ntid_x, G_SREG, T_EXACT, "")                                   \
  X(mov_ctaid_x, G_SREG, T_EXACT, "")                                  \
  X(mov_nctaid_x, G_SREG, T_EXACT, "")

enum Result {
#define X(id, group, tol, ops) R_##id,
  RESULTS(X)
#undef X
      kResults
};

struct ResultInfo {
  const char* id;
  Group group;
  Tol tol;
  const char* operands;
};
constexpr ResultInfo kInfo[kResults] = {
#define X(id, group, tol, ops) {#id, group, tol, ops},
    RESULTS(X)
#undef X
};

// ---------------------------------------------------------------------------
// The kernel. Every result is guarded by its enable byte (all on for the
// GPU), so that an instruction the interpreter cannot run can be singled out.

__device__ __forceinline__ u64 bits(u32 v) { return v; }
__device__ __forceinline__ u64 bits(u16 v) { return v; }
__device__ __forceinline__ u64 bits(u64 v) { return v; }
__device__ __forceinline__ u64 bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ u64 bits(double v) { return static_cast<u64>(__double_as_longlong(v)); }

#define ON(id) if (en[R_##id])
#define PUT(id, v) o[R_##id] = static_cast<u64>(v)
#define G1(id, text, dc, DT, c1, a)                            \
  ON(id) {                                                     \
    DT d_;                                                     \
    asm(text " %0, %1;" : "=" dc(d_) : c1(a));                 \
    PUT(id, bits(d_));                                         \
  }
#define G2(id, text, dc, DT, c1, a, c2, b)                     \
  ON(id) {                                                     \
    DT d_;                                                     \
    asm(text " %0, %1, %2;" : "=" dc(d_) : c1(a), c2(b));      \
    PUT(id, bits(d_));                                         \
  }
#define G3(id, text, dc, DT, c1, a, c2, b, c3, c)                   \
  ON(id) {                                                          \
    DT d_;                                                          \
    asm(text " %0, %1, %2, %3;" : "=" dc(d_) : c1(a), c2(b), c3(c)); \
    PUT(id, bits(d_));                                              \
  }
#define G4(id, text, dc, DT, c1, a, c2, b, c3, c, c4, e)                          \
  ON(id) {                                                                        \
    DT d_;                                                                        \
    asm(text " %0, %1, %2, %3, %4;" : "=" dc(d_) : c1(a), c2(b), c3(c), c4(e));   \
    PUT(id, bits(d_));                                                            \
  }
#define R1(id, text, a) G1(id, text, "r", u32, "r", a)
#define R2(id, text, a, b) G2(id, text, "r", u32, "r", a, "r", b)
#define R3(id, text, a, b, c) G3(id, text, "r", u32, "r", a, "r", b, "r", c)
#define L1(id, text, a) G1(id, text, "l", u64, "l", a)
#define L2(id, text, a, b) G2(id, text, "l", u64, "l", a, "l", b)
#define L3(id, text, a, b, c) G3(id, text, "l", u64, "l", a, "l", b, "l", c)
#define F1(id, text, a) G1(id, text, "f", float, "f", a)
#define F2(id, text, a, b) G2(id, text, "f", float, "f", a, "f", b)
#define F3(id, text, a, b, c) G3(id, text, "f", float, "f", a, "f", b, "f", c)
#define D1(id, text, a) G1(id, text, "d", double, "d", a)
#define D2(id, text, a, b) G2(id, text, "d", double, "d", a, "d", b)
#define D3(id, text, a, b, c) G3(id, text, "d", double, "d", a, "d", b, "d", c)
#define H1(id, text, a) G1(id, text, "h", u16, "h", a)
#define H2(id, text, a, b) G2(id, text, "h", u16, "h", a, "h", b)
#define H3(id, text, a, b, c) G3(id, text, "h", u16, "h", a, "h", b, "h", c)
// A predicate as 0/1, through selp.
#define P2(id, text, c, a, b)                                                                 \
  ON(id) {                                                                                    \
    u32 d_;                                                                                   \
    asm("{\n\t.reg .pred p_;\n\t" text " p_, %1, %2;\n\tselp.u32 %0, 1, 0, p_;\n\t}" : "=r"(d_) \
        : c(a), c(b));                                                                        \
    PUT(id, d_);                                                                              \
  }
#define LOP3(id, lut)                                                                     \
  ON(id) {                                                                                \
    u32 d_;                                                                               \
    asm("lop3.b32 %0, %1, %2, %3, " #lut ";" : "=r"(d_) : "r"(i0), "r"(i1), "r"(i2));      \
    PUT(id, d_);                                                                          \
  }
// d and the predicate p of one shfl.sync: d | p << 32.
#define SHFL(id, mode, v, b, c, mask)                                                               \
  do {                                                                                              \
    u32 d_, p_;                                                                                     \
    asm volatile("{\n\t.reg .pred p;\n\tshfl.sync." mode ".b32 %0|p, %2, %3, %4, %5;\n\t"          \
                 "selp.u32 %1, 1, 0, p;\n\t}"                                                       \
                 : "=r"(d_), "=r"(p_) : "r"(v), "r"(b), "r"(c), "r"(mask));                          \
    PUT(id, static_cast<u64>(d_) | static_cast<u64>(p_) << 32);                                     \
  } while (0)
#define ATOM32(id, text, k, value)                                                             \
  ON(id) {                                                                                     \
    u32 d_;                                                                                    \
    asm volatile(text " %0, [%1], %2;" : "=r"(d_) : "l"(sp + (k)), "r"(value) : "memory");    \
    PUT(id, d_);                                                                               \
    PUT(id##_mem, sp[k]);                                                                      \
  }
#define ATOM64(id, text, k, value)                                                             \
  ON(id) {                                                                                     \
    u64 d_;                                                                                    \
    asm volatile(text " %0, [%1], %2;" : "=l"(d_) : "l"(qp + (k)), "l"(value) : "memory");    \
    PUT(id, d_);                                                                               \
    PUT(id##_mem, qp[k]);                                                                      \
  }

}  // namespace

extern "C" __global__ void __launch_bounds__(kThreadsPerBlock)
    ptx_semantics(const u32* __restrict__ in, const unsigned char* __restrict__ en, u64* __restrict__ out,
                  u32* counters, u32* scratch) {
  const u32 t = blockIdx.x * blockDim.x + threadIdx.x;
  const u32 lane = threadIdx.x & 31;
  const u32* w = in + static_cast<std::size_t>(t) * kIn;
  u64* o = out + static_cast<std::size_t>(t) * kResults;
  u32* sp = scratch + static_cast<std::size_t>(t) * kScratch;
  u64* qp = reinterpret_cast<u64*>(sp + 16);

  const u32 i0 = w[kI + 0], i1 = w[kI + 1], i2 = w[kI + 2], i3 = w[kI + 3];
  const u32 i4 = w[kI + 4], i5 = w[kI + 5], i6 = w[kI + 6], i7 = w[kI + 7];
  const u32 s0 = w[kS + 0], s1 = w[kS + 1], s2 = w[kS + 2], s3 = w[kS + 3];
  const float f0 = __uint_as_float(w[kF + 0]), f1 = __uint_as_float(w[kF + 1]);
  const float f2 = __uint_as_float(w[kF + 2]), f3 = __uint_as_float(w[kF + 3]);
  const float f4 = __uint_as_float(w[kF + 4]), f5 = __uint_as_float(w[kF + 5]);
  const double d0 = __hiloint2double(w[kD + 1], w[kD + 0]), d1 = __hiloint2double(w[kD + 3], w[kD + 2]);
  const double d2 = __hiloint2double(w[kD + 5], w[kD + 4]), d3 = __hiloint2double(w[kD + 7], w[kD + 6]);
  const u64 l0 = w[kL + 0] | static_cast<u64>(w[kL + 1]) << 32;
  const u64 l1 = w[kL + 2] | static_cast<u64>(w[kL + 3]) << 32;
  const u64 l2 = w[kL + 4] | static_cast<u64>(w[kL + 5]) << 32;
  const float x0 = __uint_as_float(w[kX + 0]), x1 = __uint_as_float(w[kX + 1]);
  const float x2 = __uint_as_float(w[kX + 2]), x3 = __uint_as_float(w[kX + 3]);
  const u32 h0 = w[kH + 0], h1 = w[kH + 1], h2 = w[kH + 2];
  const u16 h0l = static_cast<u16>(h0), h1l = static_cast<u16>(h1), h2l = static_cast<u16>(h2);
  const u16 h0h = static_cast<u16>(h0 >> 16), h1h = static_cast<u16>(h1 >> 16), h2h = static_cast<u16>(h2 >> 16);
  const u32 u0 = w[kU + 0], u1 = w[kU + 1], u2 = w[kU + 2], u3 = w[kU + 3];
  const u32 v0 = w[kV + 0], v1 = w[kV + 1], v2 = w[kV + 2], v3 = w[kV + 3];

  // int32: divisors are never 0, and INT_MIN / -1 is avoided.
  u32 bs = i1 == 0 ? 1u : i1;
  if (i0 == 0x80000000u && bs == 0xffffffffu) bs = 1u;
  const u32 bu = i1 == 0 ? 1u : i1;
  R2(add_s32, "add.s32", i0, i1);
  R2(sub_s32, "sub.s32", i0, i1);
  R2(add_sat_s32, "add.sat.s32", i0, i1);
  R2(sub_sat_s32, "sub.sat.s32", i0, i1);
  R2(mul_lo_s32, "mul.lo.s32", i0, i1);
  R2(mul_hi_s32, "mul.hi.s32", i0, i1);
  R2(mul_hi_u32, "mul.hi.u32", i0, i1);
  G2(mul_wide_s32, "mul.wide.s32", "l", u64, "r", i0, "r", i1);
  G2(mul_wide_u32, "mul.wide.u32", "l", u64, "r", i0, "r", i1);
  R3(mad_lo_s32, "mad.lo.s32", i0, i1, i2);
  R3(mad_hi_s32, "mad.hi.s32", i0, i1, i2);
  R3(mad_hi_u32, "mad.hi.u32", i0, i1, i2);
  G3(mad_wide_s32, "mad.wide.s32", "l", u64, "r", i0, "r", i1, "l", l0);
  G3(mad_wide_u32, "mad.wide.u32", "l", u64, "r", i0, "r", i1, "l", l0);
  R2(div_s32, "div.s32", i0, bs);
  R2(div_u32, "div.u32", i0, bu);
  R2(rem_s32, "rem.s32", i0, bs);
  R2(rem_u32, "rem.u32", i0, bu);
  R1(abs_s32, "abs.s32", i0);
  R1(neg_s32, "neg.s32", i0);
  ON(add_s32_imm_m7) {
    u32 d;
    asm("add.s32 %0, %1, -7;" : "=r"(d) : "r"(i0));
    PUT(add_s32_imm_m7, d);
  }
  ON(mul_lo_u32_imm_0x9e3779b9) {
    u32 d;
    asm("mul.lo.u32 %0, %1, 0x9E3779B9;" : "=r"(d) : "r"(i0));
    PUT(mul_lo_u32_imm_0x9e3779b9, d);
  }

  // int64
  u64 ls = l1 == 0 ? 1ull : l1;
  if (l0 == 0x8000000000000000ull && ls == ~0ull) ls = 1ull;
  const u64 lu = l1 == 0 ? 1ull : l1;
  L2(add_s64, "add.s64", l0, l1);
  L2(sub_s64, "sub.s64", l0, l1);
  L2(mul_lo_s64, "mul.lo.s64", l0, l1);
  L2(mul_hi_s64, "mul.hi.s64", l0, l1);
  L2(mul_hi_u64, "mul.hi.u64", l0, l1);
  L3(mad_lo_s64, "mad.lo.s64", l0, l1, l2);
  L3(mad_hi_u64, "mad.hi.u64", l0, l1, l2);
  L2(div_s64, "div.s64", l0, ls);
  L2(div_u64, "div.u64", l0, lu);
  L2(rem_s64, "rem.s64", l0, ls);
  L2(rem_u64, "rem.u64", l0, lu);
  L1(abs_s64, "abs.s64", l0);
  L1(neg_s64, "neg.s64", l0);

  // bits and shifts
  R2(and_b32, "and.b32", i0, i1);
  R2(or_b32, "or.b32", i0, i1);
  R2(xor_b32, "xor.b32", i0, i1);
  R1(not_b32, "not.b32", i0);
  R1(cnot_b32, "cnot.b32", i0);
  L2(xor_b64, "xor.b64", l0, l1);
  LOP3(lop3_b32_0x96, 0x96);
  LOP3(lop3_b32_0xe8, 0xe8);
  LOP3(lop3_b32_0xca, 0xca);
  LOP3(lop3_b32_0x1e, 0x1e);
  LOP3(lop3_b32_0x80, 0x80);
  LOP3(lop3_b32_0xfe, 0xfe);
  LOP3(lop3_b32_0x3c, 0x3c);
  LOP3(lop3_b32_0x01, 0x01);
  R1(popc_b32, "popc.b32", i0);
  G1(popc_b64, "popc.b64", "r", u32, "l", l0);
  R1(clz_b32, "clz.b32", i0);
  G1(clz_b64, "clz.b64", "r", u32, "l", l0);
  R1(brev_b32, "brev.b32", i0);
  L1(brev_b64, "brev.b64", l0);
  R1(bfind_u32, "bfind.u32", i0);
  R1(bfind_s32, "bfind.s32", i0);
  R1(bfind_shiftamt_u32, "bfind.shiftamt.u32", i0);
  R1(bfind_shiftamt_s32, "bfind.shiftamt.s32", i0);
  G1(bfind_u64, "bfind.u64", "r", u32, "l", l0);
  G1(bfind_s64, "bfind.s64", "r", u32, "l", l0);
  R3(bfe_u32, "bfe.u32", i0, s0, s1);
  R3(bfe_s32, "bfe.s32", i0, s0, s1);
  // PTX restricts bfe/bfi's position and length to 0..255 (b & 0xff, c & 0xff); the .b32 forms
  // take any value, as the H200 masks it, but for .b64 the H200 reads all 32 bits (a position of
  // 0x80000000 is past the msb there, not 0): the .b64 forms get values in the PTX range.
  const u32 pos8 = s0 & 0xffu, len8 = s1 & 0xffu;
  G3(bfe_u64, "bfe.u64", "l", u64, "l", l0, "r", pos8, "r", len8);
  G3(bfe_s64, "bfe.s64", "l", u64, "l", l0, "r", pos8, "r", len8);
  G4(bfi_b32, "bfi.b32", "r", u32, "r", i0, "r", i1, "r", s0, "r", s1);
  G4(bfi_b64, "bfi.b64", "l", u64, "l", l0, "l", l1, "r", pos8, "r", len8);
  R3(prmt_b32, "prmt.b32", i0, i1, i3);
  R3(prmt_b32_f4e, "prmt.b32.f4e", i0, i1, i3);
  R3(prmt_b32_b4e, "prmt.b32.b4e", i0, i1, i3);
  R3(prmt_b32_rc8, "prmt.b32.rc8", i0, i1, i3);
  R3(prmt_b32_ecl, "prmt.b32.ecl", i0, i1, i3);
  R3(prmt_b32_ecr, "prmt.b32.ecr", i0, i1, i3);
  R3(prmt_b32_rc16, "prmt.b32.rc16", i0, i1, i3);
  R2(shl_b32, "shl.b32", i0, s0);
  R2(shr_u32, "shr.u32", i0, s0);
  R2(shr_s32, "shr.s32", i0, s0);
  G2(shl_b64, "shl.b64", "l", u64, "l", l0, "r", s2);
  G2(shr_u64, "shr.u64", "l", u64, "l", l0, "r", s2);
  G2(shr_s64, "shr.s64", "l", u64, "l", l0, "r", s2);
  G2(shl_b16, "shl.b16", "h", u16, "h", h0l, "r", s0);
  G2(shr_s16, "shr.s16", "h", u16, "h", h0l, "r", s0);
  ON(shl_b32_imm_33) {
    u32 d;
    asm("shl.b32 %0, %1, 33;" : "=r"(d) : "r"(i0));
    PUT(shl_b32_imm_33, d);
  }
  R3(shf_l_wrap_b32, "shf.l.wrap.b32", i0, i1, s0);
  R3(shf_l_clamp_b32, "shf.l.clamp.b32", i0, i1, s0);
  R3(shf_r_wrap_b32, "shf.r.wrap.b32", i0, i1, s0);
  R3(shf_r_clamp_b32, "shf.r.clamp.b32", i0, i1, s0);

  // min/max
  R2(min_s32, "min.s32", i0, i1);
  R2(max_s32, "max.s32", i0, i1);
  R2(min_u32, "min.u32", i0, i1);
  R2(max_u32, "max.u32", i0, i1);
  L2(min_s64, "min.s64", l0, l1);
  L2(max_u64, "max.u64", l0, l1);
  F2(min_f32, "min.f32", f0, f1);
  F2(max_f32, "max.f32", f0, f1);
  F2(min_ftz_f32, "min.ftz.f32", f0, f1);
  F2(min_NaN_f32, "min.NaN.f32", f0, f1);
  F2(max_NaN_f32, "max.NaN.f32", f0, f1);
  D2(min_f64, "min.f64", d0, d1);
  D2(max_f64, "max.f64", d0, d1);

  // setp, selp
  P2(setp_eq_s32, "setp.eq.s32", "r", i0, i1);
  P2(setp_ne_s32, "setp.ne.s32", "r", i0, i1);
  P2(setp_lt_s32, "setp.lt.s32", "r", i0, i1);
  P2(setp_le_s32, "setp.le.s32", "r", i0, i1);
  P2(setp_gt_s32, "setp.gt.s32", "r", i0, i1);
  P2(setp_ge_s32, "setp.ge.s32", "r", i0, i1);
  P2(setp_lt_u32, "setp.lt.u32", "r", i0, i1);
  P2(setp_lo_u32, "setp.lo.u32", "r", i0, i1);
  P2(setp_ls_u32, "setp.ls.u32", "r", i0, i1);
  P2(setp_hi_u32, "setp.hi.u32", "r", i0, i1);
  P2(setp_hs_u32, "setp.hs.u32", "r", i0, i1);
  P2(setp_lt_s64, "setp.lt.s64", "l", l0, l1);
  P2(setp_gt_u64, "setp.gt.u64", "l", l0, l1);
  P2(setp_eq_f32, "setp.eq.f32", "f", f0, f1);
  P2(setp_ne_f32, "setp.ne.f32", "f", f0, f1);
  P2(setp_lt_f32, "setp.lt.f32", "f", f0, f1);
  P2(setp_le_f32, "setp.le.f32", "f", f0, f1);
  P2(setp_gt_f32, "setp.gt.f32", "f", f0, f1);
  P2(setp_ge_f32, "setp.ge.f32", "f", f0, f1);
  P2(setp_equ_f32, "setp.equ.f32", "f", f0, f1);
  P2(setp_neu_f32, "setp.neu.f32", "f", f0, f1);
  P2(setp_ltu_f32, "setp.ltu.f32", "f", f0, f1);
  P2(setp_leu_f32, "setp.leu.f32", "f", f0, f1);
  P2(setp_gtu_f32, "setp.gtu.f32", "f", f0, f1);
  P2(setp_geu_f32, "setp.geu.f32", "f", f0, f1);
  P2(setp_num_f32, "setp.num.f32", "f", f0, f1);
  P2(setp_nan_f32, "setp.nan.f32", "f", f0, f1);
  P2(setp_lt_ftz_f32, "setp.lt.ftz.f32", "f", f0, f1);
  P2(setp_eq_f64, "setp.eq.f64", "d", d0, d1);
  P2(setp_lt_f64, "setp.lt.f64", "d", d0, d1);
  P2(setp_geu_f64, "setp.geu.f64", "d", d0, d1);
  P2(setp_nan_f64, "setp.nan.f64", "d", d0, d1);
  P2(setp_lt_f16, "setp.lt.f16", "h", h0l, h1l);
  P2(setp_gtu_bf16, "setp.gtu.bf16", "h", h0l, h1l);
  const u32 c2 = i2 & 1u;
  ON(setp_lt_and_s32_pq) {  // p | q << 1, through guarded instructions
    u32 d;
    asm("{\n\t.reg .pred p_, q_, c_;\n\tsetp.ne.u32 c_, %3, 0;\n\tsetp.lt.and.s32 p_|q_, %1, %2, c_;\n\t"
        "selp.u32 %0, 1, 0, p_;\n\t@q_ add.u32 %0, %0, 2;\n\t}"
        : "=r"(d) : "r"(i0), "r"(i1), "r"(c2));
    PUT(setp_lt_and_s32_pq, d);
  }
  ON(setp_ge_or_f32_pq) {
    u32 d;
    asm("{\n\t.reg .pred p_, q_, c_;\n\tsetp.ne.u32 c_, %3, 0;\n\tsetp.ge.or.f32 p_|q_, %1, %2, c_;\n\t"
        "selp.u32 %0, 1, 0, p_;\n\t@q_ add.u32 %0, %0, 2;\n\t}"
        : "=r"(d) : "f"(f0), "f"(f1), "r"(c2));
    PUT(setp_ge_or_f32_pq, d);
  }
  ON(setp_neu_xor_f32_not_c_pq) {
    u32 d;
    asm("{\n\t.reg .pred p_, q_, c_;\n\tsetp.ne.u32 c_, %3, 0;\n\tsetp.neu.xor.f32 p_|q_, %1, %2, !c_;\n\t"
        "selp.u32 %0, 1, 0, p_;\n\t@!q_ add.u32 %0, %0, 4;\n\t}"
        : "=r"(d) : "f"(f0), "f"(f1), "r"(c2));
    PUT(setp_neu_xor_f32_not_c_pq, d);
  }
  ON(selp_b32) {
    u32 d;
    asm("{\n\t.reg .pred c_;\n\tsetp.ne.u32 c_, %3, 0;\n\tselp.b32 %0, %1, %2, c_;\n\t}"
        : "=r"(d) : "r"(i0), "r"(i1), "r"(c2));
    PUT(selp_b32, d);
  }
  ON(selp_f32) {
    float d;
    asm("{\n\t.reg .pred c_;\n\tsetp.ne.u32 c_, %3, 0;\n\tselp.f32 %0, %1, %2, c_;\n\t}"
        : "=f"(d) : "f"(f0), "f"(f1), "r"(c2));
    PUT(selp_f32, bits(d));
  }
  ON(selp_b64) {
    u64 d;
    asm("{\n\t.reg .pred c_;\n\tsetp.ne.u32 c_, %3, 0;\n\tselp.b64 %0, %1, %2, c_;\n\t}"
        : "=l"(d) : "l"(l0), "l"(l1), "r"(c2));
    PUT(selp_b64, d);
  }

  // cvt between floats and integers
  G1(cvt_rni_s32_f32, "cvt.rni.s32.f32", "r", u32, "f", f3);
  G1(cvt_rzi_s32_f32, "cvt.rzi.s32.f32", "r", u32, "f", f3);
  G1(cvt_rmi_s32_f32, "cvt.rmi.s32.f32", "r", u32, "f", f3);
  G1(cvt_rpi_s32_f32, "cvt.rpi.s32.f32", "r", u32, "f", f3);
  G1(cvt_rni_u32_f32, "cvt.rni.u32.f32", "r", u32, "f", f3);
  G1(cvt_rzi_u32_f32, "cvt.rzi.u32.f32", "r", u32, "f", f3);
  G1(cvt_rmi_u32_f32, "cvt.rmi.u32.f32", "r", u32, "f", f3);
  G1(cvt_rpi_u32_f32, "cvt.rpi.u32.f32", "r", u32, "f", f3);
  G1(cvt_rzi_sat_s32_f32, "cvt.rzi.sat.s32.f32", "r", u32, "f", f3);
  G1(cvt_rni_s64_f32, "cvt.rni.s64.f32", "l", u64, "f", f3);
  G1(cvt_rzi_u64_f32, "cvt.rzi.u64.f32", "l", u64, "f", f3);
  G1(cvt_rmi_s64_f32, "cvt.rmi.s64.f32", "l", u64, "f", f3);
  G1(cvt_rni_s16_f32, "cvt.rni.s16.f32", "h", u16, "f", f3);
  G1(cvt_rzi_u16_f32, "cvt.rzi.u16.f32", "h", u16, "f", f3);
  G1(cvt_rni_s8_f32, "cvt.rni.s8.f32", "h", u16, "f", f3);
  G1(cvt_rzi_u8_f32, "cvt.rzi.u8.f32", "h", u16, "f", f3);
  G1(cvt_rzi_s32_f64, "cvt.rzi.s32.f64", "r", u32, "d", d3);
  G1(cvt_rni_s32_f64, "cvt.rni.s32.f64", "r", u32, "d", d3);
  G1(cvt_rpi_u32_f64, "cvt.rpi.u32.f64", "r", u32, "d", d3);
  G1(cvt_rmi_s64_f64, "cvt.rmi.s64.f64", "l", u64, "d", d3);
  G1(cvt_rzi_u64_f64, "cvt.rzi.u64.f64", "l", u64, "d", d3);
  G1(cvt_rni_u64_f64, "cvt.rni.u64.f64", "l", u64, "d", d3);
  G1(cvt_rni_s32_f16, "cvt.rni.s32.f16", "r", u32, "h", h0l);
  G1(cvt_rn_f32_s32, "cvt.rn.f32.s32", "f", float, "r", i0);
  G1(cvt_rz_f32_s32, "cvt.rz.f32.s32", "f", float, "r", i0);
  G1(cvt_rm_f32_s32, "cvt.rm.f32.s32", "f", float, "r", i0);
  G1(cvt_rp_f32_s32, "cvt.rp.f32.s32", "f", float, "r", i0);
  G1(cvt_rn_f32_u32, "cvt.rn.f32.u32", "f", float, "r", i0);
  G1(cvt_rz_f32_u32, "cvt.rz.f32.u32", "f", float, "r", i0);
  G1(cvt_rp_f32_u32, "cvt.rp.f32.u32", "f", float, "r", i0);
  G1(cvt_rn_f32_s64, "cvt.rn.f32.s64", "f", float, "l", l0);
  G1(cvt_rz_f32_s64, "cvt.rz.f32.s64", "f", float, "l", l0);
  G1(cvt_rn_f32_u64, "cvt.rn.f32.u64", "f", float, "l", l0);
  G1(cvt_rm_f32_u64, "cvt.rm.f32.u64", "f", float, "l", l0);
  G1(cvt_rn_f64_s64, "cvt.rn.f64.s64", "d", double, "l", l0);
  G1(cvt_rz_f64_u64, "cvt.rz.f64.u64", "d", double, "l", l0);
  G1(cvt_rp_f64_s64, "cvt.rp.f64.s64", "d", double, "l", l0);
  G1(cvt_rn_f64_s32, "cvt.rn.f64.s32", "d", double, "r", i0);
  G1(cvt_rn_f64_u32, "cvt.rn.f64.u32", "d", double, "r", i0);
  G1(cvt_rn_f16_s32, "cvt.rn.f16.s32", "h", u16, "r", i0);
  F1(cvt_rni_f32_f32, "cvt.rni.f32.f32", f3);
  F1(cvt_rzi_f32_f32, "cvt.rzi.f32.f32", f3);
  F1(cvt_rmi_f32_f32, "cvt.rmi.f32.f32", f3);
  F1(cvt_rpi_f32_f32, "cvt.rpi.f32.f32", f3);
  D1(cvt_rni_f64_f64, "cvt.rni.f64.f64", d3);
  D1(cvt_rzi_f64_f64, "cvt.rzi.f64.f64", d3);
  R1(cvt_s32_s8, "cvt.s32.s8", i0);
  R1(cvt_s32_s16, "cvt.s32.s16", i0);
  R1(cvt_u32_u8, "cvt.u32.u8", i0);
  R1(cvt_u32_u16, "cvt.u32.u16", i0);
  G1(cvt_s64_s32, "cvt.s64.s32", "l", u64, "r", i0);
  G1(cvt_u64_u32, "cvt.u64.u32", "l", u64, "r", i0);
  G1(cvt_u32_u64, "cvt.u32.u64", "r", u32, "l", l0);
  G1(cvt_s32_s64, "cvt.s32.s64", "r", u32, "l", l0);
  R1(cvt_s8_s32, "cvt.s8.s32", i0);
  R1(cvt_u16_u32, "cvt.u16.u32", i0);
  R1(cvt_sat_s8_s32, "cvt.sat.s8.s32", i0);
  R1(cvt_sat_u8_s32, "cvt.sat.u8.s32", i0);
  R1(cvt_sat_s16_s32, "cvt.sat.s16.s32", i0);
  R1(cvt_sat_u16_s32, "cvt.sat.u16.s32", i0);
  R1(cvt_sat_u32_s32, "cvt.sat.u32.s32", i0);
  R1(cvt_sat_s32_u32, "cvt.sat.s32.u32", i0);
  G1(cvt_sat_s32_s64, "cvt.sat.s32.s64", "r", u32, "l", l0);
  G1(cvt_sat_u32_s64, "cvt.sat.u32.s64", "r", u32, "l", l0);
  L1(cvt_sat_u64_s64, "cvt.sat.u64.s64", l0);
  L1(cvt_sat_s64_u64, "cvt.sat.s64.u64", l0);

  // cvt between floats
  G1(cvt_rn_f16_f32, "cvt.rn.f16.f32", "h", u16, "f", f4);
  G1(cvt_rz_f16_f32, "cvt.rz.f16.f32", "h", u16, "f", f4);
  G1(cvt_rm_f16_f32, "cvt.rm.f16.f32", "h", u16, "f", f4);
  G1(cvt_rp_f16_f32, "cvt.rp.f16.f32", "h", u16, "f", f4);
  G1(cvt_rn_relu_f16_f32, "cvt.rn.relu.f16.f32", "h", u16, "f", f4);
  G1(cvt_rn_bf16_f32, "cvt.rn.bf16.f32", "h", u16, "f", f4);
  G1(cvt_rz_bf16_f32, "cvt.rz.bf16.f32", "h", u16, "f", f4);
  G1(cvt_rn_relu_bf16_f32, "cvt.rn.relu.bf16.f32", "h", u16, "f", f4);
  G2(cvt_rn_f16x2_f32, "cvt.rn.f16x2.f32", "r", u32, "f", f4, "f", f5);
  G2(cvt_rn_bf16x2_f32, "cvt.rn.bf16x2.f32", "r", u32, "f", f4, "f", f5);
  G2(cvt_rn_relu_f16x2_f32, "cvt.rn.relu.f16x2.f32", "r", u32, "f", f4, "f", f5);
  G2(cvt_rn_relu_bf16x2_f32, "cvt.rn.relu.bf16x2.f32", "r", u32, "f", f4, "f", f5);
  G1(cvt_f32_f16, "cvt.f32.f16", "f", float, "h", h0l);
  G1(cvt_f32_bf16, "cvt.f32.bf16", "f", float, "h", h0l);
  G1(cvt_f64_f16, "cvt.f64.f16", "d", double, "h", h0l);
  G1(cvt_rn_f16_f64, "cvt.rn.f16.f64", "h", u16, "d", d0);
  G1(cvt_rn_f32_f64, "cvt.rn.f32.f64", "f", float, "d", d0);
  G1(cvt_rz_f32_f64, "cvt.rz.f32.f64", "f", float, "d", d0);
  G1(cvt_rm_f32_f64, "cvt.rm.f32.f64", "f", float, "d", d0);
  G1(cvt_rp_f32_f64, "cvt.rp.f32.f64", "f", float, "d", d0);
  G1(cvt_rn_ftz_f32_f64, "cvt.rn.ftz.f32.f64", "f", float, "d", d0);
  G1(cvt_f64_f32, "cvt.f64.f32", "d", double, "f", f0);
  G1(cvt_ftz_f64_f32, "cvt.ftz.f64.f32", "d", double, "f", f0);
  F1(cvt_ftz_f32_f32, "cvt.ftz.f32.f32", f0);
  F1(cvt_sat_f32_f32, "cvt.sat.f32.f32", f0);
  G1(cvt_rna_tf32_f32, "cvt.rna.tf32.f32", "r", u32, "f", f4);
  G1(cvt_rn_tf32_f32, "cvt.rn.tf32.f32", "r", u32, "f", f4);
  G2(cvt_rn_satfinite_e4m3x2_f32, "cvt.rn.satfinite.e4m3x2.f32", "h", u16, "f", f4, "f", f5);
  G2(cvt_rn_satfinite_e5m2x2_f32, "cvt.rn.satfinite.e5m2x2.f32", "h", u16, "f", f4, "f", f5);
  G2(cvt_rn_satfinite_relu_e4m3x2_f32, "cvt.rn.satfinite.relu.e4m3x2.f32", "h", u16, "f", f4, "f", f5);
  G1(cvt_rn_f16x2_e4m3x2, "cvt.rn.f16x2.e4m3x2", "r", u32, "h", h0l);
  G1(cvt_rn_f16x2_e5m2x2, "cvt.rn.f16x2.e5m2x2", "r", u32, "h", h0l);
  G1(cvt_rn_satfinite_e4m3x2_f16x2, "cvt.rn.satfinite.e4m3x2.f16x2", "h", u16, "r", h1);

  // f32
  F2(add_rn_f32, "add.rn.f32", f0, f1);
  F2(sub_rn_f32, "sub.rn.f32", f0, f1);
  F2(mul_rn_f32, "mul.rn.f32", f0, f1);
  F3(fma_rn_f32, "fma.rn.f32", f0, f1, f2);
  F2(add_rz_f32, "add.rz.f32", f0, f1);
  F2(add_rm_f32, "add.rm.f32", f0, f1);
  F2(add_rp_f32, "add.rp.f32", f0, f1);
  F2(mul_rz_f32, "mul.rz.f32", f0, f1);
  F2(mul_rm_f32, "mul.rm.f32", f0, f1);
  F2(mul_rp_f32, "mul.rp.f32", f0, f1);
  F3(fma_rz_f32, "fma.rz.f32", f0, f1, f2);
  F3(fma_rm_f32, "fma.rm.f32", f0, f1, f2);
  F3(fma_rp_f32, "fma.rp.f32", f0, f1, f2);
  F2(add_rn_ftz_f32, "add.rn.ftz.f32", f0, f1);
  F2(mul_rn_ftz_f32, "mul.rn.ftz.f32", f0, f1);
  F3(fma_rn_ftz_f32, "fma.rn.ftz.f32", f0, f1, f2);
  F2(add_rn_sat_f32, "add.rn.sat.f32", f0, f1);
  F3(fma_rn_sat_f32, "fma.rn.sat.f32", f0, f1, f2);
  F1(neg_f32, "neg.f32", f0);
  F1(abs_f32, "abs.f32", f0);
  F2(copysign_f32, "copysign.f32", f0, f1);
  F1(rcp_rn_f32, "rcp.rn.f32", f0);
  F1(rcp_rz_f32, "rcp.rz.f32", f0);
  F1(rcp_rm_f32, "rcp.rm.f32", f0);
  F1(rcp_rp_f32, "rcp.rp.f32", f0);
  F1(rcp_rn_ftz_f32, "rcp.rn.ftz.f32", f0);
  F1(sqrt_rn_f32, "sqrt.rn.f32", f0);
  F1(sqrt_rz_f32, "sqrt.rz.f32", f0);
  F1(sqrt_rn_ftz_f32, "sqrt.rn.ftz.f32", f0);
  F2(div_rn_f32, "div.rn.f32", f0, f1);
  F2(div_rz_f32, "div.rz.f32", f0, f1);
  F2(div_rm_f32, "div.rm.f32", f0, f1);
  F2(div_rp_f32, "div.rp.f32", f0, f1);
  F2(div_rn_ftz_f32, "div.rn.ftz.f32", f0, f1);

  // f64
  D2(add_rn_f64, "add.rn.f64", d0, d1);
  D2(sub_rn_f64, "sub.rn.f64", d0, d1);
  D2(mul_rn_f64, "mul.rn.f64", d0, d1);
  D3(fma_rn_f64, "fma.rn.f64", d0, d1, d2);
  D2(add_rz_f64, "add.rz.f64", d0, d1);
  D2(add_rm_f64, "add.rm.f64", d0, d1);
  D2(add_rp_f64, "add.rp.f64", d0, d1);
  D2(mul_rz_f64, "mul.rz.f64", d0, d1);
  D2(mul_rp_f64, "mul.rp.f64", d0, d1);
  D3(fma_rz_f64, "fma.rz.f64", d0, d1, d2);
  D3(fma_rm_f64, "fma.rm.f64", d0, d1, d2);
  D3(fma_rp_f64, "fma.rp.f64", d0, d1, d2);
  D2(div_rn_f64, "div.rn.f64", d0, d1);
  D2(div_rz_f64, "div.rz.f64", d0, d1);
  D2(div_rm_f64, "div.rm.f64", d0, d1);
  D1(rcp_rn_f64, "rcp.rn.f64", d0);
  D1(rcp_rp_f64, "rcp.rp.f64", d0);
  D1(sqrt_rn_f64, "sqrt.rn.f64", d0);
  D1(sqrt_rm_f64, "sqrt.rm.f64", d0);
  D1(neg_f64, "neg.f64", d0);
  D1(abs_f64, "abs.f64", d0);

  // f16, bf16 (scalars: the low halves)
  H2(add_rn_f16, "add.rn.f16", h0l, h1l);
  H2(sub_rn_f16, "sub.rn.f16", h0l, h1l);
  H2(mul_rn_f16, "mul.rn.f16", h0l, h1l);
  H3(fma_rn_f16, "fma.rn.f16", h0l, h1l, h2l);
  H3(fma_rn_sat_f16, "fma.rn.sat.f16", h0l, h1l, h2l);
  H3(fma_rn_relu_f16, "fma.rn.relu.f16", h0l, h1l, h2l);
  R2(add_rn_f16x2, "add.rn.f16x2", h0, h1);
  R2(mul_rn_f16x2, "mul.rn.f16x2", h0, h1);
  R3(fma_rn_f16x2, "fma.rn.f16x2", h0, h1, h2);
  H1(neg_f16, "neg.f16", h0l);
  H1(abs_f16, "abs.f16", h0l);
  H2(min_f16, "min.f16", h0l, h1l);
  H2(max_f16, "max.f16", h0l, h1l);
  H2(min_NaN_f16, "min.NaN.f16", h0l, h1l);
  R2(max_f16x2, "max.f16x2", h0, h1);
  H2(add_rn_bf16, "add.rn.bf16", h0h, h1h);
  H2(sub_rn_bf16, "sub.rn.bf16", h0h, h1h);
  H2(mul_rn_bf16, "mul.rn.bf16", h0h, h1h);
  H3(fma_rn_bf16, "fma.rn.bf16", h0h, h1h, h2h);
  H3(fma_rn_relu_bf16, "fma.rn.relu.bf16", h0h, h1h, h2h);
  R3(fma_rn_bf16x2, "fma.rn.bf16x2", h0, h1, h2);
  H1(neg_bf16, "neg.bf16", h0h);
  H1(abs_bf16, "abs.bf16", h0h);
  H2(min_bf16, "min.bf16", h0h, h1h);
  H2(max_bf16, "max.bf16", h0h, h1h);
  R2(max_NaN_bf16x2, "max.NaN.bf16x2", h0, h1);

  // .approx
  const double x1d = x1;
  F1(ex2_approx_f32, "ex2.approx.f32", x0);
  F1(ex2_approx_ftz_f32, "ex2.approx.ftz.f32", x0);
  F1(lg2_approx_f32, "lg2.approx.f32", x1);
  F1(lg2_approx_ftz_f32, "lg2.approx.ftz.f32", x1);
  F1(rcp_approx_f32, "rcp.approx.f32", x1);
  F1(rcp_approx_ftz_f32, "rcp.approx.ftz.f32", x1);
  F1(rsqrt_approx_f32, "rsqrt.approx.f32", x1);
  F1(rsqrt_approx_ftz_f32, "rsqrt.approx.ftz.f32", x1);
  F1(sqrt_approx_f32, "sqrt.approx.f32", x1);
  F1(sin_approx_f32, "sin.approx.f32", x2);
  F1(cos_approx_f32, "cos.approx.f32", x2);
  F1(tanh_approx_f32, "tanh.approx.f32", x3);
  F2(div_approx_f32, "div.approx.f32", x2, x3);
  F2(div_full_f32, "div.full.f32", x2, x3);
  H1(ex2_approx_f16, "ex2.approx.f16", h0l);
  H1(tanh_approx_f16, "tanh.approx.f16", h0l);
  H1(ex2_approx_ftz_bf16, "ex2.approx.ftz.bf16", h0h);
  D1(rcp_approx_ftz_f64, "rcp.approx.ftz.f64", x1d);
  D1(rsqrt_approx_f64, "rsqrt.approx.f64", x1d);

  // shfl.sync: every lane of the warp takes part; b and c warp-uniform or per lane.
  const u32 full = 0xffffffffu;
  const u32 width = 1u << (u1 % 6);
  const u32 c_up = (32u - width) << 8, c_down = c_up | 0x1fu;
  ON(shfl_sync_up_width) SHFL(shfl_sync_up_width, "up", v0, u0 & 31u, c_up, full);
  ON(shfl_sync_down_width) SHFL(shfl_sync_down_width, "down", v0, u0 & 31u, c_down, full);
  ON(shfl_sync_bfly_width) SHFL(shfl_sync_bfly_width, "bfly", v0, u0 & 31u, c_down, full);
  ON(shfl_sync_idx_width) SHFL(shfl_sync_idx_width, "idx", v0, v1, c_down, full);
  ON(shfl_sync_up_c) SHFL(shfl_sync_up_c, "up", v0, u0, u2, full);
  ON(shfl_sync_down_c) SHFL(shfl_sync_down_c, "down", v0, u0, u2, full);
  ON(shfl_sync_bfly_c) SHFL(shfl_sync_bfly_c, "bfly", v0, u0, u2, full);
  ON(shfl_sync_idx_c) SHFL(shfl_sync_idx_c, "idx", v0, v1, u2, full);
  ON(shfl_sync_idx_lane_b_c) SHFL(shfl_sync_idx_lane_b_c, "idx", v0, v1, v2, full);
  ON(shfl_sync_down_lane_b_c) SHFL(shfl_sync_down_lane_b_c, "down", v0, v1, v2, full);
  ON(shfl_sync_bfly_imm) {
    u32 d, p;
    asm volatile("{\n\t.reg .pred p;\n\tshfl.sync.bfly.b32 %0|p, %2, 1, 0x1f, 0xffffffff;\n\tselp.u32 %1, 1, 0, p;\n\t}"
                 : "=r"(d), "=r"(p) : "r"(v0));
    PUT(shfl_sync_bfly_imm, static_cast<u64>(d) | static_cast<u64>(p) << 32);
  }
  // Two half-warps apart, each with its own membermask and 16-lane segments.
  ON(shfl_sync_idx_halves) {
    if (lane < 16) SHFL(shfl_sync_idx_halves, "idx", v0, v1, 0x101fu, 0x0000ffffu);
    else SHFL(shfl_sync_idx_halves, "idx", v0, v1, 0x101fu, 0xffff0000u);
  }
  ON(shfl_sync_up_halves) {
    if (lane < 16) SHFL(shfl_sync_up_halves, "up", v0, u0 & 15u, 0x1000u, 0x0000ffffu);
    else SHFL(shfl_sync_up_halves, "up", v0, u0 & 15u, 0x1000u, 0xffff0000u);
  }

  // vote.sync
  const u32 vp = (v3 & 0xffu) < (u3 & 0x1ffu) ? 1u : 0u;
  ON(vote_sync_ballot_b32) {
    u32 d;
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, %2;\n\t}"
                 : "=r"(d) : "r"(vp), "r"(full));
    PUT(vote_sync_ballot_b32, d);
  }
#define VOTE_PRED(id, text, mask)                                                                        \
  ON(id) {                                                                                               \
    u32 d;                                                                                               \
    asm volatile("{\n\t.reg .pred p, q;\n\tsetp.ne.u32 p, %1, 0;\n\t" text ";\n\tselp.u32 %0, 1, 0, q;\n\t}" \
                 : "=r"(d) : "r"(vp), "r"(mask));                                                        \
    PUT(id, d);                                                                                          \
  }
  VOTE_PRED(vote_sync_any_pred, "vote.sync.any.pred q, p, %2", full);
  VOTE_PRED(vote_sync_all_pred, "vote.sync.all.pred q, p, %2", full);
  VOTE_PRED(vote_sync_uni_pred, "vote.sync.uni.pred q, p, %2", full);
  VOTE_PRED(vote_sync_any_pred_not_p, "vote.sync.any.pred q, !p, %2", full);
  ON(vote_sync_ballot_b32_halves) {
    u32 d;
    if (lane < 16)
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, 0x0000ffff;\n\t}"
                   : "=r"(d) : "r"(vp));
    else
      asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, 0xffff0000;\n\t}"
                   : "=r"(d) : "r"(vp));
    PUT(vote_sync_ballot_b32_halves, d);
  }
  ON(vote_sync_all_pred_halves) {
    const u32 mask = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    if (lane < 16) {
      VOTE_PRED(vote_sync_all_pred_halves, "vote.sync.all.pred q, p, %2", mask);
    } else {
      VOTE_PRED(vote_sync_all_pred_halves, "vote.sync.all.pred q, p, %2", mask);
    }
  }
#undef VOTE_PRED
#define REDUX(id, text)                                                                \
  ON(id) {                                                                             \
    u32 d;                                                                             \
    asm volatile("redux.sync." text " %0, %1, 0xffffffff;" : "=r"(d) : "r"(v0));      \
    PUT(id, d);                                                                        \
  }
  REDUX(redux_sync_add_u32, "add.u32");
  REDUX(redux_sync_min_s32, "min.s32");
  REDUX(redux_sync_max_u32, "max.u32");
  REDUX(redux_sync_and_b32, "and.b32");
  REDUX(redux_sync_or_b32, "or.b32");
  REDUX(redux_sync_xor_b32, "xor.b32");
#undef REDUX
  ON(activemask_b32) {
    u32 d;
    asm volatile("activemask.b32 %0;" : "=r"(d));
    PUT(activemask_b32, d);
  }
  ON(elect_sync) {  // the elected lane and whether it is this one: lane | p << 8
    u32 d;
    asm volatile("{\n\t.reg .pred p;\n\t.reg .b32 r;\n\telect.sync r|p, 0xffffffff;\n\tselp.u32 %0, 256, 0, p;\n\t"
                 "or.b32 %0, %0, r;\n\t}" : "=r"(d));
    PUT(elect_sync, d);
  }
  ON(elect_sync_halves) {
    u32 d;
    if (lane < 16)
      asm volatile("{\n\t.reg .pred p;\n\t.reg .b32 r;\n\telect.sync r|p, 0x0000ffff;\n\tselp.u32 %0, 256, 0, p;\n\t"
                   "or.b32 %0, %0, r;\n\t}" : "=r"(d));
    else
      asm volatile("{\n\t.reg .pred p;\n\t.reg .b32 r;\n\telect.sync r|p, 0xffff0000;\n\tselp.u32 %0, 256, 0, p;\n\t"
                   "or.b32 %0, %0, r;\n\t}" : "=r"(d));
    PUT(elect_sync_halves, d);
  }

  // atomics on this thread's own scratch words (deterministic), then on the shared counters
  ATOM32(atom_global_add_u32, "atom.global.add.u32", 0, i4);
  ATOM32(atom_global_exch_b32, "atom.global.exch.b32", 1, i5);
  ON(atom_global_cas_b32_hit) {
    const u32 expect = sp[2];
    u32 d;
    asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(d) : "l"(sp + 2), "r"(expect), "r"(i4) : "memory");
    PUT(atom_global_cas_b32_hit, d);
    PUT(atom_global_cas_b32_hit_mem, sp[2]);
  }
  ON(atom_global_cas_b32_miss) {
    const u32 expect = sp[3] ^ 1u;
    u32 d;
    asm volatile("atom.global.cas.b32 %0, [%1], %2, %3;" : "=r"(d) : "l"(sp + 3), "r"(expect), "r"(i4) : "memory");
    PUT(atom_global_cas_b32_miss, d);
    PUT(atom_global_cas_b32_miss_mem, sp[3]);
  }
  ATOM32(atom_global_min_s32, "atom.global.min.s32", 4, i5);
  ATOM32(atom_global_max_u32, "atom.global.max.u32", 5, i5);
  ATOM32(atom_global_and_b32, "atom.global.and.b32", 6, i5);
  ATOM32(atom_global_or_b32, "atom.global.or.b32", 7, i5);
  ATOM32(atom_global_xor_b32, "atom.global.xor.b32", 8, i5);
  ATOM32(atom_global_inc_u32, "atom.global.inc.u32", 9, s3);
  ATOM32(atom_global_dec_u32, "atom.global.dec.u32", 10, s3);
  ON(atom_global_add_f32) {
    float d;
    asm volatile("atom.global.add.f32 %0, [%1], %2;" : "=f"(d) : "l"(sp + 11), "f"(f0) : "memory");
    PUT(atom_global_add_f32, bits(d));
    PUT(atom_global_add_f32_mem, sp[11]);
  }
  ON(red_global_add_u32_mem) {
    asm volatile("red.global.add.u32 [%0], %1;" : : "l"(sp + 12), "r"(i6) : "memory");
    PUT(red_global_add_u32_mem, sp[12]);
  }
  ATOM32(atom_global_max_s32, "atom.global.max.s32", 13, i6);
  ATOM32(atom_add_u32_generic, "atom.add.u32", 14, i6);
  ATOM64(atom_global_add_u64, "atom.global.add.u64", 0, l0);
  ATOM64(atom_global_exch_b64, "atom.global.exch.b64", 1, l1);
  ON(atom_global_cas_b64_hit) {
    const u64 expect = qp[2];
    u64 d;
    asm volatile("atom.global.cas.b64 %0, [%1], %2, %3;" : "=l"(d) : "l"(qp + 2), "l"(expect), "l"(l1) : "memory");
    PUT(atom_global_cas_b64_hit, d);
    PUT(atom_global_cas_b64_hit_mem, qp[2]);
  }
  ON(atom_global_add_f64) {
    double d;
    asm volatile("atom.global.add.f64 %0, [%1], %2;" : "=d"(d) : "l"(qp + 3), "d"(d0) : "memory");
    PUT(atom_global_add_f64, bits(d));
    PUT(atom_global_add_f64_mem, qp[3]);
  }
  ATOM64(atom_global_min_s64, "atom.global.min.s64", 4, l1);
  ATOM64(atom_global_max_u64, "atom.global.max.u64", 5, l1);
  ATOM64(atom_global_and_b64, "atom.global.and.b64", 6, l1);
  ON(red_global_add_u64_mem) {
    asm volatile("red.global.add.u64 [%0], %1;" : : "l"(qp + 7), "l"(l2) : "memory");
    PUT(red_global_add_u64_mem, qp[7]);
  }
  ON(atom_global_add_u32_counter) {
    const u32 inc = ((v3 >> 8) & 0xffu) + 1u;
    u32 d;
    asm volatile("atom.global.add.u32 %0, [%1], %2;" : "=r"(d) : "l"(counters), "r"(inc) : "memory");
    asm volatile("red.global.add.u32 [%0], %1;" : : "l"(counters + 1), "r"(inc) : "memory");
    PUT(atom_global_add_u32_counter, d);
  }
  ON(atom_global_add_u64_counter) {
    u64 d;
    asm volatile("atom.global.add.u64 %0, [%1], 1;" : "=l"(d) : "l"(counters + 2) : "memory");
    PUT(atom_global_add_u64_counter, d);
  }

  // loads of this thread's input words, stores to its scratch words 32..39
  const unsigned char* wb = reinterpret_cast<const unsigned char*>(w);
  ON(ld_global_s8) {
    u32 d;
    asm volatile("ld.global.s8 %0, [%1];" : "=r"(d) : "l"(wb + (i7 & 3u)));
    PUT(ld_global_s8, d);
  }
  ON(ld_global_u8) {
    u32 d;
    asm volatile("ld.global.u8 %0, [%1];" : "=r"(d) : "l"(wb + 4 + (i7 & 3u)));
    PUT(ld_global_u8, d);
  }
  ON(ld_global_s16) {
    u32 d;
    asm volatile("ld.global.s16 %0, [%1];" : "=r"(d) : "l"(wb + 8 + 2 * (i7 & 1u)));
    PUT(ld_global_s16, d);
  }
  ON(ld_global_u16) {
    u32 d;
    asm volatile("ld.global.u16 %0, [%1];" : "=r"(d) : "l"(wb + 12 + 2 * (i7 & 1u)));
    PUT(ld_global_u16, d);
  }
  ON(ld_global_u32) {
    u32 d;
    asm volatile("ld.global.u32 %0, [%1];" : "=r"(d) : "l"(w + (i7 % kIn)));
    PUT(ld_global_u32, d);
  }
  ON(ld_global_nc_u32) {
    u32 d;
    asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(d) : "l"(w + kF));
    PUT(ld_global_nc_u32, d);
  }
  ON(ld_global_v2_u32_x) {
    u32 x, y;
    asm volatile("ld.global.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "l"(w + kD));
    PUT(ld_global_v2_u32_x, x);
    PUT(ld_global_v2_u32_y, y);
  }
  ON(ld_global_v4_u32_x) {
    u32 x, y, z, q;
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(q) : "l"(w + kF));
    PUT(ld_global_v4_u32_x, x);
    PUT(ld_global_v4_u32_w, q ^ y ^ z);
  }
  ON(ld_global_u64) {
    u64 d;
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(d) : "l"(w + kL));
    PUT(ld_global_u64, d);
  }
  unsigned char* sb = reinterpret_cast<unsigned char*>(sp);
  ON(st_global_u8) {
    asm volatile("st.global.u8 [%0], %1;" : : "l"(sb + 4 * 32 + (i7 & 3u)), "r"(i0) : "memory");
    PUT(st_global_u8, sp[32]);
  }
  ON(st_global_u16) {
    asm volatile("st.global.u16 [%0], %1;" : : "l"(sb + 4 * 33 + 2 * (i7 & 1u)), "h"(static_cast<u16>(i1)) : "memory");
    PUT(st_global_u16, sp[33]);
  }
  ON(st_global_v2_u32) {
    asm volatile("st.global.v2.u32 [%0], {%1, %2};" : : "l"(sp + 34), "r"(i2), "r"(i3) : "memory");
    u64 d;
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(d) : "l"(sp + 34) : "memory");
    PUT(st_global_v2_u32, d);
  }
  ON(st_global_v4_u32_x) {
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" : : "l"(sp + 36), "r"(i4), "r"(i5), "r"(i6), "r"(i7)
                 : "memory");
    u32 x, y, z, q;
    asm volatile("ld.global.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(x), "=r"(y), "=r"(z), "=r"(q) : "l"(sp + 36)
                 : "memory");
    PUT(st_global_v4_u32_x, x);
    PUT(st_global_v4_u32_w, q ^ (y << 1) ^ (z << 2));
  }

  // shared memory: this thread's own 16 words of a static array, through shared and generic addresses
  __shared__ __align__(16) u32 smem[kThreadsPerBlock * 16];
  u32* my = smem + threadIdx.x * 16;
  const u32 sa = static_cast<u32>(__cvta_generic_to_shared(my));  // shared-window address of my[0]
#define SHARED_ATOM32(id, text, k, init, value)                                                     \
  ON(id) {                                                                                          \
    u32 d;                                                                                          \
    asm volatile("st.shared.u32 [%0], %1;" : : "r"(sa + 4 * (k)), "r"(init) : "memory");           \
    asm volatile(text " %0, [%1], %2;" : "=r"(d) : "r"(sa + 4 * (k)), "r"(value) : "memory");      \
    PUT(id, d);                                                                                     \
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(d) : "r"(sa + 4 * (k)) : "memory");              \
    PUT(id##_mem, d);                                                                               \
  }
  ON(st_ld_shared_u8) {
    u32 d;
    asm volatile("st.shared.u32 [%0], %1;" : : "r"(sa), "r"(i1) : "memory");
    asm volatile("st.shared.u8 [%0], %1;" : : "r"(sa + (i7 & 3u)), "r"(i0) : "memory");
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(d) : "r"(sa) : "memory");
    PUT(st_ld_shared_u8, d);
  }
  ON(st_ld_shared_v2_u32) {
    u64 d;
    asm volatile("st.shared.v2.u32 [%0], {%1, %2};" : : "r"(sa + 8), "r"(i2), "r"(i3) : "memory");
    asm volatile("ld.shared.u64 %0, [%1];" : "=l"(d) : "r"(sa + 8) : "memory");
    PUT(st_ld_shared_v2_u32, d);
  }
  SHARED_ATOM32(atom_shared_add_u32, "atom.shared.add.u32", 4, i0, i1);
  ON(atom_shared_cas_b32) {
    u32 d;
    asm volatile("st.shared.u32 [%0], %1;" : : "r"(sa + 20), "r"(i2) : "memory");
    asm volatile("atom.shared.cas.b32 %0, [%1], %2, %3;" : "=r"(d) : "r"(sa + 20), "r"(i2), "r"(i3) : "memory");
    PUT(atom_shared_cas_b32, d);
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(d) : "r"(sa + 20) : "memory");
    PUT(atom_shared_cas_b32_mem, d);
  }
  SHARED_ATOM32(atom_shared_exch_b32, "atom.shared.exch.b32", 6, i4, i5);
  SHARED_ATOM32(atom_shared_inc_u32, "atom.shared.inc.u32", 7, s0, s3);
  SHARED_ATOM32(atom_shared_dec_u32, "atom.shared.dec.u32", 8, s1, s3);
  SHARED_ATOM32(atom_shared_min_s32, "atom.shared.min.s32", 9, i6, i7);
  ON(atom_shared_add_f32) {
    float d;
    u32 m;
    asm volatile("st.shared.f32 [%0], %1;" : : "r"(sa + 40), "f"(f1) : "memory");
    asm volatile("atom.shared.add.f32 %0, [%1], %2;" : "=f"(d) : "r"(sa + 40), "f"(f0) : "memory");
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(m) : "r"(sa + 40) : "memory");
    PUT(atom_shared_add_f32, bits(d));
    PUT(atom_shared_add_f32_mem, m);
  }
  ON(atom_shared_add_f64) {
    double d;
    u64 m;
    asm volatile("st.shared.f64 [%0], %1;" : : "r"(sa + 48), "d"(d1) : "memory");
    asm volatile("atom.shared.add.f64 %0, [%1], %2;" : "=d"(d) : "r"(sa + 48), "d"(d0) : "memory");
    asm volatile("ld.shared.u64 %0, [%1];" : "=l"(m) : "r"(sa + 48) : "memory");
    PUT(atom_shared_add_f64, bits(d));
    PUT(atom_shared_add_f64_mem, m);
  }
  ON(cp_async_ca_4_src_size_2) {  // 4 bytes of which 2 from global, 2 zero-filled
    my[15] = 0xFFFFFFFFu;
    const u32 s = static_cast<u32>(__cvta_generic_to_shared(my + 15));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, 2;\n\tcp.async.commit_group;\n\tcp.async.wait_group 0;"
                 :: "r"(s), "l"(w + kI) : "memory");
    PUT(cp_async_ca_4_src_size_2, my[15]);
  }
  ON(atom_add_u32_generic_shared) {  // a generic address in the shared window
    u32 d;
    my[14] = i0;
    asm volatile("atom.add.u32 %0, [%1], %2;" : "=r"(d) : "l"(my + 14), "r"(i6) : "memory");
    PUT(atom_add_u32_generic_shared, d);
    PUT(atom_add_u32_generic_shared_mem, my[14]);
  }
#undef SHARED_ATOM32
#define ISSPACEP(id, space, ptr)                                                                   \
  ON(id) {                                                                                         \
    u32 d;                                                                                         \
    asm volatile("{\n\t.reg .pred p;\n\tisspacep." space " p, %1;\n\tselp.u32 %0, 1, 0, p;\n\t}"  \
                 : "=r"(d) : "l"(ptr));                                                            \
    PUT(id, d);                                                                                    \
  }
  ISSPACEP(isspacep_shared_of_shared, "shared", my);
  ISSPACEP(isspacep_global_of_shared, "global", my);
  ISSPACEP(isspacep_global_of_global, "global", w);
  ISSPACEP(isspacep_shared_of_global, "shared", w);
#undef ISSPACEP
  ON(cvta_to_shared_round_trip) {  // generic -> shared -> generic, and the shared offset from the array's start
    u64 g = reinterpret_cast<u64>(my), back;
    u32 s;
    asm volatile("{\n\t.reg .u64 t;\n\tcvta.to.shared.u64 t, %2;\n\tcvt.u32.u64 %0, t;\n\tcvta.shared.u64 %1, t;\n\t}"
                 : "=r"(s), "=l"(back) : "l"(g));
    const u32 base = static_cast<u32>(__cvta_generic_to_shared(smem));
    PUT(cvta_to_shared_round_trip, static_cast<u64>(s - base) | static_cast<u64>(back == g) << 32);
  }

  // special registers
#define SREG(id, reg)                                 \
  ON(id) {                                            \
    u32 d;                                            \
    asm volatile("mov.u32 %0, " reg ";" : "=r"(d));   \
    PUT(id, d);                                       \
  }
  SREG(mov_laneid, "%%laneid");
  SREG(mov_lanemask_eq, "%%lanemask_eq");
  SREG(mov_lanemask_lt, "%%lanemask_lt");
  SREG(mov_lanemask_le, "%%lanemask_le");
  SREG(mov_lanemask_gt, "%%lanemask_gt");
  SREG(mov_lanemask_ge, "%%lanemask_ge");
  SREG(mov_tid_x, "%%tid.x");
  SREG(mov_ntid_x, "%%ntid.x");
  SREG(mov_ctaid_x, "%%ctaid.x");
  SREG(mov_nctaid_x, "%%nctaid.x");
#undef SREG
}

// ---------------------------------------------------------------------------
// Host side

namespace {

// Inputs: a mix, per word, of random bits and the values where semantics
// differ (signs, limits, ties, specials, subnormals, shifts >= the width).
class Inputs {
 public:
  explicit Inputs(std::uint64_t seed) : g_(seed) {}

  u32 bits32() { return static_cast<u32>(g_()); }
  u64 bits64() { return g_(); }
  u32 below(u32 n) { return static_cast<u32>(g_() % n); }
  double uniform(double lo, double hi) { return lo + (hi - lo) * (static_cast<double>(g_() >> 11) * 0x1p-53); }

  u32 integer() {
    static constexpr u32 edges[] = {0u, 1u, 0xffffffffu, 2u, 0xfffffffeu, 0x80000000u, 0x7fffffffu, 0x80000001u,
                                    0xffffu, 0x10000u, 0x7fffu, 0x8000u, 0xffff8000u, 0xffu, 0x80u, 0x7fu,
                                    0xffffff80u, 31u, 32u, 33u, 63u, 64u};
    switch (below(4)) {
      case 0: return bits32();
      case 1: return static_cast<u32>(static_cast<std::int32_t>(below(141)) - 70);
      case 2: return edges[below(sizeof edges / sizeof edges[0])];
      default: {
        const u32 v = bits32() >> below(32);
        return below(2) ? 0u - v : v;
      }
    }
  }
  u64 integer64() {
    static constexpr u64 edges[] = {0ull, 1ull, ~0ull, 0x8000000000000000ull, 0x7fffffffffffffffull,
                                    0x80000000ull, 0x7fffffffull, 0xffffffff80000000ull, 0xffffffffull,
                                    0x100000000ull, 0xffffffff7fffffffull};
    switch (below(5)) {
      case 0: return bits64();
      case 1: return static_cast<u64>(static_cast<std::int64_t>(below(141)) - 70);
      case 2: return edges[below(sizeof edges / sizeof edges[0])];
      case 3: return static_cast<u64>(static_cast<std::int64_t>(static_cast<std::int32_t>(integer())));
      default: {
        const u64 v = bits64() >> below(64);
        return below(2) ? 0ull - v : v;
      }
    }
  }
  u32 shift() {
    static constexpr u32 edges[] = {0u, 1u, 7u, 8u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 64u, 65u, 127u, 128u,
                                    255u, 256u, 257u, 0xffffffffu, 0x80000000u, 0x80000001u};
    switch (below(6)) {
      case 0: case 1: case 2: return below(41);
      case 3: return below(73);
      case 4: return edges[below(sizeof edges / sizeof edges[0])];
      default: return bits32();
    }
  }
  static u32 f2u(float f) { u32 u; std::memcpy(&u, &f, 4); return u; }
  static float u2f(u32 u) { float f; std::memcpy(&f, &u, 4); return f; }
  static u64 d2u(double d) { u64 u; std::memcpy(&u, &d, 8); return u; }
  static double u2d(u64 u) { double d; std::memcpy(&d, &u, 8); return d; }

  u32 sign() { return below(2) ? 0x80000000u : 0u; }
  u32 moderate(int emin, int emax) {  // sign | 2^[emin, emax] | random mantissa
    const int e = emin + static_cast<int>(below(static_cast<u32>(emax - emin + 1)));
    return sign() | static_cast<u32>(e + 127) << 23 | (bits32() & 0x7fffffu);
  }
  u32 float32() {
    static constexpr u32 specials[] = {
        0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0x7fa00000u,
        0xffc00001u, 0x7fffffffu, 0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, 0x80800000u, 0x7f7fffffu,
        0xff7fffffu, 0x3f800000u, 0xbf800000u, 0x3f000000u, 0x4f000000u, 0xcf000000u, 0x4effffffu, 0xcf000001u,
        0x4f800000u, 0x4f7fffffu, 0x5f000000u, 0xdf000000u, 0x5f800000u, 0x477fe000u, 0x477ff000u, 0x477fefffu,
        0x7f7f8000u, 0x7f7f7fffu, 0x33000000u, 0x33000001u, 0x387fc000u, 0x38800000u, 0x43e00000u, 0x43f00000u,
        0x47600000u, 0x47700000u, 0x3e800000u, 0xbf000000u, 0x3fc00000u, 0x40200000u, 0xc0200000u, 0x4b000001u};
    switch (below(9)) {
      case 0: return bits32();
      case 1: return moderate(-40, 40);
      case 2: {  // k + {0, 1/4, 1/2, 3/4}, exactly representable
        const u32 k = bits32() >> (9 + below(23));
        const float v = static_cast<float>(k) + 0.25f * static_cast<float>(below(4));
        return f2u(v) | sign();
      }
      case 3: return specials[below(sizeof specials / sizeof specials[0])];
      case 4: {  // f16 tie (or one off): low 13 bits 0x1000 +-1 in f16's range
        const u32 m = moderate(-25, 16) & ~0x1fffu;
        return m | (0x1000u + below(3) - 1u);
      }
      case 5: {  // bf16 tie (or one off)
        const u32 m = moderate(-130, 127) & ~0xffffu;
        if (((m >> 23) & 0xffu) == 0xffu) return m & ~0x7f800000u;
        return m | (0x8000u + below(3) - 1u);
      }
      case 6: return sign() | (bits32() & 0x7fffffu) >> below(23);  // subnormal
      case 7: return moderate(20, 70);  // around the integer limits
      default: {  // fp8 range: e4m3 max 448, e5m2 max 57344, their ties
        const u32 m = moderate(-20, 17);
        return below(2) ? (m & ~0x7ffffu) | (below(2) << 18) : m;
      }
    }
  }
  u64 float64() {
    static constexpr u64 specials[] = {
        0x0000000000000000ull, 0x8000000000000000ull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
        0x7ff8000000000000ull, 0x7ff0000000000001ull, 0xfff8000000000001ull, 0x0000000000000001ull,
        0x000fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull, 0x3ff0000000000000ull,
        0x47efffffe0000000ull, 0x47efffffefffffffull, 0x47effffff0000000ull, 0x36a0000000000000ull,
        0x3690000000000000ull, 0x41e0000000000000ull, 0xc1e0000000000000ull, 0x41dfffffffc00000ull,
        0x41f0000000000000ull, 0x43e0000000000000ull, 0x43f0000000000000ull, 0xc3e0000000000000ull,
        0x40effc0000000000ull, 0x40effe0000000000ull, 0x3f10000000000000ull};
    const u64 s = static_cast<u64>(below(2)) << 63;
    switch (below(8)) {
      case 0: return bits64();
      case 1: return s | static_cast<u64>(1023 + static_cast<int>(below(121)) - 60) << 52 | (bits64() & 0xfffffffffffffull);
      case 2: return specials[below(sizeof specials / sizeof specials[0])];
      case 3: {  // f32 tie (or one off), in f32's range incl. its subnormals and overflow
        const u64 e = static_cast<u64>(1023 + static_cast<int>(below(290)) - 160);
        return s | e << 52 | ((bits64() & 0xfffffe0000000ull) | (0x10000000ull + below(3) - 1ull));
      }
      case 4: {  // k + {0, 1/4, 1/2, 3/4}
        const u64 k = bits64() >> (12 + below(52));
        return d2u(static_cast<double>(k) + 0.25 * static_cast<double>(below(4))) | s;
      }
      case 5: return s | (bits64() & 0xfffffffffffffull) >> below(52);  // subnormal
      case 6: return d2u(static_cast<double>(u2f(float32())));  // an f32 value
      default: return s | static_cast<u64>(1023 + static_cast<int>(below(90))) << 52 | (bits64() & 0xfffffffffffffull);
    }
  }
  u32 half_pair() {
    auto one = [&]() -> u32 {
      static constexpr u32 specials[] = {0x0000u, 0x8000u, 0x7c00u, 0xfc00u, 0x7e00u, 0x7c01u, 0xfe01u, 0x7bffu,
                                         0x0001u, 0x03ffu, 0x0400u, 0x3c00u, 0xbc00u, 0x7f80u, 0xff80u, 0x7fc0u,
                                         0x7f81u, 0x7f7fu, 0x0080u, 0x007fu, 0x3f80u, 0x4b00u, 0xcb00u, 0x4900u};
      switch (below(5)) {
        case 0: return bits32() & 0xffffu;
        case 1: return (below(2) << 15) | ((15 + below(21) - 10) << 10) | (bits32() & 0x3ffu);   // f16 moderate
        case 2: return (below(2) << 15) | ((127 + below(41) - 20) << 7) | (bits32() & 0x7fu);    // bf16 moderate
        case 3: return specials[below(sizeof specials / sizeof specials[0])];
        default: return (below(2) << 15) | ((15 + below(9) - 4) << 10) | (bits32() & 0x3ffu);    // f16 small
      }
    };
    return one() | one() << 16;
  }

 private:
  std::mt19937_64 g_;
};

struct Problem {
  std::vector<u32> in;        // kThreads * kIn
  std::vector<u32> scratch;   // kThreads * kScratch, initial
};

Problem make_problem(std::uint64_t seed) {
  Inputs r(seed);
  Problem p;
  p.in.assign(static_cast<std::size_t>(kThreads) * kIn, 0);
  p.scratch.assign(static_cast<std::size_t>(kThreads) * kScratch, 0);
  u32 warp_words[4] = {};
  for (int t = 0; t < kThreads; ++t) {
    u32* w = &p.in[static_cast<std::size_t>(t) * kIn];
    for (int k = 0; k < 8; ++k) w[kI + k] = r.integer();
    if (r.below(8) == 0) w[kI + 1] = w[kI + 0];
    if (r.below(16) == 0) w[kI + 1] = 0u - w[kI + 0];
    for (int k = 0; k < 4; ++k) w[kS + k] = r.shift();
    for (int k = 0; k < 8; ++k) w[kF + k] = r.float32();
    switch (r.below(8)) {  // pairs that cancel or compare equal
      case 0: w[kF + 1] = w[kF + 0]; break;
      case 1: w[kF + 1] = w[kF + 0] ^ 0x80000000u; break;
      case 2: w[kF + 1] = (w[kF + 0] ^ 0x80000000u) + r.below(5) - 2u; break;
      default: break;
    }
    if (r.below(4) == 0) w[kF + 2] = Inputs::f2u(-(Inputs::u2f(w[kF + 0]) * Inputs::u2f(w[kF + 1])));
    for (int k = 0; k < 4; ++k) {
      const u64 d = r.float64();
      w[kD + 2 * k] = static_cast<u32>(d);
      w[kD + 2 * k + 1] = static_cast<u32>(d >> 32);
    }
    auto dword = [&](int k) { return Inputs::u2d(w[kD + 2 * k] | static_cast<u64>(w[kD + 2 * k + 1]) << 32); };
    auto set_d = [&](int k, double v) {
      const u64 u = Inputs::d2u(v);
      w[kD + 2 * k] = static_cast<u32>(u);
      w[kD + 2 * k + 1] = static_cast<u32>(u >> 32);
    };
    switch (r.below(8)) {
      case 0: set_d(1, dword(0)); break;
      case 1: set_d(1, -dword(0)); break;
      default: break;
    }
    if (r.below(4) == 0) set_d(2, -(dword(0) * dword(1)));
    for (int k = 0; k < 3; ++k) {
      const u64 v = r.integer64();
      w[kL + 2 * k] = static_cast<u32>(v);
      w[kL + 2 * k + 1] = static_cast<u32>(v >> 32);
    }
    if (r.below(8) == 0) { w[kL + 2] = w[kL + 0]; w[kL + 3] = w[kL + 1]; }
    // .approx inputs: x0 for ex2, x1 (mostly positive) for lg2/rcp/rsqrt/sqrt, x2 sin/cos and a
    // numerator, x3 tanh and a denominator.
    const u32 sp = r.below(10);
    w[kX + 0] = sp == 0 ? r.float32() : sp < 3 ? Inputs::f2u(static_cast<float>(r.uniform(-1.0, 1.0)))
                                              : Inputs::f2u(static_cast<float>(r.uniform(-150.0, 130.0)));
    const u32 s1 = r.below(10);
    w[kX + 1] = s1 == 0 ? r.float32() : (r.moderate(-126, 126) & 0x7fffffffu);
    const u32 s2 = r.below(10);
    w[kX + 2] = s2 == 0 ? r.float32() : s2 < 3 ? Inputs::f2u(static_cast<float>(r.uniform(-100.0, 100.0)))
                                              : Inputs::f2u(static_cast<float>(r.uniform(-3.14159265, 3.14159265)));
    const u32 s3 = r.below(10);
    w[kX + 3] = s3 == 0 ? r.float32() : s3 < 4 ? r.moderate(-60, 60)
                                              : Inputs::f2u(static_cast<float>(r.uniform(-10.0, 10.0)));
    for (int k = 0; k < 4; ++k) w[kH + k] = r.half_pair();
    if (r.below(8) == 0) w[kH + 1] = w[kH + 0];
    // warp-uniform words, drawn at each warp's first lane
    if (t % 32 == 0) {
      const u32 c_std = ((32u - (1u << r.below(6))) << 8) | r.below(32);
      warp_words[0] = r.below(4) == 0 ? r.bits32() : r.below(40);
      warp_words[1] = r.below(6);
      warp_words[2] = r.below(4) == 0 ? c_std : r.below(4) == 0 ? r.bits32() : (r.bits32() & 0x1fffu);
      static constexpr u32 thresholds[] = {0u, 1u, 64u, 128u, 200u, 255u, 256u, 300u, 511u};
      warp_words[3] = thresholds[r.below(sizeof thresholds / sizeof thresholds[0])];
    }
    for (int k = 0; k < 4; ++k) w[kU + k] = warp_words[k];
    w[kV + 0] = r.bits32();
    w[kV + 1] = r.below(4) == 0 ? r.bits32() : r.below(32);
    w[kV + 2] = r.below(2) ? r.bits32() : (r.bits32() & 0x1fffu);
    w[kV + 3] = r.bits32();
    // scratch: the atomics' initial words (9, 10: for inc/dec, near s3; 11: f32; 22/23: f64), the stores'
    u32* m = &p.scratch[static_cast<std::size_t>(t) * kScratch];
    for (int k = 0; k < kScratch; ++k) m[k] = r.integer();
    m[9] = r.below(3) == 0 ? w[kS + 3] : r.shift();
    m[10] = r.below(3) == 0 ? w[kS + 3] : r.below(4) == 0 ? 0u : r.shift();
    m[11] = r.float32();
    if (r.below(4) == 0) m[11] = w[kF + 0] ^ 0x80000000u;
    const u64 fd = r.float64();
    m[22] = static_cast<u32>(fd);
    m[23] = static_cast<u32>(fd >> 32);
  }
  return p;
}

struct Outputs {
  std::vector<u64> out;   // kThreads * kResults
  std::vector<u32> counters;
};

constexpr u64 kSentinel = 0xababababababababull;

// ---- comparison

float as_f32(u64 b) { return Inputs::u2f(static_cast<u32>(b)); }
double as_f64(u64 b) { return Inputs::u2d(b); }
std::int64_t ordered32(u32 b) { return (b & 0x80000000u) ? -static_cast<std::int64_t>(b & 0x7fffffffu) : b; }
std::int64_t ordered16(u32 b) { return (b & 0x8000u) ? -static_cast<std::int64_t>(b & 0x7fffu) : (b & 0x7fffu); }
float half_to_float(u32 h) {
  const u32 s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f) return Inputs::u2f(s | 0x7f800000u | m << 13);
  if (e == 0) return (s ? -1.0f : 1.0f) * std::ldexp(static_cast<float>(m), -24);
  return Inputs::u2f(s | (e + 112) << 23 | m << 13);
}
float bf16_to_float(u32 h) { return Inputs::u2f((h & 0xffffu) << 16); }

struct Verdict {
  bool ok;
  double error;  // for .approx: ulps (f32/f16/bf16) or relative error (f64); 0 when equal
};

// x: the .approx function's argument, for sin/cos's tolerance.
Verdict judge(Tol tol, u64 gpu, u64 ptx, float x) {
  if (gpu == ptx) return {true, 0.0};
  switch (tol) {
    case T_EXACT:
    case T_CHAIN32:
    case T_CHAIN64: return {false, 0.0};
    case T_F64: {
      const double g = as_f64(gpu), p = as_f64(ptx);
      if (std::isnan(g) && std::isnan(p)) return {true, 0.0};
      if (std::isnan(g) || std::isnan(p) || std::isinf(g) || std::isinf(p)) return {false, INFINITY};
      const double rel = std::fabs(g - p) / std::max(std::fabs(g), 0x1p-1022);
      return {rel <= 0x1p-19, rel};  // the H200's rcp.approx.ftz.f64 is within 2^-20.1 of the exact value
    }
    case T_F16:
    case T_BF16: {
      const u32 g = static_cast<u32>(gpu) & 0xffffu, p = static_cast<u32>(ptx) & 0xffffu;
      const float gf = tol == T_F16 ? half_to_float(g) : bf16_to_float(g);
      const float pf = tol == T_F16 ? half_to_float(p) : bf16_to_float(p);
      if (std::isnan(gf) && std::isnan(pf)) return {true, 0.0};
      if (std::isnan(gf) || std::isnan(pf)) return {false, INFINITY};
      const double ulps = static_cast<double>(std::llabs(ordered16(g) - ordered16(p)));
      return {ulps <= (tol == T_F16 ? 2.0 : 1.0), ulps};
    }
    default: break;
  }
  const float g = as_f32(gpu), p = as_f32(ptx);
  if (std::isnan(g) && std::isnan(p)) return {true, 0.0};
  if (std::isnan(g) || std::isnan(p)) return {false, INFINITY};
  const double ulps = static_cast<double>(std::llabs(ordered32(static_cast<u32>(gpu)) - ordered32(static_cast<u32>(ptx))));
  if (std::isinf(g) || std::isinf(p)) return {ulps <= 2.0, ulps};  // FLT_MAX against inf is 1 ulp
  const double diff = std::fabs(static_cast<double>(g) - static_cast<double>(p));
  switch (tol) {
    case T_ULP2: return {ulps <= 2.0 || diff <= std::fabs(static_cast<double>(g)) * 0x1p-21, ulps};
    case T_LG2: return {ulps <= 2.0 || diff <= 0x1p-21, ulps};
    case T_SINCOS: return {ulps <= 2.0 || diff <= 0x1p-20 + std::fabs(static_cast<double>(x)) * 0x1p-22, diff};
    case T_TANH: return {ulps <= 2.0 || diff <= std::fabs(static_cast<double>(g)) * 0x1p-10, ulps};
    default: return {false, ulps};
  }
}

// The word an operand letter of a result's spec names, printed with its value.
std::string describe_operands(const ResultInfo& info, const u32* w, const u32* m) {
  std::string s;
  const char* p = info.operands;
  char buf[128];
  while (*p) {
    while (*p == ' ') ++p;
    if (!*p || *p == '(') break;
    const char letter = *p++;
    int k = 0;
    while (*p >= '0' && *p <= '9') k = k * 10 + (*p++ - '0');
    switch (letter) {
      case 'i': std::snprintf(buf, sizeof buf, " i%d=0x%08x (%d)", k, w[kI + k], static_cast<int>(w[kI + k])); break;
      case 's': std::snprintf(buf, sizeof buf, " s%d=0x%08x (%u)", k, w[kS + k], w[kS + k]); break;
      case 'f': std::snprintf(buf, sizeof buf, " f%d=0x%08x (%.9g)", k, w[kF + k], Inputs::u2f(w[kF + k])); break;
      case 'x': std::snprintf(buf, sizeof buf, " x%d=0x%08x (%.9g)", k, w[kX + k], Inputs::u2f(w[kX + k])); break;
      case 'h': std::snprintf(buf, sizeof buf, " h%d=0x%08x", k, w[kH + k]); break;
      case 'u': std::snprintf(buf, sizeof buf, " u%d=0x%08x", k, w[kU + k]); break;
      case 'v': std::snprintf(buf, sizeof buf, " v%d=0x%08x", k, w[kV + k]); break;
      case 'm': std::snprintf(buf, sizeof buf, " mem[%d]=0x%08x", k, m[k]); break;
      case 'd': {
        const u64 v = w[kD + 2 * k] | static_cast<u64>(w[kD + 2 * k + 1]) << 32;
        std::snprintf(buf, sizeof buf, " d%d=0x%016llx (%.17g)", k, v, Inputs::u2d(v));
        break;
      }
      case 'l': {
        const u64 v = w[kL + 2 * k] | static_cast<u64>(w[kL + 2 * k + 1]) << 32;
        std::snprintf(buf, sizeof buf, " l%d=0x%016llx (%lld)", k, v, static_cast<long long>(v));
        break;
      }
      default: std::snprintf(buf, sizeof buf, " ?%c%d", letter, k); break;
    }
    s += buf;
  }
  return s;
}

std::string instruction_name(const ResultInfo& info) {
  std::string s = info.id;
  std::replace(s.begin(), s.end(), '_', '.');
  return s;
}

// The float type of a result (a cvt's destination, else the instruction's last float type), to tell
// results that are both NaN with different bits from other mismatches.
enum class FType { none, f16, bf16, f32, f64, f16x2, bf16x2 };
FType ftype_of(const ResultInfo& info) {
  std::vector<std::string> tokens;
  std::string id = info.id;
  for (std::size_t at = 0; at <= id.size();) {
    const std::size_t end = std::min(id.find('_', at), id.size());
    tokens.push_back(id.substr(at, end - at));
    at = end + 1;
  }
  auto float_type = [](const std::string& t) {
    if (t == "f16") return FType::f16;
    if (t == "bf16") return FType::bf16;
    if (t == "f32") return FType::f32;
    if (t == "f64") return FType::f64;
    if (t == "f16x2") return FType::f16x2;
    if (t == "bf16x2") return FType::bf16x2;
    return FType::none;
  };
  auto other_type = [](const std::string& t) {
    for (const char* o : {"s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "b16", "b32", "b64", "tf32", "e4m3x2",
                          "e5m2x2"})
      if (t == o) return true;
    return false;
  };
  if (tokens[0] == "setp") return FType::none;
  if (tokens[0] == "cvt") {
    for (std::size_t k = 1; k < tokens.size(); ++k) {
      if (float_type(tokens[k]) != FType::none) return float_type(tokens[k]);
      if (other_type(tokens[k])) return FType::none;
    }
    return FType::none;
  }
  for (std::size_t k = tokens.size(); k-- > 1;)
    if (float_type(tokens[k]) != FType::none) return float_type(tokens[k]);
  return FType::none;
}

bool nan16(u32 h, bool bf) {
  return bf ? (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) : (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu);
}

// Both NaN (each lane of a pair equal or both NaN), bits differing.
bool nan_only(FType t, u64 g, u64 p) {
  switch (t) {
    case FType::f32: return std::isnan(as_f32(g)) && std::isnan(as_f32(p));
    case FType::f64: return std::isnan(as_f64(g)) && std::isnan(as_f64(p));
    case FType::f16:
    case FType::bf16: return nan16(g & 0xffffu, t == FType::bf16) && nan16(p & 0xffffu, t == FType::bf16);
    case FType::f16x2:
    case FType::bf16x2:
      for (int lane = 0; lane < 2; ++lane) {
        const u32 a = (g >> (16 * lane)) & 0xffffu, b = (p >> (16 * lane)) & 0xffffu;
        if (a != b && !(nan16(a, t == FType::bf16x2) && nan16(b, t == FType::bf16x2))) return false;
      }
      return true;
    default: return false;
  }
}

struct Mismatch {
  int thread;
  int result;
  bool nan = false;  // both NaN, bits differ
};

struct Comparison {
  std::vector<Mismatch> mismatches;
  std::vector<std::uint64_t> compared = std::vector<std::uint64_t>(kResults, 0);
  std::vector<std::uint64_t> failed = std::vector<std::uint64_t>(kResults, 0);
  std::vector<std::uint64_t> failed_nan = std::vector<std::uint64_t>(kResults, 0);  // of failed: NaN bits only
  std::vector<double> max_error = std::vector<double>(kResults, 0.0);
};

// Every result of every thread, except the results the interpreter could not run
// (skip[r]) and the counters' old values (checked by check_chain).
Comparison compare(const Problem& p, const std::vector<u64>& gpu, const std::vector<u64>& ptx,
                   const std::vector<bool>& skip) {
  Comparison c;
  std::vector<FType> types(kResults);
  for (int r = 0; r < kResults; ++r) types[r] = ftype_of(kInfo[r]);
  for (int t = 0; t < kThreads; ++t)
    for (int r = 0; r < kResults; ++r) {
      if (skip[r] || kInfo[r].tol == T_CHAIN32 || kInfo[r].tol == T_CHAIN64) continue;
      const std::size_t at = static_cast<std::size_t>(t) * kResults + r;
      const float x = Inputs::u2f(p.in[static_cast<std::size_t>(t) * kIn + kX + 2]);
      const Verdict v = judge(kInfo[r].tol, gpu[at], ptx[at], x);
      ++c.compared[r];
      if (v.ok) {
        c.max_error[r] = std::max(c.max_error[r], v.error);
      } else {
        const bool nan = nan_only(types[r], gpu[at], ptx[at]);
        ++c.failed[r];
        c.failed_nan[r] += nan;
        c.mismatches.push_back({t, r, nan});
      }
    }
  return c;
}

// The shared counter's old values: sorted, each is the one before plus that thread's increment,
// from 0, and the last plus its increment is the counter's final value.
bool check_chain(const Problem& p, const std::vector<u64>& out, int result, u64 final_value, std::string& why) {
  std::vector<std::pair<u64, u64>> olds;  // (old, increment)
  for (int t = 0; t < kThreads; ++t) {
    const u64 old = out[static_cast<std::size_t>(t) * kResults + result];
    const u32 v3 = p.in[static_cast<std::size_t>(t) * kIn + kV + 3];
    const u64 inc = kInfo[result].tol == T_CHAIN32 ? ((v3 >> 8) & 0xffu) + 1u : 1u;
    olds.emplace_back(old, inc);
  }
  std::sort(olds.begin(), olds.end());
  u64 expect = 0;
  for (std::size_t k = 0; k < olds.size(); ++k) {
    if (olds[k].first != expect) {
      char buf[160];
      std::snprintf(buf, sizeof buf, "the %zu-th smallest old value is %llu, expected %llu", k, olds[k].first, expect);
      why = buf;
      return false;
    }
    expect += olds[k].second;
  }
  if (expect != final_value) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "the counter ends at %llu, the old values sum to %llu", final_value, expect);
    why = buf;
    return false;
  }
  return true;
}

u64 expected_counter_sum(const Problem& p) {
  u64 s = 0;
  for (int t = 0; t < kThreads; ++t) s += ((p.in[static_cast<std::size_t>(t) * kIn + kV + 3] >> 8) & 0xffu) + 1u;
  return s;
}

// ---- GPU results saved to a file (--save-gpu) and compared later without a GPU (--load-gpu)

constexpr char kMagic[8] = {'P', 'T', 'X', 'S', 'E', 'M', '1', 0};

std::uint64_t layout_hash() {  // the result list and the input layout the saved results belong to
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&](const void* data, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) h = (h ^ static_cast<const unsigned char*>(data)[k]) * 1099511628211ull;
  };
  for (const ResultInfo& info : kInfo) mix(info.id, std::strlen(info.id) + 1);
  const int dims[] = {kBlocks, kThreadsPerBlock, kIn, kScratch, kCounters};
  mix(dims, sizeof dims);
  return h;
}

struct SavedHeader {
  char magic[8];
  std::uint64_t layout, seed;
  char gpu[128];
};

void save_gpu(const std::string& path, std::uint64_t seed, const std::string& gpu_name, const Outputs& o) {
  SavedHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.layout = layout_hash();
  h.seed = seed;
  std::snprintf(h.gpu, sizeof h.gpu, "%s", gpu_name.c_str());
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(&h), sizeof h);
  f.write(reinterpret_cast<const char*>(o.out.data()), static_cast<std::streamsize>(o.out.size() * sizeof(u64)));
  f.write(reinterpret_cast<const char*>(o.counters.data()), static_cast<std::streamsize>(o.counters.size() * sizeof(u32)));
  if (!f) {
    std::printf("FAILED: cannot write %s\n", path.c_str());
    std::exit(1);
  }
  std::printf("GPU results saved to %s\n", path.c_str());
}

Outputs load_gpu(const std::string& path, std::uint64_t& seed, std::string& gpu_name) {
  std::ifstream f(path, std::ios::binary);
  SavedHeader h{};
  Outputs o;
  o.out.resize(static_cast<std::size_t>(kThreads) * kResults);
  o.counters.resize(kCounters);
  f.read(reinterpret_cast<char*>(&h), sizeof h);
  f.read(reinterpret_cast<char*>(o.out.data()), static_cast<std::streamsize>(o.out.size() * sizeof(u64)));
  f.read(reinterpret_cast<char*>(o.counters.data()), static_cast<std::streamsize>(o.counters.size() * sizeof(u32)));
  if (!f || std::memcmp(h.magic, kMagic, sizeof kMagic) != 0) {
    std::printf("FAILED: %s is not a file of saved GPU results\n", path.c_str());
    std::exit(1);
  }
  if (h.layout != layout_hash()) {
    std::printf("FAILED: %s was saved by a build with other results or layout\n", path.c_str());
    std::exit(1);
  }
  seed = h.seed;
  h.gpu[sizeof h.gpu - 1] = 0;
  gpu_name = h.gpu;
  return o;
}

// ---- the two runs

Outputs run_gpu(const Problem& p, double& ms) {
  Outputs o;
  u32 *d_in = nullptr, *d_counters = nullptr, *d_scratch = nullptr;
  unsigned char* d_en = nullptr;
  u64* d_out = nullptr;
  const std::size_t out_bytes = static_cast<std::size_t>(kThreads) * kResults * sizeof(u64);
  CUDA_CHECK(cudaMalloc(&d_in, p.in.size() * sizeof(u32)));
  CUDA_CHECK(cudaMalloc(&d_en, kResults));
  CUDA_CHECK(cudaMalloc(&d_out, out_bytes));
  CUDA_CHECK(cudaMalloc(&d_counters, kCounters * sizeof(u32)));
  CUDA_CHECK(cudaMalloc(&d_scratch, p.scratch.size() * sizeof(u32)));
  CUDA_CHECK(cudaMemcpy(d_in, p.in.data(), p.in.size() * sizeof(u32), cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(d_en, 1, kResults));
  CUDA_CHECK(cudaMemset(d_out, 0xab, out_bytes));
  CUDA_CHECK(cudaMemset(d_counters, 0, kCounters * sizeof(u32)));
  CUDA_CHECK(cudaMemcpy(d_scratch, p.scratch.data(), p.scratch.size() * sizeof(u32), cudaMemcpyHostToDevice));
  cudaEvent_t start, stop;
  CUDA_CHECK(cudaEventCreate(&start));
  CUDA_CHECK(cudaEventCreate(&stop));
  CUDA_CHECK(cudaEventRecord(start));
  ptx_semantics<<<kBlocks, kThreadsPerBlock>>>(d_in, d_en, d_out, d_counters, d_scratch);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaEventRecord(stop));
  CUDA_CHECK(cudaDeviceSynchronize());
  float f = 0;
  CUDA_CHECK(cudaEventElapsedTime(&f, start, stop));
  ms = f;
  o.out.resize(static_cast<std::size_t>(kThreads) * kResults);
  o.counters.resize(kCounters);
  CUDA_CHECK(cudaMemcpy(o.out.data(), d_out, out_bytes, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(o.counters.data(), d_counters, kCounters * sizeof(u32), cudaMemcpyDeviceToHost));
  cudaFree(d_in);
  cudaFree(d_en);
  cudaFree(d_out);
  cudaFree(d_counters);
  cudaFree(d_scratch);
  return o;
}

struct PtxRun {
  bool ok = false;
  std::string error;
  Outputs outputs;
  std::uint64_t instructions = 0;
};

PtxRun run_ptx_once(const tcgen::ptx::Module& m, const Problem& p, const std::vector<unsigned char>& enable) {
  namespace ptx = tcgen::ptx;
  PtxRun run;
  run.outputs.out.assign(static_cast<std::size_t>(kThreads) * kResults, kSentinel);
  run.outputs.counters.assign(kCounters, 0);
  std::vector<u32> scratch = p.scratch;
  const u32* in = p.in.data();
  const unsigned char* en = enable.data();
  u64* out = run.outputs.out.data();
  u32* counters = run.outputs.counters.data();
  u32* sc = scratch.data();
  const ptx::Argument args[] = {ptx::argument(in), ptx::argument(en), ptx::argument(out), ptx::argument(counters),
                                ptx::argument(sc)};
  const ptx::Allocation memory[] = {
      {in, p.in.size() * sizeof(u32), "in"},
      {en, enable.size(), "enable"},
      {out, run.outputs.out.size() * sizeof(u64), "out", true},
      {counters, kCounters * sizeof(u32), "counters", true},
      {sc, scratch.size() * sizeof(u32), "scratch", true}};
  try {
    const ptx::LaunchStats s = ptx::launch(
        m, m.entry("ptx_semantics"),
        {.grid = {kBlocks, 1, 1}, .block = {kThreadsPerBlock, 1, 1}, .dynamic_smem = 0}, args, memory);
    run.ok = true;
    run.instructions = s.instructions;
    for (const auto& [rule, times] : s.warnings) std::printf("  interpreter warning: %s (%llu times)\n", rule.c_str(),
                                                             static_cast<unsigned long long>(times));
  } catch (const std::exception& e) {
    run.error = e.what();
  }
  return run;
}

std::string first_lines(const std::string& s, int lines) {
  std::size_t at = 0;
  for (int k = 0; k < lines && at != std::string::npos; ++k) {
    at = s.find('\n', at);
    if (at != std::string::npos) ++at;
  }
  return at == std::string::npos ? s : s.substr(0, at);
}

// The interpreter's outputs: one launch with every result on; where it stops, one per group,
// and within a group that stops, one per result, so that every result the interpreter can run
// is compared and the ones it cannot are named. unsupported[r]: the error, or empty.
struct PtxOutcome {
  std::vector<u64> out;
  std::vector<u32> counters;  // from the run that gave the counter results
  std::vector<std::string> unsupported = std::vector<std::string>(kResults);
  std::uint64_t instructions = 0;
  int launches = 0;
};

PtxOutcome run_ptx(const tcgen::ptx::Module& m, const Problem& p) {
  PtxOutcome o;
  std::vector<unsigned char> all(kResults, 1);
  PtxRun run = run_ptx_once(m, p, all);
  ++o.launches;
  o.instructions = run.instructions;
  if (run.ok) {
    o.out = std::move(run.outputs.out);
    o.counters = std::move(run.outputs.counters);
    return o;
  }
  std::printf("interpreter: the launch with every result stopped:\n%s\n  running each group alone\n",
              first_lines(run.error, 12).c_str());
  o.out.assign(static_cast<std::size_t>(kThreads) * kResults, kSentinel);
  o.counters.assign(kCounters, 0);
  auto take = [&](const PtxRun& r, int result) {
    for (int t = 0; t < kThreads; ++t) {
      const std::size_t at = static_cast<std::size_t>(t) * kResults + result;
      o.out[at] = r.outputs.out[at];
    }
    if (result == R_atom_global_add_u32_counter) {
      o.counters[0] = r.outputs.counters[0];
      o.counters[1] = r.outputs.counters[1];
    }
    if (result == R_atom_global_add_u64_counter) {
      o.counters[2] = r.outputs.counters[2];
      o.counters[3] = r.outputs.counters[3];
    }
  };
  for (int g = 0; g < kGroups; ++g) {
    std::vector<unsigned char> en(kResults, 0);
    for (int r = 0; r < kResults; ++r) en[r] = kInfo[r].group == g;
    PtxRun gr = run_ptx_once(m, p, en);
    ++o.launches;
    o.instructions += gr.instructions;
    if (gr.ok) {
      for (int r = 0; r < kResults; ++r)
        if (en[r]) take(gr, r);
      continue;
    }
    for (int r = 0; r < kResults; ++r) {
      if (!en[r]) continue;
      std::vector<unsigned char> one(kResults, 0);
      one[r] = 1;
      // a second result of one instruction (its memory word, a vector's other lane) is guarded by the first's
      const std::string id = kInfo[r].id;
      for (const char* tail : {"_mem", "_y", "_w"})
        if (id.size() > std::strlen(tail) && id.compare(id.size() - std::strlen(tail), std::string::npos, tail) == 0)
          one[r - 1] = 1;
      PtxRun rr = run_ptx_once(m, p, one);
      ++o.launches;
      o.instructions += rr.instructions;
      if (rr.ok) take(rr, r);
      else o.unsupported[r] = rr.error;
    }
  }
  return o;
}

void print_interpreter_failures(const PtxOutcome& o, int& unsupported) {
  for (int r = 0; r < kResults; ++r) {
    if (o.unsupported[r].empty()) continue;
    ++unsupported;
    std::printf("INTERPRETER CANNOT RUN %s (group %s):\n%s\n", instruction_name(kInfo[r]).c_str(),
                kGroupNames[kInfo[r].group], first_lines(o.unsupported[r], 6).c_str());
  }
}

struct Options {
  std::uint64_t seed = 0;
  bool interpreter_only = false;
  std::string save_gpu, load_gpu;
  int examples = 3;
};

Options parse_options(int argc, char** argv) {
  Options o;
  bool given = false;
  for (int k = 1; k < argc; ++k) {
    const std::string a = argv[k];
    if (a == "--seed" && k + 1 < argc) {
      o.seed = std::strtoull(argv[++k], nullptr, 0);
      given = true;
    } else if (a == "--interpreter-only") {
      o.interpreter_only = true;
    } else if (a == "--save-gpu" && k + 1 < argc) {
      o.save_gpu = argv[++k];
    } else if (a == "--load-gpu" && k + 1 < argc) {
      o.load_gpu = argv[++k];
    } else if (a == "--examples" && k + 1 < argc) {
      o.examples = std::atoi(argv[++k]);
    } else {
      std::printf("usage: %s [--seed N] [--save-gpu FILE | --load-gpu FILE | --interpreter-only] [--examples N]\n",
                  argv[0]);
      std::exit(2);
    }
  }
  if (!given) o.seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse_options(argc, argv);
  const bool interpreter_only = opt.interpreter_only;
  std::uint64_t seed = opt.seed;
  std::string gpu_name;
  Outputs loaded;
  if (!opt.load_gpu.empty()) {
    loaded = load_gpu(opt.load_gpu, seed, gpu_name);
    std::printf("GPU results from %s (%s)\n", opt.load_gpu.c_str(), gpu_name.c_str());
  } else if (!interpreter_only) {
    gpu_name = require_gpu(9, 0).name;
  }
  std::printf("seed %llu (--seed %llu repeats this run); %d blocks x %d threads, %d results per thread, PTX %s\n",
              static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed), kBlocks,
              kThreadsPerBlock, static_cast<int>(kResults), TCGEN_PTX_SEMANTICS_PTX);
  const Problem problem = make_problem(seed);

  const auto t0 = std::chrono::steady_clock::now();
  const tcgen::ptx::Module module = tcgen::ptx::Module::load(TCGEN_PTX_SEMANTICS_PTX);
  const PtxOutcome ptx = run_ptx(module, problem);
  const double ptx_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("interpreter: %llu PTX instructions in %.2f s (%d launch%s)\n",
              static_cast<unsigned long long>(ptx.instructions), ptx_s, ptx.launches, ptx.launches == 1 ? "" : "es");
  int unsupported = 0;
  print_interpreter_failures(ptx, unsupported);
  std::vector<bool> skip(kResults, false);
  for (int r = 0; r < kResults; ++r) skip[r] = !ptx.unsupported[r].empty();

  if (interpreter_only) {
    int unwritten = 0;
    for (int r = 0; r < kResults; ++r) {
      if (skip[r]) continue;
      bool all = true;
      for (int t = 0; t < kThreads && all; ++t) all = ptx.out[static_cast<std::size_t>(t) * kResults + r] == kSentinel;
      if (all) {
        std::printf("TEST BUG: %s is never written\n", kInfo[r].id);
        ++unwritten;
      }
    }
    std::string why;
    const bool chain32 = skip[R_atom_global_add_u32_counter] ||
                         check_chain(problem, ptx.out, R_atom_global_add_u32_counter, ptx.counters[0], why);
    if (!chain32) std::printf("interpreter: atom.global.add.u32 counter: %s\n", why.c_str());
    if (!opt.save_gpu.empty()) {
      Outputs mine{ptx.out, ptx.counters};
      save_gpu(opt.save_gpu, seed, "the interpreter, not a GPU", mine);
    }
    std::printf("%s: interpreter only, nothing compared (%d results it cannot run, %d never written)\n",
                unsupported == 0 && unwritten == 0 && chain32 ? "DONE" : "FAILED", unsupported, unwritten);
    return unsupported == 0 && unwritten == 0 && chain32 ? 0 : 1;
  }

  Outputs gpu;
  if (!opt.load_gpu.empty()) {
    gpu = std::move(loaded);
  } else {
    double gpu_ms = 0;
    gpu = run_gpu(problem, gpu_ms);
    std::printf("GPU: kernel %.3f ms\n", gpu_ms);
    if (!opt.save_gpu.empty()) save_gpu(opt.save_gpu, seed, gpu_name, gpu);
  }

  bool ok = unsupported == 0;
  // Every result is written on the GPU (else this test has a bug).
  for (int r = 0; r < kResults; ++r) {
    bool all = true;
    for (int t = 0; t < kThreads && all; ++t) all = gpu.out[static_cast<std::size_t>(t) * kResults + r] == kSentinel;
    if (all) {
      std::printf("TEST BUG: %s is never written on the GPU\n", kInfo[r].id);
      ok = false;
    }
  }

  const Comparison c = compare(problem, gpu.out, ptx.out, skip);
  std::printf("\n%-20s %8s %10s %10s\n", "group", "results", "compared", "mismatches");
  std::uint64_t total_compared = 0, total_failed = 0;
  for (int g = 0; g < kGroups; ++g) {
    std::uint64_t n = 0, compared = 0, failed = 0;
    for (int r = 0; r < kResults; ++r) {
      if (kInfo[r].group != g) continue;
      ++n;
      compared += c.compared[r];
      failed += c.failed[r];
    }
    std::printf("%-20s %8llu %10llu %10llu\n", kGroupNames[g], static_cast<unsigned long long>(n),
                static_cast<unsigned long long>(compared), static_cast<unsigned long long>(failed));
    total_compared += compared;
    total_failed += failed;
  }
  std::printf("%-20s %8d %10llu %10llu\n", "total", static_cast<int>(kResults),
              static_cast<unsigned long long>(total_compared), static_cast<unsigned long long>(total_failed));

  std::printf("\n.approx, largest difference GPU vs interpreter within tolerance (ulps; sin/cos: absolute; f64: relative):\n");
  for (int r = 0; r < kResults; ++r)
    if (kInfo[r].tol != T_EXACT && kInfo[r].tol != T_CHAIN32 && kInfo[r].tol != T_CHAIN64)
      std::printf("  %-24s %.3g%s\n", instruction_name(kInfo[r]).c_str(), c.max_error[r],
                  c.failed[r] ? "  (and mismatches beyond tolerance)" : "");

  // The one difference the interpreter keeps: which NaN an f64 operation returns (the H200 propagates
  // and quiets f64 NaN payloads its own way; docs/ptx.md). Every other mismatch fails the test.
  std::uint64_t f64_nan_bits = 0;
  for (int r = 0; r < kResults; ++r) {
    const bool f64 = instruction_name(kInfo[r]).find("f64") != std::string::npos;
    if (c.failed[r] && !(f64 && c.failed[r] == c.failed_nan[r])) ok = false;
    if (f64 && c.failed[r] == c.failed_nan[r]) f64_nan_bits += c.failed[r];
  }
  if (f64_nan_bits)
    std::printf("\nof the mismatches, %llu are f64 NaN payloads only (both NaN, other bits): not modelled, not failed\n",
                static_cast<unsigned long long>(f64_nan_bits));
  if (total_failed) {
    std::printf("\nmismatching instructions (NaN: of those, both results NaN with different bits):\n");
    for (int r = 0; r < kResults; ++r)
      if (c.failed[r])
        std::printf("  %-36s %6llu of %llu threads  (NaN %llu)\n", instruction_name(kInfo[r]).c_str(),
                    static_cast<unsigned long long>(c.failed[r]), static_cast<unsigned long long>(c.compared[r]),
                    static_cast<unsigned long long>(c.failed_nan[r]));
    std::printf("\nfirst mismatches (per instruction at most %d of values, 1 of NaN bits):\n", opt.examples);
    std::vector<int> shown(kResults, 0), shown_nan(kResults, 0);
    for (const Mismatch& mm : c.mismatches) {
      if (mm.nan ? shown_nan[mm.result]++ >= 1 : shown[mm.result]++ >= opt.examples) continue;
      const std::size_t at = static_cast<std::size_t>(mm.thread) * kResults + mm.result;
      const u32* w = &problem.in[static_cast<std::size_t>(mm.thread) * kIn];
      const u32* m = &problem.scratch[static_cast<std::size_t>(mm.thread) * kScratch];
      std::printf("  thread %d (block %d, lane %d) %s%s:%s\n      gpu 0x%016llx  interpreter 0x%016llx\n", mm.thread,
                  mm.thread / kThreadsPerBlock, mm.thread % 32, instruction_name(kInfo[mm.result]).c_str(),
                  mm.nan ? " [NaN bits]" : "", describe_operands(kInfo[mm.result], w, m).c_str(), gpu.out[at],
                  ptx.out[at]);
    }
  }

  // The shared counters: each side's chain of old values, and the final values against each other.
  const u64 sum = expected_counter_sum(problem);
  for (const bool on_gpu : {true, false}) {
    const std::vector<u64>& out = on_gpu ? gpu.out : ptx.out;
    const std::vector<u32>& counters = on_gpu ? gpu.counters : ptx.counters;
    const char* who = on_gpu ? "GPU" : "interpreter";
    std::string why;
    if (!skip[R_atom_global_add_u32_counter]) {
      const bool chain = check_chain(problem, out, R_atom_global_add_u32_counter, counters[0], why);
      const bool red = counters[1] == sum;
      std::printf("%s: atom.global.add.u32 on one counter by %d threads: %s; red.global.add.u32: %s (%u, expected %llu)\n",
                  who, kThreads, chain ? "the old values chain up to the final value" : why.c_str(),
                  red ? "right" : "WRONG", counters[1], sum);
      ok = ok && chain && red && counters[0] == sum;
    }
    if (!skip[R_atom_global_add_u64_counter]) {
      const u64 final64 = counters[2] | static_cast<u64>(counters[3]) << 32;
      const bool chain = check_chain(problem, out, R_atom_global_add_u64_counter, final64, why);
      std::printf("%s: atom.global.add.u64 (+1) on one counter: %s\n", who,
                  chain ? "old values are 0..N-1, final N" : why.c_str());
      ok = ok && chain && final64 == static_cast<u64>(kThreads);
    }
  }

  // Negative controls: the comparison reports a perturbed result, and the chain check a broken chain.
  {
    std::vector<u64> perturbed = gpu.out;
    const Mismatch planted[] = {{0, R_add_rn_f32}, {1, R_cvt_rni_s32_f32}, {2, R_ex2_approx_f32},
                                {3, R_shfl_sync_idx_width}, {4, R_atom_global_add_u32_mem}};
    for (const Mismatch& pm : planted) {
      u64& v = perturbed[static_cast<std::size_t>(pm.thread) * kResults + pm.result];
      if (kInfo[pm.result].tol == T_ULP2) {
        // 64 ulps away, or a NaN against a number
        const float f = as_f32(v);
        v = std::isfinite(f) && f != 0.0f ? (v ^ 0x40ull) : 0x7fc00000ull;
      } else {
        v ^= 1ull;
      }
    }
    const Comparison cc = compare(problem, perturbed, ptx.out, skip);
    int caught = 0;
    for (const Mismatch& pm : planted) {
      bool in_base = false, in_control = false;
      for (const Mismatch& mm : c.mismatches) in_base = in_base || (mm.thread == pm.thread && mm.result == pm.result);
      for (const Mismatch& mm : cc.mismatches)
        in_control = in_control || (mm.thread == pm.thread && mm.result == pm.result);
      caught += in_base || in_control;  // an already-mismatching one may now agree by chance: count it caught
    }
    const bool extra = cc.mismatches.size() > c.mismatches.size() + std::size(planted);
    std::vector<u64> broken = gpu.out;
    broken[R_atom_global_add_u32_counter] += 1;  // thread 0's old value off by one
    std::string why;
    const bool chain_caught = !check_chain(problem, broken, R_atom_global_add_u32_counter, gpu.counters[0], why);
    const bool judge_ok = !judge(T_EXACT, 0x3f800000ull, 0x3f800001ull, 0).ok &&
                          judge(T_ULP2, 0x3f800000ull, 0x3f800002ull, 0).ok &&
                          !judge(T_ULP2, 0x3f800000ull, 0x3f800010ull, 0).ok &&
                          !judge(T_ULP2, 0x7fc00000ull, 0x3f800000ull, 0).ok;
    const bool control = caught == static_cast<int>(std::size(planted)) && !extra && chain_caught && judge_ok;
    std::printf("negative control: %d of %zu perturbed GPU results reported as mismatches%s; a broken counter chain %s; "
                "judge() %s: %s\n",
                caught, std::size(planted), extra ? " (and unexpected others)" : "",
                chain_caught ? "reported" : "NOT reported", judge_ok ? "right" : "WRONG",
                control ? "the comparison can fail" : "FAILED");
    ok = ok && control;
  }

  std::printf("%s: %llu results compared, %llu mismatches, %d results the interpreter cannot run\n",
              ok ? "PASSED" : "FAILED", static_cast<unsigned long long>(total_compared),
              static_cast<unsigned long long>(total_failed), unsupported);
  return ok ? 0 : 1;
}
