#pragma once
// The PTX reader (Module::parse): a parser without recursion (nesting is counted and bounded) over
// the lexer's tokens for what nvcc emits: module directives, variables, .entry/.func with
// parameters, block-scoped .reg and labels (inline asm repeats both), .loc with inlined_at chains
// and the .debug_str section that names the inlined functions. Each instruction is decoded once
// (decode.hpp). Its module-level and function reading in parser.cpp, its instructions and operands
// in parser_instructions.cpp.
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lexer.hpp"
#include "shared_layout.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::ptx {

class Parser {
 public:
  Parser(std::string_view text, Module& m) : text_(text), m_(m), t_(lex(text, m.name_)) {}

  void run();

 private:
  // ---- tokens
  const Token& peek(std::size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool at_end() const { return peek().kind == Token::Kind::end; }
  const Token& next() { return t_[i_ < t_.size() - 1 ? i_++ : i_]; }
  bool is(std::string_view s, std::size_t k = 0) const { return peek(k).text == s && peek(k).kind != Token::Kind::string; }
  bool accept(std::string_view s);
  [[noreturn]] void error(const std::string& what, const std::string& expected) const;
  void expect(std::string_view s);
  std::string_view word();
  std::uint64_t number();
  void skip_statement();

  // ---- module level
  void module_statement();

  // $L__info_stringN: .b8 c, c, ... 0 — the names .loc's function_name refers to.
  void debug_strings();

  void declaration();

  // .global/.shared/.const/.local [.align N] [.vN] .type name[dims] [= {init}]
  Variable var_spec(bool external);

  // {a, {b, c}, ...} or a scalar, read with a loop and a depth count instead of recursion: a file of
  // 200,000 nested braces overflowed the stack. The depth is bounded too, far above the
  // few levels a multi-dimensional array's initializer needs.
  void initializer(Type type);

  // PTX nests nothing deeper than a handful of levels (nvcc's inline asm blocks, an array's dimensions).
  static constexpr int kMaxNesting = 1000;
  static constexpr std::uint64_t kMaxFileIndex = 65535;  // .file: a module names a few hundred files at most
  void nesting(const std::string& what, int depth) const;

  void initial_value(Type type);

  void variable(Function* f, bool external);

  // ---- functions
  struct Scope {
    std::unordered_map<std::string, std::uint32_t> regs;
    struct Range {
      std::uint32_t first, count, slots;  // first slot, registers, slots per register
    };
    std::unordered_map<std::string, Range> ranges;  // %r<N>: prefix → its registers
    std::unordered_map<std::string, Variable> symbols;
    std::unordered_map<std::string, std::size_t> shared;  // name → index of Module::variables_
    int parent = -1;
  };

  void function(bool entry, bool external);

  void push_scope();

  // Statements until the matching '}'.
  void body(Function& f);

  // .reg .type name, name<N>, ...: one 64-bit slot per register, two for .b128. A function's slots
  // are at most kMaxRegisterSlots (compilers declare thousands; every thread holds them all): a
  // count past that wrapped the 32-bit total (fuzz_ptx_module, AddressSanitizer).
  static constexpr std::uint64_t kMaxRegisterSlots = std::uint64_t{1} << 20;
  void registers(Function& f);

  // .loc file line column [, function_name $L__info_stringN, inlined_at file line column]
  void location(Function& f);

  // ---- instructions
  std::optional<std::uint32_t> find_reg(const std::string& name) const;
  // The variable, and its index in Module::variables_ for shared ones (else npos).
  std::pair<const Variable*, std::size_t> find_symbol(const std::string& name) const;

  static void set_literal(Operand& o, const std::string& w, bool neg);

  // A name or number as an operand.
  Operand name_operand(std::size_t instr, std::size_t op_index, bool neg = false);

  // A variable's address: a shared one's is added when all are laid out.
  void symbol_value(Operand& o, const Variable& v, std::size_t index, std::size_t instr, std::size_t op_index);

  Operand operand(Function& f, Instruction& in);

  Operand vector(Function& f, Instruction& in);

  void instruction(Function& f);

  void resolve_labels(Function& f);

  struct PendingLabel {
    std::size_t instr, op;
    int scope;
    std::string name;
  };
  struct LocKey {
    std::uint32_t file, line, column;
    bool operator<(const LocKey& o) const {
      return std::tie(file, line, column) < std::tie(o.file, o.line, o.column);
    }
  };

  std::string_view text_;
  Module& m_;
  std::vector<Token> t_;
  std::size_t i_ = 0;
  std::map<std::string, std::string> strings_;
  std::vector<std::uint8_t> init_;
  std::vector<Scope> scopes_;
  std::vector<int> scope_parent_;
  int current_ = 0;
  std::map<std::pair<int, std::string>, std::uint32_t> labels_;
  std::vector<PendingLabel> pending_labels_;
  std::vector<std::string> declared_;
  std::map<LocKey, std::uint32_t> loc_index_;
  std::uint32_t current_loc_ = 0;
  std::vector<SharedUse> shared_uses_;
  std::vector<bool> predicate_slots_;  // of the function being read: the slots declared .pred
};

}  // namespace tcgen::ptx
