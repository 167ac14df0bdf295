#pragma once
// The PTX interpreter's instruction table (ptx/src/opcodes.def), as `tcgen
// ptx --opcodes` prints it: one row per opcode the interpreter decodes, with
// its family and the fewest operands its syntax takes.
#include <cstdint>
#include <span>
#include <string_view>

namespace tcgen::ptx {

// The concern an opcode belongs to: the decode_*.cpp file its decoder lives in.
enum class Family : std::uint8_t {
  arithmetic, special_function, logic, comparison, move, conversion, address_space,
  memory, control, sync, cp_async, tma, tensormap, tcgen05,
};
std::string_view name(Family f);

struct OpcodeRow {
  std::string_view name;  // the opcode's leading dot-separated parts: "add", "tcgen05.mma"
  Family family;
  std::uint8_t fewest_operands;
};

// The rows in the table's order.
std::span<const OpcodeRow> opcode_table();

}  // namespace tcgen::ptx
