#include "ptx_kernel.hpp"

#include <regex>
#include <stdexcept>

namespace tcgen::conformance {
namespace {

const std::regex kPlaceholder(R"(%(\w+):(b8|b16|b32|b64|pred))");

int bits_of(const std::string& type) {
  if (type == "pred") return 1;
  return std::stoi(type.substr(1));
}

// A register's declared type: predicates as .pred, the rest as untyped bits, which PTX lets any
// instruction of that width use (PTX ISA #operand-type-information).
std::string reg_type(int bits) { return bits == 1 ? ".pred" : ".b" + std::to_string(bits); }

// Load or store of one operand at byte offset `at` of the thread's slot pointer.
std::string access(const Operand& o, bool load, std::uint32_t at, const std::string& ptr) {
  const std::string addr = "[" + ptr + "+" + std::to_string(at) + "]";
  if (o.bits == 1) {
    return load ? "\tld.global.u32 \t%cz_t, " + addr + ";\n\tsetp.ne.u32 \t%" + o.name + ", %cz_t, 0;\n"
                : "\tselp.u32 \t%cz_t, 1, 0, %" + o.name + ";\n\tst.global.u32 \t" + addr + ", %cz_t;\n";
  }
  const std::string t = ".b" + std::to_string(o.bits);
  return load ? "\tld.global" + t + " \t%" + o.name + ", " + addr + ";\n"
              : "\tst.global" + t + " \t" + addr + ", %" + o.name + ";\n";
}

}  // namespace

std::vector<Operand> placeholders(const std::string& tmpl) {
  std::vector<Operand> out;
  for (std::sregex_iterator it(tmpl.begin(), tmpl.end(), kPlaceholder), end; it != end; ++it) {
    const std::string name = (*it)[1];
    bool seen = false;
    for (const Operand& o : out) seen |= o.name == name;
    if (!seen) out.push_back({name, bits_of((*it)[2])});
  }
  return out;
}

std::string instruction_text(const std::string& tmpl) {
  std::string text = std::regex_replace(tmpl, kPlaceholder, "%$1");
  std::string out;
  std::size_t start = 0;
  while (true) {  // " ; " separates the instructions of a carry chain
    const std::size_t at = text.find(" ; ", start);
    std::string insn = text.substr(start, at == std::string::npos ? std::string::npos : at - start);
    if (insn.rfind("* ", 0) == 0) insn = insn.substr(2);  // the form marker (README, table format)
    out += "\t" + insn + ";\n";
    if (at == std::string::npos) break;
    start = at + 3;
  }
  return out;
}

Kernel synthesize(const std::string& tmpl, const std::vector<std::string>& inputs, const std::string& target) {
  Kernel k;
  const std::vector<Operand> all = placeholders(tmpl);
  for (const std::string& name : inputs) {
    bool found = false;
    for (const Operand& o : all) {
      if (o.name == name) k.inputs.push_back(o), found = true;
    }
    if (!found) throw std::runtime_error("input " + name + " is not a placeholder of: " + tmpl);
  }
  for (const Operand& o : all) {
    bool input = false;
    for (const std::string& name : inputs) input |= o.name == name;
    if (!input) k.outputs.push_back(o);
  }
  k.in_stride = 8 * static_cast<std::uint32_t>(std::max<std::size_t>(1, k.inputs.size()));
  k.out_stride = 8 * static_cast<std::uint32_t>(std::max<std::size_t>(1, k.outputs.size()));
  std::string s = ".version 8.8\n.target " + target + "\n.address_size 64\n\n"
                  ".visible .entry conformance(\n\t.param .u64 p_in,\n\t.param .u64 p_out,\n\t.param .u32 p_n\n)\n{\n"
                  "\t.reg .pred \t%cz_p;\n\t.reg .b32 \t%cz_t, %cz_i, %cz_n, %cz_x;\n"
                  "\t.reg .b64 \t%cz_in, %cz_out, %cz_o;\n";
  for (const Operand& o : all) s += "\t.reg " + reg_type(o.bits) + " \t%" + o.name + ";\n";
  s += "\tld.param.u64 \t%cz_in, [p_in];\n\tld.param.u64 \t%cz_out, [p_out];\n\tld.param.u32 \t%cz_n, [p_n];\n"
       "\tmov.u32 \t%cz_i, %ctaid.x;\n\tmov.u32 \t%cz_x, %ntid.x;\n\tmul.lo.u32 \t%cz_i, %cz_i, %cz_x;\n"
       "\tmov.u32 \t%cz_x, %tid.x;\n\tadd.u32 \t%cz_i, %cz_i, %cz_x;\n"
       "\tsetp.ge.u32 \t%cz_p, %cz_i, %cz_n;\n\t@%cz_p bra \tDONE;\n";
  s += "\tmul.wide.u32 \t%cz_o, %cz_i, " + std::to_string(k.in_stride) + ";\n\tadd.s64 \t%cz_in, %cz_in, %cz_o;\n";
  s += "\tmul.wide.u32 \t%cz_o, %cz_i, " + std::to_string(k.out_stride) + ";\n\tadd.s64 \t%cz_out, %cz_out, %cz_o;\n";
  for (std::size_t i = 0; i < k.inputs.size(); ++i) s += access(k.inputs[i], true, 8 * i, "%cz_in");
  s += instruction_text(tmpl);
  for (std::size_t i = 0; i < k.outputs.size(); ++i) s += access(k.outputs[i], false, 8 * i, "%cz_out");
  s += "DONE:\n\tret;\n}\n";
  k.ptx = std::move(s);
  return k;
}

}  // namespace tcgen::conformance
