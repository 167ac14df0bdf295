#pragma once
// The conformance table (tests/conformance/README.md): reading it, and judging a result against a
// vector's check. Plain C++, shared by run_vectors and the device twin.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tcgen::conformance {

struct Vector {
  std::string tmpl;
  std::vector<std::pair<std::string, std::uint64_t>> inputs, expected;
  std::string check;  // as in the table
  int sm = 90;
  std::string isa;
  int line = 0;
};

// The table's vectors in file order; throws std::runtime_error naming a malformed line.
std::vector<Vector> read_table(const std::string& path);

// The opcodes of a template: the first token of each " ; "-separated instruction.
std::vector<std::string> opcodes(const std::string& tmpl);

// The instruction a template's vectors judge (its form): the one marked with a leading "* "
// (a carry chain whose form needs CC.CF set by an instruction before it), else the first.
std::string form_instruction(const std::string& tmpl);

// Whether `got` (a destination of `bits` bits) passes `check` against `expected`.
bool passes(const std::string& check, std::uint64_t expected, std::uint64_t got, int bits);

}  // namespace tcgen::conformance
