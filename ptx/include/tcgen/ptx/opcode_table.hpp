#pragma once
// The PTX interpreter's instruction table (ptx/src/opcodes.def), as `tcgen
// ptx --opcodes` and `--forms` print it: one row per opcode the interpreter
// decodes, with its family and the forms it runs (modifiers, types and
// operand counts); any other form of the opcode is refused at decode.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tcgen::ptx {

// The concern an opcode belongs to: the decode_*.cpp file its decoder lives in.
enum class Family : std::uint8_t {
  arithmetic, special_function, logic, comparison, move, conversion, address_space,
  memory, control, sync, cp_async, tma, tensormap, tcgen05, warp_mma,
};
std::string_view name(Family f);

struct OpcodeRow {
  std::string_view name;   // the opcode's leading dot-separated parts: "add", "tcgen05.mma"
  Family family;
  std::string_view forms;  // opcodes.def's forms column: "add.(u16|u32) 3; add{.rn|.rz}.f32 3"
};

// The rows in the table's order.
std::span<const OpcodeRow> opcode_table();

// The row's forms as written, one pattern each, with their operand counts ("add{.rn|.rz}.f32 3").
std::vector<std::string> form_patterns(const OpcodeRow& row);

// Every form the row accepts, one opcode with its operand count each ("add.rz.f32 3"); a form with a
// set of modifiers in any order (*{...}) stays one pattern.
std::vector<std::string> expanded_forms(const OpcodeRow& row);

// The fewest operands any of the row's forms takes.
unsigned fewest_operands(const OpcodeRow& row);

// Whether the interpreter runs opcode ("add.rn.f32") with `operands` operands (kAnyCount: with some
// count): one of its row's forms, before the row's decoder looks at the instruction's operands.
inline constexpr std::size_t kAnyCount = ~std::size_t{0};
bool runs_form(std::string_view opcode, std::size_t operands);

}  // namespace tcgen::ptx
