// The instruction table's forms (ptx/src/opcodes.def): every form it names
// parses; every opcode of the sm_100a kernels known to run on B200s is one of
// them; and no form is accepted with one operand more or with a modifier no
// row names, so that no handler runs with an operand or modifier ignored.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tcgen/core/error.hpp"
#include "tcgen/ptx/module.hpp"
#include "tcgen/ptx/opcode_table.hpp"

using namespace tcgen;

namespace {

// tests/data/ptx_opcodes_sm100.txt: the opcodes, one a line, '#' lines its source.
std::vector<std::string> silicon_opcodes() {
  std::ifstream in(std::string(TCGEN_SOURCE_DIR) + "/tests/data/ptx_opcodes_sm100.txt");
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

// "add.rz.f32 3" or "ld.global 2-3" → the opcode and the most operands.
std::pair<std::string, unsigned> opcode_and_most(const std::string& form) {
  const std::size_t space = form.rfind(' '), dash = form.find('-', space);
  return {form.substr(0, space), static_cast<unsigned>(std::stoul(form.substr(dash == std::string::npos ? space + 1 : dash + 1)))};
}

// The interpreter's verdict on one instruction, as `tcgen ptx` lists it: "" when it runs.
std::string refusal(const std::string& instruction, const std::string& registers) {
  const std::string text = ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{\n" + registers + "\n" +
                           instruction + "\nret;\n}\n";
  const ptx::Module m = ptx::Module::parse(text, "forms.ptx");
  const ptx::Function& f = m.functions().front();
  return f.unsupported.empty() ? "" : f.unsupported.front().missing;
}

}  // namespace

TEST_CASE("every row's forms parse, and each row takes some operand count") {
  std::size_t patterns = 0;
  for (const ptx::OpcodeRow& row : ptx::opcode_table()) {
    INFO("row ", row.name);
    const std::vector<std::string> forms = ptx::form_patterns(row);
    CHECK(!forms.empty());
    CHECK(!ptx::expanded_forms(row).empty());
    patterns += forms.size();
  }
  CHECK(patterns >= ptx::opcode_table().size());
}

TEST_CASE("every opcode of the sm_100a kernels known to run on B200s is a form the interpreter runs") {
  const std::vector<std::string> opcodes = silicon_opcodes();
  REQUIRE(opcodes.size() > 400);
  for (const std::string& opcode : opcodes) {
    INFO(opcode);
    CHECK(ptx::runs_form(opcode, ptx::kAnyCount));
  }
}

TEST_CASE("no form runs with one more operand, or with a modifier no row names (PTX #instruction-statements)") {
  // The spelled-out forms: each with its count; refused with one operand more than any form of its
  // opcode takes, or with a modifier added.
  std::map<std::string, unsigned> most_of;
  for (const ptx::OpcodeRow& row : ptx::opcode_table())
    for (const std::string& form : ptx::expanded_forms(row))
      if (form.find('*') == std::string::npos) {  // a set in any order: the silicon list below
        const auto [opcode, most] = opcode_and_most(form);
        most_of[opcode] = std::max(most_of[opcode], most);
      }
  std::size_t checked = 0;
  for (const auto& [opcode, most] : most_of) {
    INFO(opcode, " with ", most, " operands at most");
    CHECK(ptx::runs_form(opcode, most));
    CHECK_FALSE(ptx::runs_form(opcode, most + 1));
    CHECK_FALSE(ptx::runs_form(opcode + ".bogus", most));
    ++checked;
  }
  CHECK(checked > 1000);
  // The rows written as sets: each silicon-proven opcode with a modifier added.
  for (const std::string& opcode : silicon_opcodes()) {
    INFO(opcode);
    CHECK_FALSE(ptx::runs_form(opcode + ".bogus", ptx::kAnyCount));
  }
}

TEST_CASE("a form not modelled is refused at load, naming the nearest form the interpreter runs") {
  const std::string regs = ".reg .b32 %r<8>;\n.reg .f32 %f<8>;\n.reg .b16 %rs<8>;";
  CHECK(refusal("add.rn.f32 %f1, %f2, %f3;", regs).empty());
  const std::string modifier = refusal("add.rn.bogus.f32 %f1, %f2, %f3;", regs);
  CHECK(modifier.find("not modelled: add.rn.bogus.f32 with 3 operands") != std::string::npos);
  CHECK(modifier.find("the nearest form the interpreter runs is add.rn.f32 with 3 operands") != std::string::npos);
  const std::string extra = refusal("lop3.b32 %r1, %r2, %r3, %r4, 0x96, %r5;", regs);
  CHECK(extra.find("not modelled: lop3.b32 with 6 operands") != std::string::npos);
  CHECK(extra.find("lop3.b32 with 5 operands") != std::string::npos);
  // Each form's own nearest one, also after another form of the row was refused (nearest_form
  // remembers what it found, by the whole opcode and count).
  const std::string rz = refusal("add.rz.bogus.f32 %f1, %f2, %f3;", regs);
  CHECK(rz.find("the nearest form the interpreter runs is add.rz.f32 with 3 operands") != std::string::npos);
  CHECK(refusal("add.rn.bogus.f32 %f1, %f2, %f3;", regs) == modifier);
}

TEST_CASE("setp without a comparison is refused, not read past its opcode's parts (found by fuzz_ptx_module)") {
  // Decoding read the comparison as the opcode's second part, which setp alone lacks: a heap read
  // past a vector that only the asan preset sees; both are refused as forms the interpreter lacks.
  const std::string regs = ".reg .pred %p<4>;\n.reg .f32 %f<8>;";
  CHECK(refusal("setp.lt.f32 %p1, %f2, %f3;", regs).empty());
  CHECK(refusal("setp %f1, %f2, %f3, %f4;", regs).find("not modelled: setp with 4 operands") != std::string::npos);
  CHECK(refusal("setp.f32 %p1, %f2, %f3;", regs).find("not modelled: setp.f32 with 3 operands") != std::string::npos);
}
