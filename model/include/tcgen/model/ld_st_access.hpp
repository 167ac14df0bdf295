#pragma once
// tcgen05.ld / tcgen05.st: shape, .num and packing of one warp-collective
// access, and which Tensor Memory cell each thread's register holds.
//
// Written for the model from the formulas of tcgen05-facts.md §5 ("Exact
// (thread t, register i) -> (lane offset, column offset)", derived from
// CUTLASS Copy_Traits<SM100_TMEM_LOAD_*>; PTX #tcgen05-matrix-fragments draws
// them), on purpose without the layout library, so the two can be compared.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace tcgen::model {

enum class LdStShape { s32x32b, s16x64b, s16x128b, s16x256b, s16x32bx2 };

const char* name(LdStShape shape);

struct LdStAccess {
  LdStShape shape = LdStShape::s32x32b;
  int num = 1;          // .x1 ... .x128
  bool pack = false;    // .pack::16b (ld) / .unpack::16b (st)
  int half_split = 0;   // 16x32bx2 only: immHalfSplitoff, in columns, added to taddr for threads 16-31
};

// Lanes one access covers from taddr's lane: 32 for 32x32b, 16 for the 16x* shapes.
int lanes(LdStShape shape);
// 32-bit registers per thread (PTX Table 49 #tcgen05-instructions-tcgen05-ld, Table 50 for st).
int registers(const LdStAccess& access);
// An empty string when PTX allows the access, else why not.
std::string problem(const LdStAccess& access);
// "tcgen05.ld.sync.aligned.16x256b.x1.b32", "tcgen05.st.sync.aligned.32x32b.x2.unpack::16b.b32".
std::string instruction_name(bool load, const LdStAccess& access);

// The cell holding half `half` of thread t's register i, relative to taddr.
// Unpacked, half is 0 and the cell holds the whole register. Packed, half 0
// is register bits [0,16) in column 2c and half 1 bits [16,32) in column
// 2c+1, each in the cell's low 16 bits, c being the unpacked column (PTX
// #tcgen05-tensor-memory-ld-st-packing-unpacking).
struct CellOffset {
  int lane, column;
};
CellOffset cell_offset(const LdStAccess& access, int thread, int reg, int half);

// A warp's registers: regs[thread][i] is register i of thread `thread`.
using WarpRegisters = std::array<std::vector<std::uint32_t>, 32>;
// Where each register's 4 bytes came from in global memory (0: unknown), as WarpRegisters.
using WarpSources = std::array<std::vector<std::uint64_t>, 32>;

}  // namespace tcgen::model
