#pragma once
// Hopper wgmma for the sm_90a device tests (wgmma_sm90.cu, fmha_smem_sm90.cu):
// the inline-PTX wgmma.mma_async with A and B in shared memory (descriptors)
// and D in f32 registers, its fence / commit / wait, and where each thread's
// D registers fall in the 64 × N tile.
//
// PTX anchors: #asynchronous-warpgroup-level-matrix-instructions-wgmma-mma-async
// (the instruction, its immediates), #wgmma-64n16-d (Figure "WGMMA .m64nNk16
// register fragment layout for accumulator matrix D").
#if !defined(__CUDACC__)
#error "wgmma.hpp holds device code: include it from a .cu file compiled by nvcc"
#endif

#include <array>
#include <cstdint>

#include "tcgen/core/element_type.hpp"
#include "tcgen/core/host_device.hpp"
#include "tcgen/layout/smem_operand.hpp"

namespace tcgen::wgmma {

// ---- wgmma.mma_async.sync.aligned.m64nNk{8,16,32}.f32.<E>.<E>: D (N/2 f32
// registers per thread) = A·Bᵀ (+ D when `accumulate` is non-zero), scale-a and
// scale-b 1. A and B are SMEM descriptors (SM90 form, absolute start address).
// The transpose immediates (imm-trans-a/b: 0 K-major, 1 MN-major) exist only
// for the 16-bit types; tf32 (k8) and e4m3 (k32) are K-major only.
#define TCGEN_WGMMA_REGS32 \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}"
#define TCGEN_WGMMA_REGS64                                                                                         \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30," \
  "%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,"  \
  "%59,%60,%61,%62,%63}"
#define TCGEN_WGMMA_REGS128                                                                                        \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30," \
  "%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,"  \
  "%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,"  \
  "%87,%88,%89,%90,%91,%92,%93,%94,%95,%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"  \
  "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127}"
#define TCGEN_WGMMA_F4(i) "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3])
#define TCGEN_WGMMA_F16(i) TCGEN_WGMMA_F4(i), TCGEN_WGMMA_F4(i + 4), TCGEN_WGMMA_F4(i + 8), TCGEN_WGMMA_F4(i + 12)
#define TCGEN_WGMMA_F32(i) TCGEN_WGMMA_F16(i), TCGEN_WGMMA_F16(i + 16)
#define TCGEN_WGMMA_F64(i) TCGEN_WGMMA_F32(i), TCGEN_WGMMA_F32(i + 32)
#define TCGEN_WGMMA_F128(i) TCGEN_WGMMA_F64(i), TCGEN_WGMMA_F64(i + 64)
// One instruction: D's registers, then a, b, accumulate (as %IA, %IB, %IACC).
#define TCGEN_WGMMA_ASM(SHAPE_TYPES, TAIL, REGS, IA, IB, IACC, ...)                                          \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, " IACC ", 0;\n"                                           \
               "wgmma.mma_async.sync.aligned." SHAPE_TYPES " " REGS ", " IA ", " IB ", p, 1, 1" TAIL ";\n}\n" \
               : __VA_ARGS__                                                                                 \
               : "l"(a), "l"(b), "r"(accumulate))
// KTYPES: "k16.f32.bf16.bf16" etc.; TAIL: the transpose immediates or "".
#define TCGEN_WGMMA_N(KTYPES, TAIL)                                                                          \
  if constexpr (N == 64)                                                                                     \
    TCGEN_WGMMA_ASM("m64n64" KTYPES, TAIL, TCGEN_WGMMA_REGS32, "%32", "%33", "%34", TCGEN_WGMMA_F32(0));      \
  else if constexpr (N == 128)                                                                               \
    TCGEN_WGMMA_ASM("m64n128" KTYPES, TAIL, TCGEN_WGMMA_REGS64, "%64", "%65", "%66", TCGEN_WGMMA_F64(0));     \
  else if constexpr (N == 256)                                                                               \
    TCGEN_WGMMA_ASM("m64n256" KTYPES, TAIL, TCGEN_WGMMA_REGS128, "%128", "%129", "%130", TCGEN_WGMMA_F128(0)); \
  else                                                                                                       \
    static_assert(N < 0, "wgmma here: N is 64, 128 or 256");
#define TCGEN_WGMMA_16BIT(KTYPES)                                 \
  if constexpr (A == layout::Major::K && B == layout::Major::K) { \
    TCGEN_WGMMA_N(KTYPES, ", 0, 0")                               \
  } else if constexpr (A == layout::Major::K) {                   \
    TCGEN_WGMMA_N(KTYPES, ", 0, 1")                               \
  } else if constexpr (B == layout::Major::K) {                   \
    TCGEN_WGMMA_N(KTYPES, ", 1, 0")                               \
  } else {                                                        \
    TCGEN_WGMMA_N(KTYPES, ", 1, 1")                               \
  }

template <ElementType E, int N, layout::Major A, layout::Major B>
__device__ __forceinline__ void mma_async(float (&d)[N / 2], std::uint64_t a, std::uint64_t b, int accumulate) {
  if constexpr (E == ElementType::bf16) {
    TCGEN_WGMMA_16BIT("k16.f32.bf16.bf16")
  } else if constexpr (E == ElementType::fp16) {
    TCGEN_WGMMA_16BIT("k16.f32.f16.f16")
  } else {
    static_assert(A == layout::Major::K && B == layout::Major::K, "wgmma transposes 16-bit types only");
    if constexpr (E == ElementType::tf32) {
      TCGEN_WGMMA_N("k8.f32.tf32.tf32", "")
    } else if constexpr (E == ElementType::e4m3) {
      TCGEN_WGMMA_N("k32.f32.e4m3.e4m3", "")
    } else {
      static_assert(N < 0, "wgmma here: bf16, fp16, tf32 or e4m3");
    }
  }
}

#undef TCGEN_WGMMA_16BIT
#undef TCGEN_WGMMA_N
#undef TCGEN_WGMMA_ASM
#undef TCGEN_WGMMA_F128
#undef TCGEN_WGMMA_F64
#undef TCGEN_WGMMA_F32
#undef TCGEN_WGMMA_F16
#undef TCGEN_WGMMA_F4
#undef TCGEN_WGMMA_REGS128
#undef TCGEN_WGMMA_REGS64
#undef TCGEN_WGMMA_REGS32

// Before the first wgmma that reads or writes D's registers after other code touched them.
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
// The wgmma issued since the last commit become one group.
__device__ __forceinline__ void commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
// Waits until at most `Pending` committed groups are still in flight.
template <int Pending = 0>
__device__ __forceinline__ void wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
}

// ---- The m64nNk* f32 accumulator fragment (PTX #wgmma-64n16-d, "WGMMA
// .m64nNk16 register fragment layout for accumulator matrix D"; the k8 and k32
// shapes' D figures show the same map, and wgmma_sm90.cu's tf32 / e4m3 cases
// check it): warp w of the warpgroup holds rows 16w..16w+15; lane l, register
// i -> row 16w + l/4 + 8·((i/2)%2), column 2·(l%4) + i%2 + 8·(i/4).
struct DElement {
  int row, col;
};
// `thread`: 0..127 within the warpgroup; `i`: 0..N/2-1.
TCGEN_HD constexpr DElement d_element(int thread, int i) {
  const int warp = thread / 32, lane = thread % 32;
  return {16 * warp + lane / 4 + 8 * ((i / 2) % 2), 2 * (lane % 4) + i % 2 + 8 * (i / 4)};
}

// The map covers the 64 × N tile once.
template <int N>
constexpr bool d_element_is_bijective() {
  std::array<bool, 64 * N> seen{};
  for (int t = 0; t < 128; ++t)
    for (int i = 0; i < N / 2; ++i) {
      const DElement e = d_element(t, i);
      if (e.row < 0 || e.row >= 64 || e.col < 0 || e.col >= N || seen[e.row * N + e.col]) return false;
      seen[e.row * N + e.col] = true;
    }
  return true;
}
static_assert(d_element_is_bijective<64>() && d_element_is_bijective<128>() && d_element_is_bijective<256>());

}  // namespace tcgen::wgmma
