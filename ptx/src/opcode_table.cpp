// The rows of opcodes.def as data (opcode_table.hpp) and the lookup decode() uses.
#include "opcode_table_lookup.hpp"

#include <unordered_map>

namespace tcgen::ptx {

namespace {

constexpr OpcodeRow kRows[] = {
#define PTX_OPCODE(name, family, decoder, forms) {name, Family::family, forms},
#include "opcodes.def"
#undef PTX_OPCODE
};

constexpr Decoder kDecoders[] = {
#define PTX_OPCODE(name, family, decoder, forms) &decoder,
#include "opcodes.def"
#undef PTX_OPCODE
};

}  // namespace

std::string_view name(Family f) {
  switch (f) {
    case Family::arithmetic: return "arithmetic";
    case Family::special_function: return "special_function";
    case Family::logic: return "logic";
    case Family::comparison: return "comparison";
    case Family::move: return "move";
    case Family::conversion: return "conversion";
    case Family::address_space: return "address_space";
    case Family::memory: return "memory";
    case Family::control: return "control";
    case Family::sync: return "sync";
    case Family::cp_async: return "cp_async";
    case Family::tma: return "tma";
    case Family::tensormap: return "tensormap";
    case Family::tcgen05: return "tcgen05";
    case Family::warp_mma: return "warp_mma";
  }
  return "?";
}

std::span<const OpcodeRow> opcode_table() { return kRows; }

std::optional<OpcodeEntry> find_opcode(const Opcode& op) {
  static const std::unordered_map<std::string_view, std::size_t> by_name = [] {
    std::unordered_map<std::string_view, std::size_t> m;
    for (std::size_t i = 0; i < std::size(kRows); ++i) m.emplace(kRows[i].name, i);
    return m;
  }();
  // The longest leading run of parts that names a row: "cp.async.bulk.tensor.2d..." is cp.async.bulk.tensor's.
  const char* start = op.parts.front().data();
  for (std::size_t n = op.parts.size(); n > 0; --n) {
    const std::string_view last = op.parts[n - 1];
    const std::string_view name(start, static_cast<std::size_t>(last.data() + last.size() - start));
    if (const auto it = by_name.find(name); it != by_name.end()) return OpcodeEntry{kRows[it->second], kDecoders[it->second]};
  }
  return std::nullopt;
}

bool names_rows(std::string_view first_part) {
  for (const OpcodeRow& row : kRows)
    if (row.name.size() > first_part.size() && row.name.substr(0, first_part.size()) == first_part &&
        row.name[first_part.size()] == '.')
      return true;
  return false;
}

}  // namespace tcgen::ptx
