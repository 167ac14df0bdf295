#pragma once
// The forms an instruction-table row runs (opcodes.def's forms column),
// parsed once: whether an opcode with its operand count is one of them, and
// the nearest one when it is not. A form the table does not name is refused
// at decode, so no instruction runs with a modifier or operand ignored.
#include <cstddef>
#include <string>

#include "decode.hpp"
#include "tcgen/ptx/opcode_table.hpp"

namespace tcgen::ptx {

// Whether op (its parts after the row's name) with `operands` operands is one of the row's forms.
bool accepts(const OpcodeRow& row, const Opcode& op, std::size_t operands);

// The row's form nearest to op (the fewest parts added or dropped, then the operand count), as
// "add.rn.f32 with 3 operands".
std::string nearest_form(const OpcodeRow& row, const Opcode& op, std::size_t operands);

}  // namespace tcgen::ptx
