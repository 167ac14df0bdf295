#pragma once
// The two value types the model's arithmetic passes between its steps: which
// tcgen05.mma kind runs, and an operand decoded out of shared memory.
#include <cstdint>
#include <vector>

namespace tcgen::model {

// The non-block-scaled kinds of tcgen05.mma (PTX #tcgen05-mma, #tcgen05-kind-shapes).
enum class MmaKind : std::uint8_t { f16, tf32, f8f6f4, i8 };

constexpr const char* name(MmaKind k) {
  switch (k) {
    case MmaKind::f16: return "f16";
    case MmaKind::tf32: return "tf32";
    case MmaKind::f8f6f4: return "f8f6f4";
    case MmaKind::i8: return "i8";
  }
  return "?";
}

// Dense K of one instruction: "K cannot be explicitly specified but is
// implicitly determined by the MMA-kind" (PTX #tcgen05-kind-shapes Table 39):
// 256 bits of K, i.e. 16 16-bit, 8 tf32 or 32 8-bit (or padded 6/4-bit) values.
constexpr int k_per_instruction(MmaKind k) {
  switch (k) {
    case MmaKind::f16: return 16;
    case MmaKind::tf32: return 8;
    case MmaKind::f8f6f4: return 32;
    case MmaKind::i8: return 32;
  }
  return 0;
}

// One MMA operand as exact element values: A (rows = M) or B (rows = N),
// row-major rows × k, whatever its major-ness in shared memory was.
struct Operand {
  int rows = 0, k = 0;
  std::vector<float> values;

  float at(int row, int kk) const { return values[static_cast<std::size_t>(row) * k + kk]; }
};

}  // namespace tcgen::model
