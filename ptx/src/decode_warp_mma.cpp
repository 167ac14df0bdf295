// mma.sync: the warp-level matrix multiply-accumulate of Ampere and later, D = A·B + C for one
// 16×8 tile, each lane holding fragments of A, B, C and D in registers
// (PTX #warp-level-matrix-instructions-mma). The forms run here take f16 or bf16 A and B and f32 C
// and D, A row-major and B column-major (.row.col), K = 16 or 8.
#include <bit>

#include "alu.hpp"
#include "tcgen/core/element_type.hpp"

namespace tcgen::ptx {

namespace {

struct MmaModifiers {
  int k;             // 16 or 8
  ElementType type;  // A's and B's: fp16 or bf16
};

// One lane's registers: A's (k / 4 of them, two elements each, the lower index in the low half), B's
// (k / 8), C's and, once run, D's; and the origin of the first undefined one it read (0: none).
struct MmaFrame {
  std::uint32_t a[4], b[2];
  float c[4], d[4];
  std::uint32_t origin;
};

// The fragments' elements, PTX #warp-level-matrix-fragment-mma-16816-float and -mma-1688-float:
// groupID = lane / 4, threadID_in_group = lane % 4; A's element i at row groupID + 8·(i / 2 % 2),
// column 2·threadID_in_group + i % 2 + 8·(i / 4); B's element i at row (K index)
// 2·threadID_in_group + i % 2 + 8·(i / 2), column groupID; C's and D's element i at row
// groupID + 8·(i / 2), column 2·threadID_in_group + i % 2.
void multiply(const MmaModifiers& m, const std::array<MmaFrame*, 32>& lanes) {
  float a[16][16], b[16][8];
  for (int lane = 0; lane < 32; ++lane) {
    const int group = lane / 4, thread = lane % 4;
    const MmaFrame& f = *lanes[static_cast<std::size_t>(lane)];
    for (int i = 0; i < m.k / 2; ++i)
      a[group + 8 * (i / 2 % 2)][2 * thread + i % 2 + 8 * (i / 4)] = decode(m.type, f.a[i / 2] >> 16 * (i % 2) & 0xFFFFu);
    for (int i = 0; i < m.k / 4; ++i)
      b[2 * thread + i % 2 + 8 * (i / 2)][group] = decode(m.type, f.b[i / 2] >> 16 * (i % 2) & 0xFFFFu);
  }
  // Each product of two f16 or bf16 values is exact in f32; they are added to C one at a time in K
  // order, in f32, as the model adds tcgen05.mma's (model/src/mma_math.cpp). The tensor cores' own
  // order and internal precision are NVIDIA's: results that round differ from silicon's in low bits.
  for (int lane = 0; lane < 32; ++lane) {
    const int group = lane / 4, thread = lane % 4;
    MmaFrame& f = *lanes[static_cast<std::size_t>(lane)];
    for (int i = 0; i < 4; ++i) {
      const int row = group + 8 * (i / 2), column = 2 * thread + i % 2;
      float sum = f.c[i];
      for (int k = 0; k < m.k; ++k) sum += a[row][k] * b[k][column];
      f.d[i] = sum;
    }
  }
}

// mma.sync.aligned.shape.row.col.f32.atype.btype.f32 {d}, {a}, {b}, {c}: all 32 lanes at once.
void mma_sync(Thread& t, const Instruction& in) {
  const MmaModifiers m = in.modifiers.get<MmaModifiers>();
  const Operand &d = in.ops[0], &a = in.ops[1], &b = in.ops[2], &c = in.ops[3];
  MmaFrame frame{};
  for (std::uint32_t i = 0; i < a.count; ++i) frame.a[i] = t.get<std::uint32_t>(in.elements[a.first + i]);
  for (std::uint32_t i = 0; i < b.count; ++i) frame.b[i] = t.get<std::uint32_t>(in.elements[b.first + i]);
  for (std::uint32_t i = 0; i < c.count; ++i) frame.c[i] = t.get<float>(in.elements[c.first + i]);
  frame.origin = t.taint();
  std::uint32_t origin = 0;  // the first undefined source of any lane: every D element may depend on it
  t.runtime().collective(t.linear(), {in.opcode, true, t.site(in)}, 0xFFFFFFFFu, frame,
                         [&](const std::array<MmaFrame*, 32>& lanes) {
                           multiply(m, lanes);
                           for (const MmaFrame* f : lanes) origin = origin ? origin : f->origin;
                           for (MmaFrame* f : lanes) f->origin = origin;
                         });
  t.clear_taint();
  for (std::uint32_t i = 0; i < d.count; ++i) t.set<float>(in.elements[d.first + i], frame.d[i], frame.origin);
}

}  // namespace

bool decode_mma_sync(const Opcode& op, Instruction& in, std::string& why) {
  const std::vector<Type> types = op.types();  // D's, A's, B's, C's
  const int k = op.has("m16n8k16") ? 16 : 8;
  const std::uint32_t counts[4] = {4, static_cast<std::uint32_t>(k / 4), static_cast<std::uint32_t>(k / 8), 4};
  for (int i = 0; i < 4; ++i)
    if (in.ops.size() != 4 || in.ops[i].kind != Operand::Kind::vector || in.ops[i].count != counts[i]) {
      why = "{d0..d3}, {a0..a" + std::to_string(counts[1] - 1) + "}, {b0" + (k == 16 ? "..b1" : "") +
            "}, {c0..c3}: the vectors of registers the fragments of a m16n8k" + std::to_string(k) + " tile take";
      return false;
    }
  if (types.size() != 4 || types[1] != types[2]) {
    why = "A and B of one type, .f16 or .bf16 (PTX #warp-level-matrix-instructions-mma)";
    return false;
  }
  in.modifiers.set(MmaModifiers{.k = k, .type = types[1] == Type::bf16 ? ElementType::bf16 : ElementType::fp16});
  in.run = &mma_sync;
  return true;
}

}  // namespace tcgen::ptx
