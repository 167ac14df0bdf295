#include "decode.hpp"

#include "tcgen/core/error.hpp"
#include "thread.hpp"

namespace tcgen::ptx {

Opcode::Opcode(std::string_view text) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '.') {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
}

bool Opcode::has(std::string_view suffix) const {
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (parts[i] == suffix) return true;
  return false;
}

int Opcode::which(std::initializer_list<std::string_view> suffixes) const {
  int found = -1, i = 0;
  for (std::string_view s : suffixes) {
    if (has(s)) found = i;
    ++i;
  }
  return found;
}

std::string_view Opcode::starting(std::string_view prefix) const {
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (parts[i].substr(0, prefix.size()) == prefix) return parts[i];
  return {};
}

std::vector<Type> Opcode::types() const {
  std::vector<Type> out;
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (auto t = parse_type(parts[i])) out.push_back(*t);
  return out;
}

Type Opcode::type() const {
  const std::vector<Type> t = types();
  return t.empty() ? Type::none : t.back();
}

Space Opcode::space() const {
  for (std::size_t i = 1; i < parts.size(); ++i) {
    const std::string_view p = parts[i];
    if (p == "global") return Space::global;
    if (p == "shared" || p.substr(0, 8) == "shared::") return Space::shared;
    if (p == "local") return Space::local;
    if (p == "param" || p.substr(0, 7) == "param::") return Space::param;
    if (p == "const") return Space::const_;
  }
  return Space::generic;
}

namespace {

// The fewest operands each opcode reads or writes (its PTX syntax), checked
// once so that no handler reads past its operands.
std::size_t fewest_operands(std::string_view base) {
  static const std::pair<std::string_view, std::size_t> table[] = {
      {"add", 3}, {"sub", 3}, {"mul", 3}, {"div", 3}, {"rem", 3}, {"min", 3}, {"max", 3}, {"and", 3}, {"or", 3},
      {"xor", 3}, {"shl", 3}, {"shr", 3}, {"copysign", 3}, {"setp", 3}, {"mad", 4}, {"fma", 4}, {"selp", 4},
      {"bfe", 4}, {"prmt", 4}, {"shf", 4}, {"lop3", 5}, {"bfi", 5}, {"neg", 2}, {"abs", 2}, {"not", 2}, {"cnot", 2},
      {"mov", 2}, {"cvt", 2}, {"cvta", 2}, {"popc", 2}, {"clz", 2}, {"brev", 2}, {"bfind", 2}, {"rcp", 2},
      {"sqrt", 2}, {"rsqrt", 2}, {"ex2", 2}, {"lg2", 2}, {"sin", 2}, {"cos", 2}, {"tanh", 2}, {"isspacep", 2},
      {"ld", 2}, {"ldu", 2}, {"st", 2}, {"atom", 3}, {"red", 2}, {"shfl", 5}, {"vote", 3}, {"mapa", 3},
  };
  for (const auto& [name, n] : table)
    if (name == base) return n;
  return 0;
}

}  // namespace

bool decode(Instruction& in, std::string& why) {
  const Opcode op(in.opcode);
  in.type = op.type();
  in.space = op.space();
  if (in.ops.size() < fewest_operands(op.base())) {
    why = std::to_string(in.ops.size()) + " operands where " + std::string(op.base()) + " takes at least " +
          std::to_string(fewest_operands(op.base()));
    return false;
  }
  for (auto family : {decode_alu, decode_memory, decode_control, decode_sync, decode_tma, decode_cp_async, decode_tensormap,
                      decode_tcgen05})
    if (family(op, in, why)) return true;
  if (why.empty()) why = "no handler for this opcode";
  return false;
}

void run_nothing(Thread&, const Instruction&) {}

void run_unsupported(Thread&, const Instruction& in) {
  fault("opcode", in.opcode,
        "an instruction the host model's PTX interpreter runs (`tcgen ptx FILE.ptx` lists those it does not)");
}

}  // namespace tcgen::ptx
