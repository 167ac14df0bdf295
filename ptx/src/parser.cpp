// The PTX reader: a small lexer (PTX is line-oriented and regular) and a
// parser without recursion (nesting is counted and bounded) for what nvcc emits: module directives, variables,
// .entry/.func with parameters, block-scoped .reg and labels (inline asm
// repeats both), .loc with inlined_at chains and the .debug_str section that
// names the inlined functions. Each instruction is decoded once (decode.hpp).
#include <cxxabi.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "decode.hpp"
#include "shared_layout.hpp"
#include "tcgen/core/error.hpp"
#include "tcgen/ptx/module.hpp"

namespace tcgen::ptx {

namespace {

std::string demangled_or(const char* mangled, const std::string& fallback) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
  if (status != 0 || !out) return fallback;
  std::string s(out);
  std::free(out);
  return s;
}

}  // namespace

std::string demangle_type(const std::type_info& type) { return demangled_or(type.name(), type.name()); }

std::string leading_name(const std::string& mangled) {
  if (!mangled.starts_with("_Z")) return {};
  const auto digit = [&](std::size_t at) { return at < mangled.size() && mangled[at] >= '0' && mangled[at] <= '9'; };
  const bool nested = mangled.size() > 2 && mangled[2] == 'N';  // <nested-name>, else <unscoped-name>
  std::string out;
  std::size_t at = nested ? 3 : 2;
  while (digit(at) && (nested || out.empty())) {  // <source-name> ::= <length> <identifier>
    std::size_t length = 0;
    for (; digit(at) && length <= mangled.size(); ++at) length = length * 10 + static_cast<std::size_t>(mangled[at] - '0');
    if (length == 0 || length > mangled.size() - at) return {};
    out += (out.empty() ? "" : "::") + mangled.substr(at, length);
    at += length;
  }
  return out.empty() ? out : out + (at < mangled.size() && mangled[at] == 'I' ? "<…>" : "");
}

std::string demangle(const std::string& name) {
  if (name.rfind("_Z", 0) != 0) return name;  // extern "C" names: "b" would demangle to "bool"
  return demangled_or(name.c_str(), name);
}

namespace {

struct Token {
  enum class Kind { word, string, punct, end } kind = Kind::end;
  std::string_view text;
  std::uint32_t line = 0;
  const char* begin = nullptr;  // in the source, for statement text
};

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         c == '%' || c == '.';
}

std::vector<Token> lex(std::string_view s, const std::string& file) {
  std::vector<Token> out;
  std::uint32_t line = 1;
  std::size_t i = 0;
  while (i < s.size()) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      i += 2;
      while (i + 1 < s.size() && !(s[i] == '*' && s[i + 1] == '/')) line += s[i++] == '\n';
      i += 2;
    } else if (c == '"') {
      const std::size_t start = ++i;
      while (i < s.size() && s[i] != '"') ++i;
      out.push_back({Token::Kind::string, s.substr(start, i - start), line, s.data() + start - 1});
      ++i;
    } else if (word_char(c)) {
      const std::size_t start = i;
      while (i < s.size() && (word_char(s[i]) || (s[i] == ':' && i + 1 < s.size() && s[i + 1] == ':'))) {
        if (s[i] == ':') ++i;
        ++i;
      }
      out.push_back({Token::Kind::word, s.substr(start, i - start), line, s.data() + start});
    } else if (std::strchr(",;{}[]()<>+-=@!|:", c)) {
      out.push_back({Token::Kind::punct, s.substr(i, 1), line, s.data() + i});
      ++i;
    } else {
      fail("PTX text", file + ":" + std::to_string(line) + ": character '" + std::string(1, c) + "'",
           "PTX: words, numbers, strings and the punctuation , ; { } [ ] ( ) < > + - = @ ! | :");
    }
  }
  out.push_back({Token::Kind::end, {}, line, s.data() + s.size()});
  return out;
}

std::optional<Special> special_register(std::string_view n) {
  static const std::unordered_map<std::string_view, Special> table = {
      {"%tid.x", Special::tid_x}, {"%tid.y", Special::tid_y}, {"%tid.z", Special::tid_z},
      {"%ntid.x", Special::ntid_x}, {"%ntid.y", Special::ntid_y}, {"%ntid.z", Special::ntid_z},
      {"%ctaid.x", Special::ctaid_x}, {"%ctaid.y", Special::ctaid_y}, {"%ctaid.z", Special::ctaid_z},
      {"%nctaid.x", Special::nctaid_x}, {"%nctaid.y", Special::nctaid_y}, {"%nctaid.z", Special::nctaid_z},
      {"%laneid", Special::laneid}, {"%warpid", Special::warpid}, {"%nwarpid", Special::nwarpid},
      {"%smid", Special::smid}, {"%nsmid", Special::nsmid}, {"%gridid", Special::gridid},
      {"%clock", Special::clock}, {"%clock64", Special::clock64}, {"%globaltimer", Special::globaltimer},
      {"%lanemask_eq", Special::lanemask_eq}, {"%lanemask_lt", Special::lanemask_lt},
      {"%lanemask_le", Special::lanemask_le}, {"%lanemask_gt", Special::lanemask_gt},
      {"%lanemask_ge", Special::lanemask_ge}, {"%cluster_ctarank", Special::cluster_ctarank},
      {"%cluster_nctarank", Special::cluster_nctarank}, {"%clusterid.x", Special::clusterid_x},
      {"%clusterid.y", Special::clusterid_y}, {"%clusterid.z", Special::clusterid_z},
      {"%nclusterid.x", Special::nclusterid_x}, {"%nclusterid.y", Special::nclusterid_y},
      {"%nclusterid.z", Special::nclusterid_z}, {"%cluster_ctaid.x", Special::cluster_ctaid_x},
      {"%cluster_ctaid.y", Special::cluster_ctaid_y}, {"%cluster_ctaid.z", Special::cluster_ctaid_z},
      {"%cluster_nctaid.x", Special::cluster_nctaid_x}, {"%cluster_nctaid.y", Special::cluster_nctaid_y},
      {"%cluster_nctaid.z", Special::cluster_nctaid_z}, {"%is_explicit_cluster", Special::is_explicit_cluster},
      {"%dynamic_smem_size", Special::dynamic_smem_size}, {"%total_smem_size", Special::total_smem_size},
  };
  const auto it = table.find(n);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }

}  // namespace

class Parser {
 public:
  Parser(std::string_view text, Module& m) : text_(text), m_(m), t_(lex(text, m.name_)) {}

  void run() {
    while (!at_end()) module_statement();
    lay_out_shared_memory(m_.variables_, m_.functions_, shared_uses_);
    // .loc names functions by labels of the .debug_str section, which nvcc writes last.
    for (Function& f : m_.functions_)
      for (Location& l : f.locations)
        if (const auto it = strings_.find(l.function); it != strings_.end()) l.function = demangle(it->second);
  }

 private:
  // ---- tokens
  const Token& peek(std::size_t k = 0) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
  bool at_end() const { return peek().kind == Token::Kind::end; }
  const Token& next() { return t_[i_ < t_.size() - 1 ? i_++ : i_]; }
  bool is(std::string_view s, std::size_t k = 0) const { return peek(k).text == s && peek(k).kind != Token::Kind::string; }
  bool accept(std::string_view s) {
    if (!is(s)) return false;
    ++i_;
    return true;
  }
  [[noreturn]] void error(const std::string& what, const std::string& expected) const {
    fail("PTX", m_.name_ + ":" + std::to_string(peek().line) + ": " + what, expected);
  }
  void expect(std::string_view s) {
    if (!accept(s)) error("'" + std::string(peek().text) + "'", "'" + std::string(s) + "'");
  }
  std::string_view word() {
    if (peek().kind != Token::Kind::word) error("'" + std::string(peek().text) + "'", "a name or number");
    return next().text;
  }
  std::uint64_t number() {
    const std::string w(word());
    char* end = nullptr;
    const std::uint64_t v = std::strtoull(w.c_str(), &end, 0);
    if (!end || (*end && *end != 'U')) error("'" + w + "'", "an integer");
    return v;
  }
  void skip_statement() {
    int depth = 0;
    while (!at_end()) {
      const Token& t = next();
      if (t.text == "{") ++depth;
      if (t.text == "}" && --depth <= 0) return;
      if (t.text == ";" && depth == 0) return;
    }
  }

  // ---- module level
  void module_statement() {
    const std::string_view w = peek().text;
    if (w == ".version") {
      next();
      m_.version_ = std::string(word());
    } else if (w == ".target") {
      next();
      m_.target_ = std::string(word());
      while (accept(",")) word();
    } else if (w == ".address_size") {
      next();
      if (number() != 64) error("a 32-bit address size", ".address_size 64");
    } else if (w == ".file") {
      next();
      const std::uint64_t n = number();
      // The index sizes the file table: a bound far above any module's file count (nvcc numbers them
      // from 1), or a damaged one, 2^64 - 1, wrapped the size to 0 (a fuzzed input) or asked for GiBs.
      if (n > kMaxFileIndex) error(".file " + std::to_string(n), "a file index of at most " + std::to_string(kMaxFileIndex));
      if (peek().kind != Token::Kind::string) error("'" + std::string(peek().text) + "'", "a file name in quotes");
      if (m_.files_.size() <= n) m_.files_.resize(n + 1);
      m_.files_[n] = std::string(next().text);
      while (accept(",")) word();
    } else if (w == ".section") {
      next();
      const std::string_view name = word();
      if (name == ".debug_str")
        debug_strings();
      else
        skip_statement();
    } else if (w == ".pragma") {
      skip_statement();
    } else if (w == ";") {
      next();
    } else {
      declaration();
    }
  }

  // $L__info_stringN: .b8 c, c, ... 0 — the names .loc's function_name refers to.
  void debug_strings() {
    expect("{");
    std::string label;
    while (!at_end() && !is("}")) {
      if (peek().kind == Token::Kind::word && is(":", 1)) {
        label = std::string(next().text);
        next();
        continue;
      }
      const std::string_view w = word();
      if (w == ".b8") {
        do {
          const std::uint64_t c = number();
          if (c != 0) strings_[label].push_back(static_cast<char>(c));
        } while (accept(","));
      }
    }
    expect("}");
  }

  void declaration() {
    bool external = false;
    while (is(".visible") || is(".extern") || is(".weak") || is(".common")) external |= next().text == ".extern";
    if (accept(".entry")) return function(true, external);
    if (accept(".func")) return function(false, external);
    if (is(".global") || is(".shared") || is(".const")) {
      variable(nullptr, external);
      expect(";");
      return;
    }
    error("'" + std::string(peek().text) + "'", "a directive, variable or function");
  }

  // .global/.shared/.const/.local [.align N] [.vN] .type name[dims] [= {init}]
  Variable var_spec(bool external) {
    Variable v;
    const std::string_view s = word();
    v.space = s == ".global" ? Space::global : s == ".shared" ? Space::shared : s == ".const" ? Space::const_ : s == ".local" ? Space::local : Space::param;
    v.external = external;
    std::uint32_t vec = 1;
    Type type = Type::b8;
    while (peek().kind == Token::Kind::word && peek().text[0] == '.') {
      const std::string_view a = next().text;
      if (a == ".align") v.align = static_cast<std::uint32_t>(number());
      else if (a == ".v2") vec = 2;
      else if (a == ".v4") vec = 4;
      else if (a == ".v8") vec = 8;
      else if (auto t = parse_type(a.substr(1))) type = *t;
      // .ptr, .global etc. on parameters: attributes without effect here
    }
    v.name = std::string(word());
    std::uint64_t count = vec;
    bool unsized = false;
    while (accept("[")) {
      if (accept("]")) {
        unsized = true;
        continue;
      }
      // Variable::bytes is 32-bit: a larger array would wrap, silently, to a smaller one.
      const std::uint64_t n = number();
      if (n != 0 && count > (std::uint64_t{1} << 32) / n) error("'" + v.name + "' array size", "at most 4 GiB");
      count *= n;
      expect("]");
    }
    const int size = size_of(type);
    if (count * static_cast<std::uint64_t>(size) > 0xFFFFFFFFu) error("'" + v.name + "' array size", "at most 4 GiB");
    v.bytes = static_cast<std::uint32_t>(count * static_cast<std::uint64_t>(size));
    v.align = std::max<std::uint32_t>(v.align, static_cast<std::uint32_t>(size * (vec > 1 ? vec : 1)) > 16 ? 16 : static_cast<std::uint32_t>(size * vec));
    if (v.align == 0) v.align = 1;
    if (unsized && !external) error("'" + v.name + "[]'", "an array size, or .extern for the dynamic shared memory");
    if (accept("=")) {
      init_.clear();
      initializer(type);
    }
    return v;
  }

  // {a, {b, c}, ...} or a scalar, read with a loop and a depth count instead of recursion: a file of
  // 200,000 nested braces overflowed the stack. The depth is bounded too, far above the
  // few levels a multi-dimensional array's initializer needs.
  void initializer(Type type) {
    int depth = 0;
    for (;;) {
      while (accept("{")) nesting("the initializer", ++depth);
      initial_value(type);
      for (;;) {  // after a value: the next one in this brace, or the brace's end
        if (depth == 0) return;
        if (accept(",")) break;
        expect("}");
        --depth;
      }
    }
  }

  // PTX nests nothing deeper than a handful of levels (nvcc's inline asm blocks, an array's dimensions).
  static constexpr int kMaxNesting = 1000;
  static constexpr std::uint64_t kMaxFileIndex = 65535;  // .file: a module names a few hundred files at most
  void nesting(const std::string& what, int depth) const {
    if (depth > kMaxNesting)
      error(what + " nests braces " + std::to_string(depth) + " deep",
            "at most " + std::to_string(kMaxNesting) + " levels of '{'");
  }

  void initial_value(Type type) {
    bool neg = accept("-");
    const std::string w(word());
    std::uint64_t bits = 0;
    if ((w.size() > 2 && (w[1] == 'f' || w[1] == 'F')) || (w.size() > 2 && (w[1] == 'd' || w[1] == 'D')))
      bits = std::strtoull(w.c_str() + 2, nullptr, 16);
    else
      bits = std::strtoull(w.c_str(), nullptr, 0);
    if (neg) bits = ~bits + 1;
    // A literal is 64 bits (PTX #constants): a .b128 variable's upper half is its sign, not bits >> 64
    // (undefined; a fuzzed input).
    const std::uint8_t extension = neg && bits != 0 ? 0xFF : 0;
    const int size = size_of(type);
    for (int b = 0; b < size; ++b) init_.push_back(b < 8 ? static_cast<std::uint8_t>(bits >> (8 * b)) : extension);
  }

  void variable(Function* f, bool external) {
    Variable v = var_spec(external);
    if (v.space == Space::global || v.space == Space::const_) {
      std::unique_ptr<std::uint8_t, Module::FreeBytes> bytes(static_cast<std::uint8_t*>(std::calloc(v.bytes + 16, 1)));
      if (!bytes) error("'" + v.name + "' storage", "its " + std::to_string(v.bytes) + " bytes in the host's memory");
      // No initializer leaves init_ empty, its data() possibly null: memcpy's arguments must not be.
      if (!init_.empty()) std::memcpy(bytes.get(), init_.data(), std::min<std::size_t>(init_.size(), v.bytes));
      v.address = reinterpret_cast<std::uint64_t>(bytes.get());
      m_.storage_.push_back(std::move(bytes));
    }
    init_.clear();
    if (v.space == Space::local) {
      if (!f) error(".local at module level", ".local variables inside a function");
      f->local_bytes = align_up(f->local_bytes, v.align);
      v.address = f->local_bytes;
      f->local_bytes += v.bytes;
    }
    if (v.space == Space::param && f) {  // a call site's argument or return value
      f->call_param_bytes = align_up(f->call_param_bytes, v.align);
      v.address = kCallParams + f->call_param_bytes;
      f->call_param_bytes += v.bytes;
    }
    if (f && v.space != Space::shared) {
      scopes_[current_].symbols[v.name] = v;
      return;
    }
    // Shared variables are laid out per kernel once all are known (lay_out_shared_memory).
    if (f) {
      scopes_[current_].shared[v.name] = m_.variables_.size();
      v.owner = static_cast<int>(m_.functions_.size());  // the index the function will have
    }
    m_.variables_.push_back(v);
  }

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

  void function(bool entry, bool external) {
    Function f;
    predicate_slots_.clear();
    f.entry = entry;
    f.line = peek().line;
    if (!entry && is("(")) {  // return parameters
      next();
      while (!accept(")")) {
        if (at_end()) error("the end of the file", "')' closing the return parameters of a .func");  // no loop at end
        next();
      }
    }
    f.name = std::string(word());
    f.demangled = demangle(f.name);
    scopes_.clear();
    scope_parent_.clear();
    labels_.clear();
    pending_labels_.clear();
    loc_index_.clear();
    push_scope();
    if (accept("(")) {
      while (!accept(")")) {
        if (accept(",")) continue;
        Variable v = var_spec(false);
        Param p{v.name, Type::b8, 0, v.bytes, v.align};
        f.param_bytes = align_up(f.param_bytes, p.align);
        p.offset = f.param_bytes;
        f.param_bytes += p.bytes;
        v.space = Space::param;
        v.address = p.offset;
        scopes_.back().symbols[v.name] = v;
        f.params.push_back(p);
      }
    }
    while (peek().kind == Token::Kind::word && peek().text[0] == '.' && !is(".entry") && !is(".func")) {
      std::string d(next().text);
      while (peek().kind == Token::Kind::word && peek().text[0] != '.') d.append(" ").append(next().text);
      while (accept(",")) d.append(", ").append(word());
      f.directives.push_back(d);
    }
    f.locations.push_back({});
    if (accept(";") || external) {  // a declaration: nothing to run
      if (!f.entry) declared_.push_back(f.name);
      return;
    }
    expect("{");
    body(f);
    resolve_labels(f);
    relax_polling_branches(f);
    attach_warp_forms(f);
    Instruction end;
    end.opcode = "exit";
    end.text = "(the end of " + f.name + ")";
    end.line = peek().line;
    std::string why;
    decode(end, why);
    f.code.push_back(std::move(end));
    m_.functions_.push_back(std::move(f));
  }

  void push_scope() {
    Scope s;
    s.parent = scopes_.empty() ? -1 : current_;
    scopes_.push_back(std::move(s));
    current_ = static_cast<int>(scopes_.size()) - 1;
    scope_parent_.push_back(scopes_.back().parent);
  }

  // Statements until the matching '}'.
  void body(Function& f) {
    int depth = 1;  // the function's own braces
    while (!at_end()) {
      if (accept("}")) {
        if (scopes_[current_].parent < 0) return;
        current_ = scopes_[current_].parent;
        --depth;
        continue;
      }
      if (accept("{")) {  // a nested block: bounded, as every name lookup walks its enclosing blocks
        nesting("a block in " + f.name, ++depth);
        push_scope();
        continue;
      }
      const std::string_view w = peek().text;
      if (w == ".reg") {
        next();
        registers(f);
      } else if (w == ".local" || w == ".shared" || w == ".param") {
        variable(&f, false);
        expect(";");
      } else if (w == ".loc") {
        next();
        location(f);
      } else if (w == ".pragma") {
        skip_statement();
      } else if (peek().kind == Token::Kind::word && is(":", 1)) {
        const std::string name(next().text);
        next();
        labels_[{current_, name}] = static_cast<std::uint32_t>(f.code.size());
      } else {
        instruction(f);
      }
    }
    error("the end of the file", "'}' closing " + f.name);
  }

  // .reg .type name, name<N>, ...: one 64-bit slot per register, two for .b128. A function's slots
  // are at most kMaxRegisterSlots (compilers declare thousands; every thread holds them all): a
  // count past that wrapped the 32-bit total (fuzz_ptx_module, AddressSanitizer).
  static constexpr std::uint64_t kMaxRegisterSlots = std::uint64_t{1} << 20;
  void registers(Function& f) {
    const std::string_view type = word();
    const std::uint32_t slots = type == ".b128" ? 2 : 1;
    const std::uint32_t first = f.registers;
    while (peek().kind == Token::Kind::word && peek().text[0] == '.') next();  // .v2 etc.
    do {
      const std::string name(word());
      if (accept("<")) {
        const std::uint64_t count = number();
        if (count > (kMaxRegisterSlots - f.registers) / slots)
          error(".reg " + name + "<" + std::to_string(count) + ">",
                "at most " + std::to_string(kMaxRegisterSlots) + " register slots in a function (a .b128 takes two)");
        const auto n = static_cast<std::uint32_t>(count);
        expect(">");
        scopes_[current_].ranges[name] = {f.registers, n, slots};
        f.register_names.push_back({name, f.registers, n, slots, true});
        f.registers += n * slots;
      } else {
        if (f.registers + slots > kMaxRegisterSlots)
          error(".reg " + name, "at most " + std::to_string(kMaxRegisterSlots) + " register slots in a function");
        scopes_[current_].regs[name] = f.registers;
        f.register_names.push_back({name, f.registers, 1, slots, false});
        f.registers += slots;
      }
    } while (accept(","));
    expect(";");
    predicate_slots_.resize(f.registers, false);
    if (type == ".pred") std::fill(predicate_slots_.begin() + first, predicate_slots_.end(), true);
  }

  // .loc file line column [, function_name $L__info_stringN, inlined_at file line column]
  void location(Function& f) {
    Location l;
    l.file = static_cast<std::uint32_t>(number());
    l.line = static_cast<std::uint32_t>(number());
    l.column = static_cast<std::uint32_t>(number());
    while (accept(",")) {
      const std::string_view key = word();
      if (key == "function_name") {
        l.function = std::string(word());  // a .debug_str label, named once the whole module is read
      } else if (key == "inlined_at") {
        const auto file = static_cast<std::uint32_t>(number()), line = static_cast<std::uint32_t>(number()),
                   column = static_cast<std::uint32_t>(number());
        const auto it = loc_index_.find({file, line, column});
        if (it != loc_index_.end()) {
          l.inlined_at = it->second;
        } else {
          f.locations.push_back({file, line, column, "", 0});
          l.inlined_at = static_cast<std::uint32_t>(f.locations.size() - 1);
        }
      }
    }
    f.locations.push_back(l);
    current_loc_ = static_cast<std::uint32_t>(f.locations.size() - 1);
    loc_index_[{l.file, l.line, l.column}] = current_loc_;
  }

  // ---- instructions
  std::optional<std::uint32_t> find_reg(const std::string& name) const {
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
  // The variable, and its index in Module::variables_ for shared ones (else npos).
  std::pair<const Variable*, std::size_t> find_symbol(const std::string& name) const {
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

  static void set_literal(Operand& o, const std::string& w, bool neg) {
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

  // A name or number as an operand.
  Operand name_operand(std::size_t instr, std::size_t op_index, bool neg = false) {
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

  // A variable's address: a shared one's is added when all are laid out.
  void symbol_value(Operand& o, const Variable& v, std::size_t index, std::size_t instr, std::size_t op_index) {
    if (v.space == Space::shared)
      shared_uses_.push_back({m_.functions_.size(), instr, op_index, index});
    else
      o.ival += static_cast<std::int64_t>(v.address);
    o.f = static_cast<float>(o.ival);
    o.d = static_cast<double>(o.ival);
  }

  Operand operand(Function& f, Instruction& in) {
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

  Operand vector(Function& f, Instruction& in) {
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

  void instruction(Function& f) {
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

  void resolve_labels(Function& f) {
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

// A NUL byte: PTX is text, so this is a binary file (a cubin, an object, /dev/zero), which the lexer must not see.
namespace {
[[noreturn]] void binary_data(const std::string& name, std::size_t offset) {
  fail("PTX", name + " (a NUL byte at offset " + std::to_string(offset) + ")",
       "PTX text (nvcc -ptx writes it); this is binary data");
}
}  // namespace

Module Module::parse(std::string_view text, std::string name) {
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) binary_data(name, nul);
  Module m;
  m.name_ = std::move(name);
  Parser(text, m).run();
  // Every PTX module starts with .version (PTX #ptx-module-directives-version); an empty file has none.
  if (m.version_.empty()) fail("PTX", m.name_, "PTX text starting with a .version directive; this has none");
  return m;
}

Module Module::load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("PTX file", path, "a readable file (nvcc -ptx -lineinfo writes one)");
  // Read in pieces, each checked, up to a bound: /dev/zero or a binary is refused at its first piece.
  constexpr std::size_t kMaxBytes = std::size_t{1} << 30;
  std::string text;
  std::vector<char> piece(std::size_t{1} << 16);
  while (in.read(piece.data(), static_cast<std::streamsize>(piece.size())) || in.gcount() > 0) {
    const auto got = static_cast<std::size_t>(in.gcount());
    if (text.empty() && got >= 4 && std::memcmp(piece.data(), "\x7f" "ELF", 4) == 0)
      fail("PTX file", path,
           "PTX text; this is an ELF file (a program, object or cubin): give its PTX, from nvcc -ptx or "
           "cuobjdump -ptx of the program");
    if (const void* nul = std::memchr(piece.data(), 0, got))
      binary_data(path, text.size() + static_cast<std::size_t>(static_cast<const char*>(nul) - piece.data()));
    if (text.size() + got > kMaxBytes)
      fail("PTX file", path, "a PTX file of at most 1 GiB (nvcc's largest are tens of MB); this one is larger");
    text.append(piece.data(), got);
  }
  return parse(text, path);
}

}  // namespace tcgen::ptx
