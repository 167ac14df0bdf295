#pragma once
// The instruction table's rows with their decoders, found by an opcode's text.
#include <optional>

#include "decode.hpp"
#include "tcgen/ptx/opcode_table.hpp"

namespace tcgen::ptx {

struct OpcodeEntry {
  const OpcodeRow& row;
  Decoder decode;
};

// The row whose name is the longest leading run of op's parts, or none.
std::optional<OpcodeEntry> find_opcode(const Opcode& op);

// Whether some row's name starts with first_part and a dot ("tcgen05": tcgen05.mma, ...).
bool names_rows(std::string_view first_part);

}  // namespace tcgen::ptx
