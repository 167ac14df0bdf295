#pragma once
// tcgen05.ld / tcgen05.st as device atoms (sm_100a): Atom<A>::load and
// Atom<A>::store for any layout::TmemAccess A, i.e. every shape (32x32b,
// 16x64b, 16x128b, 16x256b, 16x32bx2), .num and .pack::16b / .unpack::16b
// (PTX #tcgen05-instructions-tcgen05-ld, #tcgen05-instructions-tcgen05-st).
// The register count, lanes and columns come from A (Table 49 is encoded
// once, in tcgen/layout/tmem_thread_map.hpp), and so does the host map of
// thread t's register i, Atom<A>::map. An illegal A is a compile error.
//
// Both are warp-wide (.sync.aligned) and asynchronous: follow a load with
// wait_ld() and a store with wait_st() (tcgen/tmem/sync.hpp). Built with
// TCGEN_DEVICE_CHECKS, each checks the whole warp issues it, with one taddr,
// inside the warp's lane quarter and the 512 columns (tcgen/tmem/lane_quarter.hpp).
#if !defined(__CUDACC__)
#error "tcgen/tmem/atom.hpp is device code: include it from a .cu file compiled by nvcc for sm_100a"
#endif

#include <cstdint>

#include "tcgen/layout/tmem_thread_map.hpp"
#include "tcgen/tmem/address.hpp"
#include "tcgen/tmem/lane_quarter.hpp"

// Inline PTX takes only a string literal and a literal operand list (nvcc
// rejects a constexpr string as the template and a pack expansion among the
// operands), so the preprocessor spells both, once per register count R.
//
// "%0, %1, ..., %<R-1>": the placeholders of R registers.
#define TCGEN_TMEM_DECADE(t) "%" #t "0, %" #t "1, %" #t "2, %" #t "3, %" #t "4, %" #t "5, %" #t "6, %" #t "7, %" #t "8, %" #t "9, "
#define TCGEN_TMEM_PLACEHOLDERS_1 "%0"
#define TCGEN_TMEM_PLACEHOLDERS_2 "%0, %1"
#define TCGEN_TMEM_PLACEHOLDERS_4 "%0, %1, %2, %3"
#define TCGEN_TMEM_PLACEHOLDERS_8 "%0, %1, %2, %3, %4, %5, %6, %7"
#define TCGEN_TMEM_PLACEHOLDERS_16 TCGEN_TMEM_DECADE() "%10, %11, %12, %13, %14, %15"
#define TCGEN_TMEM_PLACEHOLDERS_32 TCGEN_TMEM_DECADE() TCGEN_TMEM_DECADE(1) TCGEN_TMEM_DECADE(2) "%30, %31"
#define TCGEN_TMEM_PLACEHOLDERS_64                                                                      \
  TCGEN_TMEM_DECADE() TCGEN_TMEM_DECADE(1) TCGEN_TMEM_DECADE(2) TCGEN_TMEM_DECADE(3) TCGEN_TMEM_DECADE(4) \
  TCGEN_TMEM_DECADE(5) "%60, %61, %62, %63"
#define TCGEN_TMEM_PLACEHOLDERS_128                                                                     \
  TCGEN_TMEM_DECADE() TCGEN_TMEM_DECADE(1) TCGEN_TMEM_DECADE(2) TCGEN_TMEM_DECADE(3) TCGEN_TMEM_DECADE(4) \
  TCGEN_TMEM_DECADE(5) TCGEN_TMEM_DECADE(6) TCGEN_TMEM_DECADE(7) TCGEN_TMEM_DECADE(8) TCGEN_TMEM_DECADE(9) \
  TCGEN_TMEM_DECADE(10) TCGEN_TMEM_DECADE(11) "%120, %121, %122, %123, %124, %125, %126, %127"
// c(r[i]), c(r[i + 1]), ...: the operands of R registers from r[i], constraint c.
#define TCGEN_TMEM_OPERANDS_1(c, r, i) c(r[i])
#define TCGEN_TMEM_OPERANDS_2(c, r, i) TCGEN_TMEM_OPERANDS_1(c, r, i), TCGEN_TMEM_OPERANDS_1(c, r, i + 1)
#define TCGEN_TMEM_OPERANDS_4(c, r, i) TCGEN_TMEM_OPERANDS_2(c, r, i), TCGEN_TMEM_OPERANDS_2(c, r, i + 2)
#define TCGEN_TMEM_OPERANDS_8(c, r, i) TCGEN_TMEM_OPERANDS_4(c, r, i), TCGEN_TMEM_OPERANDS_4(c, r, i + 4)
#define TCGEN_TMEM_OPERANDS_16(c, r, i) TCGEN_TMEM_OPERANDS_8(c, r, i), TCGEN_TMEM_OPERANDS_8(c, r, i + 8)
#define TCGEN_TMEM_OPERANDS_32(c, r, i) TCGEN_TMEM_OPERANDS_16(c, r, i), TCGEN_TMEM_OPERANDS_16(c, r, i + 16)
#define TCGEN_TMEM_OPERANDS_64(c, r, i) TCGEN_TMEM_OPERANDS_32(c, r, i), TCGEN_TMEM_OPERANDS_32(c, r, i + 32)
#define TCGEN_TMEM_OPERANDS_128(c, r, i) TCGEN_TMEM_OPERANDS_64(c, r, i), TCGEN_TMEM_OPERANDS_64(c, r, i + 64)

// Every register count: R, the .num at which 16x128b (2 registers at .x1) and
// 16x256b (4) move R registers (0: they never do), and the operand number
// after taddr (%R), where 16x32bx2 takes immHalfSplitoff.
#define TCGEN_TMEM_ARITIES(X) \
  X(1, 0, 0, 2) X(2, 1, 0, 3) X(4, 2, 1, 5) X(8, 4, 2, 9) X(16, 8, 4, 17) X(32, 16, 8, 33) X(64, 32, 16, 65) X(128, 64, 32, 129)

// One asm per (shape, packing) at register count R. The operands are the R
// registers (%0 … %R-1), taddr (%R) and, for 16x32bx2, immHalfSplitoff (%R1).
#define TCGEN_TMEM_LD_SHAPE(S, text, R)                                                                           \
  if constexpr (A.shape == layout::TmemShape::S) {                                                                \
    if constexpr (A.pack)                                                                                         \
      asm volatile("tcgen05.ld.sync.aligned." text ".pack::16b.b32 {" TCGEN_TMEM_PLACEHOLDERS_##R "}, [%" #R "];" \
                   : TCGEN_TMEM_OPERANDS_##R("=r", r, 0) : "r"(t) : "memory");                                    \
    else                                                                                                          \
      asm volatile("tcgen05.ld.sync.aligned." text ".b32 {" TCGEN_TMEM_PLACEHOLDERS_##R "}, [%" #R "];"           \
                   : TCGEN_TMEM_OPERANDS_##R("=r", r, 0) : "r"(t) : "memory");                                    \
  }
#define TCGEN_TMEM_LD_SPLIT(text, R, R1)                                                                                   \
  if constexpr (A.shape == layout::TmemShape::s16x32bx2) {                                                                  \
    if constexpr (A.pack)                                                                                                   \
      asm volatile("tcgen05.ld.sync.aligned." text ".pack::16b.b32 {" TCGEN_TMEM_PLACEHOLDERS_##R "}, [%" #R "], %" #R1 ";" \
                   : TCGEN_TMEM_OPERANDS_##R("=r", r, 0) : "r"(t), "n"(split) : "memory");                                 \
    else                                                                                                                    \
      asm volatile("tcgen05.ld.sync.aligned." text ".b32 {" TCGEN_TMEM_PLACEHOLDERS_##R "}, [%" #R "], %" #R1 ";"           \
                   : TCGEN_TMEM_OPERANDS_##R("=r", r, 0) : "r"(t), "n"(split) : "memory");                                 \
  }
#define TCGEN_TMEM_ST_SHAPE(S, text, R)                                                                             \
  if constexpr (A.shape == layout::TmemShape::S) {                                                                  \
    if constexpr (A.pack)                                                                                           \
      asm volatile("tcgen05.st.sync.aligned." text ".unpack::16b.b32 [%" #R "], {" TCGEN_TMEM_PLACEHOLDERS_##R "};" \
                   :: TCGEN_TMEM_OPERANDS_##R("r", r, 0), "r"(t) : "memory");                                       \
    else                                                                                                            \
      asm volatile("tcgen05.st.sync.aligned." text ".b32 [%" #R "], {" TCGEN_TMEM_PLACEHOLDERS_##R "};"             \
                   :: TCGEN_TMEM_OPERANDS_##R("r", r, 0), "r"(t) : "memory");                                       \
  }
#define TCGEN_TMEM_ST_SPLIT(text, R, R1)                                                                                      \
  if constexpr (A.shape == layout::TmemShape::s16x32bx2) {                                                                     \
    if constexpr (A.pack)                                                                                                      \
      asm volatile("tcgen05.st.sync.aligned." text ".unpack::16b.b32 [%" #R "], %" #R1 ", {" TCGEN_TMEM_PLACEHOLDERS_##R "};" \
                   :: TCGEN_TMEM_OPERANDS_##R("r", r, 0), "r"(t), "n"(split) : "memory");                                     \
    else                                                                                                                       \
      asm volatile("tcgen05.st.sync.aligned." text ".b32 [%" #R "], %" #R1 ", {" TCGEN_TMEM_PLACEHOLDERS_##R "};"             \
                   :: TCGEN_TMEM_OPERANDS_##R("r", r, 0), "r"(t), "n"(split) : "memory");                                     \
  }
// All shapes that move R registers.
#define TCGEN_TMEM_LD(R, N2, N4, R1)                   \
  if constexpr (registers == R) {                      \
    TCGEN_TMEM_LD_SHAPE(s32x32b, "32x32b.x" #R, R)     \
    TCGEN_TMEM_LD_SHAPE(s16x64b, "16x64b.x" #R, R)     \
    TCGEN_TMEM_LD_SHAPE(s16x128b, "16x128b.x" #N2, R)  \
    TCGEN_TMEM_LD_SHAPE(s16x256b, "16x256b.x" #N4, R)  \
    TCGEN_TMEM_LD_SPLIT("16x32bx2.x" #R, R, R1)        \
  }
#define TCGEN_TMEM_ST(R, N2, N4, R1)                   \
  if constexpr (registers == R) {                      \
    TCGEN_TMEM_ST_SHAPE(s32x32b, "32x32b.x" #R, R)     \
    TCGEN_TMEM_ST_SHAPE(s16x64b, "16x64b.x" #R, R)     \
    TCGEN_TMEM_ST_SHAPE(s16x128b, "16x128b.x" #N2, R)  \
    TCGEN_TMEM_ST_SHAPE(s16x256b, "16x256b.x" #N4, R)  \
    TCGEN_TMEM_ST_SPLIT("16x32bx2.x" #R, R, R1)        \
  }

namespace tcgen::tmem {

template <layout::TmemAccess A>
struct Atom {
  // (thread, register[, half]) -> lane + 128·column from taddr; refuses an illegal A with its sentence.
  static constexpr layout::Layout map = layout::thread_map<A>();
  static constexpr int registers = static_cast<int>(A.registers());
  static constexpr int lanes = static_cast<int>(layout::access_lanes(A.shape));
  static constexpr int columns = static_cast<int>(A.columns());
  static constexpr int split = static_cast<int>(A.split());  // 16x32bx2: the second half at taddr + split columns
  using Registers = std::uint32_t[registers];

  // Thread t's register i gets the cell map(t, i) from taddr (two 16-bit
  // halves, low then high, with .pack::16b).
  static __device__ void load(TmemAddress taddr, Registers& r) {
    check_warp_access(taddr, lanes, columns, "tcgen05.ld");
    const std::uint32_t t = taddr.raw();
    TCGEN_TMEM_ARITIES(TCGEN_TMEM_LD)
  }
  static __device__ void store(TmemAddress taddr, const Registers& r) {
    check_warp_access(taddr, lanes, columns, "tcgen05.st");
    const std::uint32_t t = taddr.raw();
    TCGEN_TMEM_ARITIES(TCGEN_TMEM_ST)
  }
};

}  // namespace tcgen::tmem

#undef TCGEN_TMEM_ST
#undef TCGEN_TMEM_LD
#undef TCGEN_TMEM_ST_SPLIT
#undef TCGEN_TMEM_ST_SHAPE
#undef TCGEN_TMEM_LD_SPLIT
#undef TCGEN_TMEM_LD_SHAPE
#undef TCGEN_TMEM_ARITIES
#undef TCGEN_TMEM_OPERANDS_128
#undef TCGEN_TMEM_OPERANDS_64
#undef TCGEN_TMEM_OPERANDS_32
#undef TCGEN_TMEM_OPERANDS_16
#undef TCGEN_TMEM_OPERANDS_8
#undef TCGEN_TMEM_OPERANDS_4
#undef TCGEN_TMEM_OPERANDS_2
#undef TCGEN_TMEM_OPERANDS_1
#undef TCGEN_TMEM_PLACEHOLDERS_128
#undef TCGEN_TMEM_PLACEHOLDERS_64
#undef TCGEN_TMEM_PLACEHOLDERS_32
#undef TCGEN_TMEM_PLACEHOLDERS_16
#undef TCGEN_TMEM_PLACEHOLDERS_8
#undef TCGEN_TMEM_PLACEHOLDERS_4
#undef TCGEN_TMEM_PLACEHOLDERS_2
#undef TCGEN_TMEM_PLACEHOLDERS_1
#undef TCGEN_TMEM_DECADE
