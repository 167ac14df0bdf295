// The PTX reader's module level: directives, variables and their initializers, functions, their
// registers and .loc lines (parser.hpp); and Module::parse and Module::load.
#include "parser.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "decode.hpp"
#include "tcgen/core/error.hpp"

namespace tcgen::ptx {

namespace {

std::uint32_t align_up(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }

}  // namespace

void Parser::run() {
  while (!at_end()) module_statement();
  lay_out_shared_memory(m_.variables_, m_.functions_, shared_uses_);
  // .loc names functions by labels of the .debug_str section, which nvcc writes last.
  for (Function& f : m_.functions_)
    for (Location& l : f.locations)
      if (const auto it = strings_.find(l.function); it != strings_.end()) l.function = demangle(it->second);
}

bool Parser::accept(std::string_view s) {
  if (!is(s)) return false;
  ++i_;
  return true;
}

void Parser::error(const std::string& what, const std::string& expected) const {
  fail("PTX", m_.name_ + ":" + std::to_string(peek().line) + ": " + what, expected);
}

void Parser::expect(std::string_view s) {
  if (!accept(s)) error("'" + std::string(peek().text) + "'", "'" + std::string(s) + "'");
}

std::string_view Parser::word() {
  if (peek().kind != Token::Kind::word) error("'" + std::string(peek().text) + "'", "a name or number");
  return next().text;
}

std::uint64_t Parser::number() {
  const std::string w(word());
  char* end = nullptr;
  const std::uint64_t v = std::strtoull(w.c_str(), &end, 0);
  if (!end || (*end && *end != 'U')) error("'" + w + "'", "an integer");
  return v;
}

void Parser::skip_statement() {
  int depth = 0;
  while (!at_end()) {
    const Token& t = next();
    if (t.text == "{") ++depth;
    if (t.text == "}" && --depth <= 0) return;
    if (t.text == ";" && depth == 0) return;
  }
}

void Parser::module_statement() {
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

void Parser::debug_strings() {
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

void Parser::declaration() {
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

Variable Parser::var_spec(bool external) {
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

void Parser::initializer(Type type) {
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

void Parser::nesting(const std::string& what, int depth) const {
  if (depth > kMaxNesting)
    error(what + " nests braces " + std::to_string(depth) + " deep",
          "at most " + std::to_string(kMaxNesting) + " levels of '{'");
}

void Parser::initial_value(Type type) {
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

void Parser::variable(Function* f, bool external) {
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

void Parser::function(bool entry, bool external) {
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

void Parser::push_scope() {
  Scope s;
  s.parent = scopes_.empty() ? -1 : current_;
  scopes_.push_back(std::move(s));
  current_ = static_cast<int>(scopes_.size()) - 1;
  scope_parent_.push_back(scopes_.back().parent);
}

void Parser::body(Function& f) {
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

void Parser::registers(Function& f) {
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

void Parser::location(Function& f) {
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
