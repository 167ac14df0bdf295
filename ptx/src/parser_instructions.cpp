// The PTX reader's instructions and their operands (parser.hpp).
#include "parser.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "decode.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::ptx {

std::optional<std::uint32_t> Parser::find_reg(const std::string& name) const {
  std::string prefix = name;
  std::uint32_t index = 0;
  bool numbered = false;
  std::size_t k = name.size();
  while (k > 0 && name[k - 1] >= '0' && name[k - 1] <= '9') --k;
  if (k < name.size() && k > 0) {
    prefix = name.substr(0, k);
    index = static_cast<std::uint32_t>(std::strtoul(name.c_str() + k, nullptr, 10));
    numbered = true;
  }
  for (int s = current_; s >= 0; s = scopes_[s].parent) {
    const auto it = scopes_[s].regs.find(name);
    if (it != scopes_[s].regs.end()) return it->second;
    if (numbered) {
      const auto r = scopes_[s].ranges.find(prefix);
      if (r != scopes_[s].ranges.end() && index < r->second.count) return r->second.first + index * r->second.slots;
    }
  }
  return std::nullopt;
}

std::pair<const Variable*, std::size_t> Parser::find_symbol(const std::string& name) const {
  for (int s = current_; s >= 0; s = scopes_[s].parent) {
    const auto it = scopes_[s].symbols.find(name);
    if (it != scopes_[s].symbols.end()) return {&it->second, std::string::npos};
    const auto sh = scopes_[s].shared.find(name);
    if (sh != scopes_[s].shared.end()) return {&m_.variables_[sh->second], sh->second};
  }
  for (std::size_t k = 0; k < m_.variables_.size(); ++k)
    if (m_.variables_[k].name == name) return {&m_.variables_[k], k};
  return {nullptr, std::string::npos};
}

void Parser::set_literal(Operand& o, const std::string& w, bool neg) {
  o.kind = Operand::Kind::imm;
  if (w.size() > 2 && w[0] == '0' && (w[1] == 'f' || w[1] == 'F')) {
    const auto bits = static_cast<std::uint32_t>(std::strtoull(w.c_str() + 2, nullptr, 16));
    std::memcpy(&o.f, &bits, 4);
    if (neg) o.f = -o.f;
    std::uint32_t out;
    std::memcpy(&out, &o.f, 4);
    o.ival = out;
    o.d = o.f;
  } else if (w.size() > 2 && w[0] == '0' && (w[1] == 'd' || w[1] == 'D')) {
    const std::uint64_t bits = std::strtoull(w.c_str() + 2, nullptr, 16);
    std::memcpy(&o.d, &bits, 8);
    if (neg) o.d = -o.d;
    std::uint64_t out;
    std::memcpy(&out, &o.d, 8);
    o.ival = static_cast<std::int64_t>(out);
    o.f = static_cast<float>(o.d);
  } else if (w.find_first_of(".eE") != std::string::npos && !(w.size() > 1 && (w[1] == 'x' || w[1] == 'X'))) {
    o.d = std::strtod(w.c_str(), nullptr) * (neg ? -1 : 1);
    o.f = static_cast<float>(o.d);
    // The integer view saturates: converting a double past int64's range (1e30) is undefined.
    o.ival = std::isnan(o.d) ? 0
             : o.d >= 0x1p63 ? std::numeric_limits<std::int64_t>::max()
             : o.d < -0x1p63 ? std::numeric_limits<std::int64_t>::min()
                             : static_cast<std::int64_t>(o.d);
  } else {
    std::string digits = w;
    if (!digits.empty() && (digits.back() == 'U' || digits.back() == 'u')) digits.pop_back();
    int base = 10;
    const char* p = digits.c_str();
    if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
      base = 16;
      p += 2;
    } else if (digits.size() > 1 && digits[0] == '0' && (digits[1] == 'b' || digits[1] == 'B')) {
      base = 2;
      p += 2;
    } else if (digits.size() > 1 && digits[0] == '0') {
      base = 8;
    }
    const std::uint64_t v = std::strtoull(p, nullptr, base);
    o.ival = static_cast<std::int64_t>(neg ? ~v + 1 : v);  // two's complement, also for 2^63
    o.f = static_cast<float>(o.ival);
    o.d = static_cast<double>(o.ival);
  }
}

Operand Parser::name_operand(std::size_t instr, std::size_t op_index, bool neg) {
  Operand o;
  const std::string w(word());
  if (w == "_") {
    o.kind = Operand::Kind::sink;
    return o;
  }
  if ((w[0] >= '0' && w[0] <= '9')) {
    set_literal(o, w, neg);
    return o;
  }
  if (auto sp = special_register(w)) {
    o.kind = Operand::Kind::special;
    o.special = *sp;
    return o;
  }
  if (auto r = find_reg(w)) {
    o.kind = Operand::Kind::reg;
    o.slot = *r;
    o.predicate = *r < predicate_slots_.size() && predicate_slots_[*r];
    return o;
  }
  if (const auto [v, index] = find_symbol(w); v) {
    o.kind = Operand::Kind::imm;
    o.symbol = true;
    symbol_value(o, *v, index, instr, op_index);
    return o;
  }
  // A label (resolved when the function is complete) or a function name.
  o.kind = Operand::Kind::label;
  pending_labels_.push_back({instr, op_index, current_, w});
  return o;
}

void Parser::symbol_value(Operand& o, const Variable& v, std::size_t index, std::size_t instr, std::size_t op_index) {
  if (v.space == Space::shared)
    shared_uses_.push_back({m_.functions_.size(), instr, op_index, index});
  else
    o.ival += static_cast<std::int64_t>(v.address);
  o.f = static_cast<float>(o.ival);
  o.d = static_cast<double>(o.ival);
}

Operand Parser::operand(Function& f, Instruction& in) {
  const std::size_t instr = f.code.size(), index = in.ops.size();
  if (accept("[")) {
    Operand o;
    o.kind = Operand::Kind::address;
    if (peek().kind == Token::Kind::word) {
      const std::string w(peek().text);
      if (auto r = find_reg(w)) {
        next();
        o.slot = *r;
      } else if (const auto [v, vi] = find_symbol(w); v) {
        next();
        symbol_value(o, *v, vi, instr, index);
      } else if (w[0] >= '0' && w[0] <= '9') {
        Operand lit;
        set_literal(lit, std::string(word()), false);
        o.ival = lit.ival;
      } else {
        error("'" + w + "' in an address", "a register, a variable or a number");
      }
    }
    while (is("+") || is("-")) {
      bool neg = next().text == "-";
      if (accept("-")) neg = !neg;
      Operand lit;
      set_literal(lit, std::string(word()), neg);
      o.ival += lit.ival;
    }
    if (accept(",")) {  // [tensorMap, {coords}] and the like: the rest as a vector after the address
      in.ops.push_back(o);
      Operand v = vector(f, in);
      expect("]");
      return v;
    }
    expect("]");
    return o;
  }
  if (is("{") || is("(")) return vector(f, in);  // {a, b} vectors; call's (retval) and (args) lists
  if (accept("!")) {
    Operand o = name_operand(instr, index);
    o.negate = true;
    return o;
  }
  if (accept("-")) return name_operand(instr, index, true);
  return name_operand(instr, index);
}

Operand Parser::vector(Function& f, Instruction& in) {
  const bool paren = accept("(");
  if (!paren) expect("{");
  Operand v;
  v.kind = Operand::Kind::vector;
  v.first = static_cast<std::uint32_t>(in.elements.size());
  if (!is("}") && !is(")")) {
    do {
      bool neg = accept("-");
      in.elements.push_back(name_operand(f.code.size(), 1000 + in.elements.size(), neg));
    } while (accept(","));
  }
  expect(paren ? ")" : "}");
  v.count = static_cast<std::uint32_t>(in.elements.size()) - v.first;
  return v;
}

void Parser::instruction(Function& f) {
  Instruction in;
  const Token& start = peek();
  in.line = start.line;
  in.loc = current_loc_;
  if (accept("@")) {
    const bool neg = accept("!");
    const std::string p(word());
    const auto r = find_reg(p);
    if (!r) error("guard '" + p + "'", "a declared predicate register");
    in.guard = *r;
    in.guard_negated = neg;
  }
  in.opcode = std::string(word());
  if (!is(";")) {
    do {
      Operand o = operand(f, in);
      in.ops.push_back(o);
      if (accept("|")) in.ops.push_back(operand(f, in));  // d|p: two destinations
    } while (accept(","));
  }
  const Token& end = peek();
  expect(";");
  in.text = std::string(start.begin, end.begin);
  std::string why;
  if (!decode(in, why)) {
    f.unsupported.push_back({in.opcode, in.line, why, in.loc});
    in.run = run_unsupported;
  }
  f.code.push_back(std::move(in));
}

void Parser::resolve_labels(Function& f) {
  for (const PendingLabel& p : pending_labels_) {
    std::optional<std::uint32_t> target;
    for (int s = p.scope; s >= 0 && !target; s = scope_parent_[s]) {
      const auto it = labels_.find({s, p.name});
      if (it != labels_.end()) target = it->second;
    }
    const bool declared = std::find(declared_.begin(), declared_.end(), p.name) != declared_.end();
    Instruction& in = f.code[p.instr];
    Operand& o = p.op >= 1000 ? in.elements[p.op - 1000] : in.ops[p.op];
    if (target) {
      o.ival = *target;
    } else if (declared || std::any_of(m_.functions_.begin(), m_.functions_.end(),
                                       [&](const Function& g) { return g.name == p.name; })) {
      o.ival = -1;  // a function: call's target, which the interpreter refuses by name
    } else {
      fail("PTX", m_.name_ + ":" + std::to_string(in.line) + ": '" + p.name + "' in " + in.opcode,
           "a register, variable, label or function declared in scope");
    }
  }
}

}  // namespace tcgen::ptx
